// Pure helpers over the LSP workspace edits the agent sends.

import type { WorkspaceEdit } from "vscode-languageserver-protocol";

/** The edit without `needsConfirmation` on its change annotations: the user reviewed it before it was sent. */
export function stripConfirmation(edit: WorkspaceEdit): WorkspaceEdit {
  if (edit.changeAnnotations === undefined) {
    return edit;
  }
  const annotations: NonNullable<WorkspaceEdit["changeAnnotations"]> = {};
  for (const [id, annotation] of Object.entries(edit.changeAnnotations)) {
    annotations[id] = { ...annotation, needsConfirmation: false };
  }
  return { ...edit, changeAnnotations: annotations };
}
