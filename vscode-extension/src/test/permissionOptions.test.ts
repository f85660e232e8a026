// Every permission option the server offers is a button and its id is the answer: the options here are what the
// server's own vocabulary (agent_lsp/vocabulary.py) offers for a shell command, an MCP tool and an edit, with
// "allow in all future sessions" on (security.enablePermanentToolApproval).

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { test } from "node:test";
import { ChatController } from "../controller";
import { DiffReview, ProposalStore } from "../diffReview";
import { InlineReview, type InlineState, type InlineView } from "../inlineReview";
import { PermissionBroker, choices } from "../permissions";
import type { PermissionOption, RequestPermissionParams } from "../protocol";
import { renderPermission } from "../webview/render";
import { FakeConnection, FakeHost, description, editPermission } from "./fakes";

const PYTHON = process.env.AGENT_TEST_PYTHON || path.resolve(__dirname, "..", "..", "..", ".venv", "bin", "python");

/** The options the server offers for each kind of question, read from its vocabulary module. */
function serverOptions(): Record<"exec" | "mcp" | "edit", PermissionOption[]> {
  const script = `
import json
from agent_lsp.events import ConfirmationDetails
from agent_lsp.vocabulary import permission_choices
asked = {
    "exec": ConfirmationDetails("exec", "git status", command="git status", root_commands=("git",), savable=True),
    "mcp": ConfirmationDetails("mcp", "search", server="docs", tool="search", savable=True),
    "edit": ConfirmationDetails("edit", "Edit app.py", path="/ws/app.py", savable=True),
}
print(json.dumps({k: [{"optionId": c.option_id, "name": c.name, "kind": c.kind} for c in permission_choices(d)]
                  for k, d in asked.items()}))
`;
  return JSON.parse(execFileSync(PYTHON, ["-c", script], { encoding: "utf8" }));
}

const OPTIONS = serverOptions();

function shellPermission(): RequestPermissionParams {
  return {
    sessionId: "s1",
    toolCall: { toolCallId: "call-1", title: "git status", kind: "execute", status: "pending", rawInput: { command: "git status" } },
    options: OPTIONS.exec,
  };
}

test("the server offers 'all future sessions' and the per-server choice as options of their own", () => {
  assert.deepEqual(
    OPTIONS.exec.map((o) => [o.optionId, o.kind]),
    [
      ["proceed_once", "allow_once"],
      ["proceed_always", "allow_always"],
      ["proceed_always_and_save", "allow_always"],
      ["reject", "reject_once"],
    ],
  );
  assert.ok(OPTIONS.mcp.some((o) => o.optionId === "proceed_always_server"));
  assert.ok(OPTIONS.mcp.some((o) => o.optionId === "proceed_always_and_save"));
});

test("the panel draws a button for every option, the extra ones in the server's words", () => {
  for (const options of Object.values(OPTIONS)) {
    const shown = choices(options);
    assert.deepEqual(shown.map((c) => c.optionId), options.map((o) => o.optionId));
    const html = renderPermission({ requestId: "perm-1", toolCallId: "c", title: "t", options, hasDiff: false });
    for (const o of options) {
      assert.match(html, new RegExp(`data-option="${o.optionId}"`));
    }
  }
  const saved = choices(OPTIONS.exec).find((c) => c.optionId === "proceed_always_and_save")!;
  assert.equal(saved.label, OPTIONS.exec.find((o) => o.optionId === "proceed_always_and_save")!.name);
  assert.match(saved.label, /all future sessions/);
});

test("choosing 'all future sessions' in the panel answers its id", async () => {
  const host = new FakeHost();
  const broker = new PermissionBroker();
  const controller = new ChatController(host, broker, () => ({ cwd: "/ws" }));
  controller.attach(new FakeConnection().on("agent/newSession", () => description("s1")));
  const answer = controller.onRequestPermission(shellPermission());
  const [pending] = controller.state.permissions;
  assert.deepEqual(pending.options, OPTIONS.exec);
  await controller.handleMessage({ type: "permission", requestId: pending.requestId, optionId: "proceed_always_and_save" });
  assert.deepEqual(await answer, { outcome: { outcome: "selected", optionId: "proceed_always_and_save" } });
});

test("with the panel hidden the notification offers every option too, and its button answers", async () => {
  for (const [kind, options] of Object.entries(OPTIONS)) {
    for (const chosen of choices(options)) {
      const host = new FakeHost();
      const broker = new PermissionBroker();
      const controller = new ChatController(host, broker, () => ({ cwd: "/ws" }));
      controller.attach(new FakeConnection().on("agent/newSession", () => description("s1")));
      host.visible = false;
      host.reply = chosen.label;
      const params = kind === "edit" ? { ...editPermission(), options } : { ...shellPermission(), options };
      const answer = await controller.onRequestPermission(params);
      const buttons = choices(options).map((c) => c.label);
      assert.deepEqual(host.messages[0].actions, kind === "edit" ? [...buttons, "Review diff"] : buttons);
      assert.deepEqual(answer, { outcome: { outcome: "selected", optionId: chosen.optionId } }, `${kind}: ${chosen.label}`);
    }
  }
});

class NoView implements InlineView {
  async show(_state: InlineState): Promise<void> {}
  clear(): void {}
  redraw(): void {}
  cursor(): undefined {
    return undefined;
  }
}

test("the reviews' Accept is allow once and Reject is reject, whatever order the options come in", async () => {
  const reversed = [...OPTIONS.edit].reverse();
  const host = new FakeHost();
  const broker = new PermissionBroker();
  const review = new DiffReview(host, broker, new ProposalStore());
  const a = broker.ask({ ...editPermission(), options: reversed });
  await review.open(a.requestId);
  await review.accept();
  assert.deepEqual(await a.answer, { outcome: { outcome: "selected", optionId: "proceed_once" } });
  const b = broker.ask({ ...editPermission(), options: reversed });
  await review.open(b.requestId);
  await review.reject();
  assert.deepEqual(await b.answer, { outcome: { outcome: "selected", optionId: "reject" } });
  // The inline review (CodeLens and keys) answers the same way.
  const inline = new InlineReview(host, broker, review, new NoView());
  const c = broker.ask({ ...editPermission("/ws/app.py", "a\n", "b\n"), options: reversed });
  assert.equal(await inline.open(c.requestId), true);
  await inline.decideRest("accepted", c.requestId);
  assert.deepEqual(await c.answer, { outcome: { outcome: "selected", optionId: "proceed_once" } });
});
