// MCP in the panel: a server's form (agent/elicit) answered from the panel, its answer's shape checked, the
// MCP view's page, and MCP resources as @ picker rows.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatController } from "../controller";
import { type ElicitParams, FormBroker, parseFormAnswer } from "../elicitation";
import { mentionCandidates, resourceAttachment } from "../mentions";
import { parseWebviewMessage } from "../messages";
import { PermissionBroker } from "../permissions";
import { renderMcpView } from "../webview/mcpRender";
import { FakeConnection, FakeHost, description, tick } from "./fakes";

const FORM: ElicitParams = {
  sessionId: "s1",
  server: "everything",
  message: "Please provide inputs",
  fields: [{ name: "name", kind: "string", title: "Name", required: true }],
};

function setup() {
  const host = new FakeHost();
  const controller = new ChatController(host, new PermissionBroker(), () => ({ cwd: "/ws" }));
  controller.attach(new FakeConnection().on("agent/newSession", () => description("s1")));
  return { host, controller };
}

test("a server's form waits in the panel until answered there, then leaves it", async () => {
  const { controller, host } = setup();
  const answer = controller.onElicit(FORM);
  await tick();
  const [form] = controller.state.forms ?? [];
  assert.equal(form.server, "everything");
  assert.deepEqual(form.fields, FORM.fields);
  assert.equal(host.messages.length, 0, "the panel is on screen: no notification");
  const msg = parseWebviewMessage({ type: "elicit", requestId: form.requestId, result: { action: "accept", content: { name: "Ada" } } });
  assert.ok(msg);
  await controller.handleMessage(msg);
  assert.deepEqual(await answer, { action: "accept", content: { name: "Ada" } });
  assert.deepEqual(controller.state.forms, []);
});

test("a form asked while the panel is hidden brings a notification; Stop cancels it", async () => {
  const { controller, host } = setup();
  host.visible = false;
  host.reply = "Open";
  const answer = controller.onElicit(FORM);
  await tick();
  assert.deepEqual(host.messages[0].actions, ["Open"]);
  assert.match(host.messages[0].message, /MCP server 'everything' asks for input: Please provide inputs/);
  assert.equal(host.visible, true, "Open revealed the panel");
  await controller.cancel();
  assert.deepEqual(await answer, { action: "cancel" });
});

test("a form's answer from the page is checked for shape", () => {
  assert.deepEqual(parseFormAnswer({ action: "decline" }), { action: "decline" });
  assert.equal(parseFormAnswer({ action: "accept" }), undefined, "accept carries the form's values");
  assert.equal(parseFormAnswer({ action: "accept", content: [1] }), undefined);
  assert.equal(parseFormAnswer({ action: "maybe" }), undefined);
  assert.equal(parseWebviewMessage({ type: "elicit", requestId: "form-1", result: "accept" }), undefined);
  const broker = new FormBroker();
  const { requestId } = broker.ask();
  assert.equal(broker.answer(requestId, { action: "decline" }), true);
  assert.equal(broker.answer(requestId, { action: "decline" }), false, "one answer each");
});

test("the MCP view shows why a server failed, its log, what a connected one offers, and Restart", () => {
  const html = renderMcpView({
    loaded: true,
    restarting: [],
    servers: [
      {
        name: "everything",
        transport: "stdio",
        state: "connected",
        log: "/logs/mcp-everything.log",
        tools: ["mcp_everything_echo"],
        prompts: [{ name: "simple-prompt", description: "A prompt with no arguments" }],
        resources: [{ name: "architecture.md", mention: "everything:demo://doc" }],
        templates: [],
      },
      { name: "broken", transport: "stdio", state: "failed", reason: "No such file <x>", tools: [], prompts: [], resources: [], templates: [] },
    ],
  });
  assert.match(html, /connected · 1 tools/);
  assert.match(html, /<code>\/simple-prompt<\/code>/);
  assert.match(html, /<code>@everything:demo:\/\/doc<\/code>/);
  assert.match(html, /data-log="\/logs\/mcp-everything.log"/);
  assert.match(html, /<div class="reason" role="alert">No such file &lt;x&gt;<\/div>/);
  assert.match(html, /data-restart="broken"/);
  assert.match(renderMcpView({ loaded: true, restarting: [], servers: [] }), /no MCP servers/);
});

test("MCP resources are picker rows; a template's row puts its fixed part in the box", () => {
  const rows = mentionCandidates("ever", [], [], { problemCount: 0 }, [
    { mention: "everything:demo://doc", server: "everything", name: "doc", description: "The doc" },
    { mention: "everything:demo://t/{id}", server: "everything", name: "t", template: true, prefix: "everything:demo://t/" },
  ]);
  assert.deepEqual(rows, [
    { kind: "resource", label: "everything:demo://doc", detail: "MCP resource · The doc", ref: "everything:demo://doc" },
    { kind: "resource", label: "everything:demo://t/{id}", detail: "MCP resource template · t", ref: "everything:demo://t/{id}", insert: "everything:demo://t/" },
  ]);
  const chip = resourceAttachment("everything:demo://doc");
  assert.deepEqual([chip.kind, chip.label, chip.block], ["resource", "everything:demo://doc", { type: "text", text: " @everything:demo://doc " }]);
});
