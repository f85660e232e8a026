// The server's questions: permission requests (in the panel, or a notification when it is hidden), MCP forms,
// and the diff review a permission request opens.

import type { ChatCore } from "./chatCore";
import type { DiffReview, ProposalStore } from "./diffReview";
import { type ElicitParams, type ElicitResult, formNotice } from "./elicitation";
import type { Cancellation } from "./host";
import type { InlineReview } from "./inlineReview";
import { REVIEW_DIFF, choices, describe, diffOf } from "./permissions";
import type { RequestPermissionParams, RequestPermissionResult } from "./protocol";
import * as S from "./state";

export class ChatQuestions {
  review: DiffReview | undefined;
  /** The inline review in the file's own editor, tried before the side-by-side diff when set. */
  inline: InlineReview | undefined;
  /** Where "before the turn" texts live while their diff is open (the proposals' in-memory files). */
  store: ProposalStore | undefined;

  constructor(private readonly core: ChatCore) {}

  /** agent/elicit: an MCP server's form, filled in the panel (a notification brings a hidden panel up). */
  async onElicit(params: ElicitParams, token?: Cancellation): Promise<ElicitResult> {
    const { core } = this;
    const { requestId, answer } = core.forms.ask();
    const withdrawn = token?.onCancellationRequested(() => core.forms.answer(requestId, { action: "cancel" }));
    const form = { requestId, server: params.server, message: params.message, fields: params.fields };
    core.set({ ...core.state, forms: [...(core.state.forms ?? []), form] });
    if (!core.host.panelVisible()) {
      void core.host.showMessage("info", formNotice(params), "Open").then((picked) => (picked === "Open" ? core.host.revealPanel() : undefined));
    }
    try {
      return await answer;
    } finally {
      withdrawn?.dispose();
      core.set({ ...core.state, forms: (core.state.forms ?? []).filter((f) => f.requestId !== requestId) });
    }
  }

  /** agent/requestPermission: asked in the panel, or by a notification when the panel is not on screen. */
  async onRequestPermission(params: RequestPermissionParams, token?: Cancellation): Promise<RequestPermissionResult> {
    const { core } = this;
    const { requestId, answer } = core.broker.ask(params);
    // The server withdraws a question when the turn is cancelled: the card (and any diff review) goes away.
    const withdrawn = token?.onCancellationRequested(() => core.broker.cancel(requestId));
    if (token?.isCancellationRequested) {
      core.broker.cancel(requestId);
    }
    const diff = diffOf(params);
    core.set(
      S.addPermission(core.state, {
        requestId,
        toolCallId: params.toolCall.toolCallId,
        title: describe(params, (p) => core.host.relativePath(p)),
        options: params.options,
        hasDiff: diff !== undefined,
        path: diff?.path,
      }),
    );
    if (!core.host.panelVisible()) {
      void this.notify(requestId, params);
    }
    try {
      return await answer;
    } finally {
      withdrawn?.dispose();
      core.set(S.removePermission(core.state, requestId));
    }
  }

  private async notify(requestId: string, params: RequestPermissionParams): Promise<void> {
    // Every option the server offers, as in the panel: a notification's buttons are all a hidden panel leaves.
    const shown = choices(params.options).map((c) => c.label);
    if (diffOf(params) !== undefined) {
      shown.push(REVIEW_DIFF);
    }
    const { host } = this.core;
    const picked = await host.showMessage("info", describe(params, (p) => host.relativePath(p)), ...shown);
    if (picked === REVIEW_DIFF) {
      await this.openReview(requestId);
    } else if (picked !== undefined) {
      this.core.broker.answerLabel(requestId, picked);
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
    const { core } = this;
    if (core.state.permissions.some((p) => p.requestId === requestId && p.status !== status)) {
      core.set(S.setPermissionStatus(core.state, requestId, status));
    }
  }
}
