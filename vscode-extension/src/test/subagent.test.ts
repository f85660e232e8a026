// A subagent's call in the panel: marked from the server's _meta, its steps folded (closed) under the call.

import assert from "node:assert/strict";
import { test } from "node:test";
import * as S from "../state";
import { escapeHtml } from "../html";
import { renderItem } from "../webview/render";

const text = (t: string) => ({ type: "content" as const, content: { type: "text" as const, text: t } });
const md = (t: string) => `<p>${escapeHtml(t)}</p>`;

test("a subagent's steps fold under its call, closed, with its report below", () => {
  let s = S.emptyState();
  s = S.applyUpdate(s, {
    sessionUpdate: "tool_call",
    toolCallId: "c1",
    title: "Delegating to agent 'cli_help'",
    kind: "other",
    status: "pending",
    _meta: { "agent-lsp": { subagent: "cli_help" } },
  });
  s = S.applyUpdate(s, {
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
  s = S.applyUpdate(s, {
    sessionUpdate: "tool_call_update",
    toolCallId: "c1",
    status: "completed",
    content: [text("```\n💭 Looking\n🔧 get_internal_docs\n\n```"), text("The <answer>.")],
  });
  const done = renderItem(s.items[0], md);
  assert.match(done, /cli_help: 2 steps<\/summary>/);
  assert.match(done, /<\/details><div class="tool-output"><p>The &lt;answer&gt;\.<\/p><\/div>/);
  // An ordinary tool keeps its content as it was; a subagent without steps shows no fold.
  s = S.applyUpdate(s, { sessionUpdate: "tool_call", toolCallId: "c2", title: "ls", kind: "read", content: [text("a")] });
  assert.ok(!renderItem(s.items[1], md).includes("subagent-steps"));
  s = S.applyUpdate(s, { sessionUpdate: "tool_call", toolCallId: "c3", title: "x", _meta: { "agent-lsp": { subagent: "g" } } });
  s = S.applyUpdate(s, { sessionUpdate: "tool_call_update", toolCallId: "c3", content: [text("```\n\n```"), text("r")] });
  assert.ok(!renderItem(s.items[2], md).includes("<details"));
});
