// The @ picker's data from VS Code: the server's file search, workspace symbols, diagnostics, the selection and
// the terminals' recent output; a picked row becomes an attachment for the composer.

import * as vscode from "vscode";
import type { Attachment } from "./composer";
import type { ChatController } from "./controller";
import {
  type EditorOffers,
  type FoundFile,
  type FoundResource,
  type MentionCandidate,
  type ProblemLine,
  type SymbolHit,
  excerptAttachment,
  mentionCandidates,
  pathAttachment,
  problemsAttachment,
  resourceAttachment,
  terminalAttachment,
  urlAttachment,
} from "./mentions";
import { METHODS } from "./protocol";

const MAX_SYMBOLS = 20;
const FILE_LIMIT = 30;
const MAX_TERMINAL_KEEP = 50_000;
const SEVERITY = ["error", "warning", "info", "hint"];

interface ShellExecutionEvent {
  terminal: vscode.Terminal;
  execution: { commandLine?: { value: string }; read(): AsyncIterable<string> };
}
type ShellExecutionWindow = { onDidStartTerminalShellExecution?: vscode.Event<ShellExecutionEvent> };

/** Output of each terminal's recent commands, as shell integration reports it (VS Code 1.93+; else nothing). */
export class TerminalOutputs implements vscode.Disposable {
  private readonly kept = new Map<vscode.Terminal, { command?: string; text: string }>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(log: (line: string) => void = () => undefined) {
    const start = (vscode.window as unknown as ShellExecutionWindow).onDidStartTerminalShellExecution;
    log(`terminal output for @terminal: ${start === undefined ? "not offered by this VS Code" : "followed"}`);
    if (start !== undefined) {
      this.subscriptions.push(start((event) => void this.follow(event)));
    }
    this.subscriptions.push(vscode.window.onDidCloseTerminal((t) => this.kept.delete(t)));
  }

  private async follow(event: ShellExecutionEvent): Promise<void> {
    const command = event.execution.commandLine?.value;
    let text = "";
    // Offered from the start: an instant command's output can be gone before this event reaches the extension
    // host, and the command line alone still says what ran.
    this.kept.set(event.terminal, { command, text });
    for await (const data of event.execution.read()) {
      // Escape sequences (colours, cursor moves) mean nothing to the model.
      text = (text + data.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*(\x07|\x1b\\)/g, "")).slice(-MAX_TERMINAL_KEEP);
      this.kept.set(event.terminal, { command, text });
    }
  }

  of(terminal: vscode.Terminal | undefined): { command?: string; text: string } | undefined {
    return terminal === undefined ? undefined : this.kept.get(terminal);
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}

export class MentionSource {
  constructor(
    private readonly controller: ChatController,
    private readonly terminals: TerminalOutputs,
  ) {}

  private offers(): EditorOffers {
    const editor = vscode.window.activeTextEditor;
    const offers: EditorOffers = {
      problemCount: vscode.languages.getDiagnostics().reduce((n, [, ds]) => n + ds.length, 0),
    };
    if (editor !== undefined && editor.document.uri.scheme === "file") {
      const path = vscode.workspace.asRelativePath(editor.document.uri, false);
      offers.activeFile = { uri: editor.document.uri.toString(), path };
      if (!editor.selection.isEmpty) {
        offers.selection = { path, startLine: editor.selection.start.line + 1, endLine: editor.selection.end.line + 1 };
      }
    }
    const terminal = vscode.window.activeTerminal;
    if (terminal !== undefined && this.terminals.of(terminal) !== undefined) {
      offers.terminal = { name: terminal.name };
    }
    return offers;
  }

  /** The picker's rows for the text typed after @. */
  async candidates(query: string): Promise<MentionCandidate[]> {
    const [{ files, resources }, symbols] = await Promise.all([this.files(query), this.symbols(query)]);
    return mentionCandidates(query, files, symbols, this.offers(), resources);
  }

  /** The server's files, and with the chat's session its MCP servers' resources. */
  private async files(query: string): Promise<{ files: FoundFile[]; resources: FoundResource[] }> {
    try {
      const sessionId = this.controller.state.sessionId;
      const params = sessionId === undefined ? { query, limit: FILE_LIMIT } : { query, limit: FILE_LIMIT, sessionId };
      const answer = await this.controller.request<{ items: FoundFile[]; resources?: FoundResource[] }>(METHODS.findFiles, params);
      return { files: answer.items, resources: answer.resources ?? [] };
    } catch {
      return { files: [], resources: [] }; // no server (yet): the other rows still help
    }
  }

  private async symbols(query: string): Promise<SymbolHit[]> {
    if (query.length < 2) {
      return [];
    }
    const found =
      (await vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>("vscode.executeWorkspaceSymbolProvider", query)) ?? [];
    return found.slice(0, MAX_SYMBOLS).map((s) => ({
      name: s.name,
      kind: vscode.SymbolKind[s.kind] ?? "symbol",
      container: s.containerName || undefined,
      uri: s.location.uri.toString(),
      path: vscode.workspace.asRelativePath(s.location.uri, false),
      line: s.location.range.start.line,
    }));
  }

  /** The attachment a picked row stands for; undefined when there is nothing to attach (or the user gave up). */
  async resolve(pick: MentionCandidate): Promise<Attachment | undefined> {
    switch (pick.kind) {
      case "file":
      case "folder":
        return pathAttachment(pick.kind, pick.ref, pick.label);
      case "url": {
        const url =
          pick.ref ||
          (await vscode.window.showInputBox({
            title: "Attach a web page",
            prompt: "The address of the page (the agent fetches it when it needs it)",
            placeHolder: "https://…",
            validateInput: (v) => (/^https?:\/\/\S+$/i.test(v.trim()) ? undefined : "An http:// or https:// address"),
          }));
        return url ? urlAttachment(url.trim()) : undefined;
      }
      case "selection":
        return selectionAttachment(vscode.window.activeTextEditor);
      case "problems":
        return this.problems(pick.ref);
      case "terminal": {
        const terminal = vscode.window.activeTerminal;
        const kept = this.terminals.of(terminal);
        return terminal && kept ? terminalAttachment(terminal.name, kept.command, kept.text) : undefined;
      }
      case "resource":
        return resourceAttachment(pick.ref);
      case "symbol":
        return symbolAttachment(JSON.parse(pick.ref) as { uri: string; line: number; name: string });
    }
  }

  private problems(ref: string): Attachment {
    const entries: [vscode.Uri, vscode.Diagnostic[]][] =
      ref === "workspace" ? vscode.languages.getDiagnostics() : [[vscode.Uri.parse(ref), vscode.languages.getDiagnostics(vscode.Uri.parse(ref))]];
    const lines: ProblemLine[] = entries.flatMap(([uri, diagnostics]) =>
      diagnostics.map((d) => ({
        path: vscode.workspace.asRelativePath(uri, false),
        line: d.range.start.line + 1,
        severity: SEVERITY[d.severity] ?? "problem",
        message: d.message,
        source: d.source,
      })),
    );
    const scope = ref === "workspace" ? "the workspace" : vscode.workspace.asRelativePath(vscode.Uri.parse(ref), false);
    return problemsAttachment(scope, lines);
  }
}

/** The active editor's selection (whole lines are not forced: exactly what is selected). */
export function selectionAttachment(editor: vscode.TextEditor | undefined): Attachment | undefined {
  if (editor === undefined || editor.selection.isEmpty) {
    return undefined;
  }
  const s = editor.selection;
  const path = vscode.workspace.asRelativePath(editor.document.uri, false);
  const label = `${path}:${s.start.line + 1}-${s.end.line + 1}`;
  return excerptAttachment("selection", label, editor.document.uri.toString(), s.start.line + 1, s.end.line + 1, editor.document.getText(s));
}

/** A symbol's whole body: the document symbol that starts on its line gives the full range. */
async function symbolAttachment(ref: { uri: string; line: number; name: string }): Promise<Attachment> {
  const uri = vscode.Uri.parse(ref.uri);
  const doc = await vscode.workspace.openTextDocument(uri);
  const outline =
    (await vscode.commands.executeCommand<vscode.DocumentSymbol[] | undefined>("vscode.executeDocumentSymbolProvider", uri)) ?? [];
  const flat: vscode.DocumentSymbol[] = [];
  const walk = (symbols: vscode.DocumentSymbol[]): void => {
    for (const s of symbols) {
      flat.push(s);
      walk(s.children ?? []);
    }
  };
  walk(outline);
  const match = flat.find((s) => s.name === ref.name && s.range.start.line <= ref.line && ref.line <= s.range.end.line);
  const range = match?.range ?? doc.lineAt(ref.line).range;
  const label = `${ref.name} (${vscode.workspace.asRelativePath(uri, false)}:${range.start.line + 1})`;
  return excerptAttachment("symbol", label, ref.uri, range.start.line + 1, range.end.line + 1, doc.getText(range));
}
