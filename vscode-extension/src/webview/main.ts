// The chat webview page: draws state snapshots from the extension and posts the user's actions back. New chat,
// History and MCP live in the view's title bar (package.json, view/title); the composer holds everything else.

import type { Attachment } from "../composer";
import type { ElicitResult } from "../elicitation";
import { escapeHtml } from "../html";
import type { FromWebview, ToWebview } from "../messages";
import { isAutoKind, isAutoScope } from "../autoApprove";
import { changedFiles, lastUserId } from "../changedFiles";
import type { ChatState } from "../state";
import { autoSummary, renderAutoApprove } from "./autoApproveView";
import { Composer } from "./composerView";
import { md } from "./markdown";
import { bindForms, drawForms } from "./mcpForm";
import { installMessageActions } from "./messageActions";
import { renderChanges, renderItem, renderPermission, renderPlan, renderQueue, serverBanner, usageText } from "./render";
import { keepStepsOpen } from "./subagent";
import { codicon } from "./toolLine";

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): Saved | undefined;
  setState(state: Saved): void;
}
interface Saved {
  draft: string;
  attachments?: Attachment[];
  scrollTop: number;
  atBottom: boolean;
  /** The last text the extension put in the box (Edit, Fork), so a reloaded page does not put it in again. */
  composerSeq?: number;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const saved: Saved = vscode.getState() ?? { draft: "", scrollTop: 0, atBottom: true };

const app = document.getElementById("app") as HTMLElement;
app.innerHTML = `
<div id="banner"></div>
<div id="title" class="title"></div>
<div id="transcript" class="transcript" tabindex="0" aria-live="polite"></div>
<div id="plan"></div>
<div id="changes"></div>
<div id="permissions"></div>
<div id="rewind"></div>
<div id="forms"></div>
<div id="queue"></div>
<footer>
  <div id="progress" class="progress" hidden>${codicon("loading codicon-modifier-spin")}<span id="progress-text"></span></div>
  <div id="hints"></div>
  <ul id="picker" class="picker" role="listbox" aria-label="Context to attach" hidden></ul>
  <div id="composer-note" class="composer-note" role="alert" hidden></div>
  <div id="auto-popup" class="auto-popup" hidden></div>
  <div id="composer" class="composer">
    <div id="chips" class="chips" aria-label="Attached context" hidden></div>
    <textarea id="input" rows="2" placeholder="Ask the agent (@ adds context)" aria-label="Prompt (Enter sends, Shift+Enter a new line, @ adds context)" aria-autocomplete="list" aria-controls="picker" aria-expanded="false"></textarea>
    <div class="composer-bar">
      <button id="mention" class="icon" title="Add context: files, folders, symbols, problems, selection, terminal, URL (@)" aria-label="Add context">${codicon("mention")}</button>
      <button id="attach-image" class="icon" title="Attach an image (or paste or drop one)" aria-label="Attach an image">${codicon("file-media")}</button>
      <input id="image-file" type="file" accept="image/png,image/jpeg,image/gif,image/webp" multiple hidden>
      <span class="pickers">
        <label class="picker-field" title="Approval mode: what runs without asking"><span class="picker-label">Mode</span><select id="mode" aria-label="Approval mode"></select></label>
        <label class="picker-field" title="Model"><span class="picker-label">Model</span><select id="model" aria-label="Model"></select></label>
      </span>
      <span class="spacer"></span>
      <button id="send-now" class="icon" title="Send now: into the running turn (Ctrl+Enter)" aria-label="Send now" hidden>${codicon("debug-step-into")}</button>
      <button id="stop" class="icon primary" data-action="cancel" title="Stop the agent (Ctrl+Shift+Escape)" aria-label="Stop" hidden>${codicon("debug-stop")}</button>
      <button id="send" class="icon primary" title="Send (Enter)" aria-label="Send">${codicon("send")}</button>
    </div>
  </div>
  <div class="under-composer">
    <button id="auto-toggle" class="link-button" aria-expanded="false" aria-controls="auto-popup">${codicon("shield")}<span id="auto-summary">Auto-approve: off</span></button>
    <span id="usage" class="usage"></span>
  </div>
</footer>`;

const el = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const transcript = el<HTMLDivElement>("transcript");
const modeSelect = el<HTMLSelectElement>("mode");
const modelSelect = el<HTMLSelectElement>("model");
let state: ChatState | undefined;
const rendered = new Map<string, { sig: string; node: HTMLElement }>();

function save(): void {
  const atBottom = transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 24;
  const { value } = composer.input;
  vscode.setState({ draft: value, attachments: composer.attachments, scrollTop: transcript.scrollTop, atBottom, composerSeq: saved.composerSeq });
}
const composer = new Composer({ post: (m) => vscode.postMessage(m), state: () => state, save }, saved.draft, saved.attachments ?? []);

const drawRewind = installMessageActions(
  (message) => vscode.postMessage(message),
  el("rewind"),
  (text, seq, ifEmpty) => {
    saved.composerSeq = seq;
    if (ifEmpty && !composer.isEmpty()) {
      save();
      return; // a rewind keeps the user's draft
    }
    composer.setText(text);
  },
  saved.composerSeq ?? 0,
);

bindForms(el("forms"), (requestId, action, content) =>
  vscode.postMessage({ type: "elicit", requestId, result: { action, content } as ElicitResult }),
);
transcript.addEventListener("scroll", save);
modeSelect.addEventListener("change", () => vscode.postMessage({ type: "setMode", modeId: modeSelect.value }));
modelSelect.addEventListener("change", () => vscode.postMessage({ type: "setModel", modelId: modelSelect.value }));

// The auto-approve control opens its switches; Escape or a click elsewhere closes them.
const autoToggle = el<HTMLButtonElement>("auto-toggle");
const autoPopup = el("auto-popup");
function showAuto(open: boolean): void {
  autoPopup.hidden = !open;
  autoToggle.setAttribute("aria-expanded", String(open));
}
autoToggle.addEventListener("click", () => showAuto(autoPopup.hidden));
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && !autoPopup.hidden) {
    showAuto(false);
    autoToggle.focus();
  }
});
document.addEventListener("mousedown", (event) => {
  const target = event.target as HTMLElement;
  if (!autoPopup.hidden && !autoPopup.contains(target) && !autoToggle.contains(target)) showAuto(false);
});

// The auto-approve switches and the changed files' Keep all / Revert all (autoApprove.ts, panelActions.ts).
document.addEventListener("click", (event) => {
  const target = (event.target as HTMLElement).closest<HTMLElement>("[data-auto],[data-changes]");
  const { auto, scope, changes } = target?.dataset ?? {};
  if (auto !== undefined && isAutoKind(auto) && isAutoScope(scope)) {
    vscode.postMessage({ type: "autoApprove", kind: auto, scope });
  } else if (changes === "keepAll" || changes === "revertAll") {
    vscode.postMessage({ type: changes });
  }
});

const CLICKS =
  "[data-action],[data-option],[data-review],[data-path],[data-command],[data-change],[data-chip-remove],[data-queue-edit],[data-queue-now],[data-queue-remove],[data-copy],[data-retry]";

document.addEventListener("click", (event) => {
  const target = (event.target as HTMLElement).closest<HTMLElement>(CLICKS);
  if (target === null) {
    return;
  }
  event.preventDefault();
  const { action, option, request, review, path, line, command, chipRemove, queueEdit, queueNow, queueRemove, copy, retry, change } =
    target.dataset;
  if (change !== undefined) {
    vscode.postMessage({ type: "openChange", path: change });
  } else if (copy !== undefined) {
    vscode.postMessage({ type: "copy", itemId: copy });
  } else if (retry !== undefined) {
    vscode.postMessage({ type: "retry", itemId: retry });
  } else if (chipRemove !== undefined) {
    composer.removeChip(chipRemove);
  } else if (queueEdit !== undefined) {
    // Back into the box to edit: it leaves the queue, and Enter queues (or sends) it again.
    const item = state?.queue.find((q) => q.id === queueEdit);
    if (item !== undefined) {
      composer.setText(item.draft.text, item.draft.attachments);
      vscode.postMessage({ type: "queueRemove", id: queueEdit });
    }
  } else if (queueNow !== undefined) {
    vscode.postMessage({ type: "sendNow", id: queueNow });
  } else if (queueRemove !== undefined) {
    vscode.postMessage({ type: "queueRemove", id: queueRemove });
  } else if (command !== undefined) {
    composer.setText(`/${command} `);
  } else if (action === "cancel" || action === "restartServer") {
    vscode.postMessage({ type: action });
  } else if (option !== undefined && request !== undefined) {
    vscode.postMessage({ type: "permission", requestId: request, optionId: option });
  } else if (review !== undefined) {
    vscode.postMessage({ type: "reviewDiff", requestId: review });
  } else if (path !== undefined) {
    vscode.postMessage({ type: "openLocation", path, line: line !== undefined ? Number(line) : undefined });
  }
});

function fillSelect(select: HTMLSelectElement, options: { value: string; label: string; title?: string }[], current?: string): void {
  const sig = JSON.stringify([options, current]);
  if (select.dataset.sig === sig) {
    return;
  }
  select.dataset.sig = sig;
  select.innerHTML = options
    .map(
      (o) =>
        `<option value="${escapeHtml(o.value)}"${o.value === current ? " selected" : ""}${o.title ? ` title="${escapeHtml(o.title)}"` : ""}>${escapeHtml(o.label)}</option>`,
    )
    .join("");
  select.disabled = options.length === 0;
}

/** Paths as the user reads them: below the session's folder, relative to it. */
function relativeTo(next: ChatState): (path: string) => string {
  const cwd = next.cwd;
  return (p) => (cwd && p.startsWith(`${cwd}/`) ? p.slice(cwd.length + 1) : p);
}

/** The chat's title, only where it adds something: the server titles a chat by its first message, so it is shown
 * only when that message is not on screen (a chat a code action started, or one compressed before it was loaded). */
function titleLine(next: ChatState): string {
  return next.items.some((i) => i.kind === "user") ? "" : (next.title?.trim() ?? "");
}

function drawItems(next: ChatState): void {
  const seen = new Set<string>();
  let previous: HTMLElement | null = null;
  for (const item of next.items) {
    seen.add(item.id);
    const sig = JSON.stringify(item);
    let entry = rendered.get(item.id);
    if (entry === undefined || entry.sig !== sig) {
      const holder = document.createElement("div");
      holder.innerHTML = renderItem(item, md);
      const node = holder.firstElementChild as HTMLElement;
      node.dataset.id = item.id;
      if (entry !== undefined) {
        // an item the user opened stays open while it streams
        if (entry.node instanceof HTMLDetailsElement && node instanceof HTMLDetailsElement) {
          node.open = entry.node.open;
        }
        keepStepsOpen(entry.node, node);
        entry.node.replaceWith(node);
      }
      entry = { sig, node };
      rendered.set(item.id, entry);
    }
    const expected: ChildNode | null = previous === null ? transcript.firstChild : previous.nextSibling;
    if (expected !== entry.node) {
      transcript.insertBefore(entry.node, expected);
    }
    previous = entry.node;
  }
  for (const [id, entry] of rendered) {
    if (!seen.has(id)) {
      entry.node.remove();
      rendered.delete(id);
    }
  }
  if (next.items.length === 0) {
    transcript.innerHTML =
      next.serverStatus === "running"
        ? `<div class="empty">${codicon("comment-discussion")}<p>Ask the agent about this workspace. It proposes edits for you to review before they land.</p><p class="muted">@ adds files, symbols and problems; / lists commands.</p></div>`
        : "";
  } else {
    transcript.querySelector(".empty")?.remove();
  }
}

/** Send while idle; Stop in its place while a turn runs (Enter then queues; "Send now" goes into the turn). */
function drawButtons(next: ChatState): void {
  const busy = next.busy;
  const send = el<HTMLButtonElement>("send");
  send.disabled = next.serverStatus !== "running";
  send.hidden = busy;
  el("stop").hidden = !busy;
  el("send-now").hidden = !busy;
  el("send-now").title = next.steering
    ? "Send now: the agent reads it at its next step, without stopping (Ctrl+Enter)"
    : "Send now: stop the running turn and send this (Ctrl+Enter)";
  composer.input.placeholder = busy ? "Queue a message" : "Ask the agent (@ adds context)";
}

function draw(next: ChatState): void {
  const stick = transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 24;
  state = next;
  el("banner").innerHTML = serverBanner(next);
  el("title").textContent = titleLine(next);
  fillSelect(modeSelect, next.modes.map((m) => ({ value: m.id, label: m.name, title: m.description })), next.currentMode);
  fillSelect(modelSelect, next.models.map((m) => ({ value: m.modelId, label: m.name })), next.currentModel);
  drawItems(next);
  el("plan").innerHTML = renderPlan(next.plan);
  const kept = next.changesKept !== undefined && next.changesKept === lastUserId(next);
  el("changes").innerHTML = next.busy || kept ? "" : renderChanges(changedFiles(next), relativeTo(next));
  const summary = autoSummary(next.autoApprove);
  el("auto-summary").textContent = summary.text;
  autoToggle.title = summary.title;
  autoPopup.innerHTML = renderAutoApprove(next.autoApprove);
  el("permissions").innerHTML = next.permissions.map(renderPermission).join("");
  drawForms(el("forms"), next.forms ?? []);
  el("progress").hidden = !next.busy;
  el("progress-text").textContent = next.progress ?? "Working…";
  el("queue").innerHTML = renderQueue(next);
  drawRewind(next.rewind);
  drawButtons(next);
  el("usage").textContent = usageText(next);
  el("usage").title = next.usage?.cost
    ? "Estimated from the model's published price per token (cached-token discounts not applied); settings model.prices overrides it."
    : "";
  if (stick) {
    transcript.scrollTop = transcript.scrollHeight;
  }
}

window.addEventListener("message", (event: MessageEvent<ToWebview>) => {
  const data = event.data;
  if (data?.type === "mentionResults") {
    composer.picker.results(data.seq, data.items);
  } else if (data?.type === "focusComposer") {
    composer.input.focus();
    if (data.picker) composer.picker.start();
  } else if (data?.type === "attach") {
    composer.attach(data.attachment);
  } else if (data?.type === "state") {
    const first = state === undefined;
    draw(data.state);
    if (first) {
      transcript.scrollTop = saved.atBottom ? transcript.scrollHeight : saved.scrollTop;
    }
  }
});
vscode.postMessage({ type: "ready" });
