// The chat's sessions: created on first use, listed, loaded (replayed), resumed after a crash, their mode and model.

import type { ChatCore } from "./chatCore";
import { METHODS, type ListSessionsResult, type SessionDescription, type UpdateParams } from "./protocol";
import * as S from "./state";
import * as T from "./transcript";

export class ChatSessions {
  private creating: Promise<string> | undefined;
  /** The session being loaded: updates of any other session are stale until it answers. */
  private loading: string | undefined;
  /** Replayed updates of the session being resumed after a crash: the panel already shows them. */
  private resuming: string | undefined;

  constructor(private readonly core: ChatCore) {}

  /** The server went away: a creation in flight went with it. */
  forgetCreation(): void {
    this.creating = undefined;
  }

  async newSession(): Promise<string> {
    const d = this.core.defaults();
    const params: Record<string, string> = {};
    if (d.cwd) params.cwd = d.cwd;
    if (d.approvalMode) params.approvalMode = d.approvalMode;
    if (d.model) params.model = d.model;
    const description = await this.core.conn().sendRequest<SessionDescription>(METHODS.newSession, params);
    this.core.set({ ...S.startSession(this.core.state, description), cwd: d.cwd });
    return description.sessionId;
  }

  /** The session prompts go to, created on first use (concurrent callers share one creation). */
  async ensureSession(): Promise<string> {
    if (this.core.state.sessionId !== undefined) {
      return this.core.state.sessionId;
    }
    this.creating ??= this.newSession().finally(() => {
      this.creating = undefined;
    });
    return this.creating;
  }

  async listSessions(): Promise<void> {
    const d = this.core.defaults();
    const result = await this.core.conn().sendRequest<ListSessionsResult>(METHODS.listSessions, d.cwd ? { cwd: d.cwd } : {});
    this.core.set(S.setSessions(this.core.state, result.sessions));
  }

  private async describe(sessionId: string): Promise<SessionDescription> {
    const d = this.core.defaults();
    const params: Record<string, string> = { sessionId };
    if (d.cwd) params.cwd = d.cwd;
    return this.core.conn().sendRequest<SessionDescription>(METHODS.loadSession, params);
  }

  /** Resumes a saved session: the server replays it as updates before answering. */
  async loadSession(sessionId: string): Promise<void> {
    const core = this.core;
    this.loading = sessionId;
    const title = core.state.sessions.find((s) => s.sessionId === sessionId)?.title ?? undefined;
    core.set({ ...S.adoptSession(core.state, sessionId), title, cwd: core.defaults().cwd });
    try {
      const description = await this.describe(sessionId);
      core.set({ ...S.describeSession(core.state, description), imageInput: description.promptCapabilities?.image });
    } finally {
      this.loading = undefined;
    }
  }

  /** After a restart: load the lost session on the new server (its replay is already on screen). */
  async resume(sessionId: string): Promise<void> {
    const core = this.core;
    this.resuming = sessionId;
    try {
      const description = await this.describe(sessionId);
      core.set(S.addNotice({ ...S.describeSession(core.state, description), sessionId }, "info", "The agent server is running again."));
    } catch {
      // Nothing was saved of it (it died before its first reply): a fresh session, the transcript stays.
      const items = core.state.items;
      try {
        await this.ensureSession();
        core.set({ ...core.state, items });
      } catch (err) {
        core.fail(err);
      }
      const note = "The agent server is running again. The last chat could not be restored, so new messages start a new chat.";
      core.set(S.addNotice(core.state, "info", note));
    } finally {
      this.resuming = undefined;
    }
  }

  async setMode(modeId: string): Promise<void> {
    const sessionId = await this.ensureSession();
    await this.core.conn().sendRequest(METHODS.setMode, { sessionId, modeId });
    this.core.set({ ...this.core.state, currentMode: modeId, revision: this.core.state.revision + 1 });
  }

  async setModel(modelId: string): Promise<void> {
    const sessionId = await this.ensureSession();
    const answer = await this.core.conn().sendRequest<Partial<Pick<SessionDescription, "models" | "promptCapabilities">> | null>(
      METHODS.setModel,
      { sessionId, modelId },
    );
    // A model of another provider switches provider, and with it the list of models on offer.
    const state = this.core.state;
    const models = answer?.models;
    const next = models ? { ...S.setModel(state, models.currentModelId), models: models.availableModels } : S.setModel(state, modelId);
    this.core.set({ ...next, imageInput: answer?.promptCapabilities?.image });
  }

  /** agent/update: drawn when it is the shown session's, or a session the panel did not start (a code action's). */
  onUpdate(params: UpdateParams): void {
    if (params.replay === true && params.sessionId === this.resuming) {
      return;
    }
    let state = this.core.state;
    // A subagent's update names its child session: it belongs under its parent call in the shown chat.
    if (params.sessionId !== state.sessionId && !(T.originOf(params.update) !== undefined && state.sessionId !== undefined)) {
      if (this.loading !== undefined && params.sessionId !== this.loading) {
        return; // a stale update of the session being replaced
      }
      state = S.adoptSession(state, params.sessionId);
    }
    state = T.applyUpdate(state, params.update);
    if (state.busy) {
      state = S.setProgress(state, S.progressText(state));
    }
    this.core.set(state);
  }
}
