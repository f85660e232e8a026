// The Host interface implemented with the real `vscode` API.

import * as vscode from "vscode";
import type { Host, MessageLevel } from "./host";

export class VscodeHost implements Host {
  constructor(private readonly isPanelVisible: () => boolean) {}

  async showMessage(level: MessageLevel, message: string, ...actions: string[]): Promise<string | undefined> {
    const show =
      level === "error"
        ? vscode.window.showErrorMessage
        : level === "warning"
          ? vscode.window.showWarningMessage
          : vscode.window.showInformationMessage;
    return show(message, ...actions);
  }

  relativePath(path: string): string {
    return vscode.workspace.asRelativePath(path, false);
  }

  panelVisible(): boolean {
    return this.isPanelVisible();
  }

  async revealPanel(): Promise<void> {
    await vscode.commands.executeCommand("agentLsp.chat.focus");
  }

  async openDiff(left: string, right: string, title: string): Promise<void> {
    await vscode.commands.executeCommand("vscode.diff", vscode.Uri.parse(left), vscode.Uri.parse(right), title, {
      preview: false,
    });
  }

  async closeEditorsOf(uri: string): Promise<void> {
    const target = vscode.Uri.parse(uri).toString();
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        const input = tab.input;
        const isDiff = input instanceof vscode.TabInputTextDiff && input.modified.toString() === target;
        const isText = input instanceof vscode.TabInputText && input.uri.toString() === target;
        if (!isDiff && !isText) {
          continue;
        }
        if (!tab.isDirty) {
          await vscode.window.tabGroups.close(tab, true);
          continue;
        }
        // An edited proposal was already read; closing it must not ask "save changes?", so bring it to the
        // front and revert-and-close it.
        if (input instanceof vscode.TabInputTextDiff) {
          await vscode.commands.executeCommand("vscode.diff", input.original, input.modified, tab.label, {
            viewColumn: group.viewColumn,
            preserveFocus: false,
          });
        } else if (input instanceof vscode.TabInputText) {
          await vscode.window.showTextDocument(input.uri, { viewColumn: group.viewColumn, preserveFocus: false });
        }
        await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");
      }
    }
  }

  documentText(uri: string): string | undefined {
    const target = vscode.Uri.parse(uri).toString();
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === target)?.getText();
  }

  fileUri(path: string): string {
    return vscode.Uri.file(path).toString();
  }

  async openLocation(path: string, line?: number): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
    const editor = await vscode.window.showTextDocument(doc, { preview: true });
    if (line !== undefined) {
      const at = new vscode.Position(Math.max(0, line - 1), 0);
      editor.selection = new vscode.Selection(at, at);
      editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenter);
    }
  }

  async copyText(text: string): Promise<void> {
    await vscode.env.clipboard.writeText(text);
  }

  async setContext(key: string, value: unknown): Promise<void> {
    await vscode.commands.executeCommand("setContext", key, value);
  }
}
