// The chat webview page: draws state snapshots from the extension and posts the user's actions back.

import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import MarkdownIt from "markdown-it";
import type { Attachment } from "../composer";
import { imageAttachment, imageProblem, imagesRefused } from "../images";
import type { MentionCandidate } from "../mentions";
import type { ElicitResult } from "../elicitation";
import type { FromWebview, ToWebview } from "../messages";
import { isAutoKind, isAutoScope, renderAutoApprove } from "../autoApprove";
import { changedFiles, lastUserId } from "../changedFiles";
import { bindForms, drawForms } from "./mcpForm";
import type { ChatState } from "../state";
import { keepStepsOpen } from "./subagent";
import { installMessageActions } from "./messageActions";
import { escapeHtml } from "../html";
import {
  renderChips,
  renderChanges,
  renderCommandHints,
  renderItem,
  renderMentionPicker,
  renderPermission,
  renderPlan,
  renderQueue,
  serverBanner,
  usageText,
} from "./render";

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

const languages = { bash, c, cpp, css, diff, go, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, lang] of Object.entries(languages)) {
  hljs.registerLanguage(name, lang);
}
hljs.registerAliases(["sh", "zsh", "console"], { languageName: "bash" });
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["js", "jsx"], { languageName: "javascript" });
hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["yml"], { languageName: "yaml" });

const markdownIt: MarkdownIt = new MarkdownIt({
  html: false, // the model's text never becomes markup
  linkify: false,
  breaks: false,
  highlight(code: string, lang: string): string {
    if (lang && hljs.getLanguage(lang)) {
      const html = hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
      return `<pre class="hljs"><code class="language-${escapeHtml(lang)}">${html}</code></pre>`;
    }
    return `<pre class="hljs"><code>${escapeHtml(code)}</code></pre>`;
  },
});
const md = (text: string): string => markdownIt.render(text);

const vscode = acquireVsCodeApi();
const saved: Saved = vscode.getState() ?? { draft: "", scrollTop: 0, atBottom: true };

const app = document.getElementById("app") as HTMLElement;
app.innerHTML = `
<header class="toolbar">
  <button data-action="newChat" title="Start a new chat">+ New chat</button>
  <select id="sessions" title="Resume a saved chat" aria-label="Sessions"><option value="">History…</option></select>
  <select id="mode" title="Approval mode" aria-label="Approval mode"></select>
  <select id="model" title="Model" aria-label="Model"></select>
</header>
<div id="auto-approve"></div>
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
  <div id="progress" class="progress" hidden><span class="spinner" aria-hidden="true"></span><span id="progress-text"></span>
    <button id="stop" data-action="cancel" title="Stop the agent">Stop</button></div>
  <div id="hints"></div>
  <ul id="picker" class="picker" role="listbox" aria-label="Context to attach" hidden></ul>
  <div id="composer-note" class="composer-note" role="alert" hidden></div>
  <div id="chips" class="chips" aria-label="Attached context"></div>
  <div class="composer">
    <button id="mention" class="secondary" title="Attach context: files, folders, symbols, problems, selection, terminal, URL (type @)" aria-label="Attach context">@</button>
    <textarea id="input" rows="3" placeholder="Ask the agent… (@ attaches context, Enter sends, Shift+Enter for a new line)" aria-label="Prompt" aria-autocomplete="list" aria-controls="picker" aria-expanded="false"></textarea>
    <div class="composer-buttons">
      <button id="send" title="Send (Enter)">Send</button>
      <button id="send-now" class="secondary" title="Stop the running turn and send this now (Ctrl+Enter)" hidden>Send now</button>
    </div>
  </div>
  <div id="usage" class="usage"></div>
</footer>`;

const el = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const transcript = el<HTMLDivElement>("transcript");
const input = el<HTMLTextAreaElement>("input");
const sessions = el<HTMLSelectElement>("sessions");
const modeSelect = el<HTMLSelectElement>("mode");
const modelSelect = el<HTMLSelectElement>("model");
let state: ChatState | undefined;
const rendered = new Map<string, { sig: string; node: HTMLElement }>();

input.value = saved.draft;
/** The composer's chips: attached context that goes with the next message. */
let attachments: Attachment[] = saved.attachments ?? [];
function showChips(): void {
  el("chips").innerHTML = renderChips(attachments, true);
}
showChips();
function showHints(): void {
  el("hints").innerHTML = renderCommandHints(input.value, state?.commands ?? []);
}
function save(): void {
  const atBottom = transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 24;
  vscode.setState({ draft: input.value, attachments, scrollTop: transcript.scrollTop, atBottom, composerSeq: saved.composerSeq });
}

const drawRewind = installMessageActions(
  (message) => vscode.postMessage(message),
  el("rewind"),
  (text, seq, ifEmpty) => {
    saved.composerSeq = seq;
    if (ifEmpty && (input.value.trim() !== "" || attachments.length > 0)) {
      save();
      return; // a rewind keeps the user's draft
    }
    input.value = text;
    input.focus();
    input.setSelectionRange(text.length, text.length);
    save();
    showHints();
  },
  saved.composerSeq ?? 0,
);

/** A short message above the box (a refused image, a model without image input); empty hides it. */
function note(text: string): void {
  const box = el("composer-note");
  box.textContent = text;
  box.hidden = text === "";
}

// --- images: pasted or dropped files become chips with a thumbnail --------------------------------------
function addImages(files: File[]): void {
  for (const file of files) {
    const problem = imageProblem(file.name, file.type, file.size);
    if (problem !== undefined) {
      note(problem);
      continue;
    }
    const reader = new FileReader();
    reader.onload = () => {
      const data = String(reader.result).replace(/^data:[^,]*,/, "");
      attachments = [...attachments, imageAttachment(file.name, file.type, data, file.size)];
      showChips();
      save();
    };
    reader.readAsDataURL(file);
  }
}
input.addEventListener("paste", (event) => {
  const files = Array.from(event.clipboardData?.files ?? []);
  if (files.length > 0) {
    event.preventDefault(); // an image, not its name as text
    addImages(files);
  }
});
const composer = document.querySelector(".composer") as HTMLElement;
composer.addEventListener("dragover", (event) => {
  if (event.dataTransfer?.types.includes("Files")) {
    event.preventDefault();
    composer.classList.add("dropping");
  }
});
composer.addEventListener("dragleave", () => composer.classList.remove("dropping"));
composer.addEventListener("drop", (event) => {
  composer.classList.remove("dropping");
  const files = Array.from(event.dataTransfer?.files ?? []);
  if (files.length > 0) {
    event.preventDefault();
    addImages(files);
  }
});

/** Enter: sends the draft, or queues it while a turn runs; `now` (Ctrl+Enter, "Send now") stops the turn first. */
function send(now = false): void {
  const text = input.value.trim();
  if ((!text && attachments.length === 0) || state?.serverStatus !== "running") {
    return;
  }
  if (attachments.some((a) => a.kind === "image") && state.imageInput === false) {
    note(imagesRefused(state.currentModel));
    return;
  }
  note("");
  vscode.postMessage(now && state.busy ? { type: "sendNow", text, attachments } : { type: "send", text, attachments });
  input.value = "";
  attachments = [];
  showChips();
  save();
  showHints();
}

// --- the @ picker: typing @word asks the extension for rows; picking one turns it into a chip -------------
const picker = el<HTMLUListElement>("picker");
let mention: { start: number; query: string; seq: number; items: MentionCandidate[]; active: number; searching: boolean } | undefined;
let mentionSeq = 0;
let mentionTimer: ReturnType<typeof setTimeout> | undefined;

/** The "@query" the cursor stands at the end of, if any. */
function mentionAtCursor(): { start: number; query: string } | undefined {
  const before = input.value.slice(0, input.selectionStart ?? input.value.length);
  const match = /(^|\s)@([^\s@]*)$/.exec(before);
  return match ? { start: before.length - match[2].length - 1, query: match[2] } : undefined;
}

function drawPicker(): void {
  if (mention === undefined) {
    picker.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    return;
  }
  picker.innerHTML = renderMentionPicker(mention.items, mention.active, mention.searching);
  picker.hidden = false;
  input.setAttribute("aria-expanded", "true");
  if (mention.items.length > 0) {
    input.setAttribute("aria-activedescendant", `mention-${mention.active}`);
    picker.querySelector(".mention.active")?.scrollIntoView({ block: "nearest" });
  }
}

function updatePicker(): void {
  const at = mentionAtCursor();
  if (at === undefined) {
    mention = undefined;
    drawPicker();
    return;
  }
  mentionSeq += 1;
  mention = { ...at, seq: mentionSeq, items: mention?.items ?? [], active: 0, searching: true };
  drawPicker();
  const seq = mentionSeq;
  clearTimeout(mentionTimer);
  mentionTimer = setTimeout(() => vscode.postMessage({ type: "mentionQuery", query: at.query, seq }), 80);
}

function pickMention(index: number): void {
  const current = mention;
  const candidate = current?.items[index];
  if (current === undefined || candidate === undefined) {
    return;
  }
  const end = input.selectionStart ?? input.value.length;
  if (candidate.insert !== undefined) {
    // A resource template: its fixed part goes in the box and the picker asks again as the rest is typed.
    input.setRangeText(`@${candidate.insert}`, current.start, end, "end");
    updatePicker();
    return;
  }
  // The "@query" text goes; the chip stands for it.
  input.value = input.value.slice(0, current.start) + input.value.slice(end);
  input.setSelectionRange(current.start, current.start);
  mention = undefined;
  drawPicker();
  save();
  vscode.postMessage({ type: "mentionPick", candidate });
  input.focus();
}

picker.addEventListener("mousedown", (event) => {
  const row = (event.target as HTMLElement).closest<HTMLElement>("[data-mention]");
  if (row !== null) {
    event.preventDefault(); // keep the focus in the box
    pickMention(Number(row.dataset.mention));
  }
});
el("mention").addEventListener("click", () => {
  const at = input.selectionStart ?? input.value.length;
  const before = input.value.slice(0, at);
  const insert = before === "" || /\s$/.test(before) ? "@" : " @";
  input.setRangeText(insert, at, input.selectionEnd ?? at, "end");
  input.focus();
  updatePicker();
});
input.addEventListener("blur", () => {
  setTimeout(() => {
    if (document.activeElement !== input) {
      mention = undefined;
      drawPicker();
    }
  }, 150);
});

input.addEventListener("input", () => {
  save();
  showHints();
  updatePicker();
});
input.addEventListener("keydown", (event) => {
  if (mention !== undefined && !event.isComposing) {
    const count = mention.items.length;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (count > 0) {
        event.preventDefault();
        mention.active = (mention.active + (event.key === "ArrowDown" ? 1 : count - 1)) % count;
        drawPicker();
      }
      return;
    }
    if ((event.key === "Enter" || event.key === "Tab") && !event.shiftKey && count > 0) {
      event.preventDefault();
      pickMention(mention.active);
      return;
    }
    if (event.key === "Escape") {
      event.preventDefault();
      mention = undefined;
      drawPicker();
      return;
    }
  }
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send(event.ctrlKey || event.metaKey);
  }
});
el("send").addEventListener("click", () => send());
bindForms(el("forms"), (requestId, action, content) =>
  vscode.postMessage({ type: "elicit", requestId, result: { action, content } as ElicitResult }),
);
el("send-now").addEventListener("click", () => send(true));
transcript.addEventListener("scroll", save);
sessions.addEventListener("focus", () => vscode.postMessage({ type: "listSessions" }));
sessions.addEventListener("mousedown", () => vscode.postMessage({ type: "listSessions" }));
sessions.addEventListener("change", () => {
  if (sessions.value) {
    vscode.postMessage({ type: "loadSession", sessionId: sessions.value });
  }
});
modeSelect.addEventListener("change", () => vscode.postMessage({ type: "setMode", modeId: modeSelect.value }));
modelSelect.addEventListener("change", () => vscode.postMessage({ type: "setModel", modelId: modelSelect.value }));

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

document.addEventListener("click", (event) => {
  const target = (event.target as HTMLElement).closest<HTMLElement>(
    "[data-action],[data-option],[data-review],[data-path],[data-command],[data-change],[data-chip-remove],[data-queue-edit],[data-queue-now],[data-queue-remove],[data-copy],[data-retry]",
  );
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
    attachments = attachments.filter((a) => a.id !== chipRemove);
    note("");
    showChips();
    save();
    input.focus();
  } else if (queueEdit !== undefined) {
    // Back into the box to edit: it leaves the queue, and Enter queues (or sends) it again.
    const item = state?.queue.find((q) => q.id === queueEdit);
    if (item !== undefined) {
      input.value = item.draft.text;
      attachments = item.draft.attachments;
      showChips();
      save();
      vscode.postMessage({ type: "queueRemove", id: queueEdit });
      input.focus();
    }
  } else if (queueNow !== undefined) {
    vscode.postMessage({ type: "sendNow", id: queueNow });
  } else if (queueRemove !== undefined) {
    vscode.postMessage({ type: "queueRemove", id: queueRemove });
  } else if (command !== undefined) {
    input.value = `/${command} `;
    input.focus();
    save();
    showHints();
  } else if (action === "newChat" || action === "cancel" || action === "restartServer") {
    vscode.postMessage({ type: action });
  } else if (option !== undefined && request !== undefined) {
    vscode.postMessage({ type: "permission", requestId: request, optionId: option });
  } else if (review !== undefined) {
    vscode.postMessage({ type: "reviewDiff", requestId: review });
  } else if (path !== undefined) {
    vscode.postMessage({ type: "openLocation", path, line: line !== undefined ? Number(line) : undefined });
  }
});

/** A saved chat in the History list: its title, else when it was last used (never a bare id). */
function sessionLabel(s: { title?: string | null; updatedAt?: string | null }): string {
  if (s.title) {
    return s.title;
  }
  const when = s.updatedAt ? s.updatedAt.slice(0, 16).replace("T", " ") : "";
  return when ? `Untitled chat, ${when}` : "Untitled chat";
}

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

function draw(next: ChatState): void {
  const stick = transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 24;
  state = next;
  el("banner").innerHTML = serverBanner(next);
  el("title").textContent = next.title ?? "";
  fillSelect(
    modeSelect,
    next.modes.map((m) => ({ value: m.id, label: m.name, title: m.description })),
    next.currentMode,
  );
  fillSelect(
    modelSelect,
    next.models.map((m) => ({ value: m.modelId, label: m.name })),
    next.currentModel,
  );
  fillSelect(
    sessions,
    [
      { value: "", label: "History…" },
      ...next.sessions.map((s) => ({ value: s.sessionId, label: sessionLabel(s), title: s.updatedAt })),
    ],
    "",
  );

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
        // keep a thought the user opened open while it streams
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
        ? `<div class="empty">Ask the agent about this workspace. It proposes edits for you to review before they land.</div>`
        : "";
  } else {
    transcript.querySelector(".empty")?.remove();
  }

  el("plan").innerHTML = renderPlan(next.plan);
  const kept = next.changesKept !== undefined && next.changesKept === lastUserId(next);
  el("changes").innerHTML = next.busy || kept ? "" : renderChanges(changedFiles(next), relativeTo(next));
  el("auto-approve").innerHTML = renderAutoApprove(next.autoApprove);
  el("permissions").innerHTML = next.permissions.map(renderPermission).join("");
  drawForms(el("forms"), next.forms ?? []);
  const progress = el("progress");
  progress.hidden = !next.busy;
  el("progress-text").textContent = next.progress ?? "Working…";
  el("queue").innerHTML = renderQueue(next);
  drawRewind(next.rewind);
  const sendButton = el<HTMLButtonElement>("send");
  sendButton.disabled = next.serverStatus !== "running";
  // While a turn runs, Send queues the message and "Send now" interrupts the turn for it.
  sendButton.textContent = next.busy ? "Queue" : "Send";
  sendButton.title = next.busy ? "Queue this message; it is sent when the turn ends (Enter)" : "Send (Enter)";
  el("send-now").hidden = !next.busy;
  el("usage").textContent = usageText(next);
  el("usage").title = next.usage?.cost
    ? "Estimated from the model's published price per token (cached-token discounts not applied); settings model.prices overrides it."
    : "";
  if (stick) {
    transcript.scrollTop = transcript.scrollHeight;
  }
}

window.addEventListener("message", (event: MessageEvent<ToWebview>) => {
  if (event.data?.type === "mentionResults") {
    if (mention !== undefined && event.data.seq === mention.seq) {
      mention = { ...mention, items: event.data.items, active: 0, searching: false };
      drawPicker();
    }
    return;
  }
  if (event.data?.type === "focusComposer") {
    input.focus();
    if (event.data.picker) el("mention").click();
    return;
  }
  if (event.data?.type === "attach") {
    const added = event.data.attachment;
    if (!attachments.some((a) => a.kind === added.kind && JSON.stringify(a.block) === JSON.stringify(added.block))) {
      attachments = [...attachments, added];
      showChips();
      save();
    }
    return;
  }
  if (event.data?.type === "state") {
    const first = state === undefined;
    draw(event.data.state);
    if (first) {
      transcript.scrollTop = saved.atBottom ? transcript.scrollHeight : saved.scrollTop;
    }
  }
});
vscode.postMessage({ type: "ready" });
