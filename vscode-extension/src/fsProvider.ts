// `agent-proposal:` files for the diff review: an in-memory, writable FileSystemProvider over the ProposalStore.

import * as vscode from "vscode";
import type { ProposalStore } from "./diffReview";

export class ProposalFileSystem implements vscode.FileSystemProvider {
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;
  private readonly mtimes = new Map<string, number>();

  constructor(
    private readonly store: ProposalStore,
    scheme: string,
  ) {
    store.onDidChange((path) => {
      this.mtimes.set(path, Date.now());
      this.emitter.fire([{ type: vscode.FileChangeType.Changed, uri: vscode.Uri.from({ scheme, path }) }]);
    });
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const text = this.store.read(uri.path);
    if (text === undefined) {
      // Folders of proposals exist implicitly.
      if ([...this.mtimes.keys()].some((p) => p.startsWith(uri.path.endsWith("/") ? uri.path : `${uri.path}/`))) {
        return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
      }
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    const mtime = this.mtimes.get(uri.path) ?? Date.now();
    return { type: vscode.FileType.File, ctime: mtime, mtime, size: Buffer.byteLength(text) };
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(): void {}

  readFile(uri: vscode.Uri): Uint8Array {
    const text = this.store.read(uri.path);
    if (text === undefined) {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    return Buffer.from(text, "utf8");
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    if (!this.store.has(uri.path)) {
      throw vscode.FileSystemError.NoPermissions("Only the agent's proposals can be written here");
    }
    this.store.write(uri.path, Buffer.from(content).toString("utf8"));
  }

  delete(uri: vscode.Uri): void {
    this.store.delete(uri.path);
  }

  rename(): void {
    throw vscode.FileSystemError.NoPermissions("Proposals cannot be renamed");
  }
}
