// Rewind, Edit and Fork on the user's messages: the dry run shown before anything is done, the cut transcript,
// the text put in the box, the undo (until the next prompt) and the fork from a message.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatController } from "../controller";
import { serverIndex } from "../messageActions";
import { PermissionBroker } from "../permissions";
import * as S from "../state";
import { FakeConnection, FakeHost, description } from "./fakes";

async function twoTurns() {
  const host = new FakeHost();
  const controller = new ChatController(host, new PermissionBroker(), () => ({ cwd: "/ws" }));
  const conn = new FakeConnection().on("agent/newSession", () => description("s1"));
  conn.on("agent/prompt", () => ({ stopReason: "end_turn" }));
  controller.attach(conn);
  await controller.send("first");
  controller.onUpdate({ sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "one" } } });
  await controller.send("second");
  controller.onUpdate({ sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "two" } } });
  conn.on("agent/rewind", (p) => {
    if (p.messageIndex === undefined && !p.undo) {
      return { messages: [{ index: 0, text: "first", rewindable: true }, { index: 1, text: "second", rewindable: true }], canUndo: false };
    }
    if (p.undo) return { messageIndex: 1, undone: true };
    return { messageIndex: p.messageIndex, text: "second", restore: ["a.py"], delete: ["new.py"], conflicts: ["mine.py"], ...(p.dryRun ? { dryRun: true } : { filesAvailable: true }) };
  });
  const second = controller.state.items.filter((i) => i.kind === "user")[1].id;
  return { host, controller, conn, second };
}

test("the panel's user messages line up with the server's from the end, by text", () => {
  const items: S.ChatItem[] = [
    { kind: "user", id: "u1", text: "a" },
    { kind: "agent", id: "a1", text: "b" },
    { kind: "user", id: "u2", text: "c\n\n`@app.py`" },
  ];
  const sent = (...texts: string[]) => texts.map((text) => ({ text }));
  assert.equal(serverIndex(items, "u2", sent("a", "c")), 1, "chips' labels follow the text in the panel");
  assert.equal(serverIndex(items, "u1", sent("a", "c")), 0);
  assert.equal(serverIndex(items, "u2", sent("explain", "a", "c")), 2, "a code action's turn before them");
  assert.equal(serverIndex(items, "u1", sent("a", "explain", "c")), 0, "a code action's turn between them");
  assert.equal(serverIndex(items, "u1", sent("x", "y")), 0, "texts that do not line up: by position");
  assert.equal(serverIndex(items, "u1", sent("c")), undefined);
  assert.equal(serverIndex(items, "nope", sent("a", "c")), undefined);
});

test("Edit shows the dry run first, then rewinds, cuts the transcript and puts the message in the box; undo puts it back", async () => {
  const { controller, conn, second } = await twoTurns();
  await controller.handleMessage({ type: "edit", itemId: second });
  const preview = controller.state.rewind?.preview;
  assert.deepEqual(
    { index: preview?.index, restore: preview?.restore, del: preview?.delete, conflicts: preview?.conflicts },
    { index: 1, restore: ["a.py"], del: ["new.py"], conflicts: ["mine.py"] },
  );
  assert.equal(conn.requests.filter((r) => r.method === "agent/rewind" && r.params.dryRun !== true && r.params.messageIndex !== undefined).length, 0, "nothing done before the confirm");
  assert.equal(controller.state.items.length, 4);

  await controller.handleMessage({ type: "rewindConfirm" });
  assert.deepEqual(conn.requests.at(-1), { method: "agent/rewind", params: { sessionId: "s1", messageIndex: 1 } });
  assert.deepEqual(controller.state.items.map((i) => i.kind), ["user", "agent"]);
  assert.equal(controller.state.rewind?.composer?.text, "second");
  assert.equal(controller.state.rewind?.done?.conflicts[0], "mine.py");

  await controller.handleMessage({ type: "rewindUndo" });
  assert.deepEqual(conn.requests.at(-1), { method: "agent/rewind", params: { sessionId: "s1", undo: true } });
  assert.equal(controller.state.items.length, 4);
  assert.equal(controller.state.rewind?.done, undefined);
});

test("Rewind offers the message to an empty box only; Cancel does nothing; the next prompt makes a rewind final", async () => {
  const { controller, conn, second } = await twoTurns();
  await controller.handleMessage({ type: "rewind", itemId: second });
  await controller.handleMessage({ type: "rewindCancel" });
  assert.equal(controller.state.rewind?.preview, undefined);
  assert.equal(controller.state.items.length, 4);
  await controller.handleMessage({ type: "rewind", itemId: second });
  await controller.handleMessage({ type: "rewindConfirm" });
  assert.deepEqual(controller.state.rewind?.composer, { text: "second", seq: controller.state.rewind?.composer?.seq, ifEmpty: true });
  assert.ok(controller.state.rewind?.done);
  await controller.send("again");
  assert.equal(controller.state.rewind?.done, undefined, "no undo after a prompt");
  const undos = conn.count("agent/rewind");
  await controller.handleMessage({ type: "rewindUndo" });
  assert.equal(conn.count("agent/rewind"), undos);
});

test("Fork from a message opens the new session with the message in the box", async () => {
  const { controller, conn, second } = await twoTurns();
  conn.on("agent/fork", (p) => {
    assert.deepEqual(p, { sessionId: "s1", messageIndex: 1, cwd: "/ws" });
    controller.onUpdate({ sessionId: "s2", update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "first" } }, replay: true });
    return { ...description("s2"), messageIndex: 1, messageText: "second" };
  });
  await controller.handleMessage({ type: "fork", itemId: second });
  assert.equal(controller.state.sessionId, "s2");
  assert.deepEqual(controller.state.items.map((i) => i.kind), ["user"]);
  assert.equal(controller.state.rewind?.composer?.text, "second");
});

test("the bar labels every action for screen readers; the preview lists the files, conflicts as kept", async () => {
  const { renderRewind, userMessageActions } = await import("../webview/messageActions");
  const bar = userMessageActions("u<1>");
  for (const label of ["Copy this message", "Rewind to before this message", "Edit this message", "Fork from this message"]) {
    assert.ok(bar.includes(`aria-label="${label}"`), label);
  }
  assert.ok(bar.includes('data-item="u&lt;1&gt;"'), "the id is escaped");
  const preview = renderRewind({
    preview: { itemId: "u1", action: "edit", index: 1, text: "add <b>", restore: ["a.py"], delete: ["new.py"], conflicts: ["mine.py"] },
  });
  assert.ok(preview.includes('role="alertdialog"') && preview.includes("Edit this message?"));
  assert.ok(preview.includes("“add &lt;b&gt;”"), "the message text is escaped");
  assert.match(preview, /Kept as you left them[^<]*<\/div><ul><li>mine\.py<\/li>/);
  assert.ok(preview.includes("1 file restored, 1 file the agent created removed, 1 file you edited since kept as they are."));
  assert.ok(preview.includes(">Rewind and edit</button>"));
  const done = renderRewind({ done: { text: "x", restore: [], delete: [], conflicts: [], filesAvailable: false } });
  assert.ok(done.includes("checkpoints are off") && done.includes("Undo rewind"));
  assert.equal(renderRewind(undefined), "");
});

test("the page's messages for these actions are checked for shape", async () => {
  const { parseWebviewMessage } = await import("../messages");
  assert.deepEqual(parseWebviewMessage({ type: "edit", itemId: "u1", extra: 1 }), { type: "edit", itemId: "u1" });
  assert.equal(parseWebviewMessage({ type: "fork" }), undefined);
  assert.equal(parseWebviewMessage({ type: "rewind", itemId: 3 }), undefined);
  assert.deepEqual(parseWebviewMessage({ type: "rewindUndo" }), { type: "rewindUndo" });
});
