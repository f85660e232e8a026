// Pending agent/requestPermission questions: one answer each, from the panel, a notification or the diff review.

import type {
  DiffContent,
  PermissionKind,
  PermissionOption,
  RequestPermissionParams,
  RequestPermissionResult,
} from "./protocol";

export const ALLOW_ONCE = "Allow once";
export const ALLOW_SESSION = "Allow for this session";
export const REJECT = "Reject";
export const REVIEW_DIFF = "Review diff";

export interface Choice {
  label: string;
  optionId: string;
  kind: PermissionKind;
  /** The server's own wording, shown as a tooltip (e.g. "Allow all edits this session"). */
  detail: string;
}

/**
 * The buttons for a question, one per option the server offers, in its order: the first of each plain kind gets
 * the short label (Allow once / Allow for this session / Reject), every other option its own name (per MCP
 * server, all future sessions, anything new).
 */
export function choices(options: PermissionOption[]): Choice[] {
  const seen = new Set<PermissionKind>();
  return options.map((o) => {
    const first = !seen.has(o.kind);
    seen.add(o.kind);
    let label = o.name;
    if (first && o.kind === "allow_once") {
      label = ALLOW_ONCE;
    } else if (first && o.kind === "allow_always") {
      label = ALLOW_SESSION;
    } else if (first && o.kind === "reject_once") {
      label = REJECT;
    }
    return { label, optionId: o.optionId, kind: o.kind, detail: o.name };
  });
}

export function diffOf(params: RequestPermissionParams): DiffContent | undefined {
  return diffsOf(params)[0];
}

/** Every file's diff a question carries (a rename asks once for all the files it changes, one diff each). */
export function diffsOf(params: RequestPermissionParams): DiffContent[] {
  return (params.toolCall.content ?? []).filter((c): c is DiffContent => c.type === "diff");
}

/** One line saying what is asked, for notifications and the panel; `shown` turns a path into what a user reads. */
export function describe(params: RequestPermissionParams, shown: (path: string) => string = (p) => p): string {
  const call = params.toolCall;
  const diffs = diffsOf(params);
  if (diffs.length > 1) {
    return `The agent wants to change ${diffs.length} files: ${diffs.map((d) => shown(d.path)).join(", ")}`;
  }
  const diff = diffs[0];
  if (diff !== undefined) {
    const verb = diff.oldText === null ? "create" : "edit";
    return `The agent wants to ${verb} ${shown(diff.path)}`;
  }
  return `The agent asks to run: ${call.title ?? call.toolCallId}`;
}

interface Pending {
  params: RequestPermissionParams;
  resolve: (result: RequestPermissionResult) => void;
}

export class PermissionBroker {
  private readonly pending = new Map<string, Pending>();
  private readonly listeners: ((requestId: string) => void)[] = [];
  private seq = 0;

  /** Registers a question; the promise settles with the first answer given for it. */
  ask(params: RequestPermissionParams): { requestId: string; answer: Promise<RequestPermissionResult> } {
    this.seq += 1;
    const requestId = `perm-${this.seq}`;
    const answer = new Promise<RequestPermissionResult>((resolve) => {
      this.pending.set(requestId, { params, resolve });
    });
    return { requestId, answer };
  }

  get(requestId: string): RequestPermissionParams | undefined {
    return this.pending.get(requestId)?.params;
  }

  ids(): string[] {
    return [...this.pending.keys()];
  }

  /** Answers with an option id; false when the question was already answered (or never asked). */
  answer(requestId: string, optionId: string, modifiedContent?: string): boolean {
    const entry = this.pending.get(requestId);
    if (entry === undefined || !entry.params.options.some((o) => o.optionId === optionId)) {
      return false;
    }
    const result: RequestPermissionResult = { outcome: { outcome: "selected", optionId } };
    if (modifiedContent !== undefined) {
      result._meta = { modifiedContent };
    }
    this.settle(requestId, entry, result);
    return true;
  }

  /**
   * Answers with the first option of the first kind offered, in the order of `kinds` (the reviews' Accept is
   * allow_once before allow_always, whatever order the server lists them in).
   */
  answerKind(requestId: string, kinds: PermissionKind[], modifiedContent?: string): boolean {
    const options = this.pending.get(requestId)?.params.options ?? [];
    const option = kinds.map((k) => options.find((o) => o.kind === k)).find((o) => o !== undefined);
    return option !== undefined && this.answer(requestId, option.optionId, modifiedContent);
  }

  /** Answers a notification button by its label. */
  answerLabel(requestId: string, label: string): boolean {
    const entry = this.pending.get(requestId);
    const choice = entry === undefined ? undefined : choices(entry.params.options).find((c) => c.label === label);
    return choice !== undefined && this.answer(requestId, choice.optionId);
  }

  cancel(requestId: string): void {
    const entry = this.pending.get(requestId);
    if (entry !== undefined) {
      this.settle(requestId, entry, { outcome: { outcome: "cancelled" } });
    }
  }

  /** The server went away or the turn was cancelled: every open question is answered "cancelled". */
  cancelAll(): void {
    for (const id of this.ids()) {
      this.cancel(id);
    }
  }

  onSettled(listener: (requestId: string) => void): void {
    this.listeners.push(listener);
  }

  private settle(requestId: string, entry: Pending, result: RequestPermissionResult): void {
    this.pending.delete(requestId);
    entry.resolve(result);
    for (const listener of this.listeners) {
      listener(requestId);
    }
  }
}
