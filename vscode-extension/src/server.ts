// Starts, restarts and stops `agent-lsp lsp` through vscode-languageclient, and routes its agent/* traffic.

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as vscode from "vscode";
import {
  ApplyWorkspaceEditRequest,
  CloseAction,
  type CloseHandlerResult,
  ErrorAction,
  type ErrorHandlerResult,
  type ApplyWorkspaceEditParams,
  type ApplyWorkspaceEditResult,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  State,
  LSPErrorCodes,
  ResponseError,
  type StaticFeature,
} from "vscode-languageclient/node";
import { CODE_INTEL_METHODS, CodeIntel, CodeIntelError, codeIntelCapability } from "./codeIntel";
import { vscodeIntelEditor } from "./codeIntelEditor";
import type { ChatController } from "./controller";
import { errorText } from "./chatCore";
import { stripConfirmation } from "./edits";
import type { ElicitParams } from "./elicitation";
import { METHODS, SERVER_COMMANDS, type RequestPermissionParams, type UpdateParams } from "./protocol";
import { missingServerMessage, resolveExecutable, serverCommand, serverSettings, type SettingReader } from "./settings";
import { type Credentials, loginCheck, serverEnvironment } from "./signIn";

/** Installs (or finds) the server bundled with the extension and returns its venv's Python; see bootstrap.ts. */
export type BundledServer = () => Promise<string>;

/**
 * Advertises that this client answers agent/requestPermission, agent/elicit, agent/codeIntel and agent/diagnostics
 * (and draws agent/update itself).
 */
const agentCapabilities: StaticFeature = {
  fillClientCapabilities(capabilities) {
    capabilities.experimental = {
      ...(capabilities.experimental ?? {}),
      // compaction: the panel draws compaction_update as its own item; subagents: it nests a subagent's own updates
      // under the invoke_agent call (docs/protocol.md).
      agent: { permissionRequests: true, elicitation: true, compaction: true, subagents: true, codeIntel: codeIntelCapability() },
    };
    // The panel and the status bar item show a turn's progress; the server's work-done progress would add a second
    // status bar entry ("Agent: <prompt>: Writing the answer…"), so it is not asked for.
    capabilities.window = { ...(capabilities.window ?? {}), workDoneProgress: false };
  },
  initialize() {},
  getState() {
    return { kind: "static" };
  },
  clear() {},
};

/** The agent/* requests the server says it answers (`capabilities.experimental.agent.requests`). */
function serverRequests(client: LanguageClient): string[] {
  const experimental = client.initializeResult?.capabilities.experimental as { agent?: { requests?: unknown } } | undefined;
  const requests = experimental?.agent?.requests;
  return Array.isArray(requests) ? requests.filter((r): r is string => typeof r === "string") : [];
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Restarts after a crash allowed within CRASH_WINDOW_MS before the user is asked to restart by hand. */
const MAX_RESTARTS = 4;
const CRASH_WINDOW_MS = 3 * 60 * 1000;

export class AgentServer implements vscode.Disposable {
  client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  private crashes: number[] = [];
  /** vscode-languageclient is restarting the server after a crash: attach the panel when it runs again. */
  private restarting = false;
  private gaveUp = false;
  /** Answers the agent's code-intelligence requests from the editor's language features (codeIntel.ts). */
  private intel: CodeIntel | undefined;

  constructor(
    private readonly output: vscode.OutputChannel,
    private readonly controller: ChatController,
    private readonly settings: SettingReader,
    private readonly editSelectionInstruction: () => Promise<string | undefined>,
    private readonly bundled: BundledServer,
    /** The user's sign-in from SecretStorage, handed to the server in its environment (see signIn.ts). */
    private readonly credentials: () => PromiseLike<Credentials | undefined> = async () => undefined,
  ) {}

  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Fails the start with a message a person can act on, in the panel, the log and a notification. */
  private fail(message: string): void {
    this.output.appendLine(message);
    this.controller.detach("failed", message);
    void vscode.window.showErrorMessage(message, "Open Settings", "Show Logs").then((picked) => {
      if (picked === "Open Settings") {
        void vscode.commands.executeCommand("workbench.action.openSettings", "agentLsp");
      } else if (picked === "Show Logs") {
        this.output.show();
      }
    });
  }

  /** The program and arguments that start the server, or a message saying why there is none. */
  private async command(starting: boolean): Promise<{ command: string; args: string[] } | string> {
    const cmd = serverCommand(this.settings);
    if (cmd.source === "bundled") {
      if (starting) {
        this.controller.serverStarting();
      }
      try {
        return { command: await this.bundled(), args: cmd.args };
      } catch (err) {
        return errorText(err);
      }
    }
    const resolved = resolveExecutable(cmd.command, process.env.PATH, isExecutable);
    return resolved === undefined ? missingServerMessage(cmd) : { command: resolved, args: cmd.args };
  }

  private async doStart(): Promise<void> {
    const found = await this.command(true);
    if (typeof found === "string") {
      this.fail(found);
      return;
    }
    const { command: resolved, args } = found;
    this.controller.serverStarting();
    this.output.appendLine(`Starting ${resolved} ${args.join(" ")}`);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const serverOptions: ServerOptions = {
      command: resolved,
      args,
      options: { cwd: folder, env: serverEnvironment(process.env, await this.credentials()) },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
      outputChannel: this.output,
      initializationOptions: serverSettings(this.settings, vscode.workspace.isTrusted),
      errorHandler: {
        error: (): ErrorHandlerResult => ({ action: ErrorAction.Continue, handled: true }),
        closed: (): CloseHandlerResult => this.onClosed(),
      },
      middleware: {
        executeCommand: async (command, args, next) => {
          // The lightbulb's agent commands run through the panel, so their turn is shown and can be stopped.
          if (command === SERVER_COMMANDS.editSelection && !hasInstruction(args)) {
            const instruction = await this.editSelectionInstruction();
            if (!instruction) {
              return undefined;
            }
            args = [{ ...(args[0] as object), instruction }];
          }
          if (command === SERVER_COMMANDS.fix || command === SERVER_COMMANDS.explain || command === SERVER_COMMANDS.editSelection) {
            await vscode.commands.executeCommand("agentLsp.chat.focus");
            return this.controller.runServerCommand(command, args);
          }
          return next(command, args);
        },
      },
    };
    const client = new LanguageClient("agentLsp", "Agent", serverOptions, clientOptions);
    client.registerFeature(agentCapabilities);
    client.onNotification(METHODS.update, (params: UpdateParams) => this.controller.onUpdate(params));
    client.onRequest(METHODS.requestPermission, (params: RequestPermissionParams, token) =>
      this.controller.onRequestPermission(params, token),
    );
    client.onRequest(METHODS.elicit, (params: ElicitParams, token) => this.controller.onElicit(params, token));
    this.intel?.dispose();
    const intel = (this.intel = new CodeIntel(vscodeIntelEditor(), client.code2ProtocolConverter));
    client.onRequest(CODE_INTEL_METHODS.codeIntel, (params) => answered(() => intel.answer(params)));
    client.onRequest(CODE_INTEL_METHODS.diagnostics, (params, token) => answered(() => intel.diagnostics(params, token)));
    client.onDidChangeState((event) => {
      if (this.client !== client) {
        return;
      }
      if (event.newState === State.Stopped && !this.restarting) {
        const why = this.gaveUp
          ? "The agent server stopped unexpectedly several times in a row (the Agent output shows why)."
          : "The agent server stopped.";
        this.controller.detach("stopped", `${why} Run “Agent: Restart Server” to start it again.`);
      } else if (event.newState === State.Running && this.restarting) {
        this.restarting = false;
        this.attach(client);
      }
    });
    this.client = client;
    try {
      await client.start();
    } catch (err) {
      const message = `The agent server failed to start: ${errorText(err)}`;
      this.output.appendLine(message);
      this.controller.detach("failed", message);
      void vscode.window.showErrorMessage(message, "Show Logs").then((picked) => {
        if (picked === "Show Logs") {
          this.output.show();
        }
      });
      return;
    }
    // Replaces the client's default handler: see applyAgentEdit. (Handlers outlive restarts.)
    client.onRequest(ApplyWorkspaceEditRequest.type, (params) => applyAgentEdit(client, params));
    this.attach(client);
  }

  private attach(client: LanguageClient): void {
    this.controller.attach({
      serverRequests: serverRequests(client),
      sendRequest: (method, params) => client.sendRequest(method, params),
      sendNotification: (method, params) => client.sendNotification(method, params),
    });
  }

  /**
   * The connection closed without us stopping it: the server crashed. Restart it (vscode-languageclient does
   * the work) and tell the panel in words; after too many crashes in a row, leave it to the user.
   */
  private onClosed(): CloseHandlerResult {
    const now = Date.now();
    this.crashes = [...this.crashes.filter((t) => now - t < CRASH_WINDOW_MS), now];
    this.output.appendLine("The agent server exited unexpectedly.");
    if (this.crashes.length > MAX_RESTARTS) {
      this.restarting = false;
      this.gaveUp = true;
      return {
        action: CloseAction.DoNotRestart,
        handled: true,
        message: "The agent server stopped unexpectedly several times in a row, so it was not restarted.",
      };
    }
    this.restarting = true;
    this.gaveUp = false;
    this.controller.serverLost();
    return { action: CloseAction.Restart, handled: true, message: "The agent server stopped unexpectedly; restarting it." };
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.restarting = false;
    this.gaveUp = false;
    if (client !== undefined && client.state !== State.Stopped) {
      try {
        await client.stop(5000);
      } catch (err) {
        this.output.appendLine(`Stopping the server: ${errorText(err)}`);
      }
    }
    this.intel?.dispose();
    this.intel = undefined;
    this.controller.detach("stopped");
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /**
   * Checks credentials with the server's `login --check-only` (one model-list request through its real client); the
   * key goes on stdin. Undefined when they work (or the command cannot be rewritten to check), else why not.
   */
  async checkCredentials(credentials: Credentials): Promise<string | undefined> {
    const found = await this.command(false);
    if (typeof found === "string") {
      return found;
    }
    const plan = loginCheck(found.args, credentials, process.env);
    if (plan === undefined) {
      return undefined;
    }
    const base = serverEnvironment(process.env, undefined);
    return new Promise((resolve) => {
      const child = spawn(found.command, plan.args, { env: base, windowsHide: true, stdio: ["pipe", "ignore", "pipe"] });
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on("error", (err) => resolve(errorText(err)));
      child.on("close", (code) => {
        const lines = stderr.trim().split("\n").filter((l) => l.startsWith("agent-lsp login:"));
        resolve(code === 0 ? undefined : (lines.at(-1)?.replace("agent-lsp login: ", "") ?? `the check exited with ${code}`));
      });
      child.stdin?.end(plan.input);
    });
  }

  /** The server's settings changed (or trust was granted): tell it without a restart. */
  async sendSettings(): Promise<void> {
    if (this.client?.state === State.Running) {
      await this.client.sendNotification("workspace/didChangeConfiguration", {
        settings: serverSettings(this.settings, vscode.workspace.isTrusted),
      });
    }
  }

  dispose(): void {
    void this.stop();
  }
}

/** A code-intelligence answer, or the JSON-RPC error whose message the model reads. */
async function answered<T>(answer: () => Promise<T>): Promise<T | ResponseError> {
  try {
    return await answer();
  } catch (err) {
    const code = err instanceof CodeIntelError && err.invalidParams ? -32602 : LSPErrorCodes.RequestFailed;
    return new ResponseError(code, errorText(err));
  }
}

function hasInstruction(args: unknown[]): boolean {
  const first = args[0];
  return typeof first === "object" && first !== null && typeof (first as { instruction?: unknown }).instruction === "string";
}

/**
 * The agent's file changes. The user already reviewed them (in the panel or the diff review), so VS Code's
 * own refactor preview is not asked for again; files that had no unsaved changes are saved afterwards, as
 * VS Code does after a refactoring, so the change is on disk for tests and tools while staying undoable.
 */
/** How often a save VS Code answered false is asked again (see saveDocument). */
const SAVE_ATTEMPTS = 4;

async function applyAgentEdit(client: LanguageClient, params: ApplyWorkspaceEditParams): Promise<ApplyWorkspaceEditResult> {
  const lspEdit = stripConfirmation(params.edit);
  for (const change of lspEdit.documentChanges ?? []) {
    if ("textDocument" in change && typeof change.textDocument.version === "number") {
      const uri = client.protocol2CodeConverter.asUri(change.textDocument.uri).toString();
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
      if (doc !== undefined && doc.version !== change.textDocument.version) {
        return { applied: false, failureReason: `${doc.uri.fsPath} changed in the editor since the agent read it` };
      }
    }
  }
  const edit = await client.protocol2CodeConverter.asWorkspaceEdit(lspEdit);
  const touched = new Set<string>(edit.entries().map(([uri]) => uri.toString()));
  for (const change of lspEdit.documentChanges ?? []) {
    if ("kind" in change && change.kind === "create") {
      touched.add(client.protocol2CodeConverter.asUri(change.uri).toString());
    }
  }
  const dirtyBefore = new Set(vscode.workspace.textDocuments.filter((d) => d.isDirty).map((d) => d.uri.toString()));
  // What the clean documents held, to put back if their save fails (open ones; an unopened file is read from disk).
  const before = new Map<string, string>();
  for (const uri of touched) {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    const text = open !== undefined ? open.getText() : await readText(vscode.Uri.parse(uri));
    if (text !== undefined && !dirtyBefore.has(uri)) {
      before.set(uri, text);
    }
  }
  const applied = await vscode.workspace.applyEdit(edit, { isRefactoring: true });
  if (!applied) {
    return { applied, failureReason: "VS Code did not apply the edit (a read-only file, or the user declined it)" };
  }
  // Done only once it is on disk: a save VS Code refuses (read-only, changed on disk meanwhile, no permission) is a
  // failure the model reads, and the document goes back to the file's text (it had no unsaved changes before).
  for (const uri of touched) {
    if (dirtyBefore.has(uri)) {
      continue;
    }
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
    if (before.get(uri) === doc.getText()) {
      // VS Code said "applied" but the document is as it was (a file it holds read-only, files.readonlyInclude).
      return { applied: false, failureReason: `VS Code did not change ${doc.uri.fsPath} (is it read-only in the editor?)` };
    }
    const saved = await saveDocument(doc);
    // Checked, not assumed: the disk must hold what the editor shows.
    const onDisk = saved === undefined ? await readText(doc.uri) : undefined;
    const failed = saved ?? (onDisk !== doc.getText() ? "the file on disk does not hold the change" : undefined);
    if (failed !== undefined) {
      const original = before.get(uri);
      if (original !== undefined) {
        const back = new vscode.WorkspaceEdit();
        back.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), original);
        await vscode.workspace.applyEdit(back);
      }
      return { applied: false, failureReason: `${doc.uri.fsPath} could not be saved (${failed}); the change was taken back` };
    }
  }
  return { applied };
}

/**
 * Saves a document, undefined once it is saved, else why not. `TextDocument.save()` answers false not only for a
 * refusal but also when VS Code cancels our save because another save of the same file started meanwhile (its
 * TextFileEditorModel cancels the running save and queues the newer one); that save writes our text too. So a false
 * with the document still dirty is asked again (joining the save in flight) a few times before it counts as refused.
 */
async function saveDocument(doc: vscode.TextDocument): Promise<string | undefined> {
  let why: string | undefined;
  for (let attempt = 0; attempt < SAVE_ATTEMPTS && doc.isDirty; attempt++) {
    if (attempt > 0) {
      await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
    }
    why = await doc.save().then(
      (ok) => (ok ? undefined : "VS Code did not save it"),
      (err: unknown) => errorText(err),
    );
    if (why === undefined) {
      return undefined;
    }
  }
  return doc.isDirty ? why : undefined;
}

/** A file's text on disk, or undefined when it cannot be read (not there yet: the edit creates it). */
async function readText(uri: vscode.Uri): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}
