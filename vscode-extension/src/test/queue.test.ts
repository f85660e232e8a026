// Queued prompts: a message sent while a turn runs waits, goes out when the turn ends, and "send now" interrupts.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatController } from "../controller";
import { parseWebviewMessage } from "../messages";
import { PermissionBroker } from "../permissions";
import { FakeConnection, FakeHost, description, tick } from "./fakes";

/** A controller whose turns stay open until the test ends them (`end(reason)`), in the order they started. */
function setup() {
  const host = new FakeHost();
  const controller = new ChatController(host, new PermissionBroker(), () => ({ cwd: "/ws" }));
  const turns: ((reason: string) => void)[] = [];
  const conn = new FakeConnection()
    .on("agent/newSession", () => description("s1"))
    .on("agent/prompt", () => new Promise((resolve) => turns.push((stopReason) => resolve({ stopReason }))));
  controller.attach(conn);
  const prompts = () => conn.requests.filter((r) => r.method === "agent/prompt").map((r) => r.params.prompt);
  return { controller, conn, turns, prompts };
}

const draft = (text: string) => ({ text, attachments: [] });

test("a message sent while a turn runs is queued, shown, and sent when the turn ends", async () => {
  const { controller, turns, prompts } = setup();
  void controller.submit(draft("first"));
  await tick();
  await controller.submit(draft("second"));
  await controller.submit(draft("third"));
  assert.deepEqual(prompts(), ["first"], "nothing else goes out while the turn runs");
  assert.deepEqual(
    controller.state.queue.map((q) => q.draft.text),
    ["second", "third"],
  );
  turns[0]("end_turn");
  await tick();
  await tick();
  assert.deepEqual(prompts(), ["first", "second"]);
  assert.deepEqual(
    controller.state.queue.map((q) => q.draft.text),
    ["third"],
  );
  turns[1]("end_turn");
  await tick();
  await tick();
  assert.deepEqual(prompts(), ["first", "second", "third"]);
  assert.equal(controller.state.queue.length, 0);
  const users = controller.state.items.filter((i) => i.kind === "user").map((i) => (i as { text: string }).text);
  assert.deepEqual(users, ["first", "second", "third"], "each shows in the transcript when it is sent");
});

test("a queued message can be removed before it goes out", async () => {
  const { controller, turns, prompts } = setup();
  void controller.submit(draft("first"));
  await tick();
  await controller.submit(draft("drop me"));
  controller.removeQueued(controller.state.queue[0].id);
  turns[0]("end_turn");
  await tick();
  await tick();
  assert.deepEqual(prompts(), ["first"]);
});

test("send now cancels the running turn and sends that message next, ahead of the others", async () => {
  const { controller, conn, turns, prompts } = setup();
  void controller.submit(draft("first"));
  await tick();
  await controller.submit(draft("later"));
  await controller.submit(draft("urgent"));
  const urgent = controller.state.queue[1].id;
  await controller.sendNow(urgent);
  assert.deepEqual(conn.notifications, [{ method: "agent/cancel", params: { sessionId: "s1" } }]);
  turns[0]("cancelled");
  await tick();
  await tick();
  assert.deepEqual(prompts(), ["first", "urgent"]);
  assert.deepEqual(
    controller.state.queue.map((q) => q.draft.text),
    ["later"],
  );
  assert.equal(controller.state.queuePaused, false);
});

test("send now from the composer while busy interrupts for the new message", async () => {
  const { controller, turns, prompts } = setup();
  void controller.submit(draft("first"));
  await tick();
  await controller.sendNow(draft("instead"));
  turns[0]("cancelled");
  await tick();
  await tick();
  assert.deepEqual(prompts(), ["first", "instead"]);
});

test("after the user's Stop or a failure the queue pauses; send now resumes it", async () => {
  const { controller, turns, prompts } = setup();
  void controller.submit(draft("first"));
  await tick();
  await controller.submit(draft("second"));
  await controller.cancel();
  turns[0]("cancelled");
  await tick();
  await tick();
  assert.deepEqual(prompts(), ["first"], "a stopped turn does not send the queue by itself");
  assert.equal(controller.state.queuePaused, true);
  await tick();
  void controller.sendNow(controller.state.queue[0].id);
  await tick();
  assert.deepEqual(prompts(), ["first", "second"]);
  assert.equal(controller.state.queuePaused, false);
});

test("attachments travel as content blocks after the text; the transcript names them", async () => {
  const { controller, conn } = setup();
  conn.on("agent/prompt", () => ({ stopReason: "end_turn" }));
  const link = { type: "resource_link" as const, uri: "file:///ws/app.py", name: "app.py" };
  await controller.submit({ text: "look", attachments: [{ id: "a1", kind: "file", label: "app.py", block: link }] });
  const sent = conn.requests.find((r) => r.method === "agent/prompt")?.params.prompt;
  assert.deepEqual(sent, [{ type: "text", text: "look" }, link]);
  const user = controller.state.items.find((i) => i.kind === "user") as { text: string };
  assert.equal(user.text, "look\n\n`@app.py`");
});

test("webview messages with malformed attachments or ids are dropped", () => {
  assert.equal(parseWebviewMessage({ type: "send", text: "x", attachments: [{ id: 1 }] }), undefined);
  assert.equal(parseWebviewMessage({ type: "send", text: "x", attachments: "nope" }), undefined);
  assert.equal(parseWebviewMessage({ type: "queueRemove" }), undefined);
  assert.deepEqual(parseWebviewMessage({ type: "sendNow", id: "q1" }), { type: "sendNow", id: "q1" });
  const ok = parseWebviewMessage({
    type: "send",
    text: "x",
    attachments: [{ id: "a", kind: "url", label: "x", block: { type: "resource_link", uri: "https://e.org", name: "e" } }],
  });
  assert.equal(ok?.type, "send");
});

test("retry sends again the message a response answered, chips included; copy takes the message's text", async () => {
  const { controller, conn } = setup();
  conn.on("agent/prompt", () => ({ stopReason: "end_turn" }));
  const link = { type: "resource_link" as const, uri: "file:///ws/a.py", name: "a.py" };
  await controller.submit({ text: "explain", attachments: [{ id: "a1", kind: "file", label: "a.py", block: link }] });
  controller.onUpdate({ sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "It adds." } } });
  const answer = controller.state.items.find((i) => i.kind === "agent");
  assert.ok(answer);
  await controller.retry(answer.id);
  const prompts = conn.requests.filter((r) => r.method === "agent/prompt").map((r) => r.params.prompt);
  assert.deepEqual(prompts, [[{ type: "text", text: "explain" }, link], [{ type: "text", text: "explain" }, link]]);
  await controller.copy(answer.id);
  assert.deepEqual((controller as unknown as { host: FakeHost }).host.copied, ["It adds."]);
});
