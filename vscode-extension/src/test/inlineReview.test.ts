// The inline review: hunks of a proposal, a choice per hunk, and the one answer the server gets for them.

import assert from "node:assert/strict";
import { test } from "node:test";
import { DiffReview, ProposalStore } from "../diffReview";
import { compose, hunkKey, lineHunks, splitLines, summary } from "../hunks";
import { InlineReview, type InlineState, type InlineView } from "../inlineReview";
import { PermissionBroker } from "../permissions";
import { FakeHost, editPermission } from "./fakes";

const OLD = 'def greet(name):\n    return "Hello " + name\n\n\nprint(greet("world"))\n';
const NEW = 'def greet(name):\n    return f"Hello, {name}!"\n\n\nprint(greet("there"))\n';

class FakeView implements InlineView {
  shown: { requestId: string; line?: number }[] = [];
  cleared: string[] = [];
  at: { uri: string; line: number } | undefined;
  async show(state: InlineState, line?: number): Promise<void> {
    this.shown.push({ requestId: state.requestId, line });
    if (line !== undefined) this.at = { uri: state.fileUri, line };
  }
  clear(state: InlineState): void {
    this.cleared.push(state.requestId);
  }
  redraw(): void {}
  cursor(): { uri: string; line: number } | undefined {
    return this.at;
  }
}

function setup() {
  const host = new FakeHost();
  const broker = new PermissionBroker();
  const store = new ProposalStore();
  const sideBySide = new DiffReview(host, broker, store);
  const view = new FakeView();
  const inline = new InlineReview(host, broker, sideBySide, view);
  const statuses: (string | undefined)[] = [];
  inline.onStatus((_id, status) => statuses.push(status));
  return { host, broker, sideBySide, view, inline, statuses };
}

test("hunks are runs of changed lines, and compose applies only the accepted ones", () => {
  const hunks = lineHunks(OLD, NEW);
  assert.deepEqual(
    hunks.map((h) => [h.oldStart, h.oldEnd, h.newStart, h.newEnd]),
    [
      [1, 2, 1, 2],
      [4, 5, 4, 5],
    ],
  );
  const decisions = new Map([[hunkKey(hunks[0]), "accepted" as const]]);
  assert.equal(compose(OLD, hunks, decisions), OLD.replace('"Hello " + name', 'f"Hello, {name}!"'));
  assert.equal(summary(hunks, decisions), "2 hunks · 1 accepted · 1 to review");
  assert.deepEqual(lineHunks("a\nb", "a\nb\nc"), [{ oldStart: 1, oldEnd: 2, newStart: 1, newEnd: 3, removed: ["b"], added: ["b\n", "c"] }]);
  assert.deepEqual(splitLines("x\r\ny"), ["x\r\n", "y"]);
  assert.deepEqual(lineHunks("a\nb\n", "a\nb\n"), []);
});

test("accept one hunk, reject the other: one approval carrying the resulting text", async () => {
  const { host, broker, view, inline, statuses } = setup();
  const { requestId, answer } = broker.ask(editPermission("/ws/app.py", OLD, NEW));
  host.documents.set("file:///ws/app.py", OLD); // the buffer holds what the agent read
  assert.equal(await inline.open(requestId), true);
  assert.deepEqual(view.shown[0], { requestId, line: 1 });
  assert.equal(statuses.at(-1), "2 hunks");
  assert.equal(host.contexts.get("agentLsp.inlineReview"), true);
  assert.equal(await inline.decide("accepted"), true); // the hunk under the cursor (line 1)
  assert.deepEqual(view.shown.at(-1), { requestId, line: 4 }); // on to the next open hunk
  assert.equal(statuses.at(-1), "2 hunks · 1 accepted · 1 to review");
  await inline.decide("rejected");
  assert.deepEqual(await answer, {
    outcome: { outcome: "selected", optionId: "proceed_once" },
    _meta: { modifiedContent: OLD.replace('"Hello " + name', 'f"Hello, {name}!"') },
  });
  assert.deepEqual(view.cleared, [requestId]);
  assert.equal(statuses.at(-1), undefined);
  assert.equal(host.contexts.get("agentLsp.inlineReview"), false);
});

test("all hunks accepted is the plain approval; all rejected is a rejection", async () => {
  const one = setup();
  const a = one.broker.ask(editPermission("/ws/app.py", OLD, NEW));
  await one.inline.open(a.requestId);
  await one.inline.decideRest("accepted", a.requestId);
  assert.deepEqual(await a.answer, { outcome: { outcome: "selected", optionId: "proceed_once" } });
  const two = setup();
  const b = two.broker.ask(editPermission("/ws/app.py", OLD, NEW));
  await two.inline.open(b.requestId);
  const key = two.inline.get(b.requestId)!.hunks[1].oldStart;
  assert.equal(key, 4);
  await two.inline.decideRest("rejected", b.requestId);
  assert.deepEqual(await b.answer, { outcome: { outcome: "selected", optionId: "cancel" } });
});

test("Accept Remaining keeps an earlier rejection; Undo takes a choice back", async () => {
  const { broker, inline } = setup();
  const { requestId, answer } = broker.ask(editPermission("/ws/app.py", OLD, NEW));
  await inline.open(requestId);
  const [first, second] = inline.get(requestId)!.hunks;
  await inline.decide("accepted", requestId, hunkKey(second));
  await inline.undecide(requestId, hunkKey(second));
  assert.equal(inline.status(requestId), "2 hunks");
  await inline.decide("rejected", requestId, hunkKey(first));
  await inline.decideRest("accepted", requestId);
  assert.deepEqual(await answer, {
    outcome: { outcome: "selected", optionId: "proceed_once" },
    _meta: { modifiedContent: OLD.replace('greet("world"))', 'greet("there"))') },
  });
});

test("a hunk edited by hand in the side-by-side proposal is applied as edited", async () => {
  const { host, broker, sideBySide, inline } = setup();
  const { requestId, answer } = broker.ask(editPermission("/ws/app.py", OLD, NEW));
  await inline.open(requestId);
  await sideBySide.open(requestId);
  host.documents.set(`agent-proposal:/${requestId}/app.py`, NEW.replace("{name}!", "{name}!!"));
  inline.proposalEdited();
  const [first] = inline.get(requestId)!.hunks;
  await inline.decide("accepted", requestId, hunkKey(first));
  await inline.decideRest("rejected", requestId);
  assert.deepEqual(await answer, {
    outcome: { outcome: "selected", optionId: "proceed_once" },
    _meta: { modifiedContent: OLD.replace('"Hello " + name', 'f"Hello, {name}!!"') },
  });
});

test("next / previous hunk wrap around; a new file or a changed buffer goes side by side", async () => {
  const { host, broker, view, inline } = setup();
  const { requestId } = broker.ask(editPermission("/ws/app.py", OLD, NEW));
  await inline.open(requestId);
  await inline.move(1);
  assert.equal(view.at?.line, 4);
  await inline.move(1);
  assert.equal(view.at?.line, 1);
  await inline.move(-1);
  assert.equal(view.at?.line, 4);
  const created = broker.ask(editPermission("/ws/new.py", null, "x\n"));
  assert.equal(await inline.open(created.requestId), false);
  host.documents.set("file:///ws/other.py", "typed since\n");
  const stale = broker.ask(editPermission("/ws/other.py", "a\n", "b\n"));
  assert.equal(await inline.open(stale.requestId), false);
  inline.enabled = () => false;
  const off = broker.ask(editPermission("/ws/third.py", "a\n", "b\n"));
  assert.equal(await inline.open(off.requestId), false);
});

test("typing in the file during the review moves it to the side-by-side diff", async () => {
  const { host, broker, view, inline } = setup();
  const { requestId } = broker.ask(editPermission("/ws/app.py", OLD, NEW));
  await inline.open(requestId);
  await inline.documentChanged("file:///ws/app.py", OLD + "# typed\n");
  assert.deepEqual(view.cleared, [requestId]);
  assert.equal(host.diffs.length, 1);
  assert.match(host.messages[0].message, /changed during the review/);
  assert.equal(broker.get(requestId) !== undefined, true);
});

test("a file that loads with other text than the agent read is not reviewed inline", async () => {
  const { host, broker, view, inline } = setup();
  const { requestId } = broker.ask(editPermission("/ws/app.py", OLD, NEW));
  const show = view.show.bind(view);
  view.show = async (state, line) => {
    host.documents.set(state.fileUri, "something else\n"); // what opening the file found
    await show(state, line);
  };
  assert.equal(await inline.open(requestId), false);
  assert.deepEqual(view.cleared, [requestId]);
  assert.equal(inline.get(requestId), undefined);
});

test("a change to several files is not reviewed inline: every file's diff opens side by side", async () => {
  const { host, broker, inline, view, sideBySide } = setup();
  const question = editPermission("/ws/a.py", OLD, NEW);
  question.toolCall.content.push({ type: "diff", path: "/ws/b.py", oldText: "greet()\n", newText: "hello()\n" });
  const { requestId } = broker.ask(question);
  assert.equal(await inline.open(requestId), false);
  assert.deepEqual(view.shown, []);
  assert.equal(await sideBySide.open(requestId), true);
  assert.deepEqual(
    host.diffs.map((d) => d.left),
    ["file:///ws/a.py", "file:///ws/b.py"],
  );
});
