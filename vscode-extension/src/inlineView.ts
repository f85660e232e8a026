// The inline review drawn with the vscode API: decorations for the hunks, CodeLens to decide, commands and keys.

import * as vscode from "vscode";
import { PROPOSAL_SCHEME, type DiffReview } from "./diffReview";
import type { Host } from "./host";
import { anchorLine, hunkKey, summary, type Hunk } from "./hunks";
import { InlineReview, type InlineState, type InlineView } from "./inlineReview";
import type { PermissionBroker } from "./permissions";

const PREVIEW = 80;

function firstLine(lines: string[]): string {
  const text = (lines.find((l) => l.trim() !== "") ?? "").trim();
  return text.length > PREVIEW ? `${text.slice(0, PREVIEW - 1)}…` : text;
}

function more(lines: string[]): string {
  return lines.length > 1 ? `  (+${lines.length - 1} more line${lines.length > 2 ? "s" : ""})` : "";
}

/** The hunk as a small unified diff, for the hover. */
function hunkMarkdown(h: Hunk, state: string): vscode.MarkdownString {
  const body = [...h.removed.map((l) => `-${l}`), ...h.added.map((l) => `+${l}`)]
    .map((l) => (l.endsWith("\n") ? l : `${l}\n`))
    .join("");
  const md = new vscode.MarkdownString(`**Agent's proposed change** (${state})\n\n\`\`\`diff\n${body}\`\`\``);
  md.isTrusted = false;
  return md;
}

class VscodeInlineView implements InlineView {
  readonly states = new Map<string, InlineState>(); // by file URI
  private readonly removed = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor("diffEditor.removedLineBackground"),
    textDecoration: "line-through",
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.deletedForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly added = vscode.window.createTextEditorDecorationType({
    after: {
      color: new vscode.ThemeColor("gitDecoration.addedResourceForeground"),
      backgroundColor: new vscode.ThemeColor("diffEditor.insertedTextBackground"),
      margin: "0 0 0 2em",
    },
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.addedForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly decided = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    after: { color: new vscode.ThemeColor("descriptionForeground"), margin: "0 0 0 2em", fontStyle: "italic" },
  });
  readonly lensChanged = new vscode.EventEmitter<void>();

  async show(state: InlineState, line?: number): Promise<void> {
    this.states.set(state.fileUri, state);
    const uri = vscode.Uri.parse(state.fileUri);
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: false });
    this.draw(editor, state);
    this.lensChanged.fire();
    if (line !== undefined) {
      const at = new vscode.Position(Math.min(line, doc.lineCount - 1), 0);
      editor.selection = new vscode.Selection(at, at);
      editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }
  }

  clear(state: InlineState): void {
    if (this.states.get(state.fileUri) === state) {
      this.states.delete(state.fileUri);
    }
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.toString() === state.fileUri) {
        this.draw(editor, undefined);
      }
    }
    this.lensChanged.fire();
  }

  redraw(state: InlineState): void {
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.toString() === state.fileUri) {
        this.draw(editor, state);
      }
    }
    this.lensChanged.fire();
  }

  cursor(): { uri: string; line: number } | undefined {
    const editor = vscode.window.activeTextEditor;
    return editor === undefined
      ? undefined
      : { uri: editor.document.uri.toString(), line: editor.selection.active.line };
  }

  /** Redraws every visible editor (they come and go as tabs switch). */
  redrawAll(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      this.draw(editor, this.states.get(editor.document.uri.toString()));
    }
  }

  private draw(editor: vscode.TextEditor, state: InlineState | undefined): void {
    const removed: vscode.DecorationOptions[] = [];
    const added: vscode.DecorationOptions[] = [];
    const decided: vscode.DecorationOptions[] = [];
    const last = editor.document.lineCount - 1;
    for (const h of state?.hunks ?? []) {
      const decision = state?.decisions.get(hunkKey(h));
      const anchor = Math.min(anchorLine(h), last);
      if (decision !== undefined) {
        const taken = h.added.length === 0 ? "delete" : `⟶ ${firstLine(h.added)}${more(h.added)}`;
        const text = decision === "accepted" ? `✓ accepted, will become: ${taken}` : "✗ rejected: stays as it is";
        decided.push({ range: new vscode.Range(anchor, 0, anchor, 0), renderOptions: { after: { contentText: text } } });
        continue;
      }
      const hover = hunkMarkdown(h, "open");
      for (let l = h.oldStart; l < h.oldEnd && l <= last; l++) {
        removed.push({ range: new vscode.Range(l, 0, l, 0), hoverMessage: hover });
      }
      // The proposed lines follow the last line they replace (or the line an insertion comes after).
      const at = Math.min(h.oldEnd > h.oldStart ? h.oldEnd - 1 : anchor, last);
      const end = editor.document.lineAt(at).range.end;
      const contentText =
        h.added.length === 0 ? "⟵ delete" : `${h.oldStart === 0 && h.oldEnd === 0 ? "⟵ insert above: " : "⟶ "}${firstLine(h.added)}${more(h.added)}`;
      added.push({ range: new vscode.Range(end, end), hoverMessage: hover, renderOptions: { after: { contentText } } });
    }
    editor.setDecorations(this.removed, removed);
    editor.setDecorations(this.added, added);
    editor.setDecorations(this.decided, decided);
  }
}

/** CodeLens over a reviewed file: the whole edit's choices on top, Accept / Reject above each open hunk. */
class InlineLenses implements vscode.CodeLensProvider {
  constructor(private readonly view: VscodeInlineView) {}

  get onDidChangeCodeLenses(): vscode.Event<void> {
    return this.view.lensChanged.event;
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const state = this.view.states.get(document.uri.toString());
    if (state === undefined) {
      return [];
    }
    const id = state.requestId;
    const top = new vscode.Range(0, 0, 0, 0);
    const open = state.hunks.filter((h) => !state.decisions.has(hunkKey(h))).length;
    const all = open === state.hunks.length;
    const lenses = [
      new vscode.CodeLens(top, { title: `Agent's proposed edit: ${summary(state.hunks, state.decisions)}`, command: "" }),
      new vscode.CodeLens(top, {
        title: all ? "$(check-all) Accept All" : `$(check-all) Accept Remaining (${open})`,
        command: "agentLsp.review.acceptAll",
        arguments: [id],
      }),
      new vscode.CodeLens(top, {
        title: all ? "$(close-all) Reject All" : `$(close-all) Reject Remaining (${open})`,
        command: "agentLsp.review.rejectAll",
        arguments: [id],
      }),
      new vscode.CodeLens(top, { title: "$(diff) Open Side-by-Side", command: "agentLsp.review.sideBySide", arguments: [id] }),
    ];
    state.hunks.forEach((h, i) => {
      const line = new vscode.Range(anchorLine(h), 0, anchorLine(h), 0);
      const key = hunkKey(h);
      const decision = state.decisions.get(key);
      const name = `Hunk ${i + 1}/${state.hunks.length}`;
      if (decision === undefined) {
        lenses.push(
          new vscode.CodeLens(line, { title: `$(check) Accept ${name}`, command: "agentLsp.review.acceptHunk", arguments: [id, key] }),
          new vscode.CodeLens(line, { title: `$(close) Reject ${name}`, command: "agentLsp.review.rejectHunk", arguments: [id, key] }),
        );
      } else {
        lenses.push(
          new vscode.CodeLens(line, {
            title: `$(discard) Undo ${decision === "accepted" ? "Accept" : "Reject"} (${name})`,
            command: "agentLsp.review.undoHunk",
            arguments: [id, key],
          }),
        );
      }
    });
    return lenses;
  }
}

/** Builds the inline review, registers its view, commands and listeners, and returns it. */
export function registerInlineReview(
  context: vscode.ExtensionContext,
  host: Host,
  broker: PermissionBroker,
  sideBySide: DiffReview,
): InlineReview {
  const view = new VscodeInlineView();
  const inline = new InlineReview(host, broker, sideBySide, view);
  const id = (arg: unknown): string | undefined => (typeof arg === "string" ? arg : undefined);
  const key = (arg: unknown): string | undefined => (typeof arg === "string" ? arg : undefined);
  context.subscriptions.push(
    view.lensChanged,
    vscode.languages.registerCodeLensProvider({ scheme: "file" }, new InlineLenses(view)),
    vscode.commands.registerCommand("agentLsp.review.acceptHunk", (a: unknown, b: unknown) => inline.decide("accepted", id(a), key(b))),
    vscode.commands.registerCommand("agentLsp.review.rejectHunk", (a: unknown, b: unknown) => inline.decide("rejected", id(a), key(b))),
    vscode.commands.registerCommand("agentLsp.review.undoHunk", (a: unknown, b: unknown) => inline.undecide(id(a), key(b))),
    vscode.commands.registerCommand("agentLsp.review.acceptAll", (a: unknown) => inline.decideRest("accepted", id(a))),
    vscode.commands.registerCommand("agentLsp.review.rejectAll", (a: unknown) => inline.decideRest("rejected", id(a))),
    vscode.commands.registerCommand("agentLsp.review.nextHunk", () => inline.move(1)),
    vscode.commands.registerCommand("agentLsp.review.previousHunk", () => inline.move(-1)),
    vscode.commands.registerCommand("agentLsp.review.sideBySide", (a: unknown) => {
      const requestId = id(a) ?? inline.forUri(view.cursor()?.uri ?? "")?.requestId;
      return requestId === undefined ? false : sideBySide.open(requestId);
    }),
    vscode.window.onDidChangeActiveTextEditor(() => inline.refreshContext()),
    vscode.window.onDidChangeVisibleTextEditors(() => view.redrawAll()),
    vscode.workspace.onDidChangeTextDocument((event) => {
      if (event.contentChanges.length > 0 && event.document.uri.scheme === PROPOSAL_SCHEME) {
        inline.proposalEdited();
      } else if (event.contentChanges.length > 0) {
        void inline.documentChanged(event.document.uri.toString(), event.document.getText());
      }
    }),
  );
  return inline;
}
