// Extension settings → how to start the server, and the initializationOptions / configuration it is sent.

import * as path from "node:path";
import { APPROVAL_MODES, CONFIG_SECTION } from "./protocol";

/** Reads one setting of the `agentLsp` section (vscode.workspace.getConfiguration("agentLsp").get in production). */
export type SettingReader = <T>(key: string) => T | undefined;

export interface ServerCommand {
  command: string;
  args: string[];
  /** How the command was chosen, for messages ("agentLsp.server.command", "agentLsp.pythonPath" or "default"). */
  source: string;
}

export function serverCommand(get: SettingReader): ServerCommand {
  const extra = (get<string[]>("server.args") ?? []).filter((a) => typeof a === "string");
  const command = (get<string>("server.command") ?? "").trim();
  if (command) {
    return { command, args: ["lsp", ...extra], source: "agentLsp.server.command" };
  }
  const python = (get<string>("pythonPath") ?? "").trim();
  if (python) {
    return { command: python, args: ["-m", "agent_lsp", "lsp", ...extra], source: "agentLsp.pythonPath" };
  }
  return { command: "agent-lsp", args: ["lsp", ...extra], source: "default" };
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
      "Point it at the interpreter of an environment where agent-lsp is installed (pip install agent-lsp)."
    );
  }
  if (cmd.source === "agentLsp.server.command") {
    return (
      `The agent server "${cmd.command}" set in agentLsp.server.command was not found. ` +
      "Fix the setting, or clear it and set agentLsp.pythonPath instead."
    );
  }
  return (
    'The agent server "agent-lsp" was not found on PATH. Install it (pip install agent-lsp), ' +
    "or set agentLsp.server.command to its full path, or agentLsp.pythonPath to a Python that has it."
  );
}

/** The server's own settings: only the keys it understands, plus the editor's workspace trust. */
export function serverSettings(get: SettingReader, workspaceTrusted: boolean): Record<string, unknown> {
  const section: Record<string, unknown> = { trustWorkspace: workspaceTrusted };
  const model = (get<string>("model") ?? "").trim();
  if (model) {
    section.model = model;
  }
  const mode = get<string>("approvalMode");
  if (mode && (APPROVAL_MODES as readonly string[]).includes(mode)) {
    section.approvalMode = mode;
  }
  const checkpointing = get<boolean>("checkpointing");
  if (typeof checkpointing === "boolean") {
    section.checkpointing = checkpointing;
  }
  return { [CONFIG_SECTION]: section };
}
