// What the composer sends: the typed text and its attachments (chips), as the content blocks of agent/prompt.

/** An ACP-like content block the server accepts in agent/prompt (see docs/protocol.md). */
export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "resource_link"; uri: string; name: string }
  | { type: "resource"; resource: { uri: string; text: string } }
  | { type: "image"; mimeType: string; data: string };

export type AttachmentKind = "file" | "folder" | "symbol" | "problems" | "selection" | "terminal" | "url" | "image" | "resource";

/** One chip in the composer: what the user sees (label, detail) and what reaches the model (block). */
export interface Attachment {
  id: string;
  kind: AttachmentKind;
  label: string;
  detail?: string;
  block: ContentBlock;
}

/** A message as the user wrote it: kept whole while it waits in the queue, so it can be edited there. */
export interface Draft {
  text: string;
  attachments: Attachment[];
}

/** The agent/prompt `prompt`: plain text (slash commands keep working) when nothing is attached, else blocks. */
export function promptOf(draft: Draft): string | ContentBlock[] {
  const text = draft.text.trim();
  if (draft.attachments.length === 0) {
    return text;
  }
  return [{ type: "text", text }, ...draft.attachments.map((a) => a.block)];
}

/** The message as content blocks (agent/steer takes only blocks): the text, then each attachment's block. */
export function blocksOf(draft: Draft): ContentBlock[] {
  const text = draft.text.trim();
  return [...(text ? [{ type: "text" as const, text }] : []), ...draft.attachments.map((a) => a.block)];
}

/** The user's message as the transcript shows it: the text, then one line naming each attachment. */
export function transcriptText(draft: Draft): string {
  const text = draft.text.trim();
  if (draft.attachments.length === 0) {
    return text;
  }
  const chips = draft.attachments.map((a) => `\`@${a.label}\``).join(" ");
  return text ? `${text}\n\n${chips}` : chips;
}

const KINDS = new Set<AttachmentKind>(["file", "folder", "symbol", "problems", "selection", "terminal", "url", "image", "resource"]);

function isBlock(value: unknown): value is ContentBlock {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const b = value as Record<string, unknown>;
  switch (b.type) {
    case "text":
      return typeof b.text === "string";
    case "resource_link":
      return typeof b.uri === "string" && typeof b.name === "string";
    case "resource": {
      const r = b.resource as Record<string, unknown> | undefined;
      return typeof r === "object" && r !== null && typeof r.uri === "string" && typeof r.text === "string";
    }
    case "image":
      return typeof b.mimeType === "string" && typeof b.data === "string";
    default:
      return false;
  }
}

/** Attachments from the webview, checked for shape (a stale or compromised page sends nothing else). */
export function parseAttachments(raw: unknown): Attachment[] | undefined {
  if (raw === undefined) {
    return [];
  }
  if (!Array.isArray(raw)) {
    return undefined;
  }
  const out: Attachment[] = [];
  for (const item of raw as unknown[]) {
    if (typeof item !== "object" || item === null) {
      return undefined;
    }
    const a = item as Record<string, unknown>;
    if (typeof a.id !== "string" || typeof a.label !== "string" || !KINDS.has(a.kind as AttachmentKind) || !isBlock(a.block)) {
      return undefined;
    }
    if (a.detail !== undefined && typeof a.detail !== "string") {
      return undefined;
    }
    out.push(a as unknown as Attachment);
  }
  return out;
}
