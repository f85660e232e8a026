// VS Code's answers as the plain LSP shapes agent/codeIntel returns (locations, hovers, symbols, a rename's edit),
// through vscode-languageclient's converter (moved out of codeIntel.ts, which stays under the class size limit).

import type * as vscode from "vscode";
import type * as lsp from "vscode-languageclient";
import type { Code2ProtocolConverter } from "vscode-languageclient";

type Located = vscode.Location | vscode.LocationLink;

/** Locations as LSP has them: LocationLink[] when every answer is a link and links are wanted, else Location[]. */
export function locations(c2p: Code2ProtocolConverter, found: Located[] | undefined, links: boolean): lsp.Location[] | lsp.LocationLink[] | null {
  if (found === undefined) {
    return null;
  }
  const isLink = (l: Located): l is vscode.LocationLink => "targetUri" in l;
  if (links && found.length > 0 && found.every(isLink)) {
    return found.map((l) => {
      const link: lsp.LocationLink = {
        targetUri: c2p.asUri(l.targetUri),
        targetRange: c2p.asRange(l.targetRange),
        targetSelectionRange: c2p.asRange(l.targetSelectionRange ?? l.targetRange),
      };
      if (l.originSelectionRange) {
        link.originSelectionRange = c2p.asRange(l.originSelectionRange);
      }
      return link;
    });
  }
  return found.map((l) =>
    isLink(l)
      ? { uri: c2p.asUri(l.targetUri), range: c2p.asRange(l.targetSelectionRange ?? l.targetRange) }
      : c2p.asLocation(l),
  );
}

/** Every provider's hover as one markdown Hover. */
export function hover(c2p: Code2ProtocolConverter, hovers: vscode.Hover[] | undefined): lsp.Hover | null {
  const parts: string[] = [];
  let range: vscode.Range | undefined;
  for (const hover of hovers ?? []) {
    range ??= hover.range;
    for (const c of hover.contents) {
      const text = typeof c === "string" ? c : "language" in c ? "```" + c.language + "\n" + c.value + "\n```" : c.value;
      if (text.trim() !== "") {
        parts.push(text);
      }
    }
  }
  if (parts.length === 0) {
    return null;
  }
  const result: lsp.Hover = { contents: { kind: "markdown", value: parts.join("\n\n---\n\n") } };
  if (range) {
    result.range = c2p.asRange(range);
  }
  return result;
}

/** VS Code's document symbols are DocumentSymbols (with children) when the provider gave a tree. */
export function symbols(c2p: Code2ProtocolConverter, found: (vscode.SymbolInformation | vscode.DocumentSymbol)[] | undefined): lsp.DocumentSymbol[] | lsp.SymbolInformation[] | null {
  if (found === undefined) {
    return null;
  }
  const isTree = (s: vscode.SymbolInformation | vscode.DocumentSymbol): s is vscode.DocumentSymbol =>
    "selectionRange" in s && "children" in s;
  if (found.every(isTree)) {
    return found.map((s) => documentSymbol(c2p, s));
  }
  return found.map((s) => c2p.asWorkspaceSymbol(s as vscode.SymbolInformation) as lsp.SymbolInformation);
}

function documentSymbol(c2p: Code2ProtocolConverter, s: vscode.DocumentSymbol): lsp.DocumentSymbol {
  const out: lsp.DocumentSymbol = {
    name: s.name,
    kind: c2p.asSymbolKind(s.kind),
    range: c2p.asRange(s.range),
    selectionRange: c2p.asRange(s.selectionRange),
    children: (s.children ?? []).map((child) => documentSymbol(c2p, child)),
  };
  if (s.detail) {
    out.detail = s.detail;
  }
  if (s.tags && s.tags.length > 0) {
    out.tags = c2p.asSymbolTags(s.tags);
  }
  return out;
}

/** A rename's edit as LSP `changes` (a rename provider's edit is text edits; entries() holds them). */
export function workspaceEdit(c2p: Code2ProtocolConverter, edit: vscode.WorkspaceEdit): lsp.WorkspaceEdit {
  const changes: Record<string, lsp.TextEdit[]> = {};
  for (const [uri, edits] of edit.entries()) {
    const key = c2p.asUri(uri);
    changes[key] = [...(changes[key] ?? []), ...edits.map((e) => c2p.asTextEdit(e as vscode.TextEdit))];
  }
  return { changes };
}
