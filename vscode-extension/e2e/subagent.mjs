// The subagent part of the panel e2e (panel.mjs runs it in its code-server): a subagent's call is one tool card
// whose steps fold under it, closed by default, opened and closed again from the keyboard, its report below.

import { log } from "./harness.mjs";

const REPORT = {
  SummaryOfFindings: "greet() joins 'Hello ' and the name.",
  ExplorationTrace: ["read app.py"],
  RelevantLocations: [{ FilePath: "app.py", Reasoning: "defines greet", KeySymbols: ["greet"] }],
};

const call = (name, args, thought) => ({
  method: "generateContentStream",
  response: [
    {
      candidates: [
        {
          content: {
            role: "model",
            parts: [
              ...(thought ? [{ text: `**${thought}**\n\nthinking about it`, thought: true }] : []),
              { functionCall: { name, id: `sub-${name}`, args } },
            ],
          },
          finishReason: "STOP",
        },
      ],
      usageMetadata: { promptTokenCount: 20, totalTokenCount: 23 },
    },
  ],
});

/** The replay model's lines for this part: the main model delegates, the subagent reads and reports. */
export function subagentScript(say) {
  return [
    call("invoke_agent", { agent_name: "codebase_investigator", prompt: "How does greet work?" }),
    call("read_file", { file_path: "app.py" }, "Reading the source"),
    call("complete_task", { report: REPORT }),
    say("It joins ", "the strings."),
  ];
}

/**
 * Send the prompt and check the call: one line ("Agent codebase_investigator"), closed, that opens to what the
 * subagent did — its own messages and calls nested under it (a server that forwards them with their origin), or its
 * steps folded in one block (an older server) — and its report below.
 */
export async function checkSubagent(chat, input, shot) {
  await input.fill("How does greet work?");
  await input.press("Enter");
  await chat.locator(".msg.agent", { hasText: "It joins the strings." }).waitFor({ timeout: 30000 });
  await chat.locator("#progress").waitFor({ state: "hidden" });
  // The calls after the last user message, at the top level (counting all raced the panel redrawing when reopened).
  const lines = await chat.locator("#transcript").evaluate((root) => {
    const users = root.querySelectorAll(":scope > .msg.user");
    const found = [];
    for (let n = users[users.length - 1]?.nextElementSibling; n; n = n.nextElementSibling) {
      if (n.matches(".tool")) found.push(n.querySelector(":scope > summary")?.textContent ?? "");
    }
    return found;
  });
  if (lines.length !== 1) throw new Error(`the turn has ${lines.length} top-level calls, not one: ${JSON.stringify(lines)}`);
  const card = chat.locator("#transcript > details.tool", { has: chat.locator(":scope > summary .tool-target", { hasText: "codebase_investigator" }) });
  const summary = card.locator(":scope > summary");
  const said = (await summary.innerText()).replace(/\s+/g, " ").trim();
  if (said !== "Agent codebase_investigator done") throw new Error(`the call's line reads ${JSON.stringify(said)}`);
  const body = card.locator(":scope > .tool-body");
  if (await body.isVisible()) throw new Error("the call is open before the user opens it");
  // Keyboard: the line takes focus and Enter opens it, Space closes it.
  await summary.focus();
  await summary.press("Enter");
  await body.waitFor({ state: "visible" });
  if (!(await body.locator("pre").last().innerText()).includes(`"SummaryOfFindings": "greet() joins`)) {
    throw new Error("the report is not shown as a code block in the call");
  }
  const nested = body.locator(".subagent-items > details.tool");
  if ((await nested.count()) > 0) {
    const read = (await nested.first().locator(":scope > summary").innerText()).replace(/\s+/g, " ").trim();
    if (!read.startsWith("Read app.py")) throw new Error(`the subagent's own call reads ${JSON.stringify(read)}`);
    await shot("vscode-panel-subagent.png", card);
    log("subagent ok: one line, closed; opened with Enter: the subagent's own read_file call nested under it, the report below");
  } else {
    const steps = body.locator("details.subagent-steps");
    await steps.locator("summary").click();
    const shown = await steps.locator(".tool-output").innerText();
    if (!shown.includes("💭 Reading the source") || !shown.includes("🔧 read_file")) throw new Error(`steps: ${shown}`);
    await shot("vscode-panel-subagent.png", card);
    log("subagent ok: one line, closed; opened with Enter: the subagent's steps folded in it, the report below");
  }
  await summary.press("Space");
  await body.waitFor({ state: "hidden" });
}
