// A subagent's call in the panel: marked from the server's _meta, its steps folded (closed) under the call.

import assert from "node:assert/strict";
import { test } from "node:test";
import * as S from "../state";
import * as T from "../transcript";
import { escapeHtml } from "../html";
import { renderItem } from "../webview/render";

const text = (t: string) => ({ type: "content" as const, content: { type: "text" as const, text: t } });
const md = (t: string) => `<p>${escapeHtml(t)}</p>`;

test("a subagent's steps fold under its call, closed, with its report below", () => {
  let s = S.emptyState();
  s = T.applyUpdate(s, {
    sessionUpdate: "tool_call",
    toolCallId: "c1",
    title: "Delegating to agent 'cli_help'",
    kind: "other",
    status: "pending",
    _meta: { "agent-lsp": { subagent: "cli_help" } },
  });
  s = T.applyUpdate(s, {
    sessionUpdate: "tool_call_update",
    toolCallId: "c1",
    status: "in_progress",
    content: [text("```\n💭 Looking\n🔧 get_internal_docs\n\n```")],
  });
  const [running] = s.items;
  assert.equal(running.kind === "tool" && running.subagent, "cli_help");
  const live = renderItem(running, md);
  assert.match(live, /<details class="subagent-steps" data-subagent="cli_help"><summary [^>]*>cli_help: 2 steps so far · 🔧 get_internal_docs<\/summary>/);
  assert.ok(!/<details[^>]* open/.test(live), "closed until the user opens it");
  s = T.applyUpdate(s, {
    sessionUpdate: "tool_call_update",
    toolCallId: "c1",
    status: "completed",
    content: [text("```\n💭 Looking\n🔧 get_internal_docs\n\n```"), text("The <answer>.")],
  });
  const done = renderItem(s.items[0], md);
  assert.match(done, /cli_help: 2 steps<\/summary>/);
  assert.match(done, /<\/details><div class="tool-output"><p>The &lt;answer&gt;\.<\/p><\/div>/);
  // An ordinary tool keeps its content as it was; a subagent without steps shows no fold.
  s = T.applyUpdate(s, { sessionUpdate: "tool_call", toolCallId: "c2", title: "ls", kind: "read", content: [text("a")] });
  assert.ok(!renderItem(s.items[1], md).includes("subagent-steps"));
  s = T.applyUpdate(s, { sessionUpdate: "tool_call", toolCallId: "c3", title: "x", _meta: { "agent-lsp": { subagent: "g" } } });
  s = T.applyUpdate(s, { sessionUpdate: "tool_call_update", toolCallId: "c3", content: [text("```\n\n```"), text("r")] });
  assert.ok(!renderItem(s.items[2], md).includes("subagent-steps"), "no steps: no fold of steps (the call's own line still opens)");
});

test("a subagent's own updates nest under the call that runs it, in order, without touching the chat's usage", () => {
  const origin = { "agent-lsp": { subagent: { parentToolCallId: "p1", agent: "codebase_investigator", childSessionId: "child-1" } } };
  let s = S.emptyState();
  s = T.applyUpdate(s, { sessionUpdate: "usage_update", used: 100, size: 1000 });
  s = T.applyUpdate(s, { sessionUpdate: "tool_call", toolCallId: "p1", title: "Delegating", kind: "other", status: "in_progress", _meta: { "agent-lsp": { subagent: "codebase_investigator" } } });
  s = T.applyUpdate(s, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Look" }, messageId: "m1", _meta: origin });
  s = T.applyUpdate(s, { sessionUpdate: "tool_call", toolCallId: "k1", title: "Read a.py", kind: "read", status: "completed", locations: [{ path: "/ws/a.py" }], _meta: origin });
  s = T.applyUpdate(s, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "ing." }, messageId: "m1", _meta: origin });
  s = T.applyUpdate(s, { sessionUpdate: "usage_update", used: 5, size: 9, _meta: origin } as never);
  assert.equal(s.items.length, 1, "nothing of the child at the top level");
  const parent = s.items[0];
  assert.ok(parent.kind === "tool");
  assert.deepEqual(parent.children?.map((c) => c.kind), ["agent", "tool"]);
  assert.equal(parent.children?.[0].kind === "agent" && parent.children[0].text, "Looking.", "one message by its id");
  assert.deepEqual(s.usage, { used: 100, size: 1000 });
  const html = renderItem(parent, md);
  assert.match(html, /<div class="subagent-items"><div class="msg agent"><p>Looking\.<\/p>/);
  assert.match(html, /<span class="tool-verb">Read<\/span><span class="tool-target">a\.py<\/span>/);
});
