// The transcript reducer: streaming, thoughts, tool cards, plan, usage, progress text.

import assert from "node:assert/strict";
import { test } from "node:test";
import * as S from "../state";

const text = (t: string) => ({ type: "text" as const, text: t });

test("thoughts are titled by their subject and later chunks continue them", () => {
  let s = S.emptyState();
  s = S.applyUpdate(s, { sessionUpdate: "agent_thought_chunk", content: text("**Planning**\n\nfirst ") });
  s = S.applyUpdate(s, { sessionUpdate: "agent_thought_chunk", content: text("then more") });
  s = S.applyUpdate(s, { sessionUpdate: "agent_thought_chunk", content: text("**Checking** tests") });
  assert.deepEqual(
    s.items.map((i) => (i.kind === "thought" ? [i.subject, i.text] : [])),
    [
      ["Planning", "first then more"],
      ["Checking", "tests"],
    ],
  );
  assert.deepEqual(S.splitThought("no subject"), { subject: "", body: "no subject" });
});

test("a tool call and its updates make one card; live output replaces content", () => {
  let s = S.emptyState();
  s = S.applyUpdate(s, {
    sessionUpdate: "tool_call",
    toolCallId: "c1",
    title: "Run ls",
    kind: "execute",
    status: "pending",
    locations: [{ path: "/ws/a.py", line: 3 }],
  });
  s = S.applyUpdate(s, {
    sessionUpdate: "tool_call_update",
    toolCallId: "c1",
    status: "in_progress",
    content: [{ type: "content", content: text("```\na\n```") }],
  });
  assert.equal(S.progressText(S.setBusy(s, true)), "Run ls");
  s = S.applyUpdate(s, { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed" });
  assert.equal(s.items.length, 1);
  const card = s.items[0];
  assert.ok(card.kind === "tool");
  assert.equal(card.status, "completed");
  assert.equal(card.toolKind, "execute");
  assert.deepEqual(card.locations, [{ path: "/ws/a.py", line: 3 }]);
  assert.equal(card.content.length, 1, "an update without content keeps the last one");
});

test("an update for an unseen tool call still shows a card", () => {
  const s = S.applyUpdate(S.emptyState(), { sessionUpdate: "tool_call_update", toolCallId: "late", status: "failed" });
  assert.equal(s.items[0].kind, "tool");
});

test("plan, usage, title, mode and notices", () => {
  let s = S.emptyState();
  s = S.applyUpdate(s, {
    sessionUpdate: "plan",
    entries: [{ content: "Fix it", priority: "medium", status: "in_progress" }],
  });
  s = S.applyUpdate(s, { sessionUpdate: "usage_update", used: 500, size: 1000 });
  s = S.applyUpdate(s, { sessionUpdate: "session_info_update", title: "Fix the bug" });
  s = S.applyUpdate(s, { sessionUpdate: "current_mode_update", currentModeId: "plan" });
  s = S.applyUpdate(s, { sessionUpdate: "notice", severity: "warning", title: "Loop detected" });
  assert.equal(s.plan[0].status, "in_progress");
  assert.deepEqual(s.usage, { used: 500, size: 1000 });
  assert.equal(s.title, "Fix the bug");
  assert.equal(s.currentMode, "plan");
  assert.equal(S.sessionSummary({ ...s, modes: [{ id: "plan", name: "Plan" }], models: [], currentModel: "m-1" }), "Mode: Plan · Model: m-1");
  assert.equal(S.sessionSummary(S.emptyState()), "");
  assert.equal(s.items[0].kind, "notice");
});

test("every change bumps the revision; unknown updates change nothing", () => {
  const s0 = S.emptyState();
  const s1 = S.applyUpdate(s0, { sessionUpdate: "agent_message_chunk", content: text("x") });
  assert.equal(s1.revision, s0.revision + 1);
  const unknown = S.applyUpdate(s1, { sessionUpdate: "something_new" } as never);
  assert.equal(unknown, s1);
});

test("user prompt and agent text do not merge; a new session clears the transcript", () => {
  let s = S.addUserPrompt(S.emptyState(), "hi");
  s = S.applyUpdate(s, { sessionUpdate: "agent_message_chunk", content: text("hello") });
  assert.deepEqual(
    s.items.map((i) => i.kind),
    ["user", "agent"],
  );
  assert.equal(S.progressText(s), "Thinking…");
  s = S.startSession(s, {
    sessionId: "n",
    modes: { currentModeId: "default", availableModes: [] },
    models: { currentModelId: "m", availableModels: [] },
    commands: [],
  });
  assert.deepEqual(s.items, []);
  assert.equal(s.sessionId, "n");
  assert.equal(s.currentModel, "m");
});
