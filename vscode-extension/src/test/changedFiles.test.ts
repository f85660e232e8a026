// The files the last turn changed, with +/- counts, and the diff that opens for one.

import assert from "node:assert/strict";
import { test } from "node:test";
import { changedFiles, openChange } from "../changedFiles";
import { ProposalStore, pathOfProposalUri } from "../diffReview";
import * as S from "../state";
import * as T from "../transcript";
import { renderChanges } from "../webview/render";
import { FakeHost } from "./fakes";

function turn(): S.ChatState {
  let state = S.addUserPrompt(S.emptyState(), "old turn");
  const edit = (id: string, path: string, oldText: string | null, newText: string, status: "completed" | "failed" = "completed") => {
    state = T.applyUpdate(state, { sessionUpdate: "tool_call", toolCallId: id, title: `Edit ${path}`, kind: "edit", status, content: [{ type: "diff", path, oldText, newText }] });
  };
  edit("old", "/ws/old.py", "a\n", "b\n");
  state = S.addUserPrompt(state, "tidy");
  edit("1", "/ws/app.py", "a\nb\nc\n", "a\nB\nc\n");
  edit("2", "/ws/app.py", "a\nB\nc\n", "a\nB\nc\nd\ne\n");
  edit("3", "/ws/new.py", null, "x\n");
  edit("4", "/ws/failed.py", "a\n", "b\n", "failed");
  return state;
}

test("the last turn's completed edits, per file: first text before, last after, lines added and removed", () => {
  const changes = changedFiles(turn());
  assert.deepEqual(
    changes.map((c) => [c.path, c.added, c.removed, c.created]),
    [
      ["/ws/app.py", 3, 1, false],
      ["/ws/new.py", 1, 0, true],
    ],
  );
  assert.equal(changes[0].before, "a\nb\nc\n");
  const html = renderChanges(changes, (p) => p.replace("/ws/", ""));
  assert.match(html, /Changed files \(2\)/);
  assert.match(html, /data-change="\/ws\/app.py"[^>]*aria-label="app.py: 3 lines added, 1 removed. Open the diff">app.py<\/a> <span class="added">\+3<\/span> <span class="removed">−1<\/span>/);
});

test("a change opens the diff of the text before the turn beside the file now", async () => {
  const host = new FakeHost();
  const store = new ProposalStore();
  await openChange(host, store, changedFiles(turn())[0]);
  const diff = host.diffs[0];
  assert.equal(diff.right, "file:///ws/app.py");
  assert.equal(diff.title, "app.py (before the turn ↔ now)");
  assert.equal(store.read(pathOfProposalUri(diff.left) ?? ""), "a\nb\nc\n");
});
