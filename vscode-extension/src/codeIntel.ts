// Answers the agent's agent/codeIntel and agent/diagnostics requests from VS Code's own language features, so the
// language extensions the user has (the built-in TypeScript features, Pylance, rust-analyzer, gopls …) serve the
// agent's `lsp` tool and the diagnostics after its edits (docs/protocol.md, "Code intelligence").

import type * as vscode from "vscode";
import type * as lsp from "vscode-languageclient";
import type { Code2ProtocolConverter } from "vscode-languageclient";
import { hover, locations, symbols, workspaceEdit } from "./codeIntelShapes";
import type { Cancellation } from "./host";

export const CODE_INTEL_METHODS = { codeIntel: "agent/codeIntel", diagnostics: "agent/diagnostics" } as const;

export const CODE_INTEL_OPERATIONS = [
  "goToDefinition",
  "findReferences",
  "hover",
  "documentSymbol",
  "workspaceSymbol",
  "goToImplementation",
  "incomingCalls",
  "outgoingCalls",
  "rename",
] as const;

/** What this client advertises as `capabilities.experimental.agent.codeIntel`. */
export function codeIntelCapability(): { operations: string[]; diagnostics: boolean; rename: boolean } {
  return { operations: [...CODE_INTEL_OPERATIONS], diagnostics: true, rename: true };
}

export interface CodeIntelParams {
  operation: string;
  textDocument?: { uri: string };
  /** 0-based, UTF-16 code units: what VS Code's positions count too. */
  position?: { line: number; character: number };
  query?: string;
  newName?: string;
}

export interface DiagnosticsParams {
  uris: string[];
  waitMs?: number;
}

export interface DiagnosticsItem {
  uri: string;
  diagnostics: lsp.Diagnostic[];
  settled: boolean;
}

/** A request the editor cannot answer, with the message the model reads (server.ts sends it as the JSON-RPC error). */
export class CodeIntelError extends Error {
  constructor(
    message: string,
    readonly invalidParams = false,
  ) {
    super(message);
  }
}

/** The parts of the `vscode` API the answers come from (codeIntelEditor.ts binds the real one). */
export interface IntelEditor {
  executeCommand<T>(command: string, ...args: unknown[]): Thenable<T>;
  parseUri(uri: string): vscode.Uri;
  position(line: number, character: number): vscode.Position;
  /** Opens a document without showing it (workspace.openTextDocument), so the features serving it attach. */
  openDocument(uri: vscode.Uri): Thenable<vscode.TextDocument>;
  getDiagnostics(uri: vscode.Uri): vscode.Diagnostic[];
  onDidChangeDiagnostics(listener: (uris: readonly vscode.Uri[]) => void): vscode.Disposable;
  /** A document's text changed (an edit of the agent's, the user's, an undo). */
  onDidChangeText(listener: (uri: vscode.Uri) => void): vscode.Disposable;
  /** The documents open now (workspace.textDocuments). */
  openDocuments(): readonly vscode.Uri[];
}

/** After the last awaited uri has new diagnostics, how long to wait for more (a checker reports in steps). */
export const QUIET_MS = 150;
/** The longest wait the agent may ask for: past it the answer would only hold its tool call. */
const MAX_WAIT_MS = 30_000;

export class CodeIntel implements vscode.Disposable {
  private stamp = 0;
  /** Per uri (vscode.Uri.toString()), the stamp of its last text change and of its last diagnostics change. */
  private readonly changed = new Map<string, number>();
  private readonly published = new Map<string, { stamp: number; at: number }>();
  private readonly listeners = new Set<() => void>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly editor: IntelEditor,
    private readonly c2p: Code2ProtocolConverter,
  ) {
    // Documents already open were checked before this started (the extension activates late): what they show is
    // their checkers' last word until their text changes.
    for (const uri of editor.openDocuments()) {
      this.published.set(uri.toString(), { stamp: ++this.stamp, at: 0 });
    }
    this.subscriptions = [
      editor.onDidChangeText((uri) => this.changed.set(uri.toString(), ++this.stamp)),
      editor.onDidChangeDiagnostics((uris) => {
        const stamp = ++this.stamp;
        for (const uri of uris) {
          this.published.set(uri.toString(), { stamp, at: Date.now() });
        }
        for (const listener of [...this.listeners]) {
          listener();
        }
      }),
    ];
  }

  dispose(): void {
    for (const s of this.subscriptions) {
      s.dispose();
    }
    for (const listener of [...this.listeners]) {
      listener();
    }
  }

  /** agent/codeIntel: the plain LSP result of the operation's request, null when nothing serves the file. */
  async answer(params: CodeIntelParams): Promise<unknown> {
    const op = params.operation;
    if (op === "workspaceSymbol") {
      if (params.textDocument?.uri) {
        await this.open(params.textDocument.uri); // a language server starts on its first document
      }
      const found = await this.editor.executeCommand<vscode.SymbolInformation[] | undefined>(
        "vscode.executeWorkspaceSymbolProvider",
        params.query ?? "",
      );
      return found === undefined ? null : found.map((s) => this.c2p.asWorkspaceSymbol(s));
    }
    if (!(CODE_INTEL_OPERATIONS as readonly string[]).includes(op)) {
      throw new CodeIntelError(`unknown operation ${JSON.stringify(op)}; one of ${CODE_INTEL_OPERATIONS.join(", ")}`, true);
    }
    if (!params.textDocument?.uri) {
      throw new CodeIntelError(`${op} needs textDocument.uri`, true);
    }
    const doc = await this.open(params.textDocument.uri);
    if (doc.languageId === "plaintext") {
      return null; // no language extension claims the file
    }
    if (op === "documentSymbol") {
      return symbols(this.c2p, await this.run("vscode.executeDocumentSymbolProvider", doc.uri));
    }
    const at = params.position;
    if (at === undefined || !Number.isInteger(at.line) || !Number.isInteger(at.character)) {
      throw new CodeIntelError(`${op} needs a position {line, character}`, true);
    }
    const pos = this.editor.position(at.line, at.character);
    switch (op) {
      case "goToDefinition":
        return locations(this.c2p, await this.run("vscode.executeDefinitionProvider", doc.uri, pos), true);
      case "goToImplementation":
        return locations(this.c2p, await this.run("vscode.executeImplementationProvider", doc.uri, pos), false);
      case "findReferences": {
        const refs = await this.run<vscode.Location[]>("vscode.executeReferenceProvider", doc.uri, pos);
        return refs === undefined ? null : refs.map((r) => this.c2p.asLocation(r));
      }
      case "hover":
        return hover(this.c2p, await this.run("vscode.executeHoverProvider", doc.uri, pos));
      case "incomingCalls":
      case "outgoingCalls":
        return this.calls(op, doc.uri, pos);
      default: {
        if (!params.newName) {
          throw new CodeIntelError("rename needs newName", true);
        }
        const edit = await this.run<vscode.WorkspaceEdit>("vscode.executeDocumentRenameProvider", doc.uri, pos, params.newName);
        return edit === undefined ? null : workspaceEdit(this.c2p, edit);
      }
    }
  }

  /**
   * agent/diagnostics: each uri's diagnostics now (waitMs 0), or once they changed after the document's last text
   * change (the agent's edit), waiting at most waitMs; `settled` says whether that change was seen.
   */
  async diagnostics(params: DiagnosticsParams, cancel?: Cancellation): Promise<{ items: DiagnosticsItem[] }> {
    if (!Array.isArray(params.uris)) {
      throw new CodeIntelError("agent/diagnostics needs uris: string[]", true);
    }
    const uris = params.uris.map((uri) => ({ given: uri, uri: this.editor.parseUri(uri) }));
    const awaited: string[] = [];
    for (const { uri } of uris) {
      // Opened so a checker that looks only at open files (Pylance's default) checks it too.
      const doc = await this.editor.openDocument(uri).then(
        (d) => d,
        () => undefined,
      );
      if (doc !== undefined && doc.languageId !== "plaintext") {
        awaited.push(uri.toString()); // no language extension claims plain text: nothing to wait for
      }
    }
    const keys = uris.map(({ uri }) => uri.toString());
    const waitMs = Math.min(Math.max(Number(params.waitMs) || 0, 0), MAX_WAIT_MS);
    if (waitMs > 0 && awaited.length > 0) {
      await this.settle(awaited, Date.now() + waitMs, cancel);
    }
    const items = [];
    for (const [i, { given, uri }] of uris.entries()) {
      const diagnostics = await this.c2p.asDiagnostics(this.editor.getDiagnostics(uri));
      items.push({ uri: given, diagnostics, settled: this.settled(keys[i]) });
    }
    return { items };
  }

  private settled(key: string): boolean {
    const published = this.published.get(key);
    return published !== undefined && published.stamp > (this.changed.get(key) ?? 0);
  }

  /** Until every key settled and then stayed quiet for QUIET_MS, the deadline passed, or the server gave up. */
  private async settle(keys: string[], deadline: number, cancel?: Cancellation): Promise<void> {
    while (!cancel?.isCancellationRequested && Date.now() < deadline) {
      let until = deadline;
      if (keys.every((key) => this.settled(key))) {
        const last = Math.max(...keys.map((key) => this.published.get(key)?.at ?? 0));
        if (Date.now() - last >= QUIET_MS) {
          return;
        }
        until = Math.min(deadline, last + QUIET_MS);
      }
      await this.nextChange(until - Date.now(), cancel);
    }
  }

  /** Resolves at the next diagnostics change, after `ms`, or when the request is cancelled. */
  private nextChange(ms: number, cancel?: Cancellation): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(done);
        cancelled?.dispose();
        resolve();
      };
      const timer = setTimeout(done, Math.max(ms, 0));
      this.listeners.add(done);
      const cancelled = cancel?.onCancellationRequested(done);
    });
  }

  private async open(uri: string): Promise<vscode.TextDocument> {
    let parsed: vscode.Uri;
    try {
      parsed = this.editor.parseUri(uri);
    } catch (err) {
      throw new CodeIntelError(`not a URI: ${uri} (${err instanceof Error ? err.message : String(err)})`, true);
    }
    try {
      return await this.editor.openDocument(parsed);
    } catch (err) {
      throw new CodeIntelError(`VS Code could not open ${uri}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private async run<T>(command: string, ...args: unknown[]): Promise<T | undefined> {
    try {
      return (await this.editor.executeCommand<T | undefined>(command, ...args)) ?? undefined;
    } catch (err) {
      // A provider's refusal ("You cannot rename this element.") is what the model should read.
      throw new CodeIntelError(err instanceof Error ? err.message : String(err));
    }
  }

  /** prepareCallHierarchy, then every prepared item's calls, merged. */
  private async calls(
    op: "incomingCalls" | "outgoingCalls",
    uri: vscode.Uri,
    pos: vscode.Position,
  ): Promise<lsp.CallHierarchyIncomingCall[] | lsp.CallHierarchyOutgoingCall[] | null> {
    const items = await this.run<vscode.CallHierarchyItem[]>("vscode.prepareCallHierarchy", uri, pos);
    if (items === undefined) {
      return null;
    }
    if (op === "incomingCalls") {
      const calls: lsp.CallHierarchyIncomingCall[] = [];
      for (const item of items) {
        for (const call of (await this.run<vscode.CallHierarchyIncomingCall[]>("vscode.provideIncomingCalls", item)) ?? []) {
          calls.push({ from: this.c2p.asCallHierarchyItem(call.from), fromRanges: this.c2p.asRanges(call.fromRanges) });
        }
      }
      return calls;
    }
    const calls: lsp.CallHierarchyOutgoingCall[] = [];
    for (const item of items) {
      for (const call of (await this.run<vscode.CallHierarchyOutgoingCall[]>("vscode.provideOutgoingCalls", item)) ?? []) {
        calls.push({ to: this.c2p.asCallHierarchyItem(call.to), fromRanges: this.c2p.asRanges(call.fromRanges) });
      }
    }
    return calls;
  }
}
