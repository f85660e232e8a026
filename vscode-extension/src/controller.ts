// The chat's behaviour: sessions, prompts, cancellation, updates and permission questions, over a plain Connection.

import type { DiffReview, ProposalStore } from "./diffReview";
import type { InlineReview } from "./inlineReview";
import type { Cancellation, Connection, Host } from "./host";
import { changedFiles, openChange } from "./changedFiles";
import { type ElicitParams, type ElicitResult, FormBroker, formNotice } from "./elicitation";
import { type Draft, promptOf, transcriptText } from "./composer";
import type { FromWebview } from "./messages";
import { MESSAGE_ACTION_TYPES, MessageActions } from "./messageActions";
import {
  REVIEW_DIFF,
  choices,
  describe,
  diffOf,
  type PermissionBroker,
} from "./permissions";
import {
  METHODS,
  type EditorContext,
  type ListSessionsResult,
  type PromptResult,
  type RequestPermissionParams,
  type RequestPermissionResult,
  type SessionDescription,
  type UpdateParams,
} from "./protocol";
import * as Q from "./queue";
import * as S from "./state";

export interface SessionDefaults {
  cwd?: string;
  approvalMode?: string;
  model?: string;
}

const STOP_NOTES: Record<string, string> = {
  cancelled: "Cancelled.",
  max_tokens: "Stopped: the response hit the token limit.",
  max_turn_requests: "Stopped: too many turns.",
  refusal: "The model refused.",
  error: "The turn failed.",
};

export class ChatController {
  state: S.ChatState = S.emptyState();
  private connection: Connection | undefined;
  private readonly listeners: ((state: S.ChatState) => void)[] = [];
  private creating: Promise<string> | undefined;
  private loading: string | undefined;
  private panelReady = false;
  /** "Send now" stopped the running turn: its end sends the queue's first message even though it was cancelled. */
  private sendingNow = false;
  /** The session the server had when it died; resumed (transcript kept) once the restarted server attaches. */
  private lost: string | undefined;
  /** Replayed updates of the session being resumed after a crash: the panel already shows them. */
  private resuming: string | undefined;
  review: DiffReview | undefined;
  /** The inline review in the file's own editor, tried before the side-by-side diff when set. */
  inline: InlineReview | undefined;
  /** Where "before the turn" texts live while their diff is open (the proposals' in-memory files). */
  store: ProposalStore | undefined;
  /** Rewind, Edit and Fork on the user's messages. */
  readonly messageActions = new MessageActions({
    state: () => this.state,
    set: (next) => this.set(next),
    request: (method, params) => this.request(method, params),
    warn: async (message) => void (await this.host.showMessage("warning", message)),
  });
  /** MCP servers' forms waiting in the panel (agent/elicit). */
  readonly forms = new FormBroker();

  constructor(
    private readonly host: Host,
    readonly broker: PermissionBroker,
    private readonly defaults: () => SessionDefaults,
  ) {}

  onChange(listener: (state: S.ChatState) => void): void {
    this.listeners.push(listener);
  }

  /** A change made by the panel's other parts (panelActions.ts). */
  update(change: (state: S.ChatState) => S.ChatState): void {
    this.set(change(this.state));
  }

  private set(next: S.ChatState): void {
    this.state = next;
    for (const listener of this.listeners) {
      listener(next);
    }
  }

  // --- server lifecycle ----------------------------------------------------------------------------

  /** The server is starting; `message` says what it is doing when that takes a while (installing itself). */
  serverStarting(message?: string): void {
    this.set(S.setServerStatus(this.state, "starting", message));
  }

  attach(connection: Connection): void {
    this.connection = connection;
    this.set(S.setServerStatus(this.state, "running"));
    const lost = this.lost;
    this.lost = undefined;
    if (lost !== undefined) {
      void this.resume(lost);
    } else if (this.panelReady) {
      // The panel is already open: give it a session so its mode and model pickers fill in.
      this.ensureSession().catch((err: unknown) => this.set(S.addNotice(this.state, "error", errorText(err))));
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
    this.creating = undefined;
    this.broker.cancelAll();
    this.forms.cancelAll();
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

  /** After a restart: load the lost session on the new server (its replay is already on screen). */
  private async resume(sessionId: string): Promise<void> {
    const d = this.defaults();
    this.resuming = sessionId;
    try {
      const params: Record<string, string> = { sessionId };
      if (d.cwd) params.cwd = d.cwd;
      const description = await this.conn().sendRequest<SessionDescription>(METHODS.loadSession, params);
      this.set(
        S.addNotice(
          {
            ...this.state,
            sessionId,
            modes: description.modes.availableModes,
            currentMode: description.modes.currentModeId,
            models: description.models.availableModels,
            currentModel: description.models.currentModelId,
            commands: description.commands,
          },
          "info",
          "The agent server is running again.",
        ),
      );
    } catch {
      // Nothing was saved of it (it died before its first reply): a fresh session, the transcript stays.
      const items = this.state.items;
      try {
        await this.ensureSession();
        this.set({ ...this.state, items });
      } catch (err) {
        this.set(S.addNotice(this.state, "error", errorText(err)));
      }
      const note = "The agent server is running again. The last chat could not be restored, so new messages start a new chat.";
      this.set(S.addNotice(this.state, "info", note));
    } finally {
      this.resuming = undefined;
    }
  }

  /** The server stopped (or failed to start): open questions are cancelled, the session is gone with it. */
  detach(status: "stopped" | "failed", message?: string): void {
    this.connection = undefined;
    this.creating = undefined;
    this.broker.cancelAll();
    this.forms.cancelAll();
    let next = S.setServerStatus(this.state, status, message);
    next = S.setBusy(next, false);
    next = { ...next, sessionId: undefined };
    this.set(next);
  }

  /** A plain request to the server (the @ picker's file search); throws when no server runs. */
  request<R>(method: string, params: unknown): Promise<R> {
    return this.conn().sendRequest<R>(method, params);
  }

  private conn(): Connection {
    if (this.connection === undefined) {
      throw new Error(this.state.serverMessage ?? "The agent server is not running.");
    }
    return this.connection;
  }

  // --- sessions ------------------------------------------------------------------------------------

  async newSession(): Promise<string> {
    const d = this.defaults();
    const params: Record<string, string> = {};
    if (d.cwd) params.cwd = d.cwd;
    if (d.approvalMode) params.approvalMode = d.approvalMode;
    if (d.model) params.model = d.model;
    const description = await this.conn().sendRequest<SessionDescription>(METHODS.newSession, params);
    this.set({ ...S.startSession(this.state, description), cwd: d.cwd });
    return description.sessionId;
  }

  /** The session prompts go to, created on first use (concurrent callers share one creation). */
  async ensureSession(): Promise<string> {
    if (this.state.sessionId !== undefined) {
      return this.state.sessionId;
    }
    this.creating ??= this.newSession().finally(() => {
      this.creating = undefined;
    });
    return this.creating;
  }

  async newChat(): Promise<void> {
    if (this.state.busy) {
      await this.cancel();
    }
    await this.newSession();
  }

  async listSessions(): Promise<void> {
    const d = this.defaults();
    const result = await this.conn().sendRequest<ListSessionsResult>(METHODS.listSessions, d.cwd ? { cwd: d.cwd } : {});
    this.set(S.setSessions(this.state, result.sessions));
  }

  /** Resumes a saved session: the server replays it as updates before answering. */
  async loadSession(sessionId: string): Promise<void> {
    if (this.state.busy) {
      await this.cancel();
    }
    const d = this.defaults();
    this.loading = sessionId;
    const title = this.state.sessions.find((s) => s.sessionId === sessionId)?.title ?? undefined;
    this.set({ ...S.adoptSession(this.state, sessionId), title, cwd: d.cwd });
    try {
      const params: Record<string, string> = { sessionId };
      if (d.cwd) params.cwd = d.cwd;
      const description = await this.conn().sendRequest<SessionDescription>(METHODS.loadSession, params);
      this.set({
        ...this.state,
        modes: description.modes.availableModes,
        currentMode: description.modes.currentModeId,
        models: description.models.availableModels,
        currentModel: description.models.currentModelId,
        commands: description.commands,
        imageInput: description.promptCapabilities?.image,
        revision: this.state.revision + 1,
      });
    } finally {
      this.loading = undefined;
    }
  }

  async setMode(modeId: string): Promise<void> {
    const sessionId = await this.ensureSession();
    await this.conn().sendRequest(METHODS.setMode, { sessionId, modeId });
    this.set({ ...this.state, currentMode: modeId, revision: this.state.revision + 1 });
  }

  async setModel(modelId: string): Promise<void> {
    const sessionId = await this.ensureSession();
    const answer = await this.conn().sendRequest<Partial<Pick<SessionDescription, "models" | "promptCapabilities">> | null>(
      METHODS.setModel,
      { sessionId, modelId },
    );
    // A model of another provider switches provider, and with it the list of models on offer.
    const models = answer?.models;
    const next = models
      ? { ...S.setModel(this.state, models.currentModelId), models: models.availableModels }
      : S.setModel(this.state, modelId);
    this.set({ ...next, imageInput: answer?.promptCapabilities?.image });
  }

  // --- prompts -------------------------------------------------------------------------------------

  /** Sends a prompt to the current session and resolves when the turn ends. */
  async send(text: string, context?: EditorContext): Promise<string | undefined> {
    return this.sendDraft({ text, attachments: [] }, context);
  }

  /** The composer's Send: the message runs now, or waits in the queue while a turn runs. */
  async submit(draft: Draft): Promise<string | undefined> {
    if (!draft.text.trim() && draft.attachments.length === 0) {
      return undefined;
    }
    if (this.state.busy) {
      this.set(Q.enqueue(this.state, draft).state);
      return undefined;
    }
    return this.sendDraft(draft);
  }

  /** "Send now": this message next, stopping the running turn first (its end sends it, see afterTurn). */
  async sendNow(draft: Draft | string): Promise<void> {
    let state = this.state;
    let id = typeof draft === "string" ? draft : undefined;
    if (typeof draft !== "string") {
      ({ state, id } = Q.enqueue(state, draft, true));
    }
    if (id === undefined || !state.queue.some((q) => q.id === id)) {
      return;
    }
    this.set(Q.setQueuePaused(Q.moveToFront(state, id), false));
    if (this.state.busy) {
      this.sendingNow = true;
      await this.cancel();
      return;
    }
    const { state: rest, next } = Q.takeNext(this.state);
    this.set(rest);
    if (next !== undefined) {
      await this.sendDraft(next.draft);
    }
  }

  /** Retry: the message a response answered goes again (queued when a turn runs). */
  async retry(itemId: string): Promise<void> {
    const draft = S.promptBefore(this.state, itemId);
    if (draft !== undefined) {
      await this.submit(draft);
    }
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

  private async sendDraft(draft: Draft, context?: EditorContext): Promise<string | undefined> {
    const prompt = promptOf(draft);
    if (prompt === "" || (Array.isArray(prompt) && draft.attachments.length === 0)) {
      return undefined;
    }
    if (this.state.busy) {
      await this.host.showMessage("warning", "The agent is still working; stop it first or wait for it to finish.");
      return undefined;
    }
    this.messageActions.forget(); // a prompt makes the last rewind final
    this.set(S.setBusy(this.state, true, "Thinking…"));
    let connection: Connection | undefined;
    let stop: string | undefined;
    try {
      const sessionId = await this.ensureSession();
      this.set(S.addUserPrompt(this.state, transcriptText(draft), draft));
      const params = context === undefined ? { sessionId, prompt } : { sessionId, prompt, context };
      connection = this.conn();
      const result = await connection.sendRequest<PromptResult>(METHODS.prompt, params);
      this.noteStop(result.stopReason);
      stop = result.stopReason;
    } catch (err) {
      this.noteFailure(err, connection);
      stop = "error";
    } finally {
      this.set(S.setBusy(this.state, false));
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
    if (this.state.queue.length === 0) {
      return;
    }
    if (!now && !Q.continuesQueue(stop)) {
      this.set(Q.setQueuePaused(this.state, true));
      return;
    }
    const { state, next } = Q.takeNext(Q.setQueuePaused(this.state, false));
    this.set(state);
    if (next !== undefined) {
      void this.sendDraft(next.draft);
    }
  }

  /** Runs one of the server's commands (Fix / Explain / Edit selection) and shows its turn in the panel. */
  async runServerCommand(command: string, args: unknown[]): Promise<void> {
    if (this.state.busy) {
      await this.host.showMessage("warning", "The agent is still working; stop it first or wait for it to finish.");
      return;
    }
    this.messageActions.forget();
    this.set(S.setBusy(this.state, true, "Thinking…"));
    let connection: Connection | undefined;
    let stop: string | undefined;
    try {
      const sessionId = await this.ensureSession();
      // The server runs the command in the session named here, so the turn lands in the panel's chat.
      const first = args[0];
      const named = typeof first === "object" && first !== null ? [{ ...first, sessionId }, ...args.slice(1)] : args;
      connection = this.conn();
      const result = await connection.sendRequest<{ stopReason?: string } | null>("workspace/executeCommand", {
        command,
        arguments: named,
      });
      if (result?.stopReason) {
        this.noteStop(result.stopReason);
      }
      stop = result?.stopReason ?? "end_turn";
    } catch (err) {
      this.noteFailure(err, connection);
      stop = "error";
    } finally {
      this.set(S.setBusy(this.state, false));
      this.afterTurn(stop);
    }
  }

  /** A failed request. When the server died under it, serverLost already said so in words: nothing to add. */
  private noteFailure(err: unknown, connection: Connection | undefined): void {
    if (connection !== undefined && connection !== this.connection) {
      return;
    }
    const text = errorText(err);
    if (/connection got disposed|connection (is|was|got) (closed|disposed)/i.test(text)) {
      this.set(S.addNotice(this.state, "warning", "The connection to the agent server was lost, so that reply is incomplete."));
      return;
    }
    this.set(S.addNotice(this.state, "error", text));
  }

  private noteStop(reason: string): void {
    const note = STOP_NOTES[reason];
    if (note !== undefined) {
      this.set(S.addNotice(this.state, reason === "cancelled" ? "info" : "warning", note));
    }
  }

  async cancel(): Promise<void> {
    this.broker.cancelAll();
    this.forms.cancelAll();
    if (this.connection !== undefined && this.state.sessionId !== undefined) {
      await this.connection.sendNotification(METHODS.cancel, { sessionId: this.state.sessionId });
    }
  }

  // --- from the server -----------------------------------------------------------------------------

  onUpdate(params: UpdateParams): void {
    if (params.replay === true && params.sessionId === this.resuming) {
      return;
    }
    let state = this.state;
    if (params.sessionId !== state.sessionId) {
      if (this.loading !== undefined && params.sessionId !== this.loading) {
        return; // a stale update of the session being replaced
      }
      // A session the panel did not start (a code action's): show it rather than drop its answer.
      state = S.adoptSession(state, params.sessionId);
    }
    state = S.applyUpdate(state, params.update);
    if (state.busy) {
      state = S.setProgress(state, S.progressText(state));
    }
    this.set(state);
  }

  /** agent/elicit: an MCP server's form, filled in the panel (a notification brings a hidden panel up). */
  async onElicit(params: ElicitParams, token?: Cancellation): Promise<ElicitResult> {
    const { requestId, answer } = this.forms.ask();
    const withdrawn = token?.onCancellationRequested(() => this.forms.answer(requestId, { action: "cancel" }));
    const form = { requestId, server: params.server, message: params.message, fields: params.fields };
    this.set({ ...this.state, forms: [...(this.state.forms ?? []), form] });
    if (!this.host.panelVisible()) {
      void this.host.showMessage("info", formNotice(params), "Open").then((picked) => (picked === "Open" ? this.host.revealPanel() : undefined));
    }
    try {
      return await answer;
    } finally {
      withdrawn?.dispose();
      this.set({ ...this.state, forms: (this.state.forms ?? []).filter((f) => f.requestId !== requestId) });
    }
  }

  /** agent/requestPermission: asked in the panel, or by a notification when the panel is not on screen. */
  async onRequestPermission(params: RequestPermissionParams, token?: Cancellation): Promise<RequestPermissionResult> {
    const { requestId, answer } = this.broker.ask(params);
    // The server withdraws a question when the turn is cancelled: the card (and any diff review) goes away.
    const withdrawn = token?.onCancellationRequested(() => this.broker.cancel(requestId));
    if (token?.isCancellationRequested) {
      this.broker.cancel(requestId);
    }
    const diff = diffOf(params);
    this.set(
      S.addPermission(this.state, {
        requestId,
        toolCallId: params.toolCall.toolCallId,
        title: describe(params, (p) => this.host.relativePath(p)),
        options: params.options,
        hasDiff: diff !== undefined,
        path: diff?.path,
      }),
    );
    if (!this.host.panelVisible()) {
      void this.notify(requestId, params);
    }
    try {
      return await answer;
    } finally {
      withdrawn?.dispose();
      this.set(S.removePermission(this.state, requestId));
    }
  }

  private async notify(requestId: string, params: RequestPermissionParams): Promise<void> {
    // Every option the server offers, as in the panel: a notification's buttons are all a hidden panel leaves.
    const shown = choices(params.options).map((c) => c.label);
    if (diffOf(params) !== undefined) {
      shown.push(REVIEW_DIFF);
    }
    const picked = await this.host.showMessage("info", describe(params, (p) => this.host.relativePath(p)), ...shown);
    if (picked === REVIEW_DIFF) {
      await this.openReview(requestId);
    } else if (picked !== undefined) {
      this.broker.answerLabel(requestId, picked);
    }
  }

  /** Review diff: inline in the file when it can be shown there, else side by side. */
  async openReview(requestId: string): Promise<void> {
    if (this.inline !== undefined && (await this.inline.open(requestId))) {
      return;
    }
    await this.review?.open(requestId);
  }

  /** The review's progress ("2 hunks · 1 accepted") on the question's card in the panel. */
  setReviewStatus(requestId: string, status: string | undefined): void {
    if (this.state.permissions.some((p) => p.requestId === requestId && p.status !== status)) {
      this.set(S.setPermissionStatus(this.state, requestId, status));
    }
  }

  // --- from the webview ----------------------------------------------------------------------------

  async handleMessage(msg: FromWebview): Promise<void> {
    try {
      if (MESSAGE_ACTION_TYPES.has(msg.type)) {
        await this.messageActions.handle(msg as Parameters<MessageActions["handle"]>[0]);
        return;
      }
      switch (msg.type) {
        case "ready":
          this.panelReady = true;
          this.set({ ...this.state });
          if (this.connection !== undefined) {
            await this.ensureSession();
          }
          return;
        case "send":
          await this.submit({ text: msg.text, attachments: msg.attachments ?? [] });
          return;
        case "sendNow":
          await this.sendNow(msg.id ?? { text: msg.text ?? "", attachments: msg.attachments ?? [] });
          return;
        case "queueRemove":
          this.removeQueued(msg.id);
          return;
        case "openChange": {
          const change = changedFiles(this.state).find((c) => c.path === msg.path);
          if (change !== undefined && this.store !== undefined) {
            await openChange(this.host, this.store, change);
          }
          return;
        }
        case "retry":
          await this.retry(msg.itemId);
          return;
        case "copy":
          await this.copy(msg.itemId);
          return;
        case "cancel":
          await this.cancel();
          return;
        case "newChat":
          await this.newChat();
          return;
        case "listSessions":
          await this.listSessions();
          return;
        case "loadSession":
          await this.loadSession(msg.sessionId);
          return;
        case "setMode":
          await this.setMode(msg.modeId);
          return;
        case "setModel":
          await this.setModel(msg.modelId);
          return;
        case "permission":
          this.broker.answer(msg.requestId, msg.optionId);
          return;
        case "elicit":
          this.forms.answer(msg.requestId, msg.result);
          return;
        case "reviewDiff":
          await this.openReview(msg.requestId);
          return;
        case "openLocation":
          await this.host.openLocation(msg.path, msg.line);
          return;
        case "restartServer":
        case "mentionQuery":
        case "mentionPick":
        case "autoApprove":
        case "keepAll":
        case "revertAll":
          return; // handled by the extension, which owns the server and the editor
      }
    } catch (err) {
      this.set(S.addNotice(this.state, "error", errorText(err)));
    }
  }
}

export function errorText(err: unknown): string {
  if (err instanceof Error) {
    return err.message;
  }
  if (typeof err === "object" && err !== null && "message" in err) {
    return String((err as { message: unknown }).message);
  }
  return String(err);
}
