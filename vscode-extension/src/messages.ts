// Messages between the chat webview and the extension (both directions), shared by both sides.

import { type Attachment, parseAttachments } from "./composer";
import type { ChatState } from "./state";

export type FromWebview =
  | { type: "ready" }
  | { type: "send"; text: string; attachments?: Attachment[] }
  /** Stop the running turn and send this next: a queued message (`id`) or the composer's draft. */
  | { type: "sendNow"; id?: string; text?: string; attachments?: Attachment[] }
  | { type: "queueRemove"; id: string }
  | { type: "cancel" }
  | { type: "newChat" }
  | { type: "listSessions" }
  | { type: "loadSession"; sessionId: string }
  | { type: "setMode"; modeId: string }
  | { type: "setModel"; modelId: string }
  | { type: "permission"; requestId: string; optionId: string }
  | { type: "reviewDiff"; requestId: string }
  | { type: "openLocation"; path: string; line?: number }
  | { type: "restartServer" };

export type ToWebview = { type: "state"; state: ChatState };

const KNOWN = new Set([
  "ready",
  "send",
  "sendNow",
  "queueRemove",
  "cancel",
  "newChat",
  "listSessions",
  "loadSession",
  "setMode",
  "setModel",
  "permission",
  "reviewDiff",
  "openLocation",
  "restartServer",
]);

/** A webview message checked for shape; anything else (a compromised or stale page) is dropped. */
export function parseWebviewMessage(raw: unknown): FromWebview | undefined {
  if (typeof raw !== "object" || raw === null) {
    return undefined;
  }
  const msg = raw as Record<string, unknown>;
  if (typeof msg.type !== "string" || !KNOWN.has(msg.type)) {
    return undefined;
  }
  const str = (key: string): boolean => typeof msg[key] === "string";
  switch (msg.type) {
    case "send": {
      const attachments = parseAttachments(msg.attachments);
      return str("text") && attachments !== undefined ? { type: "send", text: msg.text as string, attachments } : undefined;
    }
    case "sendNow": {
      const attachments = parseAttachments(msg.attachments);
      if (str("id")) {
        return { type: "sendNow", id: msg.id as string };
      }
      return str("text") && attachments !== undefined ? { type: "sendNow", text: msg.text as string, attachments } : undefined;
    }
    case "queueRemove":
      return str("id") ? (msg as FromWebview) : undefined;
    case "loadSession":
      return str("sessionId") ? (msg as FromWebview) : undefined;
    case "setMode":
      return str("modeId") ? (msg as FromWebview) : undefined;
    case "setModel":
      return str("modelId") ? (msg as FromWebview) : undefined;
    case "permission":
      return str("requestId") && str("optionId") ? (msg as FromWebview) : undefined;
    case "reviewDiff":
      return str("requestId") ? (msg as FromWebview) : undefined;
    case "openLocation":
      return str("path") && (msg.line === undefined || typeof msg.line === "number") ? (msg as FromWebview) : undefined;
    default:
      return msg as FromWebview;
  }
}
