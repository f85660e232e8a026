// Pure line-diff helpers for the inline review: a proposal's hunks, and the text that results from a choice per hunk.

/** One change: lines [oldStart, oldEnd) of the original become lines [newStart, newEnd) of the proposal (0-based). */
export interface Hunk {
  oldStart: number;
  oldEnd: number;
  newStart: number;
  newEnd: number;
  removed: string[];
  added: string[];
}

export type Decision = "accepted" | "rejected";

/** Lines with their line endings kept, so joining them gives the text back exactly. */
export function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

// Above this many cells the middle of a diff is one hunk: a reviewer reads it side by side anyway.
const MAX_CELLS = 4_000_000;

/** The proposal's hunks: each run of changed lines, without context lines, so each can be taken on its own. */
export function lineHunks(oldText: string, newText: string): Hunk[] {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const n = a.length - pre - suf;
  const m = b.length - pre - suf;
  // Pairs of equal lines (old index, new index) in order: a longest common subsequence of the middle.
  const pairs: [number, number][] = [];
  if (n > 0 && m > 0 && n * m <= MAX_CELLS) {
    const table = new Uint32Array((n + 1) * (m + 1));
    const at = (i: number, j: number): number => i * (m + 1) + j;
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        table[at(i, j)] =
          a[pre + i] === b[pre + j] ? table[at(i + 1, j + 1)] + 1 : Math.max(table[at(i + 1, j)], table[at(i, j + 1)]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (a[pre + i] === b[pre + j]) {
        pairs.push([pre + i, pre + j]);
        i++;
        j++;
      } else if (table[at(i + 1, j)] >= table[at(i, j + 1)]) {
        i++;
      } else {
        j++;
      }
    }
  }
  pairs.push([a.length - suf, b.length - suf]);
  const hunks: Hunk[] = [];
  let oi = pre;
  let ni = pre;
  for (const [oe, ne] of pairs) {
    if (oe > oi || ne > ni) {
      hunks.push({ oldStart: oi, oldEnd: oe, newStart: ni, newEnd: ne, removed: a.slice(oi, oe), added: b.slice(ni, ne) });
    }
    oi = oe + 1;
    ni = ne + 1;
  }
  return hunks;
}

/** A stable name for a hunk, so a decision survives re-computing the hunks but not a change to the hunk itself. */
export function hunkKey(h: Hunk): string {
  return `${h.oldStart}:${h.oldEnd}:${h.added.join("")}`;
}

/** The original with the accepted hunks applied; rejected and undecided hunks keep the original lines. */
export function compose(oldText: string, hunks: Hunk[], decisions: ReadonlyMap<string, Decision>): string {
  const a = splitLines(oldText);
  const out: string[] = [];
  let at = 0;
  for (const h of hunks) {
    out.push(...a.slice(at, h.oldStart));
    out.push(...(decisions.get(hunkKey(h)) === "accepted" ? h.added : h.removed));
    at = h.oldEnd;
  }
  out.push(...a.slice(at));
  return out.join("");
}

/** The line the hunk is shown on in the original: its first removed line, or the line an insertion follows. */
export function anchorLine(h: Hunk): number {
  if (h.oldEnd > h.oldStart) {
    return h.oldStart;
  }
  return Math.max(0, h.oldStart - 1);
}

/** "2 hunks · 1 accepted · 1 rejected" for the panel and the review's header. */
export function summary(hunks: Hunk[], decisions: ReadonlyMap<string, Decision>): string {
  const count = (d: Decision): number => hunks.filter((h) => decisions.get(hunkKey(h)) === d).length;
  const parts = [`${hunks.length} hunk${hunks.length === 1 ? "" : "s"}`];
  const accepted = count("accepted");
  const rejected = count("rejected");
  if (accepted) parts.push(`${accepted} accepted`);
  if (rejected) parts.push(`${rejected} rejected`);
  const open = hunks.length - accepted - rejected;
  if (open && open !== hunks.length) parts.push(`${open} to review`);
  return parts.join(" · ");
}
