// The auto-approve switches (read, edit, shell, MCP, web: off, this session, this workspace): their state as the
// server answers agent/autoApprove and the next scope a click gives (the panel draws them: webview/autoApproveView.ts).

export const AUTO_KINDS = ["read", "edit", "shell", "mcp", "web"] as const;
export type AutoKind = (typeof AUTO_KINDS)[number];
export type AutoScope = "off" | "session" | "workspace";
export const AUTO_SCOPES: readonly AutoScope[] = ["off", "session", "workspace"];

/** The server's answer to agent/autoApprove (the server enforces it; the panel only shows and asks). */
export interface AutoApproveState {
  available: boolean;
  /** Why the switches cannot be used here (an untrusted folder). */
  reason?: string | null;
  kinds: { kind: string; scope: AutoScope }[];
  /** Plan mode: planning stays read-only whatever is switched on. */
  planMode?: boolean;
}

export const KIND_LABELS: Record<AutoKind, string> = { read: "Read", edit: "Edit", shell: "Shell", mcp: "MCP", web: "Web" };
export const KIND_WHAT: Record<AutoKind, string> = {
  read: "reading and searching files",
  edit: "edits to files",
  shell: "shell commands (a line that writes a file or substitutes a command is still asked)",
  mcp: "MCP server tools",
  web: "fetching web pages and searching the web",
};
export const SCOPE_WORDS: Record<AutoScope, string> = { off: "asks", session: "this session", workspace: "this workspace" };

export function isAutoKind(value: unknown): value is AutoKind {
  return typeof value === "string" && (AUTO_KINDS as readonly string[]).includes(value);
}

export function isAutoScope(value: unknown): value is AutoScope {
  return typeof value === "string" && (AUTO_SCOPES as readonly string[]).includes(value);
}

/** A click moves a switch on: off → this session → this workspace → off. */
export function nextScope(scope: AutoScope): AutoScope {
  return AUTO_SCOPES[(AUTO_SCOPES.indexOf(scope) + 1) % AUTO_SCOPES.length];
}

export function scopeOf(state: AutoApproveState | undefined, kind: AutoKind): AutoScope {
  return state?.kinds.find((k) => k.kind === kind)?.scope ?? "off";
}
