// The IntelEditor of codeIntel.ts bound to the real `vscode` API.

import * as vscode from "vscode";
import type { IntelEditor } from "./codeIntel";

export function vscodeIntelEditor(): IntelEditor {
  return {
    executeCommand: (command, ...args) => vscode.commands.executeCommand(command, ...args),
    parseUri: (uri) => vscode.Uri.parse(uri, true),
    position: (line, character) => new vscode.Position(line, character),
    openDocument: (uri) => vscode.workspace.openTextDocument(uri),
    getDiagnostics: (uri) => vscode.languages.getDiagnostics(uri),
    onDidChangeDiagnostics: (listener) => vscode.languages.onDidChangeDiagnostics((event) => listener(event.uris)),
    openDocuments: () => vscode.workspace.textDocuments.map((doc) => doc.uri),
    onDidChangeText: (listener) =>
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.contentChanges.length > 0) {
          listener(event.document.uri);
        }
      }),
  };
}
