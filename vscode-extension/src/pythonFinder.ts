// Which Python builds the bundled server's venv: the Python extension's selected interpreter, then python3 on PATH.

import * as vscode from "vscode";

interface PythonEnvironmentsApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    resolveEnvironment(env: { path: string } | string): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  };
}

const PATH_CANDIDATES =
  process.platform === "win32" ? ["python3", "python", "py"] : ["python3", "python3.13", "python3.12", "python3.11", "python"];

/** The interpreter the Python extension has selected for the first folder, if it is installed and answers. */
async function pythonExtensionInterpreter(output: vscode.OutputChannel): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension<PythonEnvironmentsApi>("ms-python.python");
  if (ext === undefined) {
    return undefined;
  }
  try {
    const api = ext.isActive ? ext.exports : await ext.activate();
    const environments = api?.environments;
    if (environments === undefined) {
      return undefined;
    }
    const active = environments.getActiveEnvironmentPath(vscode.workspace.workspaceFolders?.[0]?.uri);
    if (active === undefined) {
      return undefined;
    }
    const resolved = await environments.resolveEnvironment(active);
    return resolved?.executable?.uri?.fsPath ?? active.path;
  } catch (err) {
    output.appendLine(`The Python extension did not name an interpreter: ${String(err)}`);
    return undefined;
  }
}

/**
 * Candidates, best first. In an untrusted workspace the Python extension's choice is skipped: a workspace's
 * settings can select it, and an untrusted workspace must not choose a program the extension runs.
 */
export async function pythonCandidates(output: vscode.OutputChannel): Promise<string[]> {
  const out: string[] = [];
  if (vscode.workspace.isTrusted) {
    const selected = await pythonExtensionInterpreter(output);
    if (selected) {
      out.push(selected);
    }
  }
  return [...out, ...PATH_CANDIDATES];
}
