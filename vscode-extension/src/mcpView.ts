// The "MCP Servers" view beside the chat: the chat session's MCP servers (agent/mcpServers) with their state, why
// one failed and its log, their tools, prompts and resources, and Restart (agent/mcpRestart, as /mcp refresh).

import * as vscode from "vscode";
import { errorText } from "./chatCore";
import type { ChatController } from "./controller";
import { METHODS } from "./protocol";
import type { McpServerInfo, McpViewState } from "./webview/mcpRender";
import { webviewHtml } from "./webviewHtml";

export const MCP_VIEW_ID = "agentLsp.mcp";
const POLL_MS = 1000; // while a server is still connecting

export class McpViewProvider implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | undefined;
  private state: McpViewState = { servers: [], restarting: [], loaded: false };
  private seen: { sessionId?: string; commands?: unknown } = {};
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly controller: ChatController,
  ) {
    // A new chat, or a server's prompts arriving or changing (the command list follows the catalog): look again.
    controller.onChange((s) => {
      if (s.sessionId !== this.seen.sessionId || s.commands !== this.seen.commands) {
        this.seen = { sessionId: s.sessionId, commands: s.commands };
        void this.refresh();
      }
    });
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const roots = [vscode.Uri.joinPath(this.extensionUri, "dist"), vscode.Uri.joinPath(this.extensionUri, "media")];
    view.webview.options = { enableScripts: true, localResourceRoots: roots };
    view.webview.html = this.html(view.webview);
    view.webview.onDidReceiveMessage((raw: { type?: unknown; server?: unknown; path?: unknown }) => {
      if (raw?.type === "ready" || raw?.type === "refresh") {
        void this.refresh();
      } else if (raw?.type === "restart" && typeof raw.server === "string") {
        void this.restart(raw.server);
      } else if (raw?.type === "openLog" && typeof raw.path === "string") {
        void this.openLog(raw.path);
      }
    });
    view.onDidChangeVisibility(() => void this.refresh());
    view.onDidDispose(() => {
      if (this.view === view) this.view = undefined;
    });
  }

  /** Asks the server for the chat session's servers (creating the session if the chat has none yet). */
  async refresh(): Promise<void> {
    if (this.view === undefined || !this.view.visible || this.controller.state.serverStatus !== "running") {
      return;
    }
    try {
      const sessionId = await this.controller.ensureSession();
      const answer = await this.controller.request<{ servers: McpServerInfo[] }>(METHODS.mcpServers, { sessionId });
      this.show({ servers: answer.servers, error: undefined, loaded: true });
    } catch (err) {
      this.show({ error: errorText(err), loaded: true });
    }
  }

  private async restart(server: string): Promise<void> {
    this.show({ restarting: [...this.state.restarting, server] });
    try {
      const sessionId = await this.controller.ensureSession();
      const params = server ? { sessionId, server } : { sessionId };
      const answer = await this.controller.request<{ servers: McpServerInfo[] }>(METHODS.mcpRestart, params);
      this.show({ servers: answer.servers, error: undefined });
    } catch (err) {
      this.show({ error: errorText(err) });
    } finally {
      this.show({ restarting: this.state.restarting.filter((s) => s !== server) });
    }
  }

  /** Only a log the server named: the page cannot open any other file. */
  private async openLog(path: string): Promise<void> {
    if (this.state.servers.some((s) => s.log === path)) {
      await vscode.window.showTextDocument(vscode.Uri.file(path), { preview: true });
    }
  }

  private show(change: Partial<McpViewState>): void {
    this.state = { ...this.state, ...change };
    void this.view?.webview.postMessage({ type: "view", view: this.state });
    clearTimeout(this.timer);
    if (this.state.servers.some((s) => s.state === "connecting")) {
      this.timer = setTimeout(() => void this.refresh(), POLL_MS);
    }
  }

  private html(webview: vscode.Webview): string {
    return webviewHtml(webview, this.extensionUri, { script: "mcp.js", title: "MCP Servers", bodyClass: "mcp-view" });
  }
}
