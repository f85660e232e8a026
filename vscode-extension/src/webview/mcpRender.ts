// The MCP view's page, pure: each server's state (why it failed, its log) and what it offers, with Restart.

import { escapeHtml } from "../html";

/** One server as agent/mcpServers describes it (docs/protocol.md). */
export interface McpServerInfo {
  name: string;
  transport: string;
  state: "connecting" | "connected" | "failed" | "disconnected" | (string & {});
  reason?: string;
  log?: string;
  tools: string[];
  prompts: { name: string; description?: string }[];
  resources: { name: string; mention: string; description?: string }[];
  templates: { name: string; mention: string; description?: string }[];
}

/** What the page is told: the servers, which are restarting, and a problem in words. */
export interface McpViewState {
  servers: McpServerInfo[];
  restarting: string[];
  error?: string;
  loaded: boolean;
}

const STATE_WORDS: Record<string, string> = {
  connecting: "connecting…",
  connected: "connected",
  failed: "failed",
  disconnected: "disconnected",
};

function list(title: string, rows: { label: string; detail?: string }[]): string {
  if (rows.length === 0) {
    return "";
  }
  const items = rows
    .map((r) => `<li title="${escapeHtml(r.detail ?? "")}"><code>${escapeHtml(r.label)}</code>${r.detail ? ` <span class="detail">${escapeHtml(r.detail)}</span>` : ""}</li>`)
    .join("");
  return `<div class="kind"><div class="kind-title">${escapeHtml(title)} (${rows.length})</div><ul>${items}</ul></div>`;
}

function serverHtml(s: McpServerInfo, restarting: boolean): string {
  const state = restarting ? "connecting" : s.state;
  const words = restarting ? "restarting…" : (STATE_WORDS[s.state] ?? s.state);
  const counts = s.state === "connected" ? ` · ${s.tools.length} tools` : "";
  const head =
    `<summary><span class="dot state-${escapeHtml(state)}" aria-hidden="true"></span><span class="name">${escapeHtml(s.name)}</span>` +
    `<span class="state">${escapeHtml(words)}${counts}</span><span class="transport">${escapeHtml(s.transport)}</span></summary>`;
  const reason = s.reason ? `<div class="reason" role="alert">${escapeHtml(s.reason)}</div>` : "";
  const log = s.log ? `<div class="log">Log: <a href="#" data-log="${escapeHtml(s.log)}">${escapeHtml(s.log)}</a></div>` : "";
  const body =
    list("Tools", s.tools.map((t) => ({ label: t }))) +
    list("Prompts", s.prompts.map((p) => ({ label: `/${p.name}`, detail: p.description }))) +
    list("Resources", s.resources.map((r) => ({ label: `@${r.mention}`, detail: r.description ?? r.name }))) +
    list("Resource templates", s.templates.map((t) => ({ label: `@${t.mention}`, detail: t.description ?? t.name })));
  const restart = `<button class="secondary" data-restart="${escapeHtml(s.name)}"${restarting ? " disabled" : ""} title="Stop ${escapeHtml(s.name)} and connect it again">Restart</button>`;
  return (
    `<details class="server state-${escapeHtml(state)}" data-server="${escapeHtml(s.name)}"${s.state !== "connected" ? " open" : ""}>` +
    `${head}<div class="server-body">${reason}${log}${body}<div class="actions">${restart}</div></div></details>`
  );
}

/** The whole page for a state. */
export function renderMcpView(view: McpViewState): string {
  const top =
    `<div class="mcp-toolbar"><button class="secondary" data-refresh title="Ask the server again">Refresh</button>` +
    `<button class="secondary" data-restart="" title="Restart every MCP server of this chat"${view.servers.length === 0 ? " disabled" : ""}>Restart all</button></div>`;
  const error = view.error ? `<div class="reason" role="alert">${escapeHtml(view.error)}</div>` : "";
  if (!view.loaded) {
    return `${top}${error}<div class="empty">Loading…</div>`;
  }
  if (view.servers.length === 0) {
    return `${top}${error}<div class="empty">This chat has no MCP servers. Add them under <code>mcpServers</code> in settings.json (docs/mcp.md).</div>`;
  }
  const restarting = new Set(view.restarting);
  return top + error + view.servers.map((s) => serverHtml(s, restarting.has(s.name) || restarting.has(""))).join("");
}
