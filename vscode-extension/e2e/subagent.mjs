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

/** Send the prompt and check the card: folded steps, keyboard toggling, the report. */
export async function checkSubagent(chat, input, shot) {
  await input.fill("How does greet work?");
  await input.press("Enter");
  await chat.locator(".msg.agent", { hasText: "It joins the strings." }).waitFor({ timeout: 30000 });
  await chat.locator("#progress").waitFor({ state: "hidden" });
  const card = chat.locator(".tool", { hasText: "Delegating to agent 'codebase_investigator'" });
  if ((await card.count()) !== 1) throw new Error(`expected one subagent card, found ${await card.count()}`);
  // The cards after the last user message (counting all cards raced the panel redrawing when it was reopened).
  const titles = await chat.locator("#transcript").evaluate((root) => {
    const users = root.querySelectorAll(".msg.user");
    const cards = [];
    for (let n = users[users.length - 1]?.nextElementSibling; n; n = n.nextElementSibling) {
      if (n.matches(".tool")) cards.push(n.querySelector(".tool-title")?.textContent ?? "");
    }
    return cards;
  });
  if (titles.length !== 1) throw new Error(`the turn has ${titles.length} tool cards, not one: ${JSON.stringify(titles)}`);
  const steps = card.locator("details.subagent-steps");
  const summary = steps.locator("summary");
  const said = (await summary.innerText()).trim();
  if (said !== "codebase_investigator: 2 steps") throw new Error(`the steps' summary reads ${JSON.stringify(said)}`);
  const hidden = steps.locator(".tool-output");
  if (await hidden.isVisible()) throw new Error("the steps are open before the user opens them");
  if (!(await card.locator("pre").last().innerText()).includes(`"SummaryOfFindings": "greet() joins`)) {
    throw new Error("the report is not shown as a code block under the steps");
  }
  // Keyboard: the summary takes focus (Tab order) and Enter opens it, Space closes it.
  await summary.focus();
  await summary.press("Enter");
  await hidden.waitFor({ state: "visible" });
  const shown = await hidden.innerText();
  if (!shown.includes("💭 Reading the source") || !shown.includes("🔧 read_file")) throw new Error(`steps: ${shown}`);
  await shot("vscode-panel-subagent.png", card);
  await summary.press("Space");
  await hidden.waitFor({ state: "hidden" });
  log("subagent ok: one card, its steps folded (closed), opened with Enter and closed with Space, the report below");
}
