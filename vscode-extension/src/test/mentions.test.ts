// The @ picker's rows and the attachments they become (pure: mentions.ts).

import assert from "node:assert/strict";
import { test } from "node:test";
import { mentionCandidates, pathAttachment, problemsAttachment, terminalAttachment, urlAttachment } from "../mentions";
import { renderMentionPicker } from "../webview/render";

const files = [
  { path: "src/", uri: "file:///ws/src", isDirectory: true },
  { path: "src/app.py", uri: "file:///ws/src/app.py", isDirectory: false },
];
const offers = { activeFile: { uri: "file:///ws/src/app.py", path: "src/app.py" }, problemCount: 2 };

test("an empty query offers the editor's context first, then folders and files", () => {
  const rows = mentionCandidates("", files, [], { ...offers, selection: { path: "src/app.py", startLine: 2, endLine: 4 }, terminal: { name: "bash" } });
  assert.deepEqual(
    rows.map((r) => [r.kind, r.label]),
    [
      ["selection", "Selection"],
      ["problems", "Problems in this file"],
      ["problems", "Problems in the workspace"],
      ["terminal", "Terminal output"],
      ["url", "URL…"],
      ["folder", "src/"],
      ["file", "src/app.py"],
    ],
  );
});

test("a query narrows the editor rows; files and symbols come as found", () => {
  const rows = mentionCandidates("app", files.slice(1), [{ name: "App", kind: "Class", uri: "file:///ws/src/app.py", path: "src/app.py", line: 4 }], offers);
  assert.deepEqual(
    rows.map((r) => [r.kind, r.label, r.detail]),
    [
      ["file", "src/app.py", undefined],
      ["symbol", "App", "Class · src/app.py:5"],
    ],
  );
  assert.deepEqual(JSON.parse(rows[1].ref), { uri: "file:///ws/src/app.py", line: 4, name: "App" });
  assert.deepEqual(
    mentionCandidates("prob", [], [], offers).map((r) => r.ref),
    ["file:///ws/src/app.py", "workspace"],
  );
});

test("a typed URL is offered as itself", () => {
  const rows = mentionCandidates("https://example.org/docs", files, [], offers);
  assert.deepEqual(rows, [{ kind: "url", label: "https://example.org/docs", detail: "Attach this web page (the agent fetches it)", ref: "https://example.org/docs" }]);
});

test("attachments carry the blocks the server reads", () => {
  assert.deepEqual(pathAttachment("folder", "file:///ws/src", "src/").block, { type: "resource_link", uri: "file:///ws/src", name: "src/" });
  assert.deepEqual(urlAttachment("https://e.org").block, { type: "resource_link", uri: "https://e.org", name: "https://e.org" });
  const problems = problemsAttachment("the workspace", [{ path: "a.py", line: 3, severity: "error", message: "undefined name x", source: "pyflakes" }]);
  assert.equal(problems.label, "Problems: the workspace (1)");
  assert.deepEqual(problems.block, { type: "text", text: "Problems the editor reports in the workspace:\n- a.py:3 error [pyflakes]: undefined name x" });
  const long = terminalAttachment("bash", "make", "x".repeat(30_000));
  assert.ok(long.block.type === "text" && long.block.text.includes("…x") && long.block.text.length < 21_000);
});

test("the picker is a listbox with the active row marked, and says when nothing matches", () => {
  const html = renderMentionPicker(mentionCandidates("", files, [], offers), 1, false);
  assert.match(html, /id="mention-1" class="mention active" aria-selected="true"/);
  assert.match(renderMentionPicker([], 0, false), /Nothing matches/);
});
