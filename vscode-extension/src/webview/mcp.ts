// The MCP view's page: draws what the extension sends (renderMcpView) and posts Restart, Refresh and Open log.

import { type McpViewState, renderMcpView } from "./mcpRender";

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const app = document.getElementById("app") as HTMLElement;
/** Which servers the user opened, kept across redraws. */
const opened = new Map<string, boolean>();

window.addEventListener("message", (event: MessageEvent<{ type: string; view: McpViewState }>) => {
  if (event.data?.type !== "view") {
    return;
  }
  for (const node of Array.from(app.querySelectorAll<HTMLDetailsElement>("details[data-server]"))) {
    opened.set(node.dataset.server ?? "", node.open);
  }
  app.innerHTML = renderMcpView(event.data.view);
  for (const node of Array.from(app.querySelectorAll<HTMLDetailsElement>("details[data-server]"))) {
    const was = opened.get(node.dataset.server ?? "");
    if (was !== undefined) {
      node.open = was;
    }
  }
});

document.addEventListener("click", (event) => {
  const target = (event.target as HTMLElement).closest<HTMLElement>("[data-restart],[data-refresh],[data-log]");
  if (target === null) {
    return;
  }
  event.preventDefault();
  if (target.dataset.restart !== undefined) {
    vscode.postMessage({ type: "restart", server: target.dataset.restart });
  } else if (target.dataset.log !== undefined) {
    vscode.postMessage({ type: "openLog", path: target.dataset.log });
  } else {
    vscode.postMessage({ type: "refresh" });
  }
});
vscode.postMessage({ type: "ready" });
