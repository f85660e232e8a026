// The bundled-server installer against a real Python: a tiny stand-in wheel of agent_lsp is installed into a
// private venv, reused while it matches, reinstalled when the bundled wheel changes, and refused on a version skew.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { type BootstrapEnv, NoPythonError, ensureServer, isSupported, noPythonMessage, parsePythonVersion, pickPython } from "../bootstrap";

const PYTHON = process.env.AGENT_TEST_PYTHON || "python3";

/** Writes agent_lsp_server-<version>-py3-none-any.whl whose `python -m agent_lsp --version` prints `agent-lsp <says>`. */
function makeWheel(dir: string, version: string, says: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const script = `
import sys, zipfile, hashlib, base64
out, version, says = sys.argv[1:4]
name = f"agent_lsp_server-{version}"
files = {
  "agent_lsp/__init__.py": "",
  "agent_lsp/__main__.py": f"import sys\\nif '--version' in sys.argv: print('agent-lsp {says}')\\n",
  f"{name}.dist-info/METADATA": f"Metadata-Version: 2.1\\nName: agent-lsp-server\\nVersion: {version}\\n",
  f"{name}.dist-info/WHEEL": "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
}
record = []
with zipfile.ZipFile(f"{out}/{name}-py3-none-any.whl", "w") as z:
    for path, text in files.items():
        data = text.encode()
        z.writestr(path, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{name}.dist-info/RECORD,,")
    z.writestr(f"{name}.dist-info/RECORD", "\\n".join(record) + "\\n")
`;
  execFileSync(PYTHON, ["-c", script, dir, version, says]);
  return path.join(dir, `agent_lsp_server-${version}-py3-none-any.whl`);
}

function env(tmp: string, reports: string[], overrides: Partial<BootstrapEnv> = {}): BootstrapEnv {
  return {
    extensionVersion: "9.9.9",
    wheelDir: path.join(tmp, "wheel"),
    storageDir: path.join(tmp, "storage"),
    pythonCandidates: () => Promise.resolve(["/nonexistent/python3", PYTHON]),
    report: (m) => reports.push(m),
    log: () => undefined,
    ...overrides,
  };
}

test("installs the bundled wheel into a private venv, reuses it, and reinstalls when the wheel changes", async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agent-bootstrap-"));
  try {
    makeWheel(path.join(tmp, "wheel"), "9.9.9", "9.9.9");
    const reports: string[] = [];
    const python = await ensureServer(env(tmp, reports));
    assert.equal(python, path.join(tmp, "storage", "server", "bin", "python"));
    assert.equal(execFileSync(python, ["-P", "-m", "agent_lsp", "--version"], { encoding: "utf8" }).trim(), "agent-lsp 9.9.9");
    assert.ok(reports.includes("creating its Python environment"), reports.join("|"));

    const again: string[] = [];
    assert.equal(await ensureServer(env(tmp, again)), python);
    assert.deepEqual(again, [], "an up-to-date server is not reinstalled");

    // A new build of the extension carries a different wheel of the same version: reinstalled.
    fs.rmSync(path.join(tmp, "wheel"), { recursive: true });
    makeWheel(path.join(tmp, "wheel"), "9.9.9", "9.9.9 (rebuilt)");
    const changed: string[] = [];
    await ensureServer(env(tmp, changed));
    assert.ok(changed.includes("installing the server and its dependencies"), changed.join("|"));
    assert.ok(!changed.includes("creating its Python environment"), "the venv is upgraded in place");

    // A server that reports another version than the extension is refused, and not marked as installed.
    fs.rmSync(path.join(tmp, "wheel"), { recursive: true });
    makeWheel(path.join(tmp, "wheel"), "9.9.9", "1.0.0");
    await assert.rejects(ensureServer(env(tmp, [])), /reports version 1\.0\.0, expected 9\.9\.9/);
    await assert.rejects(ensureServer(env(tmp, [])), /reports version 1\.0\.0/);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test("without a Python 3.11+ the error names what was tried and what to install", async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agent-bootstrap-"));
  try {
    makeWheel(path.join(tmp, "wheel"), "9.9.9", "9.9.9");
    const none = env(tmp, [], { pythonCandidates: () => Promise.resolve(["/nonexistent/python3"]) });
    await assert.rejects(ensureServer(none), (err: unknown) => {
      assert.ok(err instanceof NoPythonError);
      assert.match(err.message, /Python 3\.11 or newer.*tried: \/nonexistent\/python3.*Restart Server/s);
      return true;
    });
    await assert.rejects(pickPython([], () => undefined), /tried: nothing/);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  assert.deepEqual(parsePythonVersion("3.12\n"), [3, 12]);
  assert.equal(parsePythonVersion("Python was not found"), undefined);
  assert.ok(isSupported([3, 11]) && isSupported([4, 0]) && !isSupported([3, 10]));
  assert.match(noPythonMessage([], "linux"), /apt install python3 python3-venv/);
  assert.match(noPythonMessage([], "darwin"), /brew install/);
});

test("a build without a bundled wheel says how to get one", async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agent-bootstrap-"));
  try {
    await assert.rejects(ensureServer(env(tmp, [])), /no agent_lsp_server-\*\.whl.*make vsix/s);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
