// The thin wrapper around the `vscode` API that the extension's logic talks to, so that logic runs in unit tests.

export type MessageLevel = "info" | "warning" | "error";

export interface Host {
  /** A notification with buttons; resolves to the chosen button's title, undefined when dismissed. */
  showMessage(level: MessageLevel, message: string, ...actions: string[]): Promise<string | undefined>;
  /** The chat panel is on screen (so questions go there rather than to a notification). */
  panelVisible(): boolean;
  revealPanel(): Promise<void>;
  /** Opens the built-in diff editor between two URIs (strings, so logic never builds vscode.Uri itself). */
  openDiff(left: string, right: string, title: string): Promise<void>;
  /** Closes every editor tab showing `uri` (saving it first so no "save changes?" question appears). */
  closeEditorsOf(uri: string): Promise<void>;
  /** The text of an open document, including unsaved edits; undefined when it is not open. */
  documentText(uri: string): string | undefined;
  /** A path as the user reads it: relative to the workspace folder holding it, else unchanged. */
  relativePath(path: string): string;
  /** A file path as a `file:` URI string. */
  fileUri(path: string): string;
  /** Opens a file at a 1-based line. */
  openLocation(path: string, line?: number): Promise<void>;
  /** Puts text on the system clipboard. */
  copyText(text: string): Promise<void>;
  /** Sets a `when`-clause context key. */
  setContext(key: string, value: unknown): Promise<void>;
}

/** What the logic needs of the language client: plain JSON requests and notifications. */
export interface Connection {
  /** The agent/* requests the server lists in `capabilities.experimental.agent.requests` (e.g. agent/steer). */
  readonly serverRequests?: readonly string[];
  sendRequest<R>(method: string, params: unknown): Promise<R>;
  sendNotification(method: string, params: unknown): Promise<void>;
}

/** The part of a JSON-RPC cancellation token the logic uses (the server withdraws a question with $/cancelRequest). */
export interface Cancellation {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => void): { dispose(): void };
}
