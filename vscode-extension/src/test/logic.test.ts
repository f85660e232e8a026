// Settings → server command and initializationOptions, webview message checks, permission choices, edits, rendering.

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { stripConfirmation } from "../edits";
import { parseWebviewMessage } from "../messages";
import { PermissionBroker, choices, describe } from "../permissions";
import { missingServerMessage, resolveExecutable, serverCommand, serverSettings, type SettingReader } from "../settings";
import { escapeHtml } from "../html";
import { renderCommandHints, renderItem, renderPermission, usageText } from "../webview/render";
import { editPermission } from "./fakes";

function reader(values: Record<string, unknown>): SettingReader {
  return <T>(key: string) => values[key] as T | undefined;
}

test("the server command: explicit command, then pythonPath, then the bundled server (never agent-lsp on PATH)", () => {
  assert.deepEqual(serverCommand(reader({ "server.command": "/opt/agent-lsp", "server.args": ["--debug"] })), {
    command: "/opt/agent-lsp",
    args: ["lsp", "--debug"],
    source: "agentLsp.server.command",
  });
  assert.deepEqual(serverCommand(reader({ pythonPath: "/venv/bin/python" })).args, ["-P", "-m", "agent_lsp", "lsp"]);
  assert.deepEqual(serverCommand(reader({ "server.args": ["--debug"] })), {
    command: "",
    args: ["-P", "-m", "agent_lsp", "lsp", "--debug"],
    source: "bundled",
  });
});

test("resolveExecutable finds real executables on PATH and refuses missing or non-executable files", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-ext-"));
  const exe = path.join(dir, "agent-lsp");
  fs.writeFileSync(exe, "#!/bin/sh\n");
  fs.chmodSync(exe, 0o755);
  const plain = path.join(dir, "plain");
  fs.writeFileSync(plain, "");
  const isExe = (f: string): boolean => {
    try {
      fs.accessSync(f, fs.constants.X_OK);
      return fs.statSync(f).isFile();
    } catch {
      return false;
    }
  };
  try {
    assert.equal(resolveExecutable("agent-lsp", `/nonexistent${path.delimiter}${dir}`, isExe), exe);
    assert.equal(resolveExecutable("plain", dir, isExe), undefined);
    assert.equal(resolveExecutable(exe, "", isExe), exe);
    assert.equal(resolveExecutable(path.join(dir, "missing"), dir, isExe), undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("the missing-server message says how to fix it for each way of choosing the command", () => {
  const command = missingServerMessage(serverCommand(reader({ "server.command": "/x/agent-lsp" })));
  assert.match(command, /agentLsp\.server\.command.*bundled/s);
  const python = missingServerMessage(serverCommand(reader({ pythonPath: "/x/python" })));
  assert.match(python, /agentLsp\.pythonPath.*bundled/s);
  // PyPI's "agent-lsp" is another project: no message may send anyone there.
  assert.doesNotMatch(`${command} ${python}`, /pip install agent-lsp/);
});

test("initializationOptions carry only the server's keys and VS Code's trust as a fact", () => {
  const options = serverSettings(
    reader({ model: " gemini-2.5-flash ", approvalMode: "plan", checkpointing: false, pythonPath: "/p" }),
    false,
  );
  assert.deepEqual(options, {
    agentLsp: { trustWorkspace: false, model: "gemini-2.5-flash", approvalMode: "plan", checkpointing: false },
  });
  // A mode wider than default never rides a channel a project can fill: it goes in the new chat's request.
  for (const wide of ["yolo", "auto_edit"]) {
    assert.deepEqual(serverSettings(reader({ approvalMode: wide }), true), { agentLsp: { trustWorkspace: true } });
  }
  // The server judges modes (and names the ones it has), so an unknown one is passed on, not dropped silently.
  assert.deepEqual(serverSettings(reader({ approvalMode: " careful " }), true), {
    agentLsp: { trustWorkspace: true, approvalMode: "careful" },
  });
});

test("webview messages are checked for shape", () => {
  assert.deepEqual(parseWebviewMessage({ type: "send", text: "hi" }), { type: "send", text: "hi", attachments: [] });
  assert.equal(parseWebviewMessage({ type: "send", text: 3 }), undefined);
  assert.equal(parseWebviewMessage({ type: "eval", code: "x" }), undefined);
  assert.equal(parseWebviewMessage({ type: "permission", requestId: "p" }), undefined);
  assert.equal(parseWebviewMessage({ type: "openLocation", path: "/a", line: "2" }), undefined);
  assert.deepEqual(parseWebviewMessage({ type: "openLocation", path: "/a", line: 2 }), { type: "openLocation", path: "/a", line: 2 });
  assert.equal(parseWebviewMessage(null), undefined);
});

test("permission choices use the plain labels and keep extra server options", () => {
  const params = editPermission();
  params.options.splice(2, 0, { optionId: "proceed_always_server", name: "Always allow server x", kind: "allow_always" });
  assert.deepEqual(
    choices(params.options).map((c) => [c.label, c.optionId]),
    [
      ["Allow once", "proceed_once"],
      ["Allow for this session", "proceed_always"],
      ["Always allow server x", "proceed_always_server"],
      ["Reject", "cancel"],
    ],
  );
  assert.equal(describe(editPermission("/ws/n.txt", null)), "The agent wants to create /ws/n.txt");
  const rename = editPermission("/ws/a.py");
  rename.toolCall.content.push({ type: "diff", path: "/ws/b.py", oldText: "x\n", newText: "y\n" });
  assert.equal(describe(rename, (p) => p.slice(4)), "The agent wants to change 2 files: a.py, b.py");
});

test("the broker answers once, refuses unknown options and cancels what is left", async () => {
  const broker = new PermissionBroker();
  const first = broker.ask(editPermission());
  assert.equal(broker.answer(first.requestId, "nonsense"), false);
  assert.equal(broker.answerLabel(first.requestId, "Reject"), true);
  assert.equal(broker.answer(first.requestId, "proceed_once"), false, "already answered");
  assert.deepEqual(await first.answer, { outcome: { outcome: "selected", optionId: "cancel" } });
  const second = broker.ask(editPermission());
  broker.cancelAll();
  assert.deepEqual(await second.answer, { outcome: { outcome: "cancelled" } });
});

test("edits lose needsConfirmation but keep their labels", () => {
  const edit = stripConfirmation({
    documentChanges: [],
    changeAnnotations: { "agent-lsp": { label: "Agent: edit a.py", needsConfirmation: true } },
  });
  assert.deepEqual(edit.changeAnnotations, { "agent-lsp": { label: "Agent: edit a.py", needsConfirmation: false } });
  assert.deepEqual(stripConfirmation({ changes: {} }), { changes: {} });
});

test("rendering escapes the agent's text and wires buttons by request id", () => {
  const md = (t: string) => `<p>${escapeHtml(t)}</p>`;
  const html = renderItem({ kind: "agent", id: "a", text: "<img src=x onerror=alert(1)>" }, md);
  assert.ok(!html.includes("<img"));
  const tool = renderItem(
    {
      kind: "tool",
      id: "t",
      toolCallId: "c",
      title: 'Edit "a.py"',
      toolKind: "edit",
      status: "completed",
      content: [{ type: "diff", path: "/ws/a.py", oldText: "x\n", newText: "y\nz\n" }],
      locations: [{ path: "/ws/a.py", line: 4 }],
    },
    md,
  );
  assert.match(tool, /data-path="\/ws\/a\.py" data-line="4"/);
  // One line: state, verb, target and +/−, opening to the diff itself; the server's title once, in the details.
  assert.match(tool, /<summary class="tool-line"[^>]*>.*<span class="tool-verb">Edit<\/span><span class="tool-target">a\.py<\/span><span class="added">\+2<\/span><span class="removed">−1<\/span><span class="tool-state">done<\/span><\/summary>/);
  assert.match(tool, /<span class="diff-del">-x<\/span>\n<span class="diff-add">\+y<\/span>\n<span class="diff-add">\+z<\/span>/);
  assert.equal(tool.match(/Edit &quot;a\.py&quot;/g)?.length, 2, "the full title: the line's tooltip and the details, never a second line");
  const perm = renderPermission({
    requestId: "perm-1",
    toolCallId: "c",
    title: "The agent wants to edit a.py",
    options: editPermission().options,
    hasDiff: true,
  });
  assert.match(perm, /data-request="perm-1" data-option="proceed_once"[^>]*>Allow once</);
  assert.match(perm, /data-review="perm-1"[^>]*>Review diff</);
  assert.equal(usageText({ usage: { used: 2500, size: 10000 } } as never), "2,500 tokens in context · 75% of 10,000 left");
  const priced = { usage: { used: 2500, size: 10000, cost: { amount: 0.0046, currency: "USD" } } } as never;
  assert.equal(usageText(priced), "2,500 tokens in context · 75% of 10,000 left · ≈ $0.0046 this chat");
  assert.equal(usageText({ usage: { used: 1, size: 10, cost: { amount: 12.5, currency: "credits" } } } as never).split(" · ")[2], "≈ 12.50 credits this chat");
});

test("slash-command hints match the typed prefix and stop once arguments start", () => {
  const commands = [
    { name: "memory", description: "Manage memory", input: { hint: "show | add <fact>" } },
    { name: "compress", description: "Compress the chat" },
  ];
  const hints = renderCommandHints("/me", commands);
  assert.match(hints, /data-command="memory"><b>\/memory<\/b> <i>show \| add &lt;fact&gt;<\/i>/);
  assert.ok(!hints.includes("compress"));
  assert.equal(renderCommandHints("/memory add x", commands), "");
  assert.equal(renderCommandHints("hello", commands), "");
  assert.match(renderCommandHints("/", commands), /compress/);
});
