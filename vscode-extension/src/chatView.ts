// The "Agent" side panel: a WebviewView with a strict CSP and nonce that draws the ChatState and sends user actions.

import * as vscode from "vscode";
import type { ChatController } from "./controller";
import type { Attachment } from "./composer";
import type { MentionSource } from "./mentionSource";
import type { PanelActions } from "./panelActions";
import { parseWebviewMessage, type ToWebview } from "./messages";
import type { ChatState } from "./state";
import { webviewHtml } from "./webviewHtml";

export const VIEW_ID = "agentLsp.chat";
const POST_INTERVAL_MS = 40; // streaming sends many small updates; the page redraws at most this often

export class ChatViewProvider implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Chips added from the editor before the page was ready to take them. */
  private pending: Attachment[] = [];
  private ready = false;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly controller: ChatController,
    private readonly onRestart: () => void,
    private readonly mentions?: MentionSource,
    private readonly actions?: PanelActions,
  ) {
    controller.onChange(() => this.schedule());
  }

  get visible(): boolean {
    return this.view?.visible ?? false;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const roots = [vscode.Uri.joinPath(this.extensionUri, "dist"), vscode.Uri.joinPath(this.extensionUri, "media")];
    view.webview.options = { enableScripts: true, localResourceRoots: roots };
    this.ready = false;
    view.webview.html = this.html(view.webview);
    view.webview.onDidReceiveMessage((raw: unknown) => {
      const msg = parseWebviewMessage(raw);
      if (msg === undefined) {
        return;
      }
      if (msg.type === "restartServer") {
        this.onRestart();
        return;
      }
      if (msg.type === "mentionQuery") {
        void this.mentions?.candidates(msg.query).then((items) => this.send({ type: "mentionResults", seq: msg.seq, items }));
        return;
      }
      if (msg.type === "autoApprove" || msg.type === "keepAll" || msg.type === "revertAll") {
        void this.actions?.handle(msg);
        return;
      }
      if (msg.type === "mentionPick") {
        void this.mentions?.resolve(msg.candidate).then((attachment) => attachment && this.attach(attachment));
        return;
      }
      if (msg.type === "ready") {
        this.ready = true;
        const pending = this.pending;
        this.pending = [];
        for (const attachment of pending) this.send({ type: "attach", attachment });
      }
      void this.controller.handleMessage(msg);
    });
    view.onDidChangeVisibility(() => {
      if (view.visible) {
        this.post(this.controller.state);
      }
    });
    view.onDidDispose(() => {
      if (this.view === view) {
        this.view = undefined;
        this.ready = false;
      }
    });
  }

  /** The composer focused (Agent: Focus the Composer / Attach Context), once the page is there. */
  focusComposer(picker: boolean): void {
    this.send({ type: "focusComposer", picker });
  }

  /** Adds a chip to the composer (now, or once the page is ready). */
  attach(attachment: Attachment): void {
    if (this.view !== undefined && this.ready) {
      this.send({ type: "attach", attachment });
    } else {
      this.pending.push(attachment);
    }
  }

  private send(message: ToWebview): void {
    void this.view?.webview.postMessage(message);
  }

  private schedule(): void {
    if (this.timer !== undefined) {
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.post(this.controller.state);
    }, POST_INTERVAL_MS);
  }

  private post(state: ChatState): void {
    this.send({ type: "state", state });
  }

  private html(webview: vscode.Webview): string {
    return webviewHtml(webview, this.extensionUri, { script: "webview.js", title: "Agent", images: true });
  }
}
