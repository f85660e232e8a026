// Commands for the actions on the user's messages, so they have a palette entry and a key as well as the buttons
// under each message: Rewind, Edit or Fork from a message (picked from a list), and Undo Rewind.

import * as vscode from "vscode";
import type { ChatController } from "./controller";
import type { Host } from "./host";

const ACTIONS = [
  { label: "Rewind", detail: "Go back to before it: the files the agent changed since and the conversation (asks first)", type: "rewind" },
  { label: "Edit", detail: "Rewind to before it and put it in the box to change and send again (asks first)", type: "edit" },
  { label: "Fork", detail: "A new chat with the conversation before it, the message in the box", type: "fork" },
] as const;

export function registerMessageCommands(controller: ChatController, host: Host): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand("agentLsp.messageAction", async () => {
      const users = controller.state.items.filter((i) => i.kind === "user").reverse();
      if (users.length === 0) {
        void vscode.window.showInformationMessage("There are no messages in this chat yet.");
        return;
      }
      const items = users.map((u) => ({ label: u.text.replace(/\s+/g, " ").trim().slice(0, 120) || "(attachments only)", id: u.id }));
      const message = await vscode.window.showQuickPick(items, { title: "Rewind, edit or fork from which message? (latest first)" });
      if (message === undefined) return;
      const action = await vscode.window.showQuickPick(ACTIONS.map((a) => ({ ...a })), { title: message.label });
      if (action === undefined) return;
      await host.revealPanel(); // the preview to confirm is shown there
      await controller.handleMessage({ type: action.type, itemId: message.id });
    }),
    vscode.commands.registerCommand("agentLsp.undoRewind", async () => {
      if (controller.state.rewind?.done === undefined) {
        void vscode.window.showInformationMessage("There is no rewind to undo (sending a message makes a rewind final).");
        return;
      }
      await controller.handleMessage({ type: "rewindUndo" });
    }),
  ];
}
