// Contract 2 in the panel: messageId groups chunks, a compaction is one collapsible item with its summary, and
// "Send now" steers the running turn through agent/steer when the server offers it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatController } from "../controller";
import { escapeHtml } from "../html";
import { PermissionBroker } from "../permissions";
import * as S from "../state";
import * as T from "../transcript";
import { usageText } from "../webview/render";
import { renderItem } from "../webview/render";
import { FakeConnection, FakeHost, description, tick } from "./fakes";

const md = (t: string) => `<p>${escapeHtml(t)}</p>`;
const chunk = (text: string, messageId?: string) => ({ sessionUpdate: "agent_message_chunk" as const, content: { type: "text" as const, text }, messageId });

test("chunks join the message their messageId names; a new id starts a new message", () => {
  let s = S.emptyState();
  s = T.applyUpdate(s, chunk("Hel", "a"));
  s = T.applyUpdate(s, chunk("lo.", "a"));
  s = T.applyUpdate(s, chunk("Second.", "b"));
  assert.deepEqual(
    s.items.map((i) => (i.kind === "agent" ? i.text : i.kind)),
    ["Hello.", "Second."],
  );
  // A thought between two chunks of one message does not split it.
  s = T.applyUpdate(s, { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "**Hmm** x" }, messageId: "t" });
  s = T.applyUpdate(s, chunk(" More.", "b"));
  assert.deepEqual(
    s.items.map((i) => (i.kind === "agent" ? i.text : i.kind)),
    ["Hello.", "Second. More.", "thought"],
  );
  // Without ids (an older server), consecutive chunks still join.
  s = T.applyUpdate(s, chunk("x"));
  s = T.applyUpdate(s, chunk("y"));
  assert.equal(s.items.length, 4);
});

test("a compaction is one item from in_progress to completed, with its summary, and the usage follows it", () => {
  let s = T.applyUpdate(S.emptyState(), { sessionUpdate: "usage_update", used: 6089, size: 10000 });
  s = T.applyUpdate(s, { sessionUpdate: "compaction_update", compactionId: "c1", status: "in_progress" });
  assert.match(renderItem(s.items[0], md), /Compressing the conversation…/);
  s = T.applyUpdate(s, {
    sessionUpdate: "compaction_update",
    compactionId: "c1",
    status: "completed",
    summary: [{ type: "text", text: "We fixed <a> bug." }],
    _meta: { "agent-lsp": { tokensBefore: 6089, tokensAfter: 951 } },
  });
  assert.equal(s.items.length, 1);
  const html = renderItem(s.items[0], md);
  assert.match(html, /^<details class="compaction status-completed"><summary>.*Compressed: 6,089 → 951 tokens<\/summary>/);
  assert.match(html, /<p>We fixed &lt;a&gt; bug\.<\/p>/);
  assert.ok(!/<details[^>]* open/.test(html), "closed until opened");
  assert.equal(usageText(s), "951 tokens in context · 90% of 10,000 left");
  s = T.applyUpdate(s, { sessionUpdate: "compaction_update", compactionId: "c2", status: "failed", error: "the model refused" });
  assert.match(renderItem(s.items[1], md), /Compression failed: the model refused/);
});

test("a rewind or another model marks the token count stale; the next usage_update is current again", () => {
  let s = T.applyUpdate(S.emptyState(), { sessionUpdate: "usage_update", used: 2500, size: 10000, cost: { amount: 0.01, currency: "USD" } });
  s = S.setModel(s, "other");
  assert.equal(usageText(s), "tokens in context: counted again with the next answer · ≈ $0.0100 this chat");
  s = T.applyUpdate(s, { sessionUpdate: "usage_update", used: 300, size: 20000, cost: { amount: 0.02, currency: "USD" } });
  assert.match(usageText(s), /^300 tokens in context/);
});

function steeringSetup(steer: (params: any) => unknown) {
  const host = new FakeHost();
  const controller = new ChatController(host, new PermissionBroker(), () => ({ cwd: "/ws" }));
  const turns: ((reason: string) => void)[] = [];
  const conn = Object.assign(new FakeConnection(), { serverRequests: ["agent/steer"] })
    .on("agent/newSession", () => description("s1"))
    .on("agent/prompt", () => new Promise((resolve) => turns.push((stopReason) => resolve({ stopReason }))))
    .on("agent/steer", steer);
  controller.attach(conn);
  return { controller, conn, turns };
}

test("Send now steers the running turn: agent/steer with the message's blocks, no cancel, shown as sent", async () => {
  const { controller, conn, turns } = steeringSetup(() => ({ outcome: "injected" }));
  assert.equal(controller.state.steering, true);
  void controller.submit({ text: "first", attachments: [] });
  await tick();
  await controller.submit({ text: "later", attachments: [] });
  await controller.sendNow({ text: "use tabs", attachments: [] });
  assert.deepEqual(conn.notifications, [], "the running turn is not cancelled");
  const steer = conn.requests.find((r) => r.method === "agent/steer");
  assert.deepEqual(steer?.params, { sessionId: "s1", prompt: [{ type: "text", text: "use tabs" }], idleBehavior: "promptRequired" });
  const users = controller.state.items.filter((i) => i.kind === "user");
  assert.deepEqual(users.map((u) => [u.text, u.kind === "user" && u.steered === true]), [["first", false], ["use tabs", true]]);
  assert.deepEqual(controller.state.queue.map((q) => q.draft.text), ["later"], "the rest of the queue waits");
  // A queued message's own Send now steers it in too.
  await controller.sendNow(controller.state.queue[0].id);
  assert.deepEqual(
    conn.requests.filter((r) => r.method === "agent/steer").map((r) => r.params.prompt[0].text),
    ["use tabs", "later"],
  );
  assert.equal(controller.state.queue.length, 0);
  turns[0]("end_turn");
  await tick();
  await tick();
  assert.equal(conn.count("agent/prompt"), 1, "the turn ends once; nothing was left to send after it");
  assert.equal(controller.state.busy, false);
});

test("Send now when the turn ended meanwhile (promptRequired) sends the message as a prompt", async () => {
  const { controller, conn, turns } = steeringSetup(async () => {
    turns[0]("end_turn"); // the turn ends while the steer is on its way
    await tick();
    return { outcome: "promptRequired" };
  });
  void controller.submit({ text: "first", attachments: [] });
  await tick();
  const sent = controller.sendNow({ text: "late", attachments: [] });
  for (let i = 0; i < 5; i++) await tick();
  turns[1]?.("end_turn");
  await sent;
  const prompts = conn.requests.filter((r) => r.method === "agent/prompt").map((r) => r.params.prompt);
  assert.deepEqual(prompts, ["first", "late"]);
  assert.equal(controller.state.items.filter((i) => i.kind === "user" && i.text === "late").length, 1, "shown once");
});
