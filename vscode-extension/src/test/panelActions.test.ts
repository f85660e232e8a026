// The panel's auto-approve switches, Keep all / Revert all, and image input per model, over a fake server.

import assert from "node:assert/strict";
import { test } from "node:test";
import { nextScope } from "../autoApprove";
import { renderAutoApprove } from "../webview/autoApproveView";
import { changedFiles } from "../changedFiles";
import { ChatController } from "../controller";
import { parseWebviewMessage } from "../messages";
import { PanelActions } from "../panelActions";
import { PermissionBroker } from "../permissions";
import { FakeConnection, FakeHost, description, tick } from "./fakes";

const OFF = ["read", "edit", "shell", "mcp", "web"].map((kind) => ({ kind, scope: "off" }));

function setup() {
  const host = new FakeHost();
  const controller = new ChatController(host, new PermissionBroker(), () => ({ cwd: "/ws" }));
  const actions = new PanelActions(controller, host);
  const conn = new FakeConnection()
    .on("agent/newSession", () => description("s1"))
    .on("agent/autoApprove", (p) => ({
      available: true,
      kinds: OFF.map((k) => (k.kind === p.kind ? { kind: k.kind, scope: p.scope } : k)),
    }));
  controller.attach(conn);
  return { host, controller, actions, conn };
}

test("a new session fetches its switches, and a click asks the server for the next scope", async () => {
  const { controller, actions, conn } = setup();
  await controller.ensureSession();
  await tick();
  assert.deepEqual(conn.requests.find((r) => r.method === "agent/autoApprove")?.params, { sessionId: "s1" });
  assert.equal(controller.state.autoApprove?.kinds.length, 5);
  await actions.handle({ type: "autoApprove", kind: "edit", scope: "session" });
  assert.equal(controller.state.autoApprove?.kinds.find((k) => k.kind === "edit")?.scope, "session");
  assert.equal(nextScope("off"), "session");
  assert.equal(nextScope("session"), "workspace");
  assert.equal(nextScope("workspace"), "off");
  const html = renderAutoApprove(controller.state.autoApprove);
  assert.match(html, /data-auto="edit" data-scope="workspace" aria-pressed="true"/);
  assert.match(html, /data-auto="shell" data-scope="session" aria-pressed="false"/);
});

test("an untrusted folder's switches are drawn disabled with the reason, and a refusal is a notice", async () => {
  const { controller, actions, conn } = setup();
  const reason = "this folder is not trusted, so tools cannot be auto-approved";
  conn.on("agent/autoApprove", (p) => {
    if (p.kind !== undefined) throw new Error(reason);
    return { available: false, reason, kinds: OFF };
  });
  await controller.ensureSession();
  await tick();
  const html = renderAutoApprove(controller.state.autoApprove);
  assert.equal((html.match(/ disabled>/g) ?? []).length, 5);
  assert.match(html, /Off: this folder is not trusted/);
  await actions.setAutoApprove("shell", "session");
  const last = controller.state.items[controller.state.items.length - 1];
  assert.equal(last.kind, "notice");
  assert.match((last as { text: string }).text, /Auto-approve not changed: this folder is not trusted/);
});

test("the webview's messages for these actions are checked for shape", () => {
  assert.deepEqual(parseWebviewMessage({ type: "autoApprove", kind: "mcp", scope: "workspace" }), {
    type: "autoApprove",
    kind: "mcp",
    scope: "workspace",
  });
  assert.equal(parseWebviewMessage({ type: "autoApprove", kind: "disk", scope: "session" }), undefined);
  assert.equal(parseWebviewMessage({ type: "autoApprove", kind: "edit", scope: "forever" }), undefined);
  assert.deepEqual(parseWebviewMessage({ type: "revertAll" }), { type: "revertAll" });
});

function editedTurn(controller: ChatController): void {
  controller.onUpdate({ sessionId: "s1", update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "edit" } } });
  controller.onUpdate({
    sessionId: "s1",
    update: {
      sessionUpdate: "tool_call",
      toolCallId: "c1",
      title: "Edit",
      status: "completed",
      content: [
        { type: "diff", path: "/ws/a.py", oldText: "a\n", newText: "b\n" },
        { type: "diff", path: "/ws/b.py", oldText: "a\n", newText: "b\n" },
      ],
    },
  });
}

test("Revert all reverts the last turn through agent/rewind and names the conflicts; Keep all closes the list", async () => {
  const { controller, actions, conn } = setup();
  await controller.ensureSession();
  editedTurn(controller);
  assert.equal(changedFiles(controller.state).length, 2);
  conn.on("agent/rewind", (p) =>
    p.revertTurn ? { restore: ["a.py"], delete: [], conflicts: ["/ws/b.py"] } : { messages: [{ index: 0, text: "x" }, { index: 1, text: "edit" }] },
  );
  await actions.handle({ type: "revertAll" });
  assert.deepEqual(conn.requests.filter((r) => r.method === "agent/rewind").map((r) => r.params), [
    { sessionId: "s1" },
    { sessionId: "s1", messageIndex: 1, revertTurn: true },
  ]);
  const notices = controller.state.items.filter((i) => i.kind === "notice").map((i) => (i as { text: string }).text);
  assert.deepEqual(notices, ["Reverted the last turn's changes to 1 file.", "Not reverted, changed since the turn (yours kept): b.py"]);
  assert.ok(controller.state.changesKept !== undefined);

  editedTurn(controller);
  assert.notEqual(controller.state.changesKept, lastUser(controller));
  actions.keepAll();
  assert.equal(controller.state.changesKept, lastUser(controller));
});

function lastUser(controller: ChatController): string | undefined {
  return [...controller.state.items].reverse().find((i) => i.kind === "user")?.id;
}

test("a model switch takes whether the new model reads images", async () => {
  const { controller, conn } = setup();
  conn.on("agent/newSession", () => ({ ...description("s1"), promptCapabilities: { image: true } }));
  await controller.ensureSession();
  assert.equal(controller.state.imageInput, true);
  conn.on("agent/setModel", () => ({ models: description("s1").models, promptCapabilities: { image: false } }));
  await controller.setModel("deepseek-chat");
  assert.equal(controller.state.imageInput, false);
  conn.on("agent/setModel", () => ({ models: description("s1").models, promptCapabilities: {} }));
  await controller.setModel("house-model");
  assert.equal(controller.state.imageInput, undefined); // unknown: the panel lets an image go
});
