// The bundled server: on first start, a private venv in the extension's global storage gets the wheel shipped inside
// the .vsix (the way the ruff and black extensions ship their tool): the extension and its server are one version.
// pip only fetches the wheel's dependencies.

import { execFile, spawn } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

export const MIN_PYTHON: readonly [number, number] = [3, 11];
const MARKER = "agent-lsp-install.json";
const LOCK_STALE_MS = 15 * 60 * 1000;

/** What the extension needs from the world to install the server; injected so unit tests can stand in for it. */
export interface BootstrapEnv {
  /** The extension's own version: the server in the venv must report the same. */
  extensionVersion: string;
  /** Folder holding the bundled `agent_lsp_server-<version>-py3-none-any.whl`. */
  wheelDir: string;
  /** The extension's global storage folder; the venv lives in `<storage>/server`. */
  storageDir: string;
  /** Interpreters to try, best first: the Python extension's selection (trusted workspaces only), then PATH. */
  pythonCandidates: () => Promise<string[]>;
  /** Progress for the person waiting (a notification and the panel's banner). */
  report: (message: string) => void;
  /** Full installer output, for the log. */
  log: (line: string) => void;
  platform?: NodeJS.Platform;
}

/** No interpreter to build the venv with: the message says exactly what to install. */
export class NoPythonError extends Error {}

export function venvPython(venv: string, platform: NodeJS.Platform = process.platform): string {
  return platform === "win32" ? path.join(venv, "Scripts", "python.exe") : path.join(venv, "bin", "python");
}

export function findWheel(dir: string): string | undefined {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return undefined;
  }
  const wheel = names.filter((n) => /^agent_lsp_server-[^-]+-py3-none-any\.whl$/.test(n)).sort().pop();
  return wheel === undefined ? undefined : path.join(dir, wheel);
}

/** `(3, 12)` from the output of the version probe, or undefined when it is not a usable interpreter's answer. */
export function parsePythonVersion(output: string): [number, number] | undefined {
  const match = /^(\d+)\.(\d+)\b/m.exec(output.trim());
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

export function isSupported(version: readonly [number, number]): boolean {
  return version[0] > MIN_PYTHON[0] || (version[0] === MIN_PYTHON[0] && version[1] >= MIN_PYTHON[1]);
}

export function noPythonMessage(tried: string[], platform: NodeJS.Platform = process.platform): string {
  const how =
    platform === "darwin"
      ? "install it from python.org or with `brew install python@3.12`"
      : platform === "win32"
        ? "install it from python.org or the Microsoft Store"
        : "install it with your package manager, e.g. `sudo apt install python3 python3-venv` (Debian/Ubuntu, needs 3.11+) or `sudo dnf install python3`";
  return (
    `The agent server needs Python ${MIN_PYTHON.join(".")} or newer to install itself, and none was found ` +
    `(tried: ${tried.length > 0 ? tried.join(", ") : "nothing"}). To fix it, ${how}, then run “Agent: Restart Server”; ` +
    "or select a newer interpreter with the Python extension, or set agentLsp.server.command to an agent-lsp you installed."
  );
}

export function fileSha256(file: string): string {
  return crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

interface Marker {
  wheel: string;
  sha256: string;
  version: string;
}

function readMarker(venv: string): Marker | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(venv, MARKER), "utf8")) as Marker;
  } catch {
    return undefined;
  }
}

function run(file: string, args: string[], timeoutMs: number): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: timeoutMs, windowsHide: true }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === "number" ? err.code : -1;
      resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}

/** Runs a long installer step, handing each output line to `onLine`; rejects with its tail when it fails. */
function stream(file: string, args: string[], onLine: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { windowsHide: true, env: { ...process.env, PIP_NO_INPUT: "1", PIP_DISABLE_PIP_VERSION_CHECK: "1" } });
    const tail: string[] = [];
    let pending = "";
    const onData = (chunk: Buffer): void => {
      pending += chunk.toString("utf8");
      const lines = pending.split(/\r?\n/);
      pending = lines.pop() ?? "";
      for (const line of lines) {
        tail.push(line);
        if (tail.length > 30) tail.shift();
        onLine(line);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", reject);
    child.on("close", (code) => {
      if (pending) onLine(pending);
      if (code === 0) resolve();
      else reject(new Error(`${path.basename(file)} ${args.slice(0, 3).join(" ")} exited with ${code}:\n${tail.join("\n")}`));
    });
  });
}

/** The first candidate that runs and is new enough, or a NoPythonError naming what was tried. */
export async function pickPython(candidates: string[], log: (line: string) => void): Promise<string> {
  const tried: string[] = [];
  for (const candidate of candidates) {
    const probe = await run(candidate, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], 15000);
    const version = probe.code === 0 ? parsePythonVersion(probe.out) : undefined;
    tried.push(version ? `${candidate} (${version.join(".")})` : candidate);
    if (version && isSupported(version)) {
      log(`Using ${candidate} (Python ${version.join(".")}) to create the server's environment`);
      return candidate;
    }
  }
  throw new NoPythonError(noPythonMessage(tried));
}

/** One installer at a time per storage folder, across windows: a lock directory, taken over when stale. */
async function withLock<T>(storage: string, body: () => Promise<T>): Promise<T> {
  const lock = path.join(storage, "install.lock");
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const stat = fs.statSync(lock, { throwIfNoEntry: false });
      if (stat === undefined) continue;
      if (Date.now() - stat.mtimeMs > LOCK_STALE_MS) {
        fs.rmSync(lock, { recursive: true, force: true });
        continue;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await body();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** The server's version as it reports it, or undefined when it does not run. */
async function installedVersion(python: string): Promise<string | undefined> {
  // -P: the working directory is never put on sys.path, so no folder named agent_lsp can stand in for the package.
  const probe = await run(python, ["-P", "-m", "agent_lsp", "--version"], 30000);
  const match = probe.code === 0 ? /^agent-lsp (\S+)/m.exec(probe.out) : null;
  return match?.[1];
}

/**
 * Makes sure `<storage>/server` holds the bundled wheel's server at the extension's version, installing or
 * reinstalling it when not, and returns the venv's Python.
 */
export async function ensureServer(env: BootstrapEnv): Promise<string> {
  const wheel = findWheel(env.wheelDir);
  if (wheel === undefined) {
    throw new Error(
      `This build of the extension carries no server wheel (${env.wheelDir} has no agent_lsp_server-*.whl). ` +
        "Build the .vsix with `make vsix`, or set agentLsp.server.command to an agent-lsp you installed.",
    );
  }
  fs.mkdirSync(env.storageDir, { recursive: true });
  const venv = path.join(env.storageDir, "server");
  const python = venvPython(venv, env.platform);
  const sha256 = fileSha256(wheel);
  const wanted: Marker = { wheel: path.basename(wheel), sha256, version: env.extensionVersion };
  const current = async (): Promise<boolean> => {
    const marker = readMarker(venv);
    if (marker?.sha256 !== sha256 || !fs.existsSync(python)) return false;
    const version = await installedVersion(python);
    if (version !== env.extensionVersion) {
      env.log(`The installed server reports ${version ?? "nothing"}; the extension is ${env.extensionVersion}: reinstalling`);
      return false;
    }
    return true;
  };
  if (await current()) {
    return python;
  }
  return withLock(env.storageDir, async () => {
    if (await current()) {
      return python; // another window installed it while this one waited
    }
    // An existing venv whose Python still runs is upgraded in place (only what changed is fetched); a missing
    // or broken one (its base interpreter gone) is created anew.
    const reusable = fs.existsSync(python) && (await run(python, ["-P", "-c", "import pip"], 30000)).code === 0;
    if (!reusable) {
      const base = await pickPython(await env.pythonCandidates(), env.log);
      env.report("creating its Python environment");
      fs.rmSync(venv, { recursive: true, force: true });
      await stream(base, ["-m", "venv", venv], env.log).catch((err: unknown) => {
        throw new NoPythonError(
          `${base} could not create a virtual environment (${String(err).split("\n")[0]}). ` +
            "On Debian/Ubuntu install the venv module: `sudo apt install python3-venv`; then run “Agent: Restart Server”.",
        );
      });
    }
    fs.rmSync(path.join(venv, MARKER), { force: true });
    env.report("installing the server and its dependencies");
    const pip = ["-P", "-m", "pip", "install", "--disable-pip-version-check", "--no-input"];
    const onLine = (line: string): void => {
      env.log(line);
      const collecting = /^Collecting (\S+)/.exec(line);
      if (collecting) env.report(`installing ${collecting[1]}`);
    };
    if (reusable) {
      // Same version, new build: pip would keep the installed copy unless told to replace it.
      await stream(python, [...pip, "--force-reinstall", "--no-deps", wheel], onLine);
    }
    await stream(python, [...pip, wheel], onLine);
    const version = await installedVersion(python);
    if (version !== env.extensionVersion) {
      throw new Error(`The installed server reports version ${version ?? "nothing"}, expected ${env.extensionVersion}.`);
    }
    fs.writeFileSync(path.join(venv, MARKER), JSON.stringify(wanted));
    env.log(`Installed agent-lsp ${version} into ${venv}`);
    return python;
  });
}
