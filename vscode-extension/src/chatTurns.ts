// The chat's turns: a prompt runs, waits in the queue, or steers the running turn ("Send now"); cancel; stop notes.

import type { ChatCore } from "./chatCore";
import { errorText } from "./chatCore";
import type { ChatSessions } from "./chatSessions";
import { type Draft, blocksOf, promptOf, transcriptText } from "./composer";
import type { Connection } from "./host";
import type { MessageActions } from "./messageActions";
import { METHODS, type EditorContext, type PromptResult } from "./protocol";
import * as Q from "./queue";
import * as S from "./state";

const STOP_NOTES: Record<string, string> = {
  cancelled: "Cancelled.",
  max_tokens: "Stopped: the response hit the token limit.",
  max_turn_requests: "Stopped: too many turns.",
  refusal: "The model refused.",
  error: "The turn failed.",
};

const STILL_WORKING = "The agent is still working; stop it first or wait for it to finish.";

/** agent/steer's answer (contract: injected into the running turn, or there was none to inject into). */
interface SteerResult {
  outcome: "injected" | "startedNewTurn" | "promptRequired";
}

export class ChatTurns {
  /** "Send now" stopped the running turn: its end sends the queue's first message even though it was cancelled. */
  private sendingNow = false;

  constructor(
    private readonly core: ChatCore,
    private readonly sessions: ChatSessions,
    private readonly actions: MessageActions,
  ) {}

  /** The composer's Send: the message runs now, or waits in the queue while a turn runs. */
  async submit(draft: Draft): Promise<string | undefined> {
    if (!draft.text.trim() && draft.attachments.length === 0) {
      return undefined;
    }
    if (this.core.state.busy) {
      this.core.set(Q.enqueue(this.core.state, draft).state);
      return undefined;
    }
    return this.sendDraft(draft);
  }

  /**
   * "Send now": this message next. A server that steers (agent/steer) takes it into the running turn at its next
   * safe point; otherwise the running turn is stopped and its end sends it (see afterTurn).
   */
  async sendNow(draft: Draft | string): Promise<void> {
    let state = this.core.state;
    let id = typeof draft === "string" ? draft : undefined;
    if (typeof draft !== "string") {
      ({ state, id } = Q.enqueue(state, draft, true));
    }
    if (id === undefined || !state.queue.some((q) => q.id === id)) {
      return;
    }
    this.core.set(Q.setQueuePaused(Q.moveToFront(state, id), false));
    if (this.core.state.busy && this.core.serves(METHODS.steer)) {
      await this.steer();
      return;
    }
    if (this.core.state.busy) {
      this.sendingNow = true;
      await this.cancel();
      return;
    }
    await this.sendNext();
  }

  /** The queue's first message goes into the running turn; when the turn ended meanwhile, it is sent as a prompt. */
  private async steer(): Promise<void> {
    const { state, next } = Q.takeNext(this.core.state);
    const sessionId = this.core.state.sessionId;
    if (next === undefined || sessionId === undefined) {
      return;
    }
    const draft = next.draft;
    this.core.set(S.addUserPrompt(state, transcriptText(draft), draft, true));
    const userId = this.core.state.items[this.core.state.items.length - 1].id;
    let outcome: SteerResult["outcome"] | undefined;
    try {
      const params = { sessionId, prompt: blocksOf(draft), idleBehavior: "promptRequired" };
      outcome = (await this.core.request<SteerResult>(METHODS.steer, params)).outcome;
    } catch (err) {
      this.core.fail(err);
    }
    if (outcome === "injected" || outcome === "startedNewTurn") {
      return;
    }
    // Not taken (no turn was running any more, or the request failed): it goes back to the front of the queue.
    const back = { ...this.core.state, items: this.core.state.items.filter((i) => i.id !== userId) };
    this.core.set(Q.enqueue(back, draft, true).state);
    if (!this.core.state.busy && outcome === "promptRequired") {
      await this.sendNext();
    }
  }

  private async sendNext(): Promise<void> {
    const { state: rest, next } = Q.takeNext(this.core.state);
    this.core.set(rest);
    if (next !== undefined) {
      await this.sendDraft(next.draft);
    }
  }

  /** Retry: the message a response answered goes again (queued when a turn runs). */
  async retry(itemId: string): Promise<void> {
    const draft = S.promptBefore(this.core.state, itemId);
    if (draft !== undefined) {
      await this.submit(draft);
    }
  }

  async sendDraft(draft: Draft, context?: EditorContext): Promise<string | undefined> {
    const prompt = promptOf(draft);
    if (prompt === "" || (Array.isArray(prompt) && draft.attachments.length === 0)) {
      return undefined;
    }
    return this.turn(async (sessionId, connection) => {
      this.core.set(S.addUserPrompt(this.core.state, transcriptText(draft), draft));
      const params = context === undefined ? { sessionId, prompt } : { sessionId, prompt, context };
      const result = await connection.sendRequest<PromptResult>(METHODS.prompt, params);
      this.noteStop(result.stopReason);
      return result.stopReason;
    });
  }

  /** Runs one of the server's commands (Fix / Explain / Edit selection) and shows its turn in the panel. */
  async runServerCommand(command: string, args: unknown[]): Promise<void> {
    await this.turn(async (sessionId, connection) => {
      // The server runs the command in the session named here, so the turn lands in the panel's chat.
      const first = args[0];
      const named = typeof first === "object" && first !== null ? [{ ...first, sessionId }, ...args.slice(1)] : args;
      const result = await connection.sendRequest<{ stopReason?: string } | null>("workspace/executeCommand", {
        command,
        arguments: named,
      });
      if (result?.stopReason) {
        this.noteStop(result.stopReason);
      }
      return result?.stopReason ?? "end_turn";
    });
  }

  /** One turn: refused while another runs; busy while it runs; its stop reason decides what the queue does. */
  private async turn(run: (sessionId: string, connection: Connection) => Promise<string>): Promise<string | undefined> {
    const core = this.core;
    if (core.state.busy) {
      await core.host.showMessage("warning", STILL_WORKING);
      return undefined;
    }
    this.actions.forget(); // a prompt makes the last rewind final
    core.set(S.setBusy(core.state, true, "Thinking…"));
    let connection: Connection | undefined;
    let stop: string | undefined;
    try {
      const sessionId = await this.sessions.ensureSession();
      connection = core.conn();
      stop = await run(sessionId, connection);
    } catch (err) {
      this.noteFailure(err, connection);
      stop = "error";
    } finally {
      core.set(S.setBusy(core.state, false));
      this.afterTurn(stop);
    }
    return stop;
  }

  /**
   * A turn ended: the next queued message goes out when the turn finished by itself, or when "send now" stopped
   * it; after the user's Stop or a failure the queue waits (paused) for the user to say.
   */
  private afterTurn(stop: string | undefined): void {
    const now = this.sendingNow;
    this.sendingNow = false;
    if (this.core.state.queue.length === 0) {
      return;
    }
    if (!now && !Q.continuesQueue(stop)) {
      this.core.set(Q.setQueuePaused(this.core.state, true));
      return;
    }
    const { state, next } = Q.takeNext(Q.setQueuePaused(this.core.state, false));
    this.core.set(state);
    if (next !== undefined) {
      void this.sendDraft(next.draft);
    }
  }

  /** A failed request. When the server died under it, serverLost already said so in words: nothing to add. */
  private noteFailure(err: unknown, connection: Connection | undefined): void {
    if (connection !== undefined && connection !== this.core.connection) {
      return;
    }
    const text = errorText(err);
    if (/connection got disposed|connection (is|was|got) (closed|disposed)/i.test(text)) {
      this.core.set(S.addNotice(this.core.state, "warning", "The connection to the agent server was lost, so that reply is incomplete."));
      return;
    }
    this.core.set(S.addNotice(this.core.state, "error", text));
  }

  private noteStop(reason: string): void {
    const note = STOP_NOTES[reason];
    if (note !== undefined) {
      this.core.set(S.addNotice(this.core.state, reason === "cancelled" ? "info" : "warning", note));
    }
  }

  async cancel(): Promise<void> {
    this.core.withdrawQuestions();
    const { connection, state } = this.core;
    if (connection !== undefined && state.sessionId !== undefined) {
      await connection.sendNotification(METHODS.cancel, { sessionId: state.sessionId });
    }
  }
}
