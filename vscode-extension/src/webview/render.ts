// Pure HTML rendering of the chat state for the webview (markdown is passed in, so this runs in unit tests too).

import { escapeHtml } from "../html";
import { choices } from "../permissions";
import type { CommandInfo, PlanEntry } from "../protocol";
import type { ChangedFile } from "../changedFiles";
import type { Attachment } from "../composer";
import type { MentionCandidate } from "../mentions";
import type { ChatItem, ChatState, CompactionItem, PendingPermission } from "../state";
import { userMessageActions } from "./messageActions";
import { type Markdown, codicon, renderTool } from "./toolLine";


/** Copy and Retry under a response (a user message's bar, with Rewind, Edit and Fork: messageActions.ts). */
function messageActions(id: string, what: string, retry: boolean): string {
  const item = escapeHtml(id);
  const retryButton = retry
    ? `<button class="icon" data-retry="${item}" aria-label="Retry this ${what}" title="Retry: send the message it answered again">${codicon("refresh")}</button>`
    : "";
  return (
    `<div class="msg-actions" role="toolbar" aria-label="${what} actions">` +
    `<button class="icon" data-copy="${item}" aria-label="Copy this ${what}" title="Copy as markdown">${codicon("copy")}</button>${retryButton}</div>`
  );
}

/** A compression of the conversation: one line (what it saved) that opens to the summary the model now reads. */
function renderCompaction(item: CompactionItem, md: Markdown): string {
  const tokens =
    item.tokensBefore !== undefined && item.tokensAfter !== undefined
      ? `: ${item.tokensBefore.toLocaleString("en-US")} → ${item.tokensAfter.toLocaleString("en-US")} tokens`
      : "";
  const head =
    item.status === "in_progress"
      ? `${codicon("loading codicon-modifier-spin")}Compressing the conversation…`
      : item.status === "failed"
        ? `${codicon("error")}Compression failed${item.error ? `: ${escapeHtml(item.error)}` : ""}`
        : `${codicon("fold")}Compressed${tokens}`;
  const body = item.summary ? md(item.summary) : `<p class="muted">No summary.</p>`;
  return (
    `<details class="compaction status-${item.status}"><summary>${head}</summary>` +
    `<div class="compaction-body"><div class="compaction-note">The model now reads this summary instead of the earlier messages.</div>${body}</div></details>`
  );
}

export function renderItem(item: ChatItem, md: Markdown): string {
  switch (item.kind) {
    case "user": {
      const steered = item.steered ? `<div class="steered">${codicon("debug-step-into")}Sent into the running turn</div>` : "";
      return `<div class="msg user">${steered}${md(item.text)}${userMessageActions(item.id)}</div>`;
    }
    case "agent":
      return `<div class="msg agent">${md(item.text)}${messageActions(item.id, "response", true)}</div>`;
    case "thought":
      return (
        `<details class="thought"><summary>${codicon("lightbulb")}${escapeHtml(item.subject)}</summary>` +
        `<div class="thought-body">${md(item.text)}</div></details>`
      );
    case "tool":
      return renderTool(item, md, (child) => renderItem(child, md));
    case "notice":
      return `<div class="notice severity-${escapeHtml(item.severity)}">${codicon(NOTICE_ICON[item.severity] ?? "info")}<span>${escapeHtml(item.text)}</span></div>`;
    case "compaction":
      return renderCompaction(item, md);
  }
}

const NOTICE_ICON: Record<string, string> = { error: "error", warning: "warning", info: "info" };

const PLAN_ICON: Record<string, string> = { pending: "circle-large-outline", in_progress: "loading codicon-modifier-spin", completed: "pass-filled" };

export function renderPlan(plan: PlanEntry[]): string {
  if (plan.length === 0) {
    return "";
  }
  const rows = plan
    .map(
      (e) =>
        `<li class="plan-${e.status}">${codicon(PLAN_ICON[e.status] ?? "circle-large-outline", e.status.replace("_", " "))} ${escapeHtml(e.content)}</li>`,
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
  const { used, size, cost, stale } = state.usage;
  const left = Math.max(0, 100 - Math.round((used / size) * 100));
  const parts = stale
    ? ["tokens in context: counted again with the next answer"]
    : [`${used.toLocaleString("en-US")} tokens in context`, `${left}% of ${size.toLocaleString("en-US")} left`];
  if (cost !== undefined) {
    parts.push(`≈ ${costText(cost)} this chat`);
  }
  return parts.join(" · ");
}

export function serverBanner(state: ChatState): string {
  if (state.serverStatus === "failed" || (state.serverStatus === "stopped" && state.serverMessage)) {
    return (
      `<div class="banner error">${escapeHtml(state.serverMessage ?? "The agent server is not running.")} ` +
      `<button class="small" data-action="restartServer">${codicon("refresh")}Restart server</button></div>`
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
        ? `<button class="chip-remove icon" data-chip-remove="${escapeHtml(a.id)}" aria-label="Remove ${escapeHtml(a.label)}" title="Remove">${codicon("close")}</button>`
        : "";
      const thumb =
        a.block.type === "image" ? `<img class="thumb" alt="" src="data:${escapeHtml(a.block.mimeType)};base64,${escapeHtml(a.block.data)}">` : "";
      return (
        `<span class="chip kind-${a.kind}" title="${escapeHtml(a.detail ?? a.label)}">${thumb}` +
        `${codicon(CHIP_ICON[a.kind])}<span class="chip-label">${escapeHtml(a.label)}</span>${remove}</span>`
      );
    })
    .join("");
}

/** The codicon of each kind of attached context. */
const CHIP_ICON: Record<Attachment["kind"], string> = {
  file: "file",
  folder: "folder",
  symbol: "symbol-class",
  problems: "warning",
  selection: "selection",
  terminal: "terminal",
  url: "link",
  image: "file-media",
  resource: "server",
};

/** The messages waiting for the running turn: each can be edited (back into the composer), sent now, or removed. */
export function renderQueue(state: ChatState): string {
  if (state.queue.length === 0) {
    return "";
  }
  const head = state.queuePaused
    ? "Queued — paused because the turn was stopped or failed. Send one now, or remove it."
    : `Queued — sent when the current turn ends (${state.queue.length})`;
  const nowTitle = state.steering
    ? "Send this into the running turn now: the agent reads it at its next step"
    : "Stop the running turn and send this now";
  const rows = state.queue
    .map((q, i) => {
      const id = escapeHtml(q.id);
      const chips = q.draft.attachments.length > 0 ? `<span class="queued-chips">${renderChips(q.draft.attachments, false)}</span>` : "";
      return (
        `<li class="queued" data-queued="${id}"><span class="queued-text">${escapeHtml(preview(q.draft.text) || "(attachments only)")}</span>${chips}` +
        `<span class="queued-actions">` +
        `<button class="icon" data-queue-edit="${id}" aria-label="Edit queued message ${i + 1}" title="Edit (back into the box)">${codicon("edit")}</button>` +
        `<button class="small secondary" data-queue-now="${id}" aria-label="Send queued message ${i + 1} now" title="${escapeHtml(nowTitle)}">${codicon("debug-step-into")}Send now</button>` +
        `<button class="icon" data-queue-remove="${id}" aria-label="Remove queued message ${i + 1}" title="Remove">${codicon("close")}</button>` +
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
        `${codicon(CHIP_ICON[c.kind])}<span class="mention-label">${escapeHtml(c.label)}</span>` +
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
    `<span class="changes-actions"><button class="small secondary" data-changes="keepAll" title="Keep every change of the last turn (Ctrl+Alt+G K)">${codicon("check-all")}Keep all</button>` +
    `<button class="small secondary" data-changes="revertAll" title="Revert the last turn's changes; files changed since are kept and named (Ctrl+Alt+G R)">${codicon("discard")}Revert all</button></span>`;
  return `<div class="changes" role="region" aria-label="Files changed by the last turn"><div class="plan-title">Changed files (${changes.length})${actions}</div><ul>${rows}</ul></div>`;
}
