// The chat's behaviour over a plain Connection: the server's lifecycle and the webview's messages, routed to the
// parts that do the work (chatSessions.ts, chatTurns.ts, chatQuestions.ts; state in chatCore.ts).

import { ChatCore } from "./chatCore";
import { ChatQuestions } from "./chatQuestions";
import { ChatSessions } from "./chatSessions";
import { ChatTurns } from "./chatTurns";
import { changedFiles, openChange } from "./changedFiles";
import type { Draft } from "./composer";
import type { ElicitParams, ElicitResult } from "./elicitation";
import type { Cancellation, Connection } from "./host";
import { MESSAGE_ACTION_TYPES, MessageActions } from "./messageActions";
import type { FromWebview } from "./messages";
import { METHODS, type EditorContext, type RequestPermissionParams, type RequestPermissionResult, type UpdateParams } from "./protocol";
import * as Q from "./queue";
import * as S from "./state";


type Handlers = { [K in FromWebview["type"]]?: (msg: Extract<FromWebview, { type: K }>) => Promise<void> | void };

export class ChatController extends ChatCore {
  private panelReady = false;
  /** The session the server had when it died; resumed (transcript kept) once the restarted server attaches. */
  private lost: string | undefined;
  /** Rewind, Edit and Fork on the user's messages. */
  readonly messageActions = new MessageActions({
    state: () => this.state,
    set: (next) => this.set(next),
    request: (method, params) => this.request(method, params),
    warn: async (message) => void (await this.host.showMessage("warning", message)),
  });
  readonly sessions = new ChatSessions(this);
  readonly turns = new ChatTurns(this, this.sessions, this.messageActions);
  readonly questions = new ChatQuestions(this);

  /** A change made by the panel's other parts (panelActions.ts). */
  update(change: (state: S.ChatState) => S.ChatState): void {
    this.set(change(this.state));
  }

  // --- server lifecycle ----------------------------------------------------------------------------

  /** The server is starting; `message` says what it is doing when that takes a while (installing itself). */
  serverStarting(message?: string): void {
    this.set(S.setServerStatus(this.state, "starting", message));
  }

  attach(connection: Connection): void {
    this.connection = connection;
    this.set({ ...S.setServerStatus(this.state, "running"), steering: this.serves(METHODS.steer) });
    const lost = this.lost;
    this.lost = undefined;
    if (lost !== undefined) {
      void this.sessions.resume(lost);
    } else if (this.panelReady) {
      // The panel is already open: give it a session so its mode and model pickers fill in.
      this.ensureSession().catch((err: unknown) => this.fail(err));
    }
  }

  /**
   * The server died and vscode-languageclient is starting it again: say so in words, keep the transcript,
   * and remember the session so the restarted server resumes it (see attach).
   */
  serverLost(): void {
    const wasBusy = this.state.busy;
    this.lost = this.state.sessionId ?? this.lost;
    this.connection = undefined;
    this.sessions.forgetCreation();
    this.withdrawQuestions();
    let next = S.setServerStatus(this.state, "starting");
    next = S.setBusy(next, false);
    next = S.interruptTools(next);
    next = S.addNotice(
      next,
      "warning",
      wasBusy
        ? "The agent server stopped unexpectedly while it was working, so that reply is incomplete. It is restarting; this chat will continue, and you can send your request again."
        : "The agent server stopped unexpectedly. It is restarting; this chat will continue.",
    );
    this.set({ ...next, sessionId: undefined });
  }

  /** The server stopped (or failed to start): open questions are cancelled, the session is gone with it. */
  detach(status: "stopped" | "failed", message?: string): void {
    this.connection = undefined;
    this.sessions.forgetCreation();
    this.withdrawQuestions();
    const next = S.setBusy(S.setServerStatus(this.state, status, message), false);
    this.set({ ...next, sessionId: undefined });
  }

  // --- the parts' entry points, as the extension and its commands call them ------------------------

  newSession = (): Promise<string> => this.sessions.newSession();
  ensureSession = (): Promise<string> => this.sessions.ensureSession();
  listSessions = (): Promise<void> => this.sessions.listSessions();
  setMode = (modeId: string): Promise<void> => this.sessions.setMode(modeId);
  setModel = (modelId: string): Promise<void> => this.sessions.setModel(modelId);
  onUpdate = (params: UpdateParams): void => this.sessions.onUpdate(params);
  send = (text: string, context?: EditorContext): Promise<string | undefined> => this.turns.sendDraft({ text, attachments: [] }, context);
  submit = (draft: Draft): Promise<string | undefined> => this.turns.submit(draft);
  sendNow = (draft: Draft | string): Promise<void> => this.turns.sendNow(draft);
  retry = (itemId: string): Promise<void> => this.turns.retry(itemId);
  runServerCommand = (command: string, args: unknown[]): Promise<void> => this.turns.runServerCommand(command, args);
  cancel = (): Promise<void> => this.turns.cancel();
  onElicit = (params: ElicitParams, token?: Cancellation): Promise<ElicitResult> => this.questions.onElicit(params, token);
  onRequestPermission = (params: RequestPermissionParams, token?: Cancellation): Promise<RequestPermissionResult> =>
    this.questions.onRequestPermission(params, token);
  openReview = (requestId: string): Promise<void> => this.questions.openReview(requestId);
  setReviewStatus = (requestId: string, status: string | undefined): void => this.questions.setReviewStatus(requestId, status);

  async newChat(): Promise<void> {
    if (this.state.busy) {
      await this.cancel();
    }
    await this.newSession();
  }

  /** Resumes a saved session (the running turn, if any, is stopped first). */
  async loadSession(sessionId: string): Promise<void> {
    if (this.state.busy) {
      await this.cancel();
    }
    await this.sessions.loadSession(sessionId);
  }

  async copy(itemId: string): Promise<void> {
    const text = S.itemText(this.state, itemId);
    if (text !== undefined) {
      await this.host.copyText(text);
    }
  }

  removeQueued(id: string): void {
    this.set(Q.removeQueued(this.state, id));
  }

  // --- from the webview ----------------------------------------------------------------------------

  private readonly handlers: Handlers = {
    ready: async () => {
      this.panelReady = true;
      this.set({ ...this.state });
      if (this.connection !== undefined) {
        await this.ensureSession();
      }
    },
    send: (msg) => this.submit({ text: msg.text, attachments: msg.attachments ?? [] }).then(() => undefined),
    sendNow: (msg) => this.sendNow(msg.id ?? { text: msg.text ?? "", attachments: msg.attachments ?? [] }),
    queueRemove: (msg) => this.removeQueued(msg.id),
    openChange: async (msg) => {
      const change = changedFiles(this.state).find((c) => c.path === msg.path);
      if (change !== undefined && this.questions.store !== undefined) {
        await openChange(this.host, this.questions.store, change);
      }
    },
    retry: (msg) => this.retry(msg.itemId),
    copy: (msg) => this.copy(msg.itemId),
    cancel: () => this.cancel(),
    newChat: () => this.newChat(),
    listSessions: () => this.listSessions(),
    loadSession: (msg) => this.loadSession(msg.sessionId),
    setMode: (msg) => this.setMode(msg.modeId),
    setModel: (msg) => this.setModel(msg.modelId),
    permission: (msg) => void this.broker.answer(msg.requestId, msg.optionId),
    elicit: (msg) => void this.forms.answer(msg.requestId, msg.result),
    reviewDiff: (msg) => this.openReview(msg.requestId),
    openLocation: (msg) => this.host.openLocation(msg.path, msg.line),
    // restartServer, the @ picker, autoApprove, keepAll and revertAll: the extension's, which owns the server and editor.
  };

  async handleMessage(msg: FromWebview): Promise<void> {
    try {
      if (MESSAGE_ACTION_TYPES.has(msg.type)) {
        await this.messageActions.handle(msg as Parameters<MessageActions["handle"]>[0]);
        return;
      }
      const handler = this.handlers[msg.type] as ((m: FromWebview) => Promise<void> | void) | undefined;
      await handler?.(msg);
    } catch (err) {
      this.fail(err);
    }
  }
}
