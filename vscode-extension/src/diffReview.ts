// Diff review of a proposed edit: the file beside an editable proposal, with Accept / Reject answering the question.

import type { Host } from "./host";
import { diffsOf, type PermissionBroker } from "./permissions";

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

/** One file of a review: the file beside its proposal. */
export interface ReviewFile {
  filePath: string;
  proposalPath: string;
  proposalUri: string;
  originalUri: string;
  proposed: string;
  title: string;
}

/** The review of one question: a file for each diff it carries (a rename changes several, all answered at once). */
export interface Review {
  requestId: string;
  files: ReviewFile[];
}

export function baseName(filePath: string): string {
  const parts = filePath.split(/[\\/]/);
  return parts[parts.length - 1] || "proposal";
}

/** The URI path of a proposal: `/<requestId>/<file name>` (the name keeps the language mode right); the file's
 * index in a question with several (`/<requestId>/<index>/<file name>`) keeps two files of one name apart. */
export function proposalPath(
  requestId: string,
  filePath: string,
  side: "proposed" | "original" = "proposed",
  index?: number,
): string {
  const name = baseName(filePath);
  const dir = index === undefined ? `/${requestId}` : `/${requestId}/${index}`;
  return side === "proposed" ? `${dir}/${name}` : `${dir}/original/${name}`;
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

  /** Opens the diff of every file a pending question carries, one diff editor each in order (the last one in
   * front); false when it carries none. */
  async open(requestId: string): Promise<boolean> {
    const params = this.broker.get(requestId);
    const diffs = params === undefined ? [] : diffsOf(params);
    if (diffs.length === 0) {
      return false;
    }
    let review = this.reviews.get(requestId);
    if (review === undefined) {
      const several = diffs.length > 1;
      const files = diffs.map((diff, i) => {
        const index = several ? i + 1 : undefined;
        const path = proposalPath(requestId, diff.path, "proposed", index);
        let originalUri = this.host.fileUri(diff.path);
        if (diff.oldText === null) {
          const emptyPath = proposalPath(requestId, diff.path, "original", index);
          this.store.write(emptyPath, "");
          originalUri = proposalUri(emptyPath);
        }
        this.store.write(path, diff.newText);
        const verb = diff.oldText === null ? "new file" : "proposed edit";
        const count = several ? ` (${i + 1} of ${diffs.length})` : "";
        const title = `${baseName(diff.path)} ↔ agent's ${verb}${count}`;
        const proposed = diff.newText;
        return { filePath: diff.path, proposalPath: path, proposalUri: proposalUri(path), originalUri, proposed, title };
      });
      review = { requestId, files };
      this.reviews.set(requestId, review);
    }
    this.last = requestId;
    await this.host.setContext("agentLsp.reviewing", true);
    for (const file of review.files) {
      await this.host.openDiff(file.originalUri, file.proposalUri, file.title);
    }
    return true;
  }

  /** The review a command applies to: the one whose proposal `uri` shows, else the last one opened. */
  find(uri?: string): Review | undefined {
    const path = uri === undefined ? undefined : pathOfProposalUri(uri);
    if (path !== undefined) {
      for (const review of this.reviews.values()) {
        if (path.startsWith(`/${review.requestId}/`)) {
          return review;
        }
      }
    }
    return this.last === undefined ? undefined : this.reviews.get(this.last);
  }

  /** A file's proposal as the user left it (their unsaved edits in the diff editor included). */
  currentText(file: ReviewFile): string {
    return this.host.documentText(file.proposalUri) ?? this.store.read(file.proposalPath) ?? file.proposed;
  }

  /** Accept: allow once, telling the server the edited text when the user changed the proposal. The answer carries
   * one text, so the proposals of a question about several files are accepted only as proposed. */
  async accept(uri?: string): Promise<boolean> {
    const review = this.find(uri);
    if (review === undefined) {
      return false;
    }
    const edited = review.files.filter((f) => this.currentText(f) !== f.proposed);
    if (review.files.length > 1 && edited.length > 0) {
      const names = edited.map((f) => this.host.relativePath(f.filePath)).join(", ");
      void this.host.showMessage(
        "warning",
        `Changes to the proposal of ${names} cannot be sent back with a change to several files: undo them to accept the agent's change as proposed, or reject it.`,
      );
      return false;
    }
    const [only] = review.files;
    const modified = edited.length === 0 ? undefined : this.currentText(only);
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
    // Only a single file's proposal can be carried back (see accept).
    const review = this.reviews.get(requestId);
    return review === undefined || review.files.length !== 1 ? undefined : this.currentText(review.files[0]);
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
    for (const file of review.files) {
      await this.host.closeEditorsOf(file.proposalUri);
    }
    await this.host.setContext("agentLsp.reviewing", this.reviews.size > 0);
  }
}
