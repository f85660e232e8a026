// Bundles the extension (Node, CommonJS, `vscode` external) and the chat and MCP webviews (browser IIFE) with esbuild.
import * as fs from "node:fs";
import * as esbuild from "esbuild";

// The codicon font and its stylesheet go beside the bundles: the webviews load them from dist/ (webviewHtml.ts).
fs.mkdirSync("dist", { recursive: true });
for (const file of ["codicon.css", "codicon.ttf"]) {
  fs.copyFileSync(`node_modules/@vscode/codicons/dist/${file}`, `dist/${file}`);
}

const production = process.argv.includes("--production");
const common = { bundle: true, minify: production, sourcemap: !production, logLevel: "warning" };

await Promise.all([
  esbuild.build({
    ...common,
    entryPoints: ["src/extension.ts"],
    outfile: "dist/extension.js",
    platform: "node",
    format: "cjs",
    target: "node20",
    external: ["vscode"],
  }),
  esbuild.build({
    ...common,
    entryPoints: ["src/webview/mcp.ts"],
    outfile: "dist/mcp.js",
    platform: "browser",
    format: "iife",
    target: "es2022",
  }),
  esbuild.build({
    ...common,
    entryPoints: ["src/webview/main.ts"],
    outfile: "dist/webview.js",
    platform: "browser",
    format: "iife",
    target: "es2022",
  }),
]);
