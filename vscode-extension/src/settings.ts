// Extension settings → how to start the server, and the initializationOptions / configuration it is sent.

import * as path from "node:path";
import { CONFIG_SECTION } from "./protocol";

/** Reads one setting of the `agentLsp` section (vscode.workspace.getConfiguration("agentLsp").get in production). */
export type SettingReader = <T>(key: string) => T | undefined;

export interface ServerCommand {
  command: string;
  args: string[];
  /**
   * How the command was chosen: "agentLsp.server.command", "agentLsp.pythonPath", or "bundled" — the server in the
   * extension's private venv, whose Python the caller fills in once it is installed (`command` is empty until then).
   */
  source: string;
}

/** The settings that choose a program to run: read from user/machine settings only, never from a workspace. */
export const PROGRAM_SETTINGS: readonly string[] = ["server.command", "server.args", "pythonPath"];

/**
 * Every setting read from the user's (or the remote machine's) settings only: the programs above, and what
 * widens what the agent may do (the approval mode). A repository's .vscode/settings.json cannot set these
 * (docs/security.md); package.json scopes them so, and this holds even where that is not honoured.
 */
export const USER_ONLY_SETTINGS: readonly string[] = [...PROGRAM_SETTINGS, "approvalMode"];

/** Modes that approve more than `default`: never sent over a configuration channel (the server ignores them
 * there, as a project can fill that channel); they go in the new chat's own request (controller.ts). */
const WIDENING_MODES: readonly string[] = ["auto_edit", "autoEdit", "yolo"];

/** `python -P -m agent_lsp lsp …`: -P keeps the working directory off sys.path, so a workspace folder named
 * agent_lsp cannot stand in for the installed package. */
export function pythonServerArgs(extra: string[]): string[] {
  return ["-P", "-m", "agent_lsp", "lsp", ...extra];
}

export function serverCommand(get: SettingReader): ServerCommand {
  const extra = (get<string[]>("server.args") ?? []).filter((a) => typeof a === "string");
  const command = (get<string>("server.command") ?? "").trim();
  if (command) {
    return { command, args: ["lsp", ...extra], source: "agentLsp.server.command" };
  }
  const python = (get<string>("pythonPath") ?? "").trim();
  if (python) {
    return { command: python, args: pythonServerArgs(extra), source: "agentLsp.pythonPath" };
  }
  // Never "agent-lsp" from PATH: the bundled server is the extension's own version (and PyPI's "agent-lsp" is
  // another project with the same command).
  return { command: "", args: pythonServerArgs(extra), source: "bundled" };
}

/** The executable's full path, or undefined when it is neither an existing path nor found on PATH. */
export function resolveExecutable(
  command: string,
  envPath: string | undefined,
  isExecutable: (file: string) => boolean,
): string | undefined {
  if (command.includes("/") || command.includes("\\")) {
    return isExecutable(command) ? command : undefined;
  }
  for (const dir of (envPath ?? "").split(path.delimiter)) {
    if (!dir) {
      continue;
    }
    const candidate = path.join(dir, command);
    if (isExecutable(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

export function missingServerMessage(cmd: ServerCommand): string {
  if (cmd.source === "agentLsp.pythonPath") {
    return (
      `The Python interpreter "${cmd.command}" set in agentLsp.pythonPath does not exist. ` +
      "Point it at the interpreter of an environment where you installed agent-lsp-server, " +
      "or clear the setting to use the server bundled with the extension."
    );
  }
  return (
    `The agent server "${cmd.command}" set in agentLsp.server.command was not found. ` +
    "Fix the setting, or clear it to use the server bundled with the extension."
  );
}

/**
 * The server's own settings: only the keys it understands, plus VS Code's workspace trust as a fact. The server
 * lets `false` (restricted mode) make the agent untrusted too; `true` only withdraws an earlier `false` when the
 * user grants trust later, and trusts nothing by itself: the agent's trust is the user's own trustedFolders.json
 * (the server's trust prompt writes it). See docs/security.md.
 */
export function serverSettings(get: SettingReader, workspaceTrusted: boolean): Record<string, unknown> {
  const section: Record<string, unknown> = { trustWorkspace: workspaceTrusted };
  const model = (get<string>("model") ?? "").trim();
  if (model) {
    section.model = model;
  }
  // Which modes exist is the server's word: an unknown one is sent on and the server says what it accepts.
  const mode = (get<string>("approvalMode") ?? "").trim();
  if (mode && !WIDENING_MODES.includes(mode)) {
    section.approvalMode = mode;
  }
  const checkpointing = get<boolean>("checkpointing");
  if (typeof checkpointing === "boolean") {
    section.checkpointing = checkpointing;
  }
  return { [CONFIG_SECTION]: section };
}
