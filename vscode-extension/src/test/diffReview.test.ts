// DiffReview and the proposal store: what opens, what Accept / Reject answer, the edited proposal in _meta.

import assert from "node:assert/strict";
import { test } from "node:test";
import { DiffReview, ProposalStore, pathOfProposalUri, proposalPath, proposalUri } from "../diffReview";
import { PermissionBroker } from "../permissions";
import { FakeHost, editPermission, tick } from "./fakes";

function setup() {
  const host = new FakeHost();
  const broker = new PermissionBroker();
  const store = new ProposalStore();
  const review = new DiffReview(host, broker, store);
  return { host, broker, store, review };
}

test("open shows the file beside the proposal", async () => {
  const { host, broker, store, review } = setup();
  const { requestId } = broker.ask(editPermission("/ws/src/app.py", "old\n", "new\n"));
  assert.equal(await review.open(requestId), true);
  const [diff] = host.diffs;
  assert.equal(diff.left, "file:///ws/src/app.py");
  assert.equal(diff.right, `agent-proposal:/${requestId}/app.py`);
  assert.match(diff.title, /app\.py ↔ agent's proposed edit/);
  assert.equal(store.read(`/${requestId}/app.py`), "new\n");
  assert.equal(host.contexts.get("agentLsp.reviewing"), true);
});

test("a new file is compared with an empty document", async () => {
  const { host, broker, store, review } = setup();
  const { requestId } = broker.ask(editPermission("/ws/new.txt", null, "hello\n"));
  await review.open(requestId);
  assert.equal(host.diffs[0].left, `agent-proposal:/${requestId}/original/new.txt`);
  assert.equal(store.read(`/${requestId}/original/new.txt`), "");
  assert.match(host.diffs[0].title, /new file/);
});

test("accepting an untouched proposal allows once and closes the review", async () => {
  const { host, broker, review } = setup();
  const { requestId, answer } = broker.ask(editPermission());
  await review.open(requestId);
  assert.equal(await review.accept(`agent-proposal:/${requestId}/app.py`), true);
  assert.deepEqual(await answer, { outcome: { outcome: "selected", optionId: "proceed_once" } });
  await tick();
  assert.deepEqual(host.closed, [`agent-proposal:/${requestId}/app.py`]);
  assert.equal(review.isOpen(requestId), false);
  assert.equal(host.contexts.get("agentLsp.reviewing"), false);
});

test("an edited proposal is accepted with its text in _meta.modifiedContent", async () => {
  const { host, broker, review } = setup();
  const { requestId, answer } = broker.ask(editPermission("/ws/app.py", "a\n", "b\n"));
  await review.open(requestId);
  host.documents.set(`agent-proposal:/${requestId}/app.py`, "b, edited by the user\n");
  await review.accept();
  assert.deepEqual(await answer, {
    outcome: { outcome: "selected", optionId: "proceed_once" },
    _meta: { modifiedContent: "b, edited by the user\n" },
  });
});

test("reject answers the reject option", async () => {
  const { broker, review } = setup();
  const { requestId, answer } = broker.ask(editPermission());
  await review.open(requestId);
  assert.equal(await review.reject(), true);
  assert.deepEqual(await answer, { outcome: { outcome: "selected", optionId: "cancel" } });
  assert.equal(await review.reject(), false, "nothing left to reject");
});

test("answering in the panel closes an open review", async () => {
  const { host, broker, review } = setup();
  const { requestId } = broker.ask(editPermission());
  await review.open(requestId);
  broker.answer(requestId, "proceed_once");
  await tick();
  assert.equal(review.isOpen(requestId), false);
  assert.equal(host.closed.length, 1);
});

test("a question without a diff has nothing to review", async () => {
  const { broker, review } = setup();
  const params = editPermission();
  params.toolCall.content = [{ type: "content", content: { type: "text", text: "```sh\nls\n```" } }];
  const { requestId } = broker.ask(params);
  assert.equal(await review.open(requestId), false);
});

test("proposal URIs round-trip names with spaces and vscode's // form", () => {
  const path = proposalPath("perm-3", "/ws/my file.py");
  assert.equal(path, "/perm-3/my file.py");
  const uri = proposalUri(path);
  assert.equal(uri, "agent-proposal:/perm-3/my%20file.py");
  assert.equal(pathOfProposalUri(uri), path);
  assert.equal(pathOfProposalUri("agent-proposal:///perm-3/my%20file.py"), path);
  assert.equal(pathOfProposalUri("file:///perm-3/x.py"), undefined);
});

/** A rename's question: one diff per file it changes (two files here, both named util.py). */
function renamePermission(): any {
  const question = editPermission("/ws/a/util.py", "def area():\n", "def surface():\n");
  question.toolCall.title = "Rename area to surface";
  question.toolCall.content.push({
    type: "diff",
    path: "/ws/b/util.py",
    oldText: "from a.util import area\n",
    newText: "from a.util import surface\n",
  });
  return question;
}

test("a question about several files opens every file's diff", async () => {
  const { host, broker, store, review } = setup();
  const { requestId } = broker.ask(renamePermission());
  assert.equal(await review.open(requestId), true);
  assert.deepEqual(
    host.diffs.map((d) => [d.left, d.right]),
    [
      ["file:///ws/a/util.py", `agent-proposal:/${requestId}/1/util.py`],
      ["file:///ws/b/util.py", `agent-proposal:/${requestId}/2/util.py`],
    ],
  );
  assert.match(host.diffs[0].title, /util\.py ↔ agent's proposed edit \(1 of 2\)/);
  assert.match(host.diffs[1].title, /\(2 of 2\)/);
  assert.equal(store.read(`/${requestId}/1/util.py`), "def surface():\n");
  assert.equal(store.read(`/${requestId}/2/util.py`), "from a.util import surface\n");
});

test("accepting a change to several files from any of its diffs answers once and closes them all", async () => {
  const { host, broker, review } = setup();
  const { requestId, answer } = broker.ask(renamePermission());
  await review.open(requestId);
  assert.equal(await review.accept(`agent-proposal:/${requestId}/2/util.py`), true);
  assert.deepEqual(await answer, { outcome: { outcome: "selected", optionId: "proceed_once" } });
  await tick();
  assert.deepEqual(host.closed, [`agent-proposal:/${requestId}/1/util.py`, `agent-proposal:/${requestId}/2/util.py`]);
  assert.equal(host.contexts.get("agentLsp.reviewing"), false);
});

test("an edited proposal of a change to several files is not accepted silently", async () => {
  const { host, broker, review } = setup();
  const { requestId } = broker.ask(renamePermission());
  await review.open(requestId);
  host.documents.set(`agent-proposal:/${requestId}/2/util.py`, "edited\n");
  assert.equal(await review.accept(), false);
  assert.match(host.messages[0].message, /b\/util\.py cannot be sent back/);
  assert.equal(review.isOpen(requestId), true, "the question is still open");
  assert.equal(review.proposalText(requestId), undefined);
  assert.equal(await review.reject(), true);
});
