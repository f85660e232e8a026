// The files the last turn changed, with +/- line counts, and the diff of one (as it was before the turn ↔ now).

import type { ProposalStore } from "./diffReview";
import { baseName, proposalUri } from "./diffReview";
import type { Host } from "./host";
import { lineHunks } from "./hunks";
import type { ChatState } from "./state";

export interface ChangedFile {
  path: string;
  /** The file before the turn's first change to it ("" for a file the turn created). */
  before: string;
  added: number;
  removed: number;
  created: boolean;
}

/** The files the completed edits since the last user message changed, in the order first touched. */
export function changedFiles(state: ChatState): ChangedFile[] {
  let start = 0;
  for (let i = state.items.length - 1; i >= 0; i--) {
    if (state.items[i].kind === "user") {
      start = i + 1;
      break;
    }
  }
  const byPath = new Map<string, { before: string | null; after: string }>();
  for (const item of state.items.slice(start)) {
    if (item.kind !== "tool" || item.status !== "completed") {
      continue;
    }
    for (const c of item.content) {
      if (c.type !== "diff") {
        continue;
      }
      const seen = byPath.get(c.path);
      byPath.set(c.path, { before: seen ? seen.before : c.oldText, after: c.newText });
    }
  }
  return [...byPath].map(([path, { before, after }]) => {
    const hunks = lineHunks(before ?? "", after);
    return {
      path,
      before: before ?? "",
      added: hunks.reduce((n, h) => n + h.added.length, 0),
      removed: hunks.reduce((n, h) => n + h.removed.length, 0),
      created: before === null,
    };
  });
}

/** The id of the last user message: the turn the changed-files list is about (Keep all / Revert all mark it done). */
export function lastUserId(state: ChatState): string | undefined {
  for (let i = state.items.length - 1; i >= 0; i--) {
    if (state.items[i].kind === "user") {
      return state.items[i].id;
    }
  }
  return undefined;
}

let opened = 0;

/** Opens VS Code's diff editor: the file as it was before the turn (kept in memory) beside the file now. */
export async function openChange(host: Host, store: ProposalStore, change: ChangedFile): Promise<void> {
  opened += 1;
  const path = `/changes/${opened}/${baseName(change.path)}`;
  store.write(path, change.before);
  const title = `${host.relativePath(change.path)} (before the turn ↔ now)`;
  await host.openDiff(proposalUri(path), host.fileUri(change.path), title);
}
