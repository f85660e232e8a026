// agent/diagnostics in VS Code: languages.getDiagnostics for the agent's files, waited for after its edit
// (languages.onDidChangeDiagnostics after the document's last text change); a part of CodeIntel (codeIntel.ts).

import type * as vscode from "vscode";
import type { Code2ProtocolConverter } from "vscode-languageclient";
import type { DiagnosticsItem, DiagnosticsParams, IntelEditor } from "./codeIntel";
import type { Cancellation } from "./host";

/** After the last awaited uri has new diagnostics, how long to wait for more (a checker reports in steps). */
export const QUIET_MS = 150;
/** The longest wait the agent may ask for: past it the answer would only hold its tool call. */
const MAX_WAIT_MS = 30_000;

export class DiagnosticsWaiter implements vscode.Disposable {
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

  /**
   * agent/diagnostics: each uri's diagnostics now (waitMs 0), or once they changed after the document's last text
   * change (the agent's edit), waiting at most waitMs; `settled` says whether that change was seen.
   */
  async diagnostics(params: DiagnosticsParams, cancel?: Cancellation): Promise<{ items: DiagnosticsItem[] }> {
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
}
