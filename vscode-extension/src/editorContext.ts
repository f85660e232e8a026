// The editor's selection and diagnostics as the server's command argument ({uri, range, diagnostics}).

import * as vscode from "vscode";
import type { EditorContext } from "./protocol";

function range(r: vscode.Range): EditorContext["range"] {
  return {
    start: { line: r.start.line, character: r.start.character },
    end: { line: r.end.line, character: r.end.character },
  };
}

/** The active editor's selection (or cursor line) with the diagnostics that touch it; undefined without an editor. */
export function editorContext(editor: vscode.TextEditor | undefined): EditorContext | undefined {
  if (editor === undefined) {
    return undefined;
  }
  const selection = editor.selection;
  const diagnostics = vscode.languages
    .getDiagnostics(editor.document.uri)
    .filter((d) => d.range.intersection(selection.isEmpty ? editor.document.lineAt(selection.active.line).range : selection))
    .map((d) => ({
      range: range(d.range),
      message: d.message,
      severity: d.severity + 1, // vscode counts from 0 (Error), LSP from 1
      ...(d.source ? { source: d.source } : {}),
      ...(d.code !== undefined ? { code: typeof d.code === "object" ? String(d.code.value) : d.code } : {}),
    }));
  return { uri: editor.document.uri.toString(), range: range(selection), diagnostics };
}
