// The page every webview of the extension starts from: a strict CSP with a nonce, the codicons, chat.css and one script.

import * as crypto from "node:crypto";
import * as vscode from "vscode";

export function webviewHtml(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  page: { script: string; title: string; bodyClass?: string; images?: boolean },
): string {
  const nonce = crypto.randomBytes(16).toString("base64");
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "dist", page.script));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "media", "chat.css"));
  const icons = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "dist", "codicon.css"));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    ...(page.images ? [`img-src ${webview.cspSource} data:`] : []),
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${icons.toString()}">
<link rel="stylesheet" href="${style.toString()}">
<title>${page.title}</title>
</head>
<body${page.bodyClass ? ` class="${page.bodyClass}"` : ""}>
<div id="app"></div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}
