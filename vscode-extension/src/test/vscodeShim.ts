// A small stand-in for the `vscode` module, so vscode-languageclient's real code-to-protocol converter loads under
// plain Node: the value classes and enums it (and codeIntel.ts's tests) use, with VS Code's numbering.

import Module from "node:module";

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(startLine: number, startCharacter: number, endLine: number, endCharacter: number) {
    this.start = new Position(startLine, startCharacter);
    this.end = new Position(endLine, endCharacter);
  }
}

export class Uri {
  private constructor(private readonly text: string) {}
  static parse(text: string): Uri {
    if (!/^[a-z][\w+.-]*:/i.test(text)) {
      throw new Error(`[UriError]: Scheme is missing: {scheme: "", path: "${text}"}`);
    }
    return new Uri(text);
  }
  toString(): string {
    return this.text;
  }
}

export class Location {
  constructor(
    readonly uri: Uri,
    readonly range: Range,
  ) {}
}

export class MarkdownString {
  constructor(readonly value: string) {}
}

export class TextEdit {
  constructor(
    readonly range: Range,
    readonly newText: string,
  ) {}
}

export class WorkspaceEdit {
  private readonly edits: [Uri, TextEdit[]][] = [];
  replace(uri: Uri, range: Range, newText: string): void {
    const entry = this.edits.find(([u]) => u.toString() === uri.toString());
    if (entry) {
      entry[1].push(new TextEdit(range, newText));
    } else {
      this.edits.push([uri, [new TextEdit(range, newText)]]);
    }
  }
  entries(): [Uri, TextEdit[]][] {
    return this.edits;
  }
}

export class CallHierarchyItem {
  constructor(
    readonly kind: number,
    readonly name: string,
    readonly detail: string,
    readonly uri: Uri,
    readonly range: Range,
    readonly selectionRange: Range,
  ) {}
}

export class DocumentSymbol {
  children: DocumentSymbol[] = [];
  constructor(
    readonly name: string,
    readonly detail: string,
    readonly kind: number,
    readonly range: Range,
    readonly selectionRange: Range,
  ) {}
}

export class SymbolInformation {
  constructor(
    readonly name: string,
    readonly kind: number,
    readonly containerName: string,
    readonly location: Location,
  ) {}
}

export class Diagnostic {
  source?: string;
  code?: string | number;
  constructor(
    readonly range: Range,
    readonly message: string,
    readonly severity: number = DiagnosticSeverity.Error,
  ) {}
}

class Unused {}

export const SymbolKind = { File: 0, Module: 1, Class: 4, Method: 5, Function: 11, Variable: 12, TypeParameter: 25 };
export const DiagnosticSeverity = { Error: 0, Warning: 1, Information: 2, Hint: 3 };
export const DiagnosticTag = { Unnecessary: 1, Deprecated: 2 };

const fake = {
  Position,
  Range,
  Uri,
  Location,
  MarkdownString,
  TextEdit,
  WorkspaceEdit,
  CallHierarchyItem,
  DocumentSymbol,
  SymbolInformation,
  Diagnostic,
  SymbolKind,
  DiagnosticSeverity,
  DiagnosticTag,
  SymbolTag: { Deprecated: 1 },
  CompletionItemTag: { Deprecated: 1 },
  CodeActionTriggerKind: { Invoke: 1, Automatic: 2 },
  CompletionTriggerKind: { Invoke: 0, TriggerCharacter: 1, TriggerForIncompleteCompletions: 2 },
  SignatureHelpTriggerKind: { Invoke: 1, TriggerCharacter: 2, ContentChange: 3 },
  TextDocumentSaveReason: { Manual: 1, AfterDelay: 2, FocusOut: 3 },
  // Base classes the converter's modules extend when they load; codeIntel never meets their instances.
  CodeAction: Unused,
  CodeLens: Unused,
  CompletionItem: Unused,
  DocumentLink: Unused,
  InlayHint: Unused,
  TypeHierarchyItem: Unused,
  SnippetString: Unused,
};

const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
const load = loader._load;
loader._load = function (this: unknown, request: string, ...rest: unknown[]) {
  return request === "vscode" ? fake : load.call(this, request, ...rest);
};
