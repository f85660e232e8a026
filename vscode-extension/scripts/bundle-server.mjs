// Puts the server's wheel (distribution agent-lsp-server) into server/, where the extension installs it from on first start (see src/bootstrap.ts).
//
// AGENT_LSP_WHEEL=<file.whl>: copy that wheel (the tests build one per session). Otherwise build it from the
// repository one folder up with `<python> -m pip wheel --no-deps`, python being AGENT_LSP_PYTHON or python3.
// The wheel's version must be the extension's: the extension checks the installed server against its own.

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const extensionDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const repo = path.dirname(extensionDir);
const out = path.join(extensionDir, "server");
const version = JSON.parse(fs.readFileSync(path.join(extensionDir, "package.json"), "utf8")).version;

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
const given = process.env.AGENT_LSP_WHEEL;
if (given) {
  fs.copyFileSync(given, path.join(out, path.basename(given)));
} else {
  const python = process.env.AGENT_LSP_PYTHON || "python3";
  const build = spawnSync(python, ["-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", out, repo], { stdio: "inherit" });
  if (build.status !== 0) {
    console.error(`building the agent-lsp wheel with ${python} failed (exit ${build.status ?? build.error})`);
    process.exit(1);
  }
}
const wheels = fs.readdirSync(out).filter((n) => n.endsWith(".whl"));
const expected = `agent_lsp_server-${version}-py3-none-any.whl`;
if (wheels.length !== 1 || wheels[0] !== expected) {
  console.error(`server/ should hold exactly ${expected} (the extension's version); it holds: ${wheels.join(", ") || "nothing"}`);
  process.exit(1);
}
console.log(`bundled ${path.join("server", expected)}`);
