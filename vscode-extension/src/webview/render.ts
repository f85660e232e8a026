// Pure HTML rendering of the chat state for the webview (markdown is passed in, so this runs in unit tests too).

import { escapeHtml } from "../html";
import { choices } from "../permissions";
import type { CommandInfo, DiffContent, PlanEntry, ToolContent } from "../protocol";
import type { ChangedFile } from "../changedFiles";
import type { Attachment } from "../composer";
import type { MentionCandidate } from "../mentions";
import type { ChatItem, ChatState, PendingPermission, ToolItem } from "../state";
import { renderSubagentBody } from "./subagent";
import { userMessageActions } from "./messageActions";

export type Markdown = (text: string) => string;


const STATUS_ICON: Record<string, string> = {
  pending: "○",
  in_progress: "◐",
  completed: "✓",
  failed: "✗",
};

const STATUS_LABEL: Record<string, string> = {
  pending: "pending",
  in_progress: "running",
  completed: "done",
  failed: "failed",
};

function lineCount(text: string | null): number {
  if (!text) {
    return 0;
  }
  return text.endsWith("\n") ? text.split("\n").length - 1 : text.split("\n").length;
}

export function diffSummary(diff: DiffContent): string {
  const before = lineCount(diff.oldText);
  const after = lineCount(diff.newText);
  const what = diff.oldText === null ? "new file" : `${before} → ${after} lines`;
  return `${diff.path.split(/[\\/]/).pop() ?? diff.path} (${what})`;
}

function renderContent(content: ToolContent, md: Markdown): string {
  if (content.type === "diff") {
    return `<div class="diff-summary" title="${escapeHtml(content.path)}">± ${escapeHtml(diffSummary(content))}</div>`;
  }
  return `<div class="tool-output">${md(content.content.text)}</div>`;
}

function renderTool(item: ToolItem, md: Markdown): string {
  const locations = item.locations
    .map((loc) => {
      const label = `${loc.path.split(/[\\/]/).pop() ?? loc.path}${loc.line !== undefined ? `:${loc.line}` : ""}`;
      const line = loc.line !== undefined ? ` data-line="${loc.line}"` : "";
      return `<a href="#" class="location" data-path="${escapeHtml(loc.path)}"${line} title="${escapeHtml(loc.path)}">${escapeHtml(label)}</a>`;
    })
    .join(" ");
  const body =
    item.subagent !== undefined
      ? renderSubagentBody(item.subagent, item.content, item.status === "in_progress", {
          md,
          escape: escapeHtml,
          content: (c) => renderContent(c, md),
        })
      : item.content.map((c) => renderContent(c, md)).join("");
  return (
    `<div class="tool status-${item.status}" data-kind="${escapeHtml(item.toolKind)}">` +
    `<div class="tool-head"><span class="tool-icon" aria-label="${STATUS_LABEL[item.status] ?? item.status}">` +
    `${STATUS_ICON[item.status] ?? "•"}</span><span class="tool-title">${escapeHtml(item.title)}</span>` +
    `<span class="tool-status">${STATUS_LABEL[item.status] ?? escapeHtml(item.status)}</span></div>` +
    (locations ? `<div class="locations">${locations}</div>` : "") +
    (body ? `<div class="tool-body">${body}</div>` : "") +
    `</div>`
  );
}

/** Copy and Retry under a response (a user message's bar, with Rewind, Edit and Fork: messageActions.ts). */
function messageActions(id: string, what: string, retry: boolean): string {
  const item = escapeHtml(id);
  const retryButton = retry
    ? `<button class="secondary" data-retry="${item}" aria-label="Retry this ${what}" title="Send the message it answered again">Retry</button>`
    : "";
  return (
    `<div class="msg-actions" role="toolbar" aria-label="${what} actions">` +
    `<button class="secondary" data-copy="${item}" aria-label="Copy this ${what}" title="Copy as markdown">Copy</button>${retryButton}</div>`
  );
}

export function renderItem(item: ChatItem, md: Markdown): string {
  switch (item.kind) {
    case "user":
      return `<div class="msg user">${md(item.text)}${userMessageActions(item.id)}</div>`;
    case "agent":
      return `<div class="msg agent">${md(item.text)}${messageActions(item.id, "response", true)}</div>`;
    case "thought":
      return (
        `<details class="thought"><summary>${escapeHtml(item.subject)}</summary>` +
        `<div class="thought-body">${md(item.text)}</div></details>`
      );
    case "tool":
      return renderTool(item, md);
    case "notice":
      return `<div class="notice severity-${escapeHtml(item.severity)}">${escapeHtml(item.text)}</div>`;
  }
}

const PLAN_ICON: Record<string, string> = { pending: "☐", in_progress: "◐", completed: "☑" };

export function renderPlan(plan: PlanEntry[]): string {
  if (plan.length === 0) {
    return "";
  }
  const rows = plan
    .map(
      (e) =>
        `<li class="plan-${e.status}"><span class="plan-box">${PLAN_ICON[e.status] ?? "☐"}</span> ${escapeHtml(e.content)}</li>`,
    )
    .join("");
  return `<div class="plan"><div class="plan-title">Plan</div><ul>${rows}</ul></div>`;
}

export function renderPermission(p: PendingPermission): string {
  const buttons = choices(p.options)
    .map(
      (c) =>
        `<button class="perm ${c.kind}" data-request="${escapeHtml(p.requestId)}" data-option="${escapeHtml(c.optionId)}" ` +
        `title="${escapeHtml(c.detail)}">${escapeHtml(c.label)}</button>`,
    )
    .join("");
  const review = p.hasDiff
    ? `<button class="review" data-review="${escapeHtml(p.requestId)}" title="Review the proposal in the file, hunk by hunk">Review diff</button>`
    : "";
  const status = p.status ? `<div class="perm-status">In review: ${escapeHtml(p.status)}</div>` : "";
  return (
    `<div class="permission" data-request="${escapeHtml(p.requestId)}"><div class="perm-title">${escapeHtml(p.title)}</div>` +
    `${status}<div class="perm-buttons">${buttons}${review}</div></div>`
  );
}

/** A cost as people read it: cents and below with four decimals, more with two ("$0.0046", "$1.25"). */
export function costText(cost: { amount: number; currency: string }): string {
  const digits = cost.amount < 1 ? 4 : 2;
  const amount = cost.amount.toFixed(digits);
  return cost.currency === "USD" ? `$${amount}` : `${amount} ${cost.currency}`;
}

/** The usage line: tokens in context, how much of the window is left, and the chat's estimated cost if known. */
export function usageText(state: ChatState): string {
  if (state.usage === undefined || state.usage.size <= 0) {
    return "";
  }
  const { used, size, cost } = state.usage;
  const left = Math.max(0, 100 - Math.round((used / size) * 100));
  const parts = [`${used.toLocaleString("en-US")} tokens in context`, `${left}% of ${size.toLocaleString("en-US")} left`];
  if (cost !== undefined) {
    parts.push(`≈ ${costText(cost)} this chat`);
  }
  return parts.join(" · ");
}

export function serverBanner(state: ChatState): string {
  if (state.serverStatus === "failed" || (state.serverStatus === "stopped" && state.serverMessage)) {
    return (
      `<div class="banner error">${escapeHtml(state.serverMessage ?? "The agent server is not running.")} ` +
      `<button data-action="restartServer">Restart server</button></div>`
    );
  }
  if (state.serverStatus === "starting") {
    return `<div class="banner">${escapeHtml(state.serverMessage ?? "Starting the agent server…")}</div>`;
  }
  return "";
}

/** Slash-command hints while the draft is "/word" (no space yet): name, input hint and description. */
export function renderCommandHints(draft: string, commands: CommandInfo[]): string {
  const match = /^\/(\S*)$/.exec(draft);
  if (match === null) {
    return "";
  }
  const rows = commands
    .filter((c) => c.name.startsWith(match[1]))
    .map(
      (c) =>
        `<li><a href="#" data-command="${escapeHtml(c.name)}"><b>/${escapeHtml(c.name)}</b>` +
        `${c.input ? ` <i>${escapeHtml(c.input.hint)}</i>` : ""}</a> ${escapeHtml(c.description)}</li>`,
    )
    .join("");
  return rows ? `<ul class="commands">${rows}</ul>` : "";
}

/** A short one-line preview of a queued message. */
function preview(text: string, max = 120): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The chips of attached context, each with a remove button (the composer's, or read-only in the queue). */
export function renderChips(attachments: Attachment[], removable: boolean): string {
  return attachments
    .map((a) => {
      const remove = removable
        ? `<button class="chip-remove" data-chip-remove="${escapeHtml(a.id)}" aria-label="Remove ${escapeHtml(a.label)}" title="Remove">×</button>`
        : "";
      const thumb =
        a.block.type === "image" ? `<img class="thumb" alt="" src="data:${escapeHtml(a.block.mimeType)};base64,${escapeHtml(a.block.data)}">` : "";
      return (
        `<span class="chip kind-${a.kind}" title="${escapeHtml(a.detail ?? a.label)}">${thumb}` +
        `<span class="chip-kind" aria-hidden="true">${CHIP_ICON[a.kind]}</span><span class="chip-label">${escapeHtml(a.label)}</span>${remove}</span>`
      );
    })
    .join("");
}

/** A short tag per kind, in letters every font has (emoji are missing in some, and say less to a screen reader). */
const CHIP_ICON: Record<Attachment["kind"], string> = {
  file: "FILE",
  folder: "DIR",
  symbol: "SYM",
  problems: "DIAG",
  selection: "SEL",
  terminal: "TERM",
  url: "URL",
  image: "IMG",
  resource: "MCP",
};

/** The messages waiting for the running turn: each can be edited (back into the composer), sent now, or removed. */
export function renderQueue(state: ChatState): string {
  if (state.queue.length === 0) {
    return "";
  }
  const head = state.queuePaused
    ? "Queued — paused because the turn was stopped or failed. Send one now, or remove it."
    : `Queued — sent when the current turn ends (${state.queue.length})`;
  const rows = state.queue
    .map((q, i) => {
      const id = escapeHtml(q.id);
      const chips = q.draft.attachments.length > 0 ? `<span class="queued-chips">${renderChips(q.draft.attachments, false)}</span>` : "";
      return (
        `<li class="queued" data-queued="${id}"><span class="queued-text">${escapeHtml(preview(q.draft.text) || "(attachments only)")}</span>${chips}` +
        `<span class="queued-actions">` +
        `<button class="secondary" data-queue-edit="${id}" aria-label="Edit queued message ${i + 1}" title="Edit (back into the box)">Edit</button>` +
        `<button data-queue-now="${id}" aria-label="Send queued message ${i + 1} now" title="Stop the running turn and send this now">Send now</button>` +
        `<button class="secondary" data-queue-remove="${id}" aria-label="Remove queued message ${i + 1}" title="Remove">×</button>` +
        `</span></li>`
      );
    })
    .join("");
  return `<div class="queue" role="region" aria-label="Queued messages"><div class="queue-head">${escapeHtml(head)}</div><ol>${rows}</ol></div>`;
}

/** The @ picker's rows (a listbox the composer's textarea points at with aria-activedescendant). */
export function renderMentionPicker(items: MentionCandidate[], active: number, searching: boolean): string {
  if (items.length === 0) {
    const empty = searching ? "Searching…" : "Nothing matches. Type a file name, a symbol, “problems”, “selection”, “terminal” or a URL.";
    return `<li class="mention-empty" role="presentation">${escapeHtml(empty)}</li>`;
  }
  return items
    .map(
      (c, i) =>
        `<li role="option" id="mention-${i}" class="mention${i === active ? " active" : ""}" aria-selected="${i === active}" data-mention="${i}">` +
        `<span class="chip-kind" aria-hidden="true">${CHIP_ICON[c.kind]}</span><span class="mention-label">${escapeHtml(c.label)}</span>` +
        (c.detail ? `<span class="mention-detail">${escapeHtml(c.detail)}</span>` : "") +
        `<span class="sr-only"> (${c.kind})</span></li>`,
    )
    .join("");
}

/** After a turn: the files it changed with +/- counts; each opens its diff (before the turn ↔ now). */
export function renderChanges(changes: ChangedFile[], relative: (path: string) => string = (p) => p): string {
  if (changes.length === 0) {
    return "";
  }
  const rows = changes
    .map((c) => {
      const name = relative(c.path);
      const what = `${c.created ? "new file, " : ""}${c.added} lines added, ${c.removed} removed`;
      return (
        `<li><a href="#" data-change="${escapeHtml(c.path)}" title="Open the diff (before the turn ↔ now)" aria-label="${escapeHtml(`${name}: ${what}. Open the diff`)}">` +
        `${escapeHtml(name)}</a> <span class="added">+${c.added}</span> <span class="removed">−${c.removed}</span>${c.created ? ' <span class="new">new</span>' : ""}</li>`
      );
    })
    .join("");
  const actions =
    `<span class="changes-actions"><button class="secondary" data-changes="keepAll" title="Keep every change of the last turn (Ctrl+Alt+K)">Keep all</button>` +
    `<button class="secondary" data-changes="revertAll" title="Revert the last turn's changes; files changed since are kept and named (Ctrl+Alt+Shift+K)">Revert all</button></span>`;
  return `<div class="changes" role="region" aria-label="Files changed by the last turn"><div class="plan-title">Changed files (${changes.length})${actions}</div><ul>${rows}</ul></div>`;
}
