// The panel's session-wide actions beside the chat: the auto-approve switches (agent/autoApprove, enforced by the
// server) and the changed-files list's Keep all / Revert all (agent/rewind with revertTurn: the rewind machinery).

import { type AutoApproveState, type AutoKind, type AutoScope } from "./autoApprove";
import { changedFiles, lastUserId } from "./changedFiles";
import type { ChatController } from "./controller";
import { errorText } from "./chatCore";
import type { Host } from "./host";
import * as S from "./state";

const AUTO_APPROVE = "agent/autoApprove";
const REWIND = "agent/rewind";

interface RewindListing {
  messages: { index: number; text: string; rewindable?: boolean }[];
}
interface RevertAnswer {
  restore: string[];
  delete: string[];
  conflicts: string[];
}

export class PanelActions {
  private shownFor: string | undefined;

  constructor(
    private readonly controller: ChatController,
    private readonly host: Host,
  ) {
    // A new, loaded or resumed session (its switches, a workspace's saved ones included), or another mode (plan
    // mode's note): the switches again from the server.
    controller.onChange((state) => {
      const key = `${state.sessionId ?? ""} ${state.currentMode ?? ""}`;
      if (key !== this.shownFor && state.serverStatus === "running") {
        this.shownFor = key;
        if (state.sessionId !== undefined) {
          void this.refreshAutoApprove();
        }
      }
    });
  }

  /** The panel's messages for these actions (chatView.ts routes them here). */
  async handle(msg: { type: "autoApprove"; kind: AutoKind; scope: AutoScope } | { type: "keepAll" } | { type: "revertAll" }): Promise<void> {
    if (msg.type === "autoApprove") {
      await this.setAutoApprove(msg.kind, msg.scope);
    } else if (msg.type === "keepAll") {
      this.keepAll();
    } else {
      await this.revertAll();
    }
  }

  async refreshAutoApprove(): Promise<void> {
    const sessionId = this.controller.state.sessionId;
    if (sessionId === undefined) {
      return;
    }
    try {
      const answer = await this.controller.request<AutoApproveState>(AUTO_APPROVE, { sessionId });
      this.controller.update((s) => (s.sessionId === sessionId ? S.bump(s, { autoApprove: answer }) : s));
    } catch {
      // An older server without agent/autoApprove: the switches stay hidden.
    }
  }

  /** One switch to `scope`; the server refuses (untrusted folder) with words the panel shows. */
  async setAutoApprove(kind: AutoKind, scope: AutoScope): Promise<void> {
    try {
      const sessionId = await this.controller.ensureSession();
      const answer = await this.controller.request<AutoApproveState>(AUTO_APPROVE, { sessionId, kind, scope });
      this.controller.update((s) => S.bump(s, { autoApprove: answer }));
    } catch (err) {
      this.controller.update((s) => S.addNotice(s, "error", `Auto-approve not changed: ${errorText(err)}`));
    }
  }

  /** Keep all: the last turn's changes stay; the list goes until the next turn changes files. */
  keepAll(): void {
    const turn = lastUserId(this.controller.state);
    this.controller.update((s) => S.bump(s, { changesKept: turn }));
  }

  /** Revert all: the last turn's file changes undone by the server's checkpoints; a file changed since is a conflict,
   * left as it is and named. */
  async revertAll(): Promise<void> {
    const state = this.controller.state;
    const sessionId = state.sessionId;
    if (sessionId === undefined || state.busy || changedFiles(state).length === 0) {
      return;
    }
    try {
      const listing = await this.controller.request<RewindListing>(REWIND, { sessionId });
      const last = listing.messages[listing.messages.length - 1];
      if (last === undefined) {
        throw new Error("this chat has no turn to revert");
      }
      const done = await this.controller.request<RevertAnswer>(REWIND, {
        sessionId,
        messageIndex: last.index,
        revertTurn: true,
      });
      const reverted = done.restore.length + done.delete.length;
      let next = S.bump(this.controller.state, { changesKept: lastUserId(this.controller.state) });
      next = S.addNotice(next, "info", `Reverted the last turn's changes to ${reverted} file${reverted === 1 ? "" : "s"}.`);
      if (done.conflicts.length > 0) {
        const names = done.conflicts.map((p) => this.host.relativePath(p)).join(", ");
        next = S.addNotice(next, "warning", `Not reverted, changed since the turn (yours kept): ${names}`);
      }
      this.controller.update(() => next);
    } catch (err) {
      this.controller.update((s) => S.addNotice(s, "error", `Revert all failed: ${errorText(err)}`));
    }
  }
}
