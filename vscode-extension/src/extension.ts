// Activation: wires the server, chat panel, diff review, status bar and commands together (no logic of its own).

import { PanelActions } from "./panelActions";
import { registerMessageCommands } from "./messageCommands";
import { registerPanelCommands } from "./panelCommands";
import * as path from "node:path";
import * as vscode from "vscode";
import { ensureServer } from "./bootstrap";
import { ChatViewProvider, VIEW_ID } from "./chatView";
import { ChatController } from "./controller";
import { DiffReview, PROPOSAL_SCHEME, ProposalStore } from "./diffReview";
import { editorContext } from "./editorContext";
import { ProposalFileSystem } from "./fsProvider";
import { registerInlineReview } from "./inlineView";
import { MCP_VIEW_ID, McpViewProvider } from "./mcpView";
import { MentionSource, TerminalOutputs, selectionAttachment } from "./mentionSource";
import { PermissionBroker } from "./permissions";
import { CONFIG_SECTION, SERVER_COMMANDS } from "./protocol";
import { pythonCandidates } from "./pythonFinder";
import { AgentServer } from "./server";
import { type SettingReader, USER_ONLY_SETTINGS } from "./settings";
import { loadCredentials, OPENAI_DEFAULT_URL, type SignInPrompts, signIn, signOut } from "./signIn";
import { type ChatState, sessionSummary } from "./state";
import { VscodeHost } from "./vscodeHost";

let server: AgentServer | undefined;

const settings: SettingReader = <T>(key: string) => {
  const config = vscode.workspace.getConfiguration(CONFIG_SECTION);
  if (!USER_ONLY_SETTINGS.includes(key)) {
    return config.get<T>(key);
  }
  // A program to run, and the approval mode, come from the user's (or the remote machine's) settings only: a
  // repository's .vscode/settings.json must not choose what the extension starts or what runs without asking.
  // package.json scopes these settings so and lists them as restricted in untrusted workspaces; this holds even
  // where that is not honoured.
  const seen = config.inspect<T>(key);
  return seen?.globalValue ?? seen?.defaultValue;
};

/** Shows the first-start install as a notification with progress, opened on its first step only. */
function installProgress(onStep: (message: string) => void): { report: (message: string) => void; done: () => void } {
  let progress: vscode.Progress<{ message?: string }> | undefined;
  let last = "";
  let finish: (() => void) | undefined;
  let opened = false;
  return {
    report(message: string) {
      last = message;
      onStep(message);
      if (!opened) {
        opened = true;
        void vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: "Agent: setting up the agent server" },
          (p) => {
            progress = p;
            p.report({ message: last });
            return new Promise<void>((resolve) => (finish = resolve));
          },
        );
      }
      progress?.report({ message });
    },
    done() {
      finish?.();
      opened = false;
    },
  };
}

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel("Agent");
  const broker = new PermissionBroker();
  const store = new ProposalStore();
  let view: ChatViewProvider | undefined;
  const host = new VscodeHost(() => view?.visible ?? false);
  const controller = new ChatController(host, broker, () => ({
    cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    approvalMode: settings<string>("approvalMode") || undefined,
    model: settings<string>("model") || undefined,
  }));
  const review = new DiffReview(host, broker, store);
  controller.questions.review = review;
  controller.questions.store = store;
  const inline = registerInlineReview(context, host, broker, review);
  inline.onStatus((requestId, status) => controller.setReviewStatus(requestId, status));
  inline.enabled = () => settings<boolean>("review.inline") ?? true;
  controller.questions.inline = inline;
  const instruction = (): Promise<string | undefined> =>
    Promise.resolve(
      vscode.window.showInputBox({
        title: "Edit selection with agent",
        prompt: "How should the agent change the selected code?",
        placeHolder: "e.g. add error handling",
      }),
    );
  const bundled = async (): Promise<string> => {
    const progress = installProgress((step) => controller.serverStarting(`Setting up the agent server: ${step}…`));
    try {
      return await ensureServer({
        extensionVersion: String(context.extension.packageJSON.version),
        wheelDir: path.join(context.extensionPath, "server"),
        storageDir: context.globalStorageUri.fsPath,
        pythonCandidates: () => pythonCandidates(output),
        report: progress.report,
        log: (line) => output.appendLine(line),
      });
    } finally {
      progress.done();
    }
  };
  server = new AgentServer(output, controller, settings, instruction, bundled, () => loadCredentials(context.secrets));
  const terminals = new TerminalOutputs((line) => output.appendLine(line));
  const actions = new PanelActions(controller, host);
  const chatView = new ChatViewProvider(context.extensionUri, controller, () => void server?.restart(), new MentionSource(controller, terminals), actions);
  view = chatView;

  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 100);
  const showStatus = (state: ChatState): void => {
    if (state.busy) {
      // One short line: the spinner, "Agent" and what it does now (cut, so it never pushes other items away).
      const doing = oneLine(state.progress ?? "Working…", 40);
      status.text = `$(loading~spin) Agent · ${doing}`;
      status.tooltip = `The agent is working: ${state.progress ?? "working…"}. Click to stop it.`;
      status.command = "agentLsp.cancel";
    } else {
      status.text = state.serverStatus === "failed" ? "$(warning) Agent" : "$(comment-discussion) Agent";
      const summary = sessionSummary(state);
      status.tooltip = state.serverMessage ?? (summary ? `Open the agent chat (${summary})` : "Open the agent chat");
      status.command = "agentLsp.chat.focus";
    }
    status.show();
    void vscode.commands.executeCommand("setContext", "agentLsp.busy", state.busy);
  };
  controller.onChange(showStatus);
  showStatus(controller.state);

  const codeLens: vscode.CodeLensProvider = {
    provideCodeLenses(document) {
      const top = new vscode.Range(0, 0, 0, 0);
      const args = [document.uri];
      return [
        new vscode.CodeLens(top, { title: "$(check) Accept proposal", command: "agentLsp.acceptProposal", arguments: args }),
        new vscode.CodeLens(top, { title: "$(close) Reject proposal", command: "agentLsp.rejectProposal", arguments: args }),
      ];
    },
  };

  const run = (command: string) => async (): Promise<void> => {
    const ctx = editorContext(vscode.window.activeTextEditor);
    if (ctx === undefined) {
      void vscode.window.showInformationMessage("Open a file and select some code first.");
      return;
    }
    let args: object = ctx;
    if (command === SERVER_COMMANDS.editSelection) {
      const text = await instruction();
      if (!text) {
        return;
      }
      args = { ...ctx, instruction: text };
    }
    await host.revealPanel();
    await controller.runServerCommand(command, [args]);
  };
  const uriArg = (arg: unknown): string | undefined =>
    arg instanceof vscode.Uri ? arg.toString() : vscode.window.activeTextEditor?.document.uri.toString();

  context.subscriptions.push(
    output,
    status,
    server,
    vscode.window.registerWebviewViewProvider(VIEW_ID, view, { webviewOptions: { retainContextWhenHidden: false } }),
    vscode.window.registerWebviewViewProvider(MCP_VIEW_ID, new McpViewProvider(context.extensionUri, controller)),
    vscode.workspace.registerFileSystemProvider(PROPOSAL_SCHEME, new ProposalFileSystem(store, PROPOSAL_SCHEME)),
    vscode.languages.registerCodeLensProvider({ scheme: PROPOSAL_SCHEME }, codeLens),
    ...registerPanelCommands(controller, actions, chatView, host),
    ...registerMessageCommands(controller, host),
    vscode.commands.registerCommand("agentLsp.newChat", async () => {
      await host.revealPanel();
      await controller.handleMessage({ type: "newChat" });
    }),
    vscode.commands.registerCommand("agentLsp.openChat", () => host.revealPanel()),
    vscode.commands.registerCommand("agentLsp.cancel", () => controller.cancel()),
    vscode.commands.registerCommand("agentLsp.explainSelection", run(SERVER_COMMANDS.explain)),
    vscode.commands.registerCommand("agentLsp.fixWithAgent", run(SERVER_COMMANDS.fix)),
    vscode.commands.registerCommand("agentLsp.editSelection", run(SERVER_COMMANDS.editSelection)),
    terminals,
    vscode.commands.registerCommand("agentLsp.addSelection", async () => {
      const attachment = selectionAttachment(vscode.window.activeTextEditor);
      if (attachment === undefined) {
        void vscode.window.showInformationMessage("Select some code first.");
        return;
      }
      chatView.attach(attachment);
      await host.revealPanel();
    }),
    vscode.commands.registerCommand("agentLsp.restartServer", () => server?.restart()),
    vscode.commands.registerCommand("agentLsp.showLogs", () => output.show()),
    vscode.commands.registerCommand("agentLsp.signIn", async () => {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: "Agent: signing in" },
        () =>
          signIn(
            context.secrets,
            signInPrompts,
            (c) => server?.checkCredentials(c) ?? Promise.resolve(undefined),
            process.env,
          ),
      );
      if (result.ok) {
        void vscode.window.showInformationMessage(result.message);
        await server?.restart();
      } else if (result.message) {
        void vscode.window.showErrorMessage(result.message);
      }
    }),
    vscode.commands.registerCommand("agentLsp.signOut", async () => {
      const had = await signOut(context.secrets);
      void vscode.window.showInformationMessage(
        had ? "Signed out: the key kept by VS Code was deleted." : "No sign-in was kept by VS Code.",
      );
      if (had) {
        await server?.restart();
      }
    }),
    vscode.commands.registerCommand("agentLsp.acceptProposal", (arg: unknown) => review.accept(uriArg(arg))),
    vscode.commands.registerCommand("agentLsp.rejectProposal", (arg: unknown) => review.reject(uriArg(arg))),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (["server.command", "server.args", "pythonPath"].some((k) => event.affectsConfiguration(`${CONFIG_SECTION}.${k}`))) {
        void vscode.window
          .showInformationMessage("The agent server command changed.", "Restart Server")
          .then((picked) => (picked ? server?.restart() : undefined));
      } else if (event.affectsConfiguration(CONFIG_SECTION)) {
        void server?.sendSettings();
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void server?.sendSettings()),
  );
  void server.start();
}

/** The Sign In command's questions, as VS Code quick picks and input boxes (keys typed hidden). */
const signInPrompts: SignInPrompts = {
  async kind() {
    const picked = await vscode.window.showQuickPick(
      [
        { label: "Gemini API key", description: "aistudio.google.com/apikey", provider: "gemini" as const },
        { label: "OpenAI-compatible endpoint", description: "OpenAI, Ollama, vLLM, LM Studio, OpenRouter…", provider: "openai" as const },
      ],
      { title: "Agent: Sign In", placeHolder: "What should the agent use?", ignoreFocusOut: true },
    );
    return picked?.provider;
  },
  apiKey(kind, optional) {
    return vscode.window.showInputBox({
      title: "Agent: Sign In",
      prompt: kind === "gemini" ? "Your Gemini API key" : "The endpoint's API key (leave empty if it needs none)",
      password: true,
      ignoreFocusOut: true,
      validateInput: (value) => (optional || value.trim() ? undefined : "A key is needed"),
    });
  },
  baseUrl() {
    return vscode.window.showInputBox({
      title: "Agent: Sign In",
      prompt: "The endpoint's URL (ending in /v1)",
      value: OPENAI_DEFAULT_URL,
      ignoreFocusOut: true,
      validateInput: (value) => (/^https?:\/\//.test(value.trim()) ? undefined : "An http(s) URL"),
    });
  },
  model() {
    return vscode.window.showInputBox({ title: "Agent: Sign In", prompt: "The model to use", ignoreFocusOut: true });
  },
};

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
