// Diff review of a proposed edit: the file beside an editable proposal, with Accept / Reject answering the question.

import type { Host } from "./host";
import { diffOf, type PermissionBroker } from "./permissions";

export const PROPOSAL_SCHEME = "agent-proposal";

/** In-memory files behind `agent-proposal:` URIs, keyed by URI path; the FileSystemProvider in fsProvider.ts serves them. */
export class ProposalStore {
  private readonly files = new Map<string, string>();
  private readonly listeners: ((path: string) => void)[] = [];

  read(path: string): string | undefined {
    return this.files.get(path);
  }

  write(path: string, text: string): void {
    this.files.set(path, text);
    for (const listener of this.listeners) {
      listener(path);
    }
  }

  delete(path: string): void {
    this.files.delete(path);
  }

  has(path: string): boolean {
    return this.files.has(path);
  }

  onDidChange(listener: (path: string) => void): void {
    this.listeners.push(listener);
  }
}

export interface Review {
  requestId: string;
  filePath: string;
  proposalPath: string;
  proposalUri: string;
  originalUri: string;
  proposed: string;
}

export function baseName(filePath: string): string {
  const parts = filePath.split(/[\\/]/);
  return parts[parts.length - 1] || "proposal";
}

/** The URI path of a proposal: `/<requestId>/<file name>` (the name keeps the language mode right). */
export function proposalPath(requestId: string, filePath: string, side: "proposed" | "original" = "proposed"): string {
  const name = baseName(filePath);
  return side === "proposed" ? `/${requestId}/${name}` : `/${requestId}/original/${name}`;
}

export function proposalUri(path: string): string {
  return `${PROPOSAL_SCHEME}:${path.split("/").map(encodeURIComponent).join("/")}`;
}

/** The path part of an `agent-proposal:` URI string, undefined for any other scheme. */
export function pathOfProposalUri(uri: string): string | undefined {
  if (!uri.startsWith(`${PROPOSAL_SCHEME}:`)) {
    return undefined;
  }
  const rest = uri.slice(PROPOSAL_SCHEME.length + 1).replace(/^\/\/[^/]*/, "");
  return rest.split("/").map(decodeURIComponent).join("/");
}

export class DiffReview {
  private readonly reviews = new Map<string, Review>();
  private last: string | undefined;

  constructor(
    private readonly host: Host,
    private readonly broker: PermissionBroker,
    private readonly store: ProposalStore,
  ) {
    broker.onSettled((requestId) => void this.close(requestId));
  }

  /** Opens the diff for a pending question that carries a diff; false when there is none. */
  async open(requestId: string): Promise<boolean> {
    const params = this.broker.get(requestId);
    const diff = params === undefined ? undefined : diffOf(params);
    if (diff === undefined) {
      return false;
    }
    let review = this.reviews.get(requestId);
    if (review === undefined) {
      const path = proposalPath(requestId, diff.path);
      let originalUri = this.host.fileUri(diff.path);
      if (diff.oldText === null) {
        const emptyPath = proposalPath(requestId, diff.path, "original");
        this.store.write(emptyPath, "");
        originalUri = proposalUri(emptyPath);
      }
      this.store.write(path, diff.newText);
      review = {
        requestId,
        filePath: diff.path,
        proposalPath: path,
        proposalUri: proposalUri(path),
        originalUri,
        proposed: diff.newText,
      };
      this.reviews.set(requestId, review);
    }
    this.last = requestId;
    await this.host.setContext("agentLsp.reviewing", true);
    const verb = diff.oldText === null ? "new file" : "proposed edit";
    await this.host.openDiff(review.originalUri, review.proposalUri, `${baseName(diff.path)} ↔ agent's ${verb}`);
    return true;
  }

  /** The review a command applies to: the one whose proposal `uri` shows, else the last one opened. */
  find(uri?: string): Review | undefined {
    const path = uri === undefined ? undefined : pathOfProposalUri(uri);
    if (path !== undefined) {
      for (const review of this.reviews.values()) {
        if (review.proposalPath === path || path.startsWith(`/${review.requestId}/`)) {
          return review;
        }
      }
    }
    return this.last === undefined ? undefined : this.reviews.get(this.last);
  }

  /** The proposal as the user left it (their unsaved edits in the diff editor included). */
  currentText(review: Review): string {
    return this.host.documentText(review.proposalUri) ?? this.store.read(review.proposalPath) ?? review.proposed;
  }

  /** Accept: allow once, telling the server the edited text when the user changed the proposal. */
  async accept(uri?: string): Promise<boolean> {
    const review = this.find(uri);
    if (review === undefined) {
      return false;
    }
    const text = this.currentText(review);
    const modified = text === review.proposed ? undefined : text;
    return this.broker.answerKind(review.requestId, ["allow_once", "allow_always"], modified);
  }

  async reject(uri?: string): Promise<boolean> {
    const review = this.find(uri);
    if (review === undefined) {
      return false;
    }
    return this.broker.answerKind(review.requestId, ["reject_once", "reject_always"]);
  }

  /** The proposal's text while its side-by-side review is open (with the user's edits), else undefined. */
  proposalText(requestId: string): string | undefined {
    const review = this.reviews.get(requestId);
    return review === undefined ? undefined : this.currentText(review);
  }

  isOpen(requestId: string): boolean {
    return this.reviews.has(requestId);
  }

  private async close(requestId: string): Promise<void> {
    const review = this.reviews.get(requestId);
    if (review === undefined) {
      return;
    }
    this.reviews.delete(requestId);
    if (this.last === requestId) {
      this.last = undefined;
    }
    // The store keeps the proposal's text: VS Code may still read or revert the document while it closes.
    await this.host.closeEditorsOf(review.proposalUri);
    await this.host.setContext("agentLsp.reviewing", this.reviews.size > 0);
  }
}
