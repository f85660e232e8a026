// Inline review of a proposed edit in the file's own editor: a choice per hunk, one answer to the server at the end.

import type { DiffReview } from "./diffReview";
import type { Host } from "./host";
import { anchorLine, compose, hunkKey, lineHunks, summary, type Decision, type Hunk } from "./hunks";
import { diffsOf, type PermissionBroker } from "./permissions";

export interface InlineState {
  requestId: string;
  filePath: string;
  fileUri: string;
  /** What the buffer held when the agent proposed (the base every hunk applies to). */
  oldText: string;
  /** The agent's proposal as sent. */
  proposed: string;
  hunks: Hunk[];
  decisions: Map<string, Decision>;
}

/** How the review is drawn (decorations, CodeLens, cursor): the vscode side lives in inlineView.ts. */
export interface InlineView {
  /** Opens the file, draws the review, and puts the cursor on `line` (0-based) when given. */
  show(state: InlineState, line?: number): Promise<void>;
  clear(state: InlineState): void;
  /** Redraws the review where it is visible, without moving focus. */
  redraw(state: InlineState): void;
  /** The file and 0-based line of the cursor in the active editor. */
  cursor(): { uri: string; line: number } | undefined;
}

export const INLINE_CONTEXT = "agentLsp.inlineReview";

export class InlineReview {
  private readonly reviews = new Map<string, InlineState>();
  private readonly listeners: ((requestId: string, status: string | undefined) => void)[] = [];
  /** The `agentLsp.review.inline` setting: false sends Review diff straight to the side-by-side diff. */
  enabled: () => boolean = () => true;

  constructor(
    private readonly host: Host,
    private readonly broker: PermissionBroker,
    private readonly sideBySide: DiffReview,
    private readonly view: InlineView,
  ) {
    broker.onSettled((requestId) => this.close(requestId));
  }

  /** Reports each review's status line ("2 hunks · 1 accepted") for the panel; undefined when it closed. */
  onStatus(listener: (requestId: string, status: string | undefined) => void): void {
    this.listeners.push(listener);
  }

  /** Opens the inline review of a pending edit and jumps to its first open hunk; false when it cannot be shown
   * inline (a new file, a buffer that changed since the agent read it, or a change to several files, which is
   * answered as a whole): the side-by-side diffs are the way then. */
  async open(requestId: string): Promise<boolean> {
    let state = this.reviews.get(requestId);
    if (state === undefined) {
      if (!this.enabled()) {
        return false;
      }
      const params = this.broker.get(requestId);
      const diffs = params === undefined ? [] : diffsOf(params);
      const diff = diffs.length === 1 ? diffs[0] : undefined;
      if (diff === undefined || diff.oldText === null) {
        return false;
      }
      const fileUri = this.host.fileUri(diff.path);
      const buffer = this.host.documentText(fileUri);
      if (buffer !== undefined && buffer !== diff.oldText) {
        return false;
      }
      state = {
        requestId,
        filePath: diff.path,
        fileUri,
        oldText: diff.oldText,
        proposed: diff.newText,
        hunks: [],
        decisions: new Map(),
      };
      this.recompute(state);
      if (state.hunks.length === 0) {
        return false;
      }
      this.reviews.set(requestId, state);
    } else {
      this.recompute(state);
    }
    const first = state.hunks.find((h) => !state.decisions.has(hunkKey(h))) ?? state.hunks[0];
    await this.view.show(state, anchorLine(first));
    const shown = this.host.documentText(state.fileUri);
    if (shown !== undefined && shown !== state.oldText) {
      // The file as loaded is not what the agent read (it had unsaved text elsewhere): the hunks would not fit.
      this.close(requestId);
      return false;
    }
    this.report(state);
    return true;
  }

  get(requestId: string): InlineState | undefined {
    return this.reviews.get(requestId);
  }

  /** The review showing in the file `uri`, if any. */
  forUri(uri: string): InlineState | undefined {
    return [...this.reviews.values()].find((s) => s.fileUri === uri);
  }

  all(): InlineState[] {
    return [...this.reviews.values()];
  }

  status(requestId: string): string | undefined {
    const state = this.reviews.get(requestId);
    return state === undefined ? undefined : summary(state.hunks, state.decisions);
  }

  /** Accepts or rejects one hunk (by key, else the one at the cursor); the last choice answers the server. */
  async decide(decision: Decision, requestId?: string, key?: string): Promise<boolean> {
    const target = this.target(requestId, key);
    if (target === undefined) {
      return false;
    }
    const { state, hunk } = target;
    state.decisions.set(hunkKey(hunk), decision);
    return this.afterChoice(state, hunk);
  }

  /** Takes back the choice on a hunk (before the last one is made). */
  async undecide(requestId?: string, key?: string): Promise<boolean> {
    const target = this.target(requestId, key);
    if (target === undefined) {
      return false;
    }
    target.state.decisions.delete(hunkKey(target.hunk));
    await this.view.show(target.state, anchorLine(target.hunk));
    this.report(target.state);
    return true;
  }

  /** Accept All / Reject All: every hunk still open gets the choice, then the server gets the answer. */
  async decideRest(decision: Decision, requestId?: string): Promise<boolean> {
    const state = requestId !== undefined ? this.reviews.get(requestId) : this.current();
    if (state === undefined) {
      return false;
    }
    this.recompute(state);
    for (const h of state.hunks) {
      if (!state.decisions.has(hunkKey(h))) {
        state.decisions.set(hunkKey(h), decision);
      }
    }
    return this.finish(state);
  }

  /** Moves the cursor to the next (or previous) hunk of the review in the active editor, wrapping around. */
  async move(step: 1 | -1): Promise<boolean> {
    const cursor = this.view.cursor();
    const state = cursor === undefined ? undefined : this.forUri(cursor.uri);
    if (state === undefined || cursor === undefined) {
      return false;
    }
    const lines = state.hunks.map(anchorLine);
    const after = step === 1 ? lines.find((l) => l > cursor.line) : [...lines].reverse().find((l) => l < cursor.line);
    const line = after ?? (step === 1 ? lines[0] : lines[lines.length - 1]);
    await this.view.show(state, line);
    return true;
  }

  /** The file changed under a review (the user typed in it): the hunks no longer fit, so the review moves to
   * the side-by-side diff, where the proposal is still whole. */
  async documentChanged(uri: string, text: string): Promise<void> {
    const state = this.forUri(uri);
    if (state === undefined || text === state.oldText) {
      return;
    }
    this.close(state.requestId);
    void this.host.showMessage(
      "warning",
      `${state.filePath} changed during the review, so the proposal is shown side by side; accepting it there will be refused unless the file is as it was.`,
    );
    await this.sideBySide.open(state.requestId);
  }

  /** The user edited a proposal in the side-by-side diff: the inline hunks follow what it now says. */
  proposalEdited(): void {
    for (const state of this.reviews.values()) {
      this.recompute(state);
      this.view.redraw(state);
      this.report(state);
    }
  }

  private target(requestId?: string, key?: string): { state: InlineState; hunk: Hunk } | undefined {
    const state = requestId !== undefined ? this.reviews.get(requestId) : this.current();
    if (state === undefined) {
      return undefined;
    }
    this.recompute(state);
    if (key !== undefined) {
      const hunk = state.hunks.find((h) => hunkKey(h) === key);
      return hunk === undefined ? undefined : { state, hunk };
    }
    const cursor = this.view.cursor();
    const line = cursor !== undefined && cursor.uri === state.fileUri ? cursor.line : 0;
    // The hunk under the cursor, else the next one below it, else the last.
    const hunk =
      state.hunks.find((h) => line >= anchorLine(h) && line <= Math.max(anchorLine(h), h.oldEnd - 1)) ??
      state.hunks.find((h) => anchorLine(h) > line) ??
      state.hunks[state.hunks.length - 1];
    return { state, hunk };
  }

  /** The review in the active editor, else the only one open. */
  private current(): InlineState | undefined {
    const cursor = this.view.cursor();
    const here = cursor === undefined ? undefined : this.forUri(cursor.uri);
    if (here !== undefined) {
      return here;
    }
    return this.reviews.size === 1 ? [...this.reviews.values()][0] : undefined;
  }

  private async afterChoice(state: InlineState, hunk: Hunk): Promise<boolean> {
    if (state.hunks.every((h) => state.decisions.has(hunkKey(h)))) {
      return this.finish(state);
    }
    const index = state.hunks.indexOf(hunk);
    const rest = [...state.hunks.slice(index + 1), ...state.hunks.slice(0, index)];
    const next = rest.find((h) => !state.decisions.has(hunkKey(h)));
    await this.view.show(state, next === undefined ? undefined : anchorLine(next));
    this.report(state);
    return true;
  }

  /** One answer for the whole edit: all rejected is a rejection; anything taken is an approval carrying the
   * resulting text (accepted hunks applied, the rest as they were) when it is not the proposal as sent. */
  private finish(state: InlineState): boolean {
    const { kinds, modified } = answerOf(state);
    return this.broker.answerKind(state.requestId, kinds, modified);
  }

  /** The hunks of the proposal as it stands now (the user may have edited it in the side-by-side diff). */
  private recompute(state: InlineState): void {
    const proposal = this.sideBySide.proposalText(state.requestId) ?? state.proposed;
    state.hunks = lineHunks(state.oldText, proposal);
    const keys = new Set(state.hunks.map(hunkKey));
    [...state.decisions.keys()].filter((key) => !keys.has(key)).forEach((key) => state.decisions.delete(key));
  }

  private report(state: InlineState): void {
    const status = summary(state.hunks, state.decisions);
    for (const listener of this.listeners) {
      listener(state.requestId, status);
    }
    this.refreshContext();
  }

  /** Sets the context key the hunk keybindings depend on: true while the active editor shows a review. */
  refreshContext(): void {
    const cursor = this.view.cursor();
    void this.host.setContext(INLINE_CONTEXT, cursor !== undefined && this.forUri(cursor.uri) !== undefined);
  }

  private close(requestId: string): void {
    const state = this.reviews.get(requestId);
    if (state === undefined) {
      return;
    }
    this.reviews.delete(requestId);
    this.view.clear(state);
    for (const listener of this.listeners) {
      listener(requestId, undefined);
    }
    this.refreshContext();
  }
}

/** The permission answer the review's choices make: all rejected is a rejection; anything taken is an approval with
 * the resulting text (accepted hunks applied, the rest as they were) when it is not the proposal as sent. */
function answerOf(state: InlineState): { kinds: ("allow_once" | "allow_always" | "reject_once" | "reject_always")[]; modified?: string } {
  if (!state.hunks.some((h) => state.decisions.get(hunkKey(h)) === "accepted")) {
    return { kinds: ["reject_once", "reject_always"] };
  }
  const result = compose(state.oldText, state.hunks, state.decisions);
  return { kinds: ["allow_once", "allow_always"], modified: result === state.proposed ? undefined : result };
}
