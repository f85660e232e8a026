// A subagent's tool call in the panel: its steps (the first content block, the server's live output) folded
// under the call, closed until the user opens them, and its report below them (docs/protocol.md, subagents).

import type { ToolContent } from "../protocol";

/** What the body is drawn with: the panel's markdown, escaping and content renderer (render.ts). */
export interface BodyParts {
  md: (text: string) => string;
  escape: (text: string) => string;
  content: (c: ToolContent) => string;
}

/** The step lines of a steps block (the server sends them fenced as code). */
export function stepLines(block: ToolContent | undefined): string[] {
  if (block === undefined || block.type !== "content") {
    return [];
  }
  const text = block.content.text.replace(/^```\n?/, "").replace(/\n?```$/, "");
  return text.split("\n").filter((line) => line.trim() !== "");
}

/** The body of a subagent's call: its steps in a closed <details> (a focusable summary: Enter or Space opens it),
 *  then the rest of its content. */
export function renderSubagentBody(agent: string, content: ToolContent[], running: boolean, parts: BodyParts): string {
  const { md, escape: escapeHtml } = parts;
  const [steps, ...rest] = content;
  const lines = stepLines(steps);
  const count = `${lines.length} step${lines.length === 1 ? "" : "s"}${running ? " so far" : ""}`;
  const latest = running && lines.length > 0 ? ` · ${escapeHtml(lines[lines.length - 1])}` : "";
  const folded =
    lines.length === 0
      ? ""
      : `<details class="subagent-steps" data-subagent="${escapeHtml(agent)}">` +
        `<summary aria-label="${escapeHtml(agent)}: ${count}">${escapeHtml(agent)}: ${count}${latest}</summary>` +
        `<div class="tool-output">${md(`\`\`\`\n${lines.join("\n")}\n\`\`\``)}</div></details>`;
  return folded + rest.map(parts.content).join("");
}

/** Steps the user opened stay open while the call re-renders with each new step. */
export function keepStepsOpen(old: Element, fresh: Element): void {
  const was = old.querySelector("details.subagent-steps");
  const now = fresh.querySelector("details.subagent-steps");
  if (was instanceof HTMLDetailsElement && now instanceof HTMLDetailsElement) {
    now.open = was.open;
  }
}
