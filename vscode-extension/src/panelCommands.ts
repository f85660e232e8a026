// Commands for every action of the panel, so each has a palette entry and a key (the chord Ctrl+Alt+G, then a
// letter): auto-approve, Keep all / Revert all, history, mode, model, copy / retry, changed files, composer.

import * as vscode from "vscode";
import { AUTO_KINDS, AUTO_SCOPES, type AutoKind, type AutoScope, KIND_LABELS, scopeOf } from "./autoApprove";
import { changedFiles } from "./changedFiles";
import type { ChatViewProvider } from "./chatView";
import type { ChatController } from "./controller";
import type { Host } from "./host";
import type { PanelActions } from "./panelActions";

const SCOPE_LABELS: Record<AutoScope, string> = {
  off: "Ask every time",
  session: "Auto-approve for this session",
  workspace: "Auto-approve for this workspace",
};

export function registerPanelCommands(
  controller: ChatController,
  actions: PanelActions,
  view: ChatViewProvider,
  host: Host,
): vscode.Disposable[] {
  const command = (name: string, run: (...args: unknown[]) => unknown): vscode.Disposable =>
    vscode.commands.registerCommand(`agentLsp.${name}`, run);
  const lastAgentItem = (): string | undefined => [...controller.state.items].reverse().find((i) => i.kind === "agent")?.id;
  return [
    command("autoApprove", async (kind?: unknown, scope?: unknown) => {
      // Arguments (from a keybinding or another extension) skip the pickers.
      const picked = AUTO_KINDS.includes(kind as AutoKind) ? (kind as AutoKind) : await pickKind(controller);
      if (picked === undefined) return;
      const to = AUTO_SCOPES.includes(scope as AutoScope) ? (scope as AutoScope) : await pickScope(controller, picked);
      if (to !== undefined) await actions.setAutoApprove(picked, to);
    }),
    command("keepAllChanges", () => actions.keepAll()),
    command("revertAllChanges", () => actions.revertAll()),
    command("resumeChat", async () => {
      await controller.handleMessage({ type: "listSessions" });
      const when = (s: { updatedAt?: string }) => (s.updatedAt ? s.updatedAt.slice(0, 16).replace("T", " ") : "");
      const items = controller.state.sessions.map((s) => ({ label: s.title || "Untitled chat", description: when(s), id: s.sessionId }));
      const picked = await vscode.window.showQuickPick(items, { title: "Chat history: resume a saved chat", placeHolder: "Type to filter by title" });
      if (picked !== undefined) await controller.handleMessage({ type: "loadSession", sessionId: picked.id });
    }),
    command("pickMode", async () => {
      const items = controller.state.modes.map((m) => ({ label: m.name, description: m.id === controller.state.currentMode ? "current" : "", detail: m.description, id: m.id }));
      const picked = await vscode.window.showQuickPick(items, { title: "Approval mode" });
      if (picked !== undefined) await controller.handleMessage({ type: "setMode", modeId: picked.id });
    }),
    command("pickModel", async () => {
      const items = controller.state.models.map((m) => ({ label: m.name, description: m.modelId === controller.state.currentModel ? "current" : "", id: m.modelId }));
      const picked = await vscode.window.showQuickPick(items, { title: "Model" });
      if (picked !== undefined) await controller.handleMessage({ type: "setModel", modelId: picked.id });
    }),
    command("copyLastResponse", async () => {
      const id = lastAgentItem();
      if (id !== undefined) await controller.handleMessage({ type: "copy", itemId: id });
    }),
    command("retryLastResponse", async () => {
      const id = lastAgentItem();
      if (id !== undefined) await controller.handleMessage({ type: "retry", itemId: id });
    }),
    command("openChangedFile", async () => {
      const items = changedFiles(controller.state).map((c) => ({ label: host.relativePath(c.path), description: `+${c.added} −${c.removed}`, path: c.path }));
      if (items.length === 0) {
        void vscode.window.showInformationMessage("The last turn changed no files.");
        return;
      }
      const picked = await vscode.window.showQuickPick(items, { title: "Open the diff of a file the last turn changed" });
      if (picked !== undefined) await controller.handleMessage({ type: "openChange", path: picked.path });
    }),
    command("showMcpServers", () => vscode.commands.executeCommand("agentLsp.mcp.focus")),
    command("focusComposer", async () => {
      await host.revealPanel();
      view.focusComposer(false);
    }),
    command("attachContext", async () => {
      await host.revealPanel();
      view.focusComposer(true);
    }),
  ];
}

async function pickKind(controller: ChatController): Promise<AutoKind | undefined> {
  const state = controller.state.autoApprove;
  if (state !== undefined && !state.available) {
    void vscode.window.showWarningMessage(`Auto-approve is off: ${state.reason ?? "not available here"}`);
    return undefined;
  }
  const items = AUTO_KINDS.map((kind) => ({ label: KIND_LABELS[kind], description: SCOPE_LABELS[scopeOf(state, kind)], autoKind: kind }));
  return (await vscode.window.showQuickPick(items, { title: "Auto-approve which kind of tool?" }))?.autoKind;
}

async function pickScope(controller: ChatController, kind: AutoKind): Promise<AutoScope | undefined> {
  const now = scopeOf(controller.state.autoApprove, kind);
  const items = AUTO_SCOPES.map((scope) => ({ label: SCOPE_LABELS[scope], description: scope === now ? "current" : "", scope }));
  return (await vscode.window.showQuickPick(items, { title: `${KIND_LABELS[kind]} tools` }))?.scope;
}
