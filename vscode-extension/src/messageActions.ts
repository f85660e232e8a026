// The actions on the user's own messages: Rewind here, Edit and Fork (agent/rewind, agent/fork), each shown with
// what it will restore before anything is done, and the one-step undo of a rewind until the next prompt.

import type { ChatItem, ChatState } from "./state";
import * as S from "./state";
import { METHODS, type SessionDescription } from "./protocol";
import type { FileChanges, RewindAction, RewindView } from "./rewindView";

export type MessageActionMessage =
  | { type: "rewind" | "edit" | "fork"; itemId: string }
  | { type: "rewindConfirm" | "rewindCancel" | "rewindUndo" };

export const MESSAGE_ACTION_TYPES = new Set(["rewind", "edit", "fork", "rewindConfirm", "rewindCancel", "rewindUndo"]);

/** A webview message of these actions checked for shape (undefined: not one, or malformed). */
export function parseMessageAction(msg: Record<string, unknown>): MessageActionMessage | undefined {
  if (msg.type === "rewind" || msg.type === "edit" || msg.type === "fork") {
    return typeof msg.itemId === "string" ? { type: msg.type, itemId: msg.itemId } : undefined;
  }
  if (msg.type === "rewindConfirm" || msg.type === "rewindCancel" || msg.type === "rewindUndo") {
    return { type: msg.type };
  }
  return undefined;
}

interface RewindListing {
  messages: { index: number; text: string; rewindable: boolean }[];
}

interface RewindAnswer extends FileChanges {
  messageIndex: number;
  text: string;
  filesAvailable?: boolean;
}

/** Whether the panel's text of a user message is the server's (the panel adds its chips' labels after the text). */
function sameMessage(shown: string, sent: string): boolean {
  const a = shown.replace(/\s+/g, " ").trim();
  const b = sent.replace(/\s+/g, " ").trim();
  return a === b || (b !== "" && a.startsWith(b)) || (a !== "" && b.startsWith(a));
}

/**
 * The server's index of the panel's user message `itemId`. Both list the session's user messages in order, but a
 * turn the panel did not start itself (a code action's) is only in the server's list: the two are lined up from
 * the latest message back, by text, passing over the server's extra ones. If the texts do not line up (a message
 * the server holds in other words), they are lined up by position from the end.
 */
export function serverIndex(items: ChatItem[], itemId: string, messages: { text: string }[]): number | undefined {
  const users = items.filter((i) => i.kind === "user");
  const at = users.findIndex((i) => i.id === itemId);
  if (at < 0) {
    return undefined;
  }
  let k = messages.length;
  for (let i = users.length - 1; i >= at; i--) {
    k -= 1;
    while (k >= 0 && !sameMessage(users[i].text, messages[k].text)) {
      k -= 1;
    }
    if (k < 0) {
      const index = messages.length - (users.length - at);
      return index >= 0 ? index : undefined;
    }
  }
  return k;
}

/** The transcript before user message `itemId` (what stays after rewinding to it). */
export function itemsBefore(items: ChatItem[], itemId: string): ChatItem[] {
  const at = items.findIndex((i) => i.id === itemId);
  return at < 0 ? items : items.slice(0, at);
}

/** The preview's question, in words, for the dialog and for screen readers. */
export function previewSummary(p: FileChanges): string {
  const n = (count: number, one: string) => `${count} ${one}${count === 1 ? "" : "s"}`;
  const parts: string[] = [];
  if (p.restore.length > 0) parts.push(`${n(p.restore.length, "file")} restored`);
  if (p.delete.length > 0) parts.push(`${n(p.delete.length, "file")} the agent created removed`);
  if (p.conflicts.length > 0) parts.push(`${n(p.conflicts.length, "file")} you edited since kept as they are`);
  return parts.length > 0 ? `${parts.join(", ")}.` : "No files to restore; only the conversation goes back.";
}

/** What the controller lends these actions: its state, its setter and requests to the server. */
export interface ActionHost {
  state(): ChatState;
  set(state: ChatState): void;
  request<R>(method: string, params: unknown): Promise<R>;
  warn(message: string): Promise<void>;
}

export class MessageActions {
  /** The transcript a rewind removed, put back by its undo. */
  private removed: ChatItem[] | undefined;
  private seq = 0;

  constructor(private readonly host: ActionHost) {}

  async handle(msg: MessageActionMessage): Promise<void> {
    switch (msg.type) {
      case "rewind":
      case "edit":
        return this.preview(msg.type, msg.itemId);
      case "fork":
        return this.fork(msg.itemId);
      case "rewindConfirm":
        return this.confirm();
      case "rewindCancel":
        return this.patch({ preview: undefined });
      case "rewindUndo":
        return this.undo();
    }
  }

  /** A prompt was sent: the last rewind is final (the server forgets its undo then too). */
  forget(): void {
    this.removed = undefined;
    const view = this.host.state().rewind;
    if (view?.done !== undefined || view?.preview !== undefined) {
      this.patch({ done: undefined, preview: undefined });
    }
  }

  /** Rewind or Edit asked: the server's dry run says what will be restored; the panel asks to confirm. */
  private async preview(action: RewindAction, itemId: string): Promise<void> {
    const target = await this.target(itemId);
    if (target === undefined) {
      return;
    }
    const { state, index } = target;
    const plan = await this.host.request<RewindAnswer>(METHODS.rewind, { sessionId: state.sessionId, messageIndex: index, dryRun: true });
    this.patch({ preview: { itemId, action, index, text: plan.text, restore: plan.restore, delete: plan.delete, conflicts: plan.conflicts } });
  }

  private async confirm(): Promise<void> {
    const state = this.host.state();
    const preview = state.rewind?.preview;
    if (preview === undefined || state.sessionId === undefined) {
      return;
    }
    this.patch({ preview: undefined });
    if (!(await this.idle(state))) {
      return;
    }
    const done = await this.host.request<RewindAnswer>(METHODS.rewind, { sessionId: state.sessionId, messageIndex: preview.index });
    const now = this.host.state();
    this.removed = now.items.slice(itemsBefore(now.items, preview.itemId).length);
    const view: RewindView = {
      ...now.rewind,
      preview: undefined,
      done: { text: done.text, restore: done.restore, delete: done.delete, conflicts: done.conflicts, filesAvailable: done.filesAvailable ?? true },
    };
    view.composer = { ...this.composer(done.text), ...(preview.action === "rewind" ? { ifEmpty: true } : {}) };
    this.host.set(S.staleUsage(S.bump(now, { items: itemsBefore(now.items, preview.itemId), plan: [], rewind: view })));
  }

  private async undo(): Promise<void> {
    const state = this.host.state();
    if (state.rewind?.done === undefined || state.sessionId === undefined || !(await this.idle(state))) {
      return;
    }
    await this.host.request(METHODS.rewind, { sessionId: state.sessionId, undo: true });
    const now = this.host.state();
    const removed = this.removed ?? [];
    this.removed = undefined;
    this.host.set(S.staleUsage(S.bump(now, { items: [...now.items, ...removed], rewind: { ...now.rewind, done: undefined } })));
  }

  /** Fork from a message: a new session with the conversation before it, the message in the box to send. */
  private async fork(itemId: string): Promise<void> {
    const target = await this.target(itemId);
    if (target === undefined) {
      return;
    }
    const { state, index } = target;
    const params: Record<string, unknown> = { sessionId: state.sessionId, messageIndex: index };
    if (state.cwd) params.cwd = state.cwd;
    // The server replays the fork's conversation (agent/update, replay) before answering: the controller adopts
    // the new session from those; a fork from the first message replays nothing, so it is started here.
    const answer = await this.host.request<SessionDescription & { messageText?: string }>(METHODS.fork, params);
    this.removed = undefined;
    let next = this.host.state();
    next = next.sessionId === answer.sessionId ? next : S.adoptSession(next, answer.sessionId);
    next = S.bump(next, {
      cwd: state.cwd,
      modes: answer.modes.availableModes,
      currentMode: answer.modes.currentModeId,
      models: answer.models.availableModels,
      currentModel: answer.models.currentModelId,
      commands: answer.commands,
      imageInput: answer.promptCapabilities?.image,
      queue: [],
      rewind: { composer: this.composer(answer.messageText ?? "") },
    });
    this.host.set(next);
  }

  private async idle(state: ChatState): Promise<boolean> {
    if (state.busy || state.sessionId === undefined) {
      await this.host.warn(state.busy ? "The agent is still working; stop it first or wait for it to finish." : "There is no chat to go back in yet.");
      return false;
    }
    return true;
  }

  /** The current state and the server's index of user message `itemId`, when the chat is idle and it has one. */
  private async target(itemId: string): Promise<{ state: ChatState; index: number } | undefined> {
    const state = this.host.state();
    if (!(await this.idle(state))) {
      return undefined;
    }
    const index = await this.indexOf(state, itemId);
    return index === undefined ? undefined : { state, index };
  }

  private async indexOf(state: ChatState, itemId: string): Promise<number | undefined> {
    const listing = await this.host.request<RewindListing>(METHODS.rewind, { sessionId: state.sessionId });
    const index = serverIndex(state.items, itemId, listing.messages);
    const message = index === undefined ? undefined : listing.messages[index];
    if (message === undefined || !message.rewindable) {
      await this.host.warn(
        message === undefined
          ? "That message is not part of the session any more."
          : "That message was before the conversation was compressed, so it can no longer be gone back to.",
      );
      return undefined;
    }
    return index;
  }

  private composer(text: string): { text: string; seq: number } {
    this.seq += 1;
    return { text, seq: this.seq };
  }

  private patch(patch: Partial<RewindView>): void {
    const state = this.host.state();
    this.host.set(S.bump(state, { rewind: { ...state.rewind, ...patch } }));
  }
}
