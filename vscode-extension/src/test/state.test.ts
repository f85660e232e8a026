// The transcript reducer: streaming, thoughts, tool cards, plan, usage, progress text.

import assert from "node:assert/strict";
import { test } from "node:test";
import * as S from "../state";
import * as T from "../transcript";

const text = (t: string) => ({ type: "text" as const, text: t });

test("thoughts are titled by their subject and later chunks continue them", () => {
  let s = S.emptyState();
  s = T.applyUpdate(s, { sessionUpdate: "agent_thought_chunk", content: text("**Planning**\n\nfirst ") });
  s = T.applyUpdate(s, { sessionUpdate: "agent_thought_chunk", content: text("then more") });
  s = T.applyUpdate(s, { sessionUpdate: "agent_thought_chunk", content: text("**Checking** tests") });
  assert.deepEqual(
    s.items.map((i) => (i.kind === "thought" ? [i.subject, i.text] : [])),
    [
      ["Planning", "first then more"],
      ["Checking", "tests"],
    ],
  );
  assert.deepEqual(T.splitThought("no subject"), { subject: "", body: "no subject" });
});

test("a tool call and its updates make one card; live output replaces content", () => {
  let s = S.emptyState();
  s = T.applyUpdate(s, {
    sessionUpdate: "tool_call",
    toolCallId: "c1",
    title: "Run ls",
    kind: "execute",
    status: "pending",
    locations: [{ path: "/ws/a.py", line: 3 }],
  });
  s = T.applyUpdate(s, {
    sessionUpdate: "tool_call_update",
    toolCallId: "c1",
    status: "in_progress",
    content: [{ type: "content", content: text("```\na\n```") }],
  });
  assert.equal(S.progressText(S.setBusy(s, true)), "Run ls");
  s = T.applyUpdate(s, { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed" });
  assert.equal(s.items.length, 1);
  const card = s.items[0];
  assert.ok(card.kind === "tool");
  assert.equal(card.status, "completed");
  assert.equal(card.toolKind, "execute");
  assert.deepEqual(card.locations, [{ path: "/ws/a.py", line: 3 }]);
  assert.equal(card.content.length, 1, "an update without content keeps the last one");
});

test("an update for an unseen tool call still shows a card", () => {
  const s = T.applyUpdate(S.emptyState(), { sessionUpdate: "tool_call_update", toolCallId: "late", status: "failed" });
  assert.equal(s.items[0].kind, "tool");
});

test("plan, usage, title, mode and notices", () => {
  let s = S.emptyState();
  s = T.applyUpdate(s, {
    sessionUpdate: "plan",
    entries: [{ content: "Fix it", priority: "medium", status: "in_progress" }],
  });
  s = T.applyUpdate(s, { sessionUpdate: "usage_update", used: 500, size: 1000 });
  s = T.applyUpdate(s, { sessionUpdate: "session_info_update", title: "Fix the bug" });
  s = T.applyUpdate(s, { sessionUpdate: "current_mode_update", currentModeId: "plan" });
  s = T.applyUpdate(s, { sessionUpdate: "notice", severity: "warning", title: "Loop detected" });
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
  const s1 = T.applyUpdate(s0, { sessionUpdate: "agent_message_chunk", content: text("x") });
  assert.equal(s1.revision, s0.revision + 1);
  const unknown = T.applyUpdate(s1, { sessionUpdate: "something_new" } as never);
  assert.equal(unknown, s1);
});

test("user prompt and agent text do not merge; a new session clears the transcript", () => {
  let s = S.addUserPrompt(S.emptyState(), "hi");
  s = T.applyUpdate(s, { sessionUpdate: "agent_message_chunk", content: text("hello") });
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

test("config_option_update: the model select becomes the picker's models, the mode select's value the mode", () => {
  let s = S.startSession(S.emptyState(), {
    sessionId: "n",
    modes: { currentModeId: "default", availableModes: [{ id: "default", name: "Default" }, { id: "plan", name: "Plan" }] },
    models: { currentModelId: "coder", availableModels: [{ modelId: "coder", name: "coder" }] },
    commands: [],
  });
  const modes = s.modes;
  s = T.applyUpdate(s, {
    sessionUpdate: "config_option_update",
    configOptions: [
      {
        id: "model",
        name: "Model",
        type: "select",
        currentValue: "coder",
        options: [
          { value: "coder", name: "coder" },
          { value: "small", name: "Small model" },
        ],
      },
      { id: "mode", name: "Approval mode", type: "select", currentValue: "plan", options: [{ value: "plan", name: "Plan" }] },
      { id: "thought_level", name: "Thinking", type: "select", currentValue: "high", options: [{ value: "high", name: "High" }] },
    ],
  });
  assert.deepEqual(s.models, [
    { modelId: "coder", name: "coder" },
    { modelId: "small", name: "Small model" },
  ]);
  assert.equal(s.currentModel, "coder");
  assert.equal(s.currentMode, "plan");
  assert.equal(s.modes, modes, "the modes on offer stay the session's");
  assert.equal(S.sessionSummary(s), "Mode: Plan · Model: coder");

  // Grouped choices are flattened; items that are not a choice are left out.
  s = T.applyUpdate(s, {
    sessionUpdate: "config_option_update",
    configOptions: [
      {
        id: "model",
        name: "Model",
        type: "select",
        currentValue: "b",
        options: [
          { group: "one", name: "One", options: [{ value: "a", name: "Model A" }] },
          { group: "two", name: "Two", options: [{ value: "b", name: "Model B" }, { name: "no value" } as never] },
        ],
      },
    ],
  });
  assert.deepEqual(s.models, [
    { modelId: "a", name: "Model A" },
    { modelId: "b", name: "Model B" },
  ]);
  assert.equal(s.currentModel, "b");
});

test("a malformed config_option_update changes nothing and throws nothing", () => {
  const s = S.startSession(S.emptyState(), {
    sessionId: "n",
    modes: { currentModeId: "default", availableModes: [{ id: "default", name: "Default" }] },
    models: { currentModelId: "coder", availableModels: [{ modelId: "coder", name: "coder" }] },
    commands: [],
  });
  const bad: unknown[] = [
    undefined,
    null,
    "model",
    [null, "x", 3],
    [{ id: "model", currentValue: 3, options: [{ value: "x", name: "x" }] }],
    [{ id: "model", currentValue: "x", options: "x" }],
    [{ id: "model", currentValue: "x", options: [] }],
    [{ id: "model", currentValue: "x", options: [{ name: "no value" }, 7, null] }],
    [{ id: "mode", currentValue: null }],
    [{ id: "thought_level", currentValue: "high", options: [{ value: "high", name: "High" }] }],
  ];
  for (const configOptions of bad) {
    const after = T.applyUpdate(s, { sessionUpdate: "config_option_update", configOptions } as never);
    assert.equal(after, s, `after ${JSON.stringify(configOptions)}`);
  }
  assert.equal(T.applyUpdate(s, { sessionUpdate: "config_option_update" } as never), s, "no configOptions at all");
});

test("the session's promptCapabilities say whether the model reads images", () => {
  const described = { sessionId: "s", modes: { currentModeId: "default", availableModes: [] }, models: { currentModelId: "m", availableModels: [] }, commands: [] };
  assert.equal(S.startSession(S.emptyState(), described).imageInput, undefined);
  assert.equal(S.startSession(S.emptyState(), { ...described, promptCapabilities: { image: false } }).imageInput, false);
});
