// The page's side of the actions on the user's messages: the action bar (Copy, Rewind, Edit, Fork), the preview of
// what a rewind restores (a dialog asking to confirm) and the undo of the last rewind.

import type { FileChanges, RewindView } from "../rewindView";
import { previewSummary } from "../messageActions";
import type { FromWebview } from "../messages";
import { escapeHtml } from "../html";

/** The bar under a user message; every button says what it does to a screen reader. */
export function userMessageActions(id: string): string {
  const item = escapeHtml(id);
  const button = (action: string, label: string, aria: string, title: string) =>
    `<button class="secondary" data-msg-action="${action}" data-item="${item}" aria-label="${aria}" title="${title}">${label}</button>`;
  return (
    `<div class="msg-actions" role="toolbar" aria-label="message actions">` +
    `<button class="secondary" data-copy="${item}" aria-label="Copy this message" title="Copy as markdown">Copy</button>` +
    button("rewind", "Rewind", "Rewind to before this message", "Go back to before this message: files the agent changed since and the conversation (asks first)") +
    button("edit", "Edit", "Edit this message", "Rewind to before this message and put it in the box to change and send again (asks first)") +
    button("fork", "Fork", "Fork from this message", "A new chat with the conversation before this message, the message in the box") +
    `</div>`
  );
}

function list(title: string, paths: string[], cls: string): string {
  if (paths.length === 0) {
    return "";
  }
  const rows = paths.map((p) => `<li>${escapeHtml(p)}</li>`).join("");
  return `<div class="rewind-group ${cls}"><div class="rewind-group-title">${escapeHtml(title)}</div><ul>${rows}</ul></div>`;
}

function fileLists(p: FileChanges, done: boolean): string {
  return (
    list(done ? "Restored" : "Will be restored", p.restore, "restore") +
    list(done ? "Removed (the agent created them)" : "Will be removed (the agent created them)", p.delete, "delete") +
    list("Kept as you left them (you edited them since; not overwritten)", p.conflicts, "conflict")
  );
}

function firstLine(text: string, max = 80): string {
  const line = text.trim().split("\n")[0]?.replace(/\s+/g, " ") ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The preview dialog (confirm or cancel), else the last rewind with its Undo, else nothing. */
export function renderRewind(view: RewindView | undefined): string {
  const preview = view?.preview;
  if (preview !== undefined) {
    const edit = preview.action === "edit";
    const title = edit ? "Edit this message?" : "Rewind to before this message?";
    const what = edit
      ? "The conversation goes back to before it and the message is put in the box to change and send again."
      : "The conversation goes back to before it and the message is put in the box (a draft there stays).";
    return (
      `<div class="rewind-preview" role="alertdialog" aria-modal="false" aria-labelledby="rewind-title" aria-describedby="rewind-summary">` +
      `<div id="rewind-title" class="rewind-title">${escapeHtml(title)}</div>` +
      `<div class="rewind-message">“${escapeHtml(firstLine(preview.text))}”</div>` +
      `<div id="rewind-summary" class="rewind-summary">${escapeHtml(`${what} ${previewSummary(preview)}`)}</div>` +
      fileLists(preview, false) +
      `<div class="rewind-buttons"><button id="rewind-confirm" data-rewind="confirm">${edit ? "Rewind and edit" : "Rewind"}</button>` +
      `<button class="secondary" data-rewind="cancel" aria-label="Cancel (Escape)" title="Cancel (Escape)">Cancel</button></div></div>`
    );
  }
  const done = view?.done;
  if (done !== undefined) {
    const files = done.filesAvailable ? previewSummary(done) : "Files were not touched: checkpoints are off.";
    return (
      `<div class="rewind-done" role="status"><div class="rewind-title">Rewound to before “${escapeHtml(firstLine(done.text))}”. ${escapeHtml(files)}</div>` +
      fileLists(done, true) +
      `<div class="rewind-buttons"><button class="secondary" data-rewind="undo" title="Put back the files and the conversation (until the next message is sent)">Undo rewind</button></div></div>`
    );
  }
  return "";
}

/**
 * Wires the bar's and the dialog's buttons: `holder` is where renderRewind's HTML goes, `setDraft` puts text in
 * the composer (and keeps its seq, handed back as `seenSeq` when the page is drawn again). Returns the function that draws a new state's rewind view.
 */
export function installMessageActions(
  post: (message: FromWebview) => void,
  holder: HTMLElement,
  setDraft: (text: string, seq: number, ifEmpty: boolean) => void,
  seenSeq: number,
): (view: RewindView | undefined) => void {
  let opener: HTMLElement | undefined; // the button that asked: the keyboard goes back to it on Cancel
  document.addEventListener("click", (event) => {
    const target = (event.target as HTMLElement).closest<HTMLElement>("[data-msg-action],[data-rewind]");
    if (target === null) {
      return;
    }
    event.preventDefault();
    const { msgAction, item, rewind } = target.dataset;
    if ((msgAction === "rewind" || msgAction === "edit" || msgAction === "fork") && item !== undefined) {
      opener = target;
      post({ type: msgAction, itemId: item });
    } else if (rewind === "confirm") {
      post({ type: "rewindConfirm" });
    } else if (rewind === "cancel") {
      post({ type: "rewindCancel" });
    } else if (rewind === "undo") {
      post({ type: "rewindUndo" });
    }
  });
  holder.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && holder.querySelector(".rewind-preview") !== null) {
      event.preventDefault();
      post({ type: "rewindCancel" });
    }
  });
  let drawn = "";
  let composerSeq = seenSeq; // the page may be reloaded: text it already took is not put in again
  let asked: string | undefined;
  return (view) => {
    const html = renderRewind(view);
    if (html !== drawn) {
      const hadFocus = holder.contains(document.activeElement);
      holder.innerHTML = html;
      drawn = html;
      const key = view?.preview ? `${view.preview.itemId}:${view.preview.action}` : undefined;
      if (key !== undefined && key !== asked) {
        // A new question: the keyboard goes to its answer, as a dialog's would.
        holder.querySelector<HTMLButtonElement>("#rewind-confirm")?.focus();
        holder.scrollIntoView({ block: "nearest" });
      } else if (hadFocus) {
        // The dialog closed under the keyboard: to the Undo button after a rewind, else back where it was asked.
        const next = holder.querySelector<HTMLButtonElement>("button") ?? (opener?.isConnected ? opener : undefined);
        next?.focus();
      }
      asked = key;
    }
    const composer = view?.composer;
    if (composer !== undefined && composer.seq !== composerSeq) {
      composerSeq = composer.seq;
      setDraft(composer.text, composer.seq, composer.ifEmpty === true);
    }
  };
}
