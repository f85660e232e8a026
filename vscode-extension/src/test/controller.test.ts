// ChatController: sessions, prompts, streaming updates, permissions by panel and notification, cancel, load.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatController } from "../controller";
import { DiffReview, ProposalStore } from "../diffReview";
import { PermissionBroker } from "../permissions";
import { FakeConnection, FakeHost, description, editPermission, tick } from "./fakes";

function setup(defaults = { cwd: "/ws", approvalMode: "auto_edit" }) {
  const host = new FakeHost();
  const broker = new PermissionBroker();
  const controller = new ChatController(host, broker, () => defaults);
  controller.questions.review = new DiffReview(host, broker, new ProposalStore());
  const conn = new FakeConnection().on("agent/newSession", () => description("s1"));
  controller.attach(conn);
  return { host, broker, controller, conn };
}

test("a prompt creates one session, streams the answer and ends the turn", async () => {
  const { controller, conn } = setup();
  let release!: (v: unknown) => void;
  conn.on("agent/prompt", () => new Promise((resolve) => (release = resolve)));
  const turn = controller.send("  explain this  ");
  await tick();
  assert.equal(controller.state.busy, true);
  assert.deepEqual(conn.requests[0], { method: "agent/newSession", params: { cwd: "/ws", approvalMode: "auto_edit" } });
  assert.deepEqual(conn.requests[1], { method: "agent/prompt", params: { sessionId: "s1", prompt: "explain this" } });
  controller.onUpdate({ sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hel" } } });
  controller.onUpdate({ sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "lo" } } });
  release({ stopReason: "end_turn" });
  assert.equal(await turn, "end_turn");
  assert.equal(controller.state.busy, false);
  const kinds = controller.state.items.map((i) => i.kind);
  assert.deepEqual(kinds, ["user", "agent"]);
  assert.equal((controller.state.items[1] as { text: string }).text, "Hello");
  assert.equal(controller.state.currentMode, "default");
  conn.on("agent/prompt", () => ({ stopReason: "end_turn" }));
  await controller.send("again");
  assert.equal(conn.count("agent/newSession"), 1, "the session is reused");
});

test("concurrent first uses share one agent/newSession", async () => {
  const { controller, conn } = setup();
  const [a, b] = await Promise.all([controller.ensureSession(), controller.ensureSession()]);
  assert.equal(a, "s1");
  assert.equal(b, "s1");
  assert.equal(conn.count("agent/newSession"), 1);
});

test("a second prompt while busy is refused with a message, not sent", async () => {
  const { controller, conn, host } = setup();
  conn.on("agent/prompt", () => new Promise(() => undefined));
  void controller.send("first");
  await tick();
  assert.equal(await controller.send("second"), undefined);
  assert.equal(conn.count("agent/prompt"), 1);
  assert.match(host.messages[0].message, /still working/);
});

test("a failed request becomes an error notice and frees the panel", async () => {
  const { controller, conn } = setup();
  conn.on("agent/prompt", () => {
    throw new Error("bad prompt: nope");
  });
  assert.equal(await controller.send("x"), "error");
  assert.equal(controller.state.busy, false);
  const last = controller.state.items[controller.state.items.length - 1];
  assert.deepEqual([last.kind, (last as { text: string }).text], ["notice", "bad prompt: nope"]);
});

test("a cancelled turn is noted and cancel sends agent/cancel for the session", async () => {
  const { controller, conn } = setup();
  conn.on("agent/prompt", () => ({ stopReason: "cancelled" }));
  await controller.send("go");
  await controller.cancel();
  assert.deepEqual(conn.notifications, [{ method: "agent/cancel", params: { sessionId: "s1" } }]);
  assert.ok(controller.state.items.some((i) => i.kind === "notice" && i.text === "Cancelled."));
});

test("a permission with the panel visible is answered from the panel", async () => {
  const { controller, host } = setup();
  const answer = controller.onRequestPermission(editPermission());
  const [pending] = controller.state.permissions;
  assert.equal(pending.hasDiff, true);
  assert.equal(pending.title, "The agent wants to edit app.py");
  assert.equal(host.messages.length, 0, "no notification while the panel shows the question");
  await controller.handleMessage({ type: "permission", requestId: pending.requestId, optionId: "proceed_always" });
  assert.deepEqual(await answer, { outcome: { outcome: "selected", optionId: "proceed_always" } });
  assert.deepEqual(controller.state.permissions, []);
});

test("with the panel hidden the question comes as a notification with the four choices", async () => {
  const { controller, host } = setup();
  host.visible = false;
  host.reply = "Allow for this session";
  const answer = await controller.onRequestPermission(editPermission());
  assert.deepEqual(host.messages[0].actions, ["Allow once", "Allow for this session", "Reject", "Review diff"]);
  assert.deepEqual(answer, { outcome: { outcome: "selected", optionId: "proceed_always" } });
});

test("Review diff from a notification opens the diff review", async () => {
  const { controller, host } = setup();
  host.visible = false;
  host.reply = "Review diff";
  const answer = controller.onRequestPermission(editPermission());
  await tick();
  await tick();
  assert.equal(host.diffs.length, 1);
  const [pending] = controller.state.permissions;
  await controller.handleMessage({ type: "permission", requestId: pending.requestId, optionId: "cancel" });
  assert.deepEqual(await answer, { outcome: { outcome: "selected", optionId: "cancel" } });
});

test("the server stopping cancels open questions", async () => {
  const { controller } = setup();
  const answer = controller.onRequestPermission(editPermission());
  controller.detach("stopped", "gone");
  assert.deepEqual(await answer, { outcome: { outcome: "cancelled" } });
  assert.equal(controller.state.serverStatus, "stopped");
  assert.equal(controller.state.sessionId, undefined);
});

test("a server crash mid-turn is told in words, and the restarted server resumes the chat", async () => {
  const { controller, conn } = setup();
  let fail!: (err: Error) => void;
  conn.on("agent/prompt", () => new Promise((_resolve, reject) => (fail = reject)));
  const turn = controller.send("fix it");
  await tick();
  controller.onUpdate({ sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Working" } } });
  controller.onUpdate({ sessionId: "s1", update: { sessionUpdate: "tool_call", toolCallId: "t1", title: "echo hi", kind: "execute", status: "pending" } });
  // vscode-languageclient disposes the connection (rejecting the prompt) and asks its close handler.
  controller.serverLost();
  fail(new Error("Pending response rejected since connection got disposed"));
  assert.equal(await turn, "error");
  const texts = () => controller.state.items.filter((i) => i.kind === "notice").map((i) => (i as { text: string }).text);
  assert.equal(controller.state.serverStatus, "starting");
  assert.equal(controller.state.busy, false);
  assert.equal(texts().length, 1);
  assert.match(texts()[0], /stopped unexpectedly while it was working.*restarting/);
  assert.ok(!texts().some((t) => t.includes("Pending response")), "no raw protocol error in the transcript");
  const tool = controller.state.items.find((i) => i.kind === "tool") as { status: string };
  assert.equal(tool.status, "failed", "a call the dead server was running will never finish");

  // The restarted server: the lost session is loaded again, its replay not drawn twice, the transcript kept.
  const fresh = new FakeConnection().on("agent/loadSession", (params) => {
    controller.onUpdate({ sessionId: params.sessionId, replay: true, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Working" } } });
    return description(params.sessionId);
  });
  controller.attach(fresh);
  await tick();
  await tick();
  assert.deepEqual(fresh.requests[0], { method: "agent/loadSession", params: { sessionId: "s1", cwd: "/ws" } });
  assert.equal(controller.state.serverStatus, "running");
  assert.equal(controller.state.sessionId, "s1");
  assert.deepEqual(controller.state.items.map((i) => i.kind), ["user", "agent", "tool", "notice", "notice"]);
  assert.equal(texts()[1], "The agent server is running again.");
});

test("a lost session that cannot be loaded gives way to a new one", async () => {
  const { controller } = setup();
  await controller.handleMessage({ type: "ready" });
  await controller.ensureSession();
  controller.serverLost();
  const fresh = new FakeConnection()
    .on("agent/loadSession", () => {
      throw new Error("no saved session s1");
    })
    .on("agent/newSession", () => description("s2"));
  controller.attach(fresh);
  for (let i = 0; i < 5; i++) await tick();
  assert.equal(controller.state.sessionId, "s2");
  assert.equal(controller.state.serverStatus, "running");
  const notices = controller.state.items.filter((i) => i.kind === "notice").map((i) => (i as { text: string }).text);
  assert.equal(notices.length, 2, "the crash notice is still there");
  assert.match(notices[1], /could not be restored/);
});

test("updates of a session the panel did not start are shown, not dropped", async () => {
  const { controller } = setup();
  await controller.ensureSession();
  controller.onUpdate({ sessionId: "other", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "fix" } } });
  assert.equal(controller.state.sessionId, "other");
  assert.equal(controller.state.items.length, 1);
});

test("loading a session keeps the replayed conversation and takes its modes", async () => {
  const { controller, conn } = setup();
  conn.on("agent/loadSession", (params: { sessionId: string }) => {
    controller.onUpdate({ sessionId: params.sessionId, update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "old question" } } });
    controller.onUpdate({ sessionId: params.sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "old answer" } } });
    return description(params.sessionId);
  });
  await controller.loadSession("saved-1");
  assert.equal(controller.state.sessionId, "saved-1");
  assert.deepEqual(
    controller.state.items.map((i) => [i.kind, (i as { text: string }).text]),
    [
      ["user", "old question"],
      ["agent", "old answer"],
    ],
  );
  assert.equal(controller.state.modes.length, 2);
  assert.deepEqual(conn.requests.at(-1), { method: "agent/loadSession", params: { sessionId: "saved-1", cwd: "/ws" } });
});

test("mode, model and session list go to the server", async () => {
  const { controller, conn } = setup();
  conn.on("agent/setMode", () => ({})).on("agent/setModel", () => ({}));
  conn.on("agent/listSessions", () => ({ sessions: [{ sessionId: "a", title: "Fix tests" }] }));
  await controller.handleMessage({ type: "setMode", modeId: "yolo" });
  await controller.handleMessage({ type: "setModel", modelId: "gemini-2.5-flash" });
  await controller.handleMessage({ type: "listSessions" });
  assert.equal(controller.state.currentMode, "yolo");
  assert.equal(controller.state.currentModel, "gemini-2.5-flash");
  assert.equal(controller.state.sessions[0].title, "Fix tests");
  assert.deepEqual(conn.requests.find((r) => r.method === "agent/setMode")?.params, { sessionId: "s1", modeId: "yolo" });
});

test("a model switch that changes provider takes the server's new model list", async () => {
  const { controller, conn } = setup();
  const models = {
    currentModelId: "gemini-2.5-flash",
    availableModels: [
      { modelId: "gemini-2.5-flash", name: "gemini-2.5-flash" },
      { modelId: "openai:qwen3-coder", name: "OpenAI-compatible: qwen3-coder" },
    ],
  };
  conn.on("agent/setModel", () => ({ models }));
  await controller.handleMessage({ type: "setModel", modelId: "gemini:gemini-2.5-flash" });
  assert.equal(controller.state.currentModel, "gemini-2.5-flash");
  assert.deepEqual(controller.state.models, models.availableModels);
});

test("server commands run through workspace/executeCommand and show the turn", async () => {
  const { controller, conn } = setup();
  conn.on("workspace/executeCommand", () => ({ sessionId: "s1", stopReason: "end_turn" }));
  await controller.runServerCommand("agent.explain", [{ uri: "file:///ws/a.py" }]);
  const sent = conn.requests.find((r) => r.method === "workspace/executeCommand");
  assert.deepEqual(sent?.params, { command: "agent.explain", arguments: [{ uri: "file:///ws/a.py", sessionId: "s1" }] });
  assert.equal(controller.state.busy, false);
});

test("without a server, actions report why instead of throwing", async () => {
  const host = new FakeHost();
  const controller = new ChatController(host, new PermissionBroker(), () => ({}));
  controller.detach("failed", "agent-lsp was not found on PATH");
  await controller.handleMessage({ type: "newChat" });
  const last = controller.state.items.at(-1);
  assert.equal(last?.kind, "notice");
  assert.match((last as { text: string }).text, /not found/);
});

test("a server that starts after the panel opened gets a session for the pickers", async () => {
  const host = new FakeHost();
  const controller = new ChatController(host, new PermissionBroker(), () => ({ cwd: "/ws" }));
  await controller.handleMessage({ type: "ready" });
  const conn = new FakeConnection().on("agent/newSession", () => description("s9"));
  controller.attach(conn);
  await tick();
  assert.equal(controller.state.sessionId, "s9");
  assert.equal(controller.state.models.length, 1);
});

test("a question the server withdraws ($/cancelRequest) leaves the panel and closes its review", async () => {
  const { controller, host } = setup();
  const listeners: (() => void)[] = [];
  const token = {
    isCancellationRequested: false,
    onCancellationRequested(listener: () => void) {
      listeners.push(listener);
      return { dispose: () => undefined };
    },
  };
  const answer = controller.onRequestPermission(editPermission(), token);
  const [pending] = controller.state.permissions;
  await controller.questions.review?.open(pending.requestId);
  token.isCancellationRequested = true;
  listeners.forEach((l) => l());
  assert.deepEqual(await answer, { outcome: { outcome: "cancelled" } });
  await tick();
  assert.deepEqual(controller.state.permissions, []);
  assert.equal(host.closed.length, 1, "the diff review closed");
});
