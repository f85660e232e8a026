// The composer's @ picker, pure: which candidates a query offers, and the attachment (chip + content block) each
// becomes. The editor's data (files, symbols, diagnostics, selection, terminal) is gathered by mentionSource.ts.

import type { Attachment, AttachmentKind, ContentBlock } from "./composer";

/** One row of the @ picker; `ref` says what to attach (a URI, a symbol's location, "workspace", …). */
export interface MentionCandidate {
  kind: Exclude<AttachmentKind, "image">;
  label: string;
  detail?: string;
  ref: string;
  /** A resource template's row: picking it puts `@insert` in the box to type the rest (no chip yet). */
  insert?: string;
}

/** An MCP resource agent/findFiles offered (with a sessionId): `mention` is what follows the @ (server:uri). */
export interface FoundResource {
  mention: string;
  server: string;
  name: string;
  description?: string;
  template?: boolean;
  prefix?: string;
}

export interface FoundFile {
  path: string;
  uri: string;
  isDirectory: boolean;
}

export interface SymbolHit {
  name: string;
  kind: string;
  container?: string;
  uri: string;
  path: string;
  line: number; // 0-based
}

/** What the editor offers besides files and symbols, as known when the picker opens. */
export interface EditorOffers {
  activeFile?: { uri: string; path: string };
  selection?: { path: string; startLine: number; endLine: number };
  terminal?: { name: string };
  problemCount: number;
}

const URL_PATTERN = /^https?:\/\/\S+$/i;

function matches(query: string, ...words: string[]): boolean {
  const q = query.toLowerCase();
  return words.some((w) => w.toLowerCase().includes(q) || q.includes(w.toLowerCase()));
}

/** The picker's rows for `query` (the text after @): editor context first, then files and folders, then symbols. */
export function mentionCandidates(
  query: string,
  files: FoundFile[],
  symbols: SymbolHit[],
  offers: EditorOffers,
  resources: FoundResource[] = [],
): MentionCandidate[] {
  const out: MentionCandidate[] = [];
  if (URL_PATTERN.test(query)) {
    return [{ kind: "url", label: query, detail: "Attach this web page (the agent fetches it)", ref: query }];
  }
  if (offers.selection !== undefined && matches(query, "selection")) {
    const s = offers.selection;
    out.push({ kind: "selection", label: "Selection", detail: `${s.path}:${s.startLine}-${s.endLine}`, ref: "active" });
  }
  if (matches(query, "problems", "diagnostics", "errors")) {
    if (offers.activeFile !== undefined) {
      out.push({ kind: "problems", label: "Problems in this file", detail: offers.activeFile.path, ref: offers.activeFile.uri });
    }
    out.push({ kind: "problems", label: "Problems in the workspace", detail: `${offers.problemCount} reported`, ref: "workspace" });
  }
  if (offers.terminal !== undefined && matches(query, "terminal", "output")) {
    out.push({ kind: "terminal", label: "Terminal output", detail: offers.terminal.name, ref: "active" });
  }
  if (matches(query, "url", "web", "link")) {
    out.push({ kind: "url", label: "URL…", detail: "Attach a web page by its address", ref: "" });
  }
  for (const f of files) {
    out.push({ kind: f.isDirectory ? "folder" : "file", label: f.path, ref: f.uri });
  }
  for (const s of symbols) {
    const ref = JSON.stringify({ uri: s.uri, line: s.line, name: s.name });
    out.push({ kind: "symbol", label: s.name, detail: `${s.kind} · ${s.path}:${s.line + 1}`, ref });
  }
  for (const r of resources) {
    const detail = `MCP ${r.template ? "resource template" : "resource"} · ${r.description || r.name}`;
    out.push({ kind: "resource", label: r.mention, detail, ref: r.mention, ...(r.template && r.prefix ? { insert: r.prefix } : {}) });
  }
  return out;
}

let counter = 0;
function attachment(kind: AttachmentKind, label: string, block: ContentBlock, detail?: string): Attachment {
  counter += 1;
  return { id: `att-${Date.now().toString(36)}-${counter}`, kind, label, block, ...(detail ? { detail } : {}) };
}

/** A file or folder: a resource link; the server attaches a file's text and reads a folder like an @path mention. */
export function pathAttachment(kind: "file" | "folder", uri: string, path: string): Attachment {
  return attachment(kind, path, { type: "resource_link", uri, name: path });
}

/** An MCP resource: its `@server:uri` mention, which the server reads from the server named. */
export function resourceAttachment(mention: string): Attachment {
  return attachment("resource", mention, { type: "text", text: ` @${mention} ` });
}

export function urlAttachment(url: string): Attachment {
  return attachment("url", url, { type: "resource_link", uri: url, name: url });
}

/** Text from a file (a selection, a symbol's body) embedded with its place: `file:///…#L3-7`. */
export function excerptAttachment(
  kind: "selection" | "symbol",
  label: string,
  uri: string,
  startLine: number,
  endLine: number,
  text: string,
): Attachment {
  const where = `${uri}#L${startLine}-${endLine}`;
  return attachment(kind, label, { type: "resource", resource: { uri: where, text } }, where);
}

export interface ProblemLine {
  path: string;
  line: number; // 1-based
  severity: string;
  message: string;
  source?: string;
}

const MAX_PROBLEMS = 200;

/** The editor's problems as one text block the model reads (at most MAX_PROBLEMS, the count says how many more). */
export function problemsAttachment(scope: string, problems: ProblemLine[]): Attachment {
  const shown = problems.slice(0, MAX_PROBLEMS);
  const lines = shown.map((p) => `- ${p.path}:${p.line} ${p.severity}${p.source ? ` [${p.source}]` : ""}: ${p.message}`);
  if (problems.length > shown.length) {
    lines.push(`- … and ${problems.length - shown.length} more`);
  }
  const head = problems.length === 0 ? `The editor reports no problems in ${scope}.` : `Problems the editor reports in ${scope}:`;
  const text = [head, ...lines].join("\n");
  return attachment("problems", `Problems: ${scope} (${problems.length})`, { type: "text", text });
}

const MAX_TERMINAL_CHARS = 20_000;

/** The active terminal's recent output (its tail, when long) as a text block. */
export function terminalAttachment(name: string, command: string | undefined, output: string): Attachment {
  const tail = output.length > MAX_TERMINAL_CHARS ? `…${output.slice(-MAX_TERMINAL_CHARS)}` : output;
  const what = command ? ` (last command: ${command})` : "";
  const text = `Recent output of the terminal "${name}"${what}:\n\`\`\`\n${tail}\n\`\`\``;
  return attachment("terminal", `Terminal: ${name}`, { type: "text", text });
}
