// A tool call as one line (state, kind icon, verb, target, +/−) that opens to its details: where it looked, its
// output, its diff, a subagent's own messages and calls. Pure HTML, so it runs in unit tests too.

import { escapeHtml } from "../html";
import { lineHunks } from "../hunks";
import type { DiffContent, ToolContent } from "../protocol";
import type { ChatItem, ToolItem } from "../state";
import { renderSubagentBody } from "./subagent";

export type Markdown = (text: string) => string;

/** The codicon of each state: a spinner while it runs (aria text says it in words). */
const STATE: Record<string, { icon: string; words: string }> = {
  pending: { icon: "circle-large-outline", words: "waiting" },
  in_progress: { icon: "loading codicon-modifier-spin", words: "running" },
  completed: { icon: "check", words: "done" },
  failed: { icon: "error", words: "failed" },
};

/** The codicon and verb of each ACP tool kind. */
const KIND: Record<string, { icon: string; verb: string }> = {
  read: { icon: "file", verb: "Read" },
  edit: { icon: "edit", verb: "Edit" },
  delete: { icon: "trash", verb: "Delete" },
  move: { icon: "arrow-swap", verb: "Move" },
  search: { icon: "search", verb: "Search" },
  execute: { icon: "terminal", verb: "Run" },
  think: { icon: "lightbulb", verb: "Think" },
  fetch: { icon: "globe", verb: "Fetch" },
  other: { icon: "tools", verb: "" },
};

export const codicon = (name: string, label?: string): string =>
  `<span class="codicon codicon-${name}"${label ? ` role="img" aria-label="${escapeHtml(label)}"` : ' aria-hidden="true"'}></span>`;

const base = (path: string): string => path.split(/[\\/]/).pop() ?? path;

/** Lines added and removed by the call's diffs (the same line diff as the inline review). */
export function diffCounts(content: ToolContent[]): { added: number; removed: number } | undefined {
  const diffs = content.filter((c): c is DiffContent => c.type === "diff");
  if (diffs.length === 0) {
    return undefined;
  }
  let added = 0;
  let removed = 0;
  for (const d of diffs) {
    for (const h of lineHunks(d.oldText ?? "", d.newText)) {
      added += h.added.length;
      removed += h.removed.length;
    }
  }
  return { added, removed };
}

/** Verb and target: the kind's verb and the file when the call names one (its title otherwise says it all). */
export function verbAndTarget(item: ToolItem): { verb: string; target: string } {
  const kind = KIND[item.toolKind] ?? KIND.other;
  const path = item.locations[0]?.path ?? item.content.find((c): c is DiffContent => c.type === "diff")?.path;
  if (item.subagent !== undefined) {
    return { verb: "Agent", target: item.subagent };
  }
  if (path !== undefined && kind.verb && ["read", "edit", "delete", "move"].includes(item.toolKind)) {
    return { verb: kind.verb, target: base(path) };
  }
  return { verb: "", target: item.title };
}

function renderDiff(diff: DiffContent): string {
  const rows = lineHunks(diff.oldText ?? "", diff.newText).flatMap((h) => [
    `<span class="diff-hunk">@@ ${h.oldStart + 1} @@</span>`,
    ...h.removed.map((l) => `<span class="diff-del">-${escapeHtml(l.replace(/\n$/, ""))}</span>`),
    ...h.added.map((l) => `<span class="diff-add">+${escapeHtml(l.replace(/\n$/, ""))}</span>`),
  ]);
  const name = `${base(diff.path)}${diff.oldText === null ? " (new file)" : ""}`;
  return (
    `<div class="diff"><a href="#" class="diff-file" data-path="${escapeHtml(diff.path)}" title="${escapeHtml(diff.path)}">${escapeHtml(name)}</a>` +
    `<pre class="diff-lines">${rows.join("\n")}</pre></div>`
  );
}

export function renderContent(content: ToolContent, md: Markdown): string {
  return content.type === "diff" ? renderDiff(content) : `<div class="tool-output">${md(content.content.text)}</div>`;
}

/** One line per call, a <details> that opens to the rest; `renderChild` draws a subagent's nested items. */
export function renderTool(item: ToolItem, md: Markdown, renderChild: (child: ChatItem) => string): string {
  const state = STATE[item.status] ?? STATE.pending;
  const kind = item.subagent !== undefined ? { icon: "hubot" } : (KIND[item.toolKind] ?? KIND.other);
  const { verb, target } = verbAndTarget(item);
  const counts = diffCounts(item.content);
  const plusMinus = counts ? `<span class="added">+${counts.added}</span><span class="removed">−${counts.removed}</span>` : "";
  const locations = item.locations
    .filter((loc) => verb === "" || item.locations.length > 1 || loc.line !== undefined)
    .map((loc) => {
      const label = `${base(loc.path)}${loc.line !== undefined ? `:${loc.line}` : ""}`;
      const line = loc.line !== undefined ? ` data-line="${loc.line}"` : "";
      return `<a href="#" class="location" data-path="${escapeHtml(loc.path)}"${line} title="${escapeHtml(loc.path)}">${escapeHtml(label)}</a>`;
    })
    .join(" ");
  const nested = (item.children ?? []).map(renderChild).join("");
  const body =
    item.subagent !== undefined
      ? (nested ? `<div class="subagent-items">${nested}</div>` : "") +
        renderSubagentBody(item.subagent, item.content, item.status === "in_progress", { md, escape: escapeHtml, content: (c) => renderContent(c, md) })
      : item.content.map((c) => renderContent(c, md)).join("");
  const full = verb ? `${verb} ${target}` : target;
  const titleLine = verb && item.title !== full ? `<div class="tool-title-full">${escapeHtml(item.title)}</div>` : "";
  const inner = titleLine + (locations ? `<div class="locations">${locations}</div>` : "") + body;
  return (
    `<details class="tool status-${item.status}" data-kind="${escapeHtml(item.toolKind)}">` +
    `<summary class="tool-line" title="${escapeHtml(item.title)}">${codicon(state.icon, state.words)}${codicon(kind.icon)}` +
    `<span class="tool-verb">${escapeHtml(verb)}</span><span class="tool-target">${escapeHtml(target)}</span>${plusMinus}` +
    `<span class="tool-state">${escapeHtml(state.words)}</span></summary>` +
    (inner ? `<div class="tool-body">${inner}</div>` : `<div class="tool-body empty">No output.</div>`) +
    `</details>`
  );
}
