// Recording stand-ins for the Host and Connection wrappers (the only seams to VS Code and the language client).

import type { Connection, Host, MessageLevel } from "../host";

export class FakeHost implements Host {
  visible = true;
  messages: { level: MessageLevel; message: string; actions: string[] }[] = [];
  reply: string | undefined;
  diffs: { left: string; right: string; title: string }[] = [];
  closed: string[] = [];
  documents = new Map<string, string>();
  contexts = new Map<string, unknown>();
  opened: { path: string; line?: number }[] = [];

  async showMessage(level: MessageLevel, message: string, ...actions: string[]): Promise<string | undefined> {
    this.messages.push({ level, message, actions });
    return this.reply;
  }
  panelVisible(): boolean {
    return this.visible;
  }
  async revealPanel(): Promise<void> {
    this.visible = true;
  }
  async openDiff(left: string, right: string, title: string): Promise<void> {
    this.diffs.push({ left, right, title });
  }
  async closeEditorsOf(uri: string): Promise<void> {
    this.closed.push(uri);
  }
  documentText(uri: string): string | undefined {
    return this.documents.get(uri);
  }
  relativePath(path: string): string {
    return path.startsWith("/ws/") ? path.slice("/ws/".length) : path;
  }
  fileUri(path: string): string {
    return `file://${path}`;
  }
  async openLocation(path: string, line?: number): Promise<void> {
    this.opened.push({ path, line });
  }
  copied: string[] = [];
  async copyText(text: string): Promise<void> {
    this.copied.push(text);
  }
  async setContext(key: string, value: unknown): Promise<void> {
    this.contexts.set(key, value);
  }
}

type Handler = (params: any) => unknown;

/** Answers requests with per-method handlers (which may await, to hold a turn open) and records everything. */
export class FakeConnection implements Connection {
  requests: { method: string; params: any }[] = [];
  notifications: { method: string; params: any }[] = [];
  handlers = new Map<string, Handler>();

  on(method: string, handler: Handler): this {
    this.handlers.set(method, handler);
    return this;
  }
  async sendRequest<R>(method: string, params: unknown): Promise<R> {
    this.requests.push({ method, params });
    const handler = this.handlers.get(method);
    if (handler === undefined) {
      throw new Error(`unexpected request ${method}`);
    }
    return (await handler(params)) as R;
  }
  async sendNotification(method: string, params: unknown): Promise<void> {
    this.notifications.push({ method, params });
  }
  count(method: string): number {
    return this.requests.filter((r) => r.method === method).length;
  }
}

export function description(sessionId: string): any {
  return {
    sessionId,
    modes: {
      currentModeId: "default",
      availableModes: [
        { id: "default", name: "Default" },
        { id: "yolo", name: "YOLO" },
      ],
    },
    models: { currentModelId: "gemini-2.5-pro", availableModels: [{ modelId: "gemini-2.5-pro", name: "gemini-2.5-pro" }] },
    commands: [{ name: "compress", description: "Compress the chat" }],
  };
}

export function editPermission(path = "/ws/app.py", oldText: string | null = "a\n", newText = "b\n"): any {
  return {
    sessionId: "s1",
    toolCall: {
      toolCallId: "call-1",
      title: "Edit app.py",
      kind: "edit",
      status: "pending",
      content: [{ type: "diff", path, oldText, newText }],
    },
    options: [
      { optionId: "proceed_once", name: "Allow", kind: "allow_once" },
      { optionId: "proceed_always", name: "Allow all edits this session", kind: "allow_always" },
      { optionId: "cancel", name: "Reject", kind: "reject_once" },
    ],
  };
}

/** Lets pending promise callbacks run. */
export function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
