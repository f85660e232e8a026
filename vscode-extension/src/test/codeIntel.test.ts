// codeIntel.ts through vscode-languageclient's real code-to-protocol converter: each operation's editor command and
// its answer as plain LSP JSON, errors the model reads, and agent/diagnostics' wait for the checker after an edit.

import * as vs from "./vscodeShim"; // first: the converter's modules load `vscode` as they are imported
import assert from "node:assert/strict";
import { test } from "node:test";
import { createConverter } from "vscode-languageclient/lib/common/codeConverter";
import { CODE_INTEL_OPERATIONS, CodeIntel, CodeIntelError, type IntelEditor, codeIntelCapability } from "../codeIntel";

const FILE = "file:///ws/src/shapes.ts";
const OTHER = "file:///ws/src/main.ts";
const range = (l: number, c: number, l2: number, c2: number) => new vs.Range(l, c, l2, c2);

type Listener<T> = (value: T) => void;

/** The editor: answers per command, documents by uri (language id), diagnostics it can publish, and a record. */
class FakeEditor {
  answers = new Map<string, (...args: any[]) => unknown>();
  calls: { command: string; args: unknown[] }[] = [];
  opened: string[] = [];
  languages = new Map<string, string>([
    [FILE, "typescript"],
    [OTHER, "typescript"],
  ]);
  diags = new Map<string, vs.Diagnostic[]>();
  /** Documents open before CodeIntel started. */
  openBefore: string[] = [];
  private diagListeners = new Set<Listener<readonly vs.Uri[]>>();
  private textListeners = new Set<Listener<vs.Uri>>();

  api(): IntelEditor {
    const self = this;
    return {
      async executeCommand(command: string, ...args: unknown[]) {
        self.calls.push({ command, args });
        const answer = self.answers.get(command);
        return (answer ? answer(...args) : undefined) as any;
      },
      parseUri: (uri) => vs.Uri.parse(uri) as any,
      position: (line, character) => new vs.Position(line, character) as any,
      async openDocument(uri) {
        const language = self.languages.get(uri.toString());
        if (language === undefined) {
          throw new Error(`cannot open ${uri.toString()}. Detail: Unable to read file (Error: File not found)`);
        }
        self.opened.push(uri.toString());
        return { uri, languageId: language } as any;
      },
      getDiagnostics: (uri) => (self.diags.get(uri.toString()) ?? []) as any,
      onDidChangeDiagnostics: (listener) => self.subscribe(self.diagListeners, listener as unknown as Listener<readonly vs.Uri[]>),
      onDidChangeText: (listener) => self.subscribe(self.textListeners, listener as unknown as Listener<vs.Uri>),
      openDocuments: () => self.openBefore.map((uri) => vs.Uri.parse(uri)) as any,
    };
  }
  private subscribe<T>(set: Set<Listener<T>>, listener: Listener<T>) {
    set.add(listener);
    return { dispose: () => set.delete(listener) };
  }
  /** A checker reports on `uri`. */
  publish(uri: string, diagnostics: vs.Diagnostic[]): void {
    this.diags.set(uri, diagnostics);
    for (const l of this.diagListeners) l([vs.Uri.parse(uri)]);
  }
  /** The document's text changes (the agent's edit landing). */
  edit(uri: string): void {
    for (const l of this.textListeners) l(vs.Uri.parse(uri));
  }
}

function setup(openBefore: string[] = []) {
  const editor = new FakeEditor();
  editor.openBefore = openBefore;
  const intel = new CodeIntel(editor.api(), createConverter());
  return { editor, intel };
}

const at = (operation: string, line = 3, character = 9, extra: object = {}) => ({
  operation,
  textDocument: { uri: FILE },
  position: { line, character },
  ...extra,
});

test("the capability names every operation of the contract, diagnostics and rename", () => {
  assert.deepEqual(codeIntelCapability(), {
    operations: [
      "goToDefinition",
      "findReferences",
      "hover",
      "documentSymbol",
      "workspaceSymbol",
      "goToImplementation",
      "incomingCalls",
      "outgoingCalls",
      "rename",
    ],
    diagnostics: true,
    rename: true,
  });
  assert.equal(CODE_INTEL_OPERATIONS.length, 9);
});

test("goToDefinition asks the definition providers at the position and answers LocationLinks as LSP JSON", async () => {
  const { editor, intel } = setup();
  editor.answers.set("vscode.executeDefinitionProvider", () => [
    {
      originSelectionRange: range(3, 8, 3, 12),
      targetUri: vs.Uri.parse(OTHER),
      targetRange: range(0, 0, 2, 1),
      targetSelectionRange: range(0, 16, 0, 20),
    },
  ]);
  const result = await intel.answer(at("goToDefinition"));
  assert.deepEqual(result, [
    {
      originSelectionRange: { start: { line: 3, character: 8 }, end: { line: 3, character: 12 } },
      targetUri: OTHER,
      targetRange: { start: { line: 0, character: 0 }, end: { line: 2, character: 1 } },
      targetSelectionRange: { start: { line: 0, character: 16 }, end: { line: 0, character: 20 } },
    },
  ]);
  const [call] = editor.calls;
  assert.equal(call.command, "vscode.executeDefinitionProvider");
  assert.equal(String(call.args[0]), FILE);
  assert.deepEqual(call.args[1], new vs.Position(3, 9));
  assert.deepEqual(editor.opened, [FILE], "the document is opened (in the background) before it is asked about");
});

test("goToImplementation answers Location[]: links become the target's name range", async () => {
  const { editor, intel } = setup();
  editor.answers.set("vscode.executeImplementationProvider", () => [
    new vs.Location(vs.Uri.parse(FILE), range(5, 2, 5, 6)),
    { targetUri: vs.Uri.parse(OTHER), targetRange: range(0, 0, 4, 1), targetSelectionRange: range(0, 6, 0, 10) },
  ]);
  assert.deepEqual(await intel.answer(at("goToImplementation")), [
    { uri: FILE, range: { start: { line: 5, character: 2 }, end: { line: 5, character: 6 } } },
    { uri: OTHER, range: { start: { line: 0, character: 6 }, end: { line: 0, character: 10 } } },
  ]);
});

test("findReferences answers Location[]", async () => {
  const { editor, intel } = setup();
  editor.answers.set("vscode.executeReferenceProvider", () => [new vs.Location(vs.Uri.parse(OTHER), range(7, 4, 7, 8))]);
  assert.deepEqual(await intel.answer(at("findReferences")), [
    { uri: OTHER, range: { start: { line: 7, character: 4 }, end: { line: 7, character: 8 } } },
  ]);
});

test("hover merges every provider's contents into one markdown Hover", async () => {
  const { editor, intel } = setup();
  editor.answers.set("vscode.executeHoverProvider", () => [
    { contents: [new vs.MarkdownString("```typescript\nfunction area(s: Shape): number\n```"), "Computes the area."], range: range(3, 8, 3, 12) },
    { contents: [{ language: "ts", value: "let x: number" }] },
  ]);
  assert.deepEqual(await intel.answer(at("hover")), {
    contents: {
      kind: "markdown",
      value: "```typescript\nfunction area(s: Shape): number\n```\n\n---\n\nComputes the area.\n\n---\n\n```ts\nlet x: number\n```",
    },
    range: { start: { line: 3, character: 8 }, end: { line: 3, character: 12 } },
  });
  editor.answers.set("vscode.executeHoverProvider", () => []);
  assert.equal(await intel.answer(at("hover")), null, "no hover is null, not an empty one");
});

test("documentSymbol keeps the provider's tree, with LSP's one-based symbol kinds", async () => {
  const { editor, intel } = setup();
  const cls = new vs.DocumentSymbol("Circle", "", vs.SymbolKind.Class, range(0, 0, 9, 1), range(0, 6, 0, 12));
  cls.children.push(new vs.DocumentSymbol("area", "(): number", vs.SymbolKind.Method, range(2, 2, 4, 3), range(2, 2, 2, 6)));
  editor.answers.set("vscode.executeDocumentSymbolProvider", () => [cls]);
  const result = await intel.answer({ operation: "documentSymbol", textDocument: { uri: FILE } });
  assert.deepEqual(result, [
    {
      name: "Circle",
      kind: 5,
      range: { start: { line: 0, character: 0 }, end: { line: 9, character: 1 } },
      selectionRange: { start: { line: 0, character: 6 }, end: { line: 0, character: 12 } },
      children: [
        {
          name: "area",
          detail: "(): number",
          kind: 6,
          range: { start: { line: 2, character: 2 }, end: { line: 4, character: 3 } },
          selectionRange: { start: { line: 2, character: 2 }, end: { line: 2, character: 6 } },
          children: [],
        },
      ],
    },
  ]);
  editor.answers.set("vscode.executeDocumentSymbolProvider", () => undefined);
  assert.equal(await intel.answer({ operation: "documentSymbol", textDocument: { uri: FILE } }), null);
});

test("workspaceSymbol opens the given document first (a server starts on it), then answers SymbolInformation", async () => {
  const { editor, intel } = setup();
  editor.answers.set("vscode.executeWorkspaceSymbolProvider", (query: string) => [
    new vs.SymbolInformation(query, vs.SymbolKind.Function, "shapes", new vs.Location(vs.Uri.parse(FILE), range(1, 16, 1, 20))),
  ]);
  const result = await intel.answer({ operation: "workspaceSymbol", query: "area", textDocument: { uri: OTHER } });
  assert.deepEqual(editor.opened, [OTHER]);
  assert.deepEqual(result, [
    {
      name: "area",
      kind: 12,
      containerName: "shapes",
      location: { uri: FILE, range: { start: { line: 1, character: 16 }, end: { line: 1, character: 20 } } },
    },
  ]);
});

test("incomingCalls prepares the call hierarchy itself and merges every prepared item's callers", async () => {
  const { editor, intel } = setup();
  const item = (name: string, uri: string, line: number) =>
    new vs.CallHierarchyItem(vs.SymbolKind.Function, name, "", vs.Uri.parse(uri), range(line, 0, line + 2, 1), range(line, 9, line, 9 + name.length));
  const prepared = [item("area", FILE, 1), item("area", OTHER, 20)];
  editor.answers.set("vscode.prepareCallHierarchy", () => prepared);
  editor.answers.set("vscode.provideIncomingCalls", (target: vs.CallHierarchyItem) =>
    target === prepared[0] ? [{ from: item("total", OTHER, 4), fromRanges: [range(5, 10, 5, 14), range(6, 3, 6, 7)] }] : [{ from: item("main", OTHER, 30), fromRanges: [range(31, 2, 31, 6)] }],
  );
  const result = (await intel.answer(at("incomingCalls"))) as any[];
  assert.deepEqual(
    result.map((c) => [c.from.name, c.from.uri, c.from.kind, c.fromRanges.map((r: any) => r.start.line)]),
    [
      ["total", OTHER, 12, [5, 6]],
      ["main", OTHER, 12, [31]],
    ],
  );
  assert.deepEqual(
    editor.calls.map((c) => c.command),
    ["vscode.prepareCallHierarchy", "vscode.provideIncomingCalls", "vscode.provideIncomingCalls"],
  );
  editor.answers.set("vscode.provideOutgoingCalls", () => [{ to: item("sq", FILE, 40), fromRanges: [range(2, 11, 2, 13)] }]);
  const out = (await intel.answer(at("outgoingCalls"))) as any[];
  assert.equal(out.length, 2);
  assert.deepEqual([out[0].to.name, out[0].fromRanges[0].start], ["sq", { line: 2, character: 11 }]);
});

test("rename answers the provider's edit as LSP changes; a provider's refusal is an error the model reads", async () => {
  const { editor, intel } = setup();
  editor.answers.set("vscode.executeDocumentRenameProvider", (uri: vs.Uri, _pos: unknown, newName: string) => {
    const edit = new vs.WorkspaceEdit();
    edit.replace(uri, range(1, 16, 1, 20), newName);
    edit.replace(vs.Uri.parse(OTHER), range(5, 10, 5, 14), newName);
    edit.replace(vs.Uri.parse(OTHER), range(6, 3, 6, 7), newName);
    return edit;
  });
  assert.deepEqual(await intel.answer(at("rename", 1, 17, { newName: "surface" })), {
    changes: {
      [FILE]: [{ range: { start: { line: 1, character: 16 }, end: { line: 1, character: 20 } }, newText: "surface" }],
      [OTHER]: [
        { range: { start: { line: 5, character: 10 }, end: { line: 5, character: 14 } }, newText: "surface" },
        { range: { start: { line: 6, character: 3 }, end: { line: 6, character: 7 } }, newText: "surface" },
      ],
    },
  });
  editor.answers.set("vscode.executeDocumentRenameProvider", () => {
    throw new Error("You cannot rename this element.");
  });
  await assert.rejects(intel.answer(at("rename", 1, 17, { newName: "x" })), (err: Error) => {
    assert.ok(err instanceof CodeIntelError && !err.invalidParams);
    assert.equal(err.message, "You cannot rename this element.");
    return true;
  });
  await assert.rejects(intel.answer(at("rename")), /rename needs newName/);
});

test("bad requests say what is wrong; a file nothing serves answers null", async () => {
  const { editor, intel } = setup();
  await assert.rejects(intel.answer(at("typeDefinition")), (err: CodeIntelError) => err.invalidParams && /unknown operation "typeDefinition"; one of goToDefinition/.test(err.message));
  await assert.rejects(intel.answer({ operation: "hover", textDocument: { uri: FILE } }), /hover needs a position/);
  await assert.rejects(
    intel.answer({ ...at("hover"), textDocument: { uri: "file:///ws/missing.ts" } }),
    /VS Code could not open file:\/\/\/ws\/missing\.ts: cannot open .*File not found/,
  );
  editor.languages.set("file:///ws/notes.txt", "plaintext");
  assert.equal(await intel.answer({ ...at("goToDefinition"), textDocument: { uri: "file:///ws/notes.txt" } }), null);
  assert.equal(editor.calls.length, 0, "no provider was asked for a plain-text file");
});

test("diagnostics now: the editor's diagnostics as LSP JSON; settled only once the checker reported since the last change", async () => {
  const { editor, intel } = setup();
  const d = new vs.Diagnostic(range(2, 9, 2, 14), "Type 'string' is not assignable to type 'number'.");
  d.source = "ts";
  d.code = 2322;
  editor.publish(FILE, [d]);
  const { items } = await intel.diagnostics({ uris: [FILE, OTHER], waitMs: 0 });
  assert.deepEqual(items, [
    {
      uri: FILE,
      diagnostics: [
        {
          range: { start: { line: 2, character: 9 }, end: { line: 2, character: 14 } },
          message: "Type 'string' is not assignable to type 'number'.",
          severity: 1,
          source: "ts",
          code: 2322,
        },
      ],
      settled: true,
    },
    { uri: OTHER, diagnostics: [], settled: false },
  ]);
  assert.deepEqual(editor.opened, [FILE, OTHER], "files are opened so checkers of open files look at them");
  editor.edit(FILE);
  assert.equal((await intel.diagnostics({ uris: [FILE], waitMs: 0 })).items[0].settled, false, "changed since");
});

test("diagnostics with waitMs: answers once the checker reported after the edit (and went quiet), with what it reported", async () => {
  const { editor, intel } = setup();
  editor.publish(FILE, []);
  editor.edit(FILE); // the agent's edit
  const answer = intel.diagnostics({ uris: [FILE], waitMs: 20_000 });
  let answered = false;
  void answer.then(() => (answered = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(answered, false, "it waits for the checker");
  editor.publish(FILE, [new vs.Diagnostic(range(4, 0, 4, 3), "Cannot find name 'foo'.")]);
  const { items } = await answer;
  assert.equal(items[0].settled, true);
  assert.deepEqual(
    items[0].diagnostics.map((x) => x.message),
    ["Cannot find name 'foo'."],
  );
});

test("diagnostics with waitMs: a checker that never reports leaves the item unsettled after the wait", async () => {
  const { editor, intel } = setup();
  editor.publish(FILE, [new vs.Diagnostic(range(0, 0, 0, 1), "old")]);
  editor.edit(FILE);
  const { items } = await intel.diagnostics({ uris: [FILE], waitMs: 50 });
  assert.deepEqual(
    items.map((i) => [i.settled, i.diagnostics.map((x) => x.message)]),
    [[false, ["old"]]],
  );
});

test("diagnostics with waitMs: the server withdrawing the request ends the wait", async () => {
  const { editor, intel } = setup();
  editor.edit(FILE);
  let cancel: () => void = () => {};
  const token = {
    isCancellationRequested: false,
    onCancellationRequested(listener: () => void) {
      cancel = () => {
        token.isCancellationRequested = true;
        listener();
      };
      return { dispose() {} };
    },
  };
  const answer = intel.diagnostics({ uris: [FILE], waitMs: 30_000 }, token);
  await new Promise((r) => setTimeout(r, 10));
  cancel();
  assert.equal((await answer).items[0].settled, false);
});

test("diagnostics with waitMs: plain text (no language extension) is answered at once, unsettled", async () => {
  const { editor, intel } = setup();
  const notes = "file:///ws/notes.txt";
  editor.languages.set(notes, "plaintext");
  editor.edit(notes);
  const { items } = await intel.diagnostics({ uris: [notes], waitMs: 30_000 });
  assert.deepEqual(items, [{ uri: notes, diagnostics: [], settled: false }]);
});

test("diagnostics: a file VS Code cannot open has none, and the other files are still answered", async () => {
  const { editor, intel } = setup();
  editor.publish(FILE, [new vs.Diagnostic(range(0, 0, 0, 1), "kept")]);
  const gone = "file:///ws/gone.ts";
  const { items } = await intel.diagnostics({ uris: [gone, FILE], waitMs: 0 });
  assert.deepEqual(
    items.map((i) => [i.uri, i.diagnostics.map((d) => d.message), i.settled]),
    [
      [gone, [], false],
      [FILE, ["kept"], true],
    ],
  );
});

test("diagnostics: a document open before the extension started, unchanged since, is settled (its checker spoke)", async () => {
  const { editor, intel } = setup([FILE]);
  editor.diags.set(FILE, [new vs.Diagnostic(range(0, 0, 0, 1), "from before")]);
  const now = await intel.diagnostics({ uris: [FILE, OTHER], waitMs: 0 });
  assert.deepEqual(
    now.items.map((i) => [i.uri, i.settled]),
    [
      [FILE, true],
      [OTHER, false],
    ],
  );
  editor.edit(FILE);
  assert.equal((await intel.diagnostics({ uris: [FILE], waitMs: 0 })).items[0].settled, false, "until its text changes");
});
