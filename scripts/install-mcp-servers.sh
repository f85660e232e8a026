#!/usr/bin/env bash
# Installs the third-party MCP servers the MCP tests run against into .deps/mcp-servers (git-ignored, and outside
# tests/ so that no installed package's text passes for ours), from the manifests in tests/mcp/third_party: the npm
# reference servers (server-everything: stdio, SSE, streamable HTTP; server-filesystem) with `npm ci`, and PyPI's
# mcp-server-git and mcp-server-time in a virtual environment of their own (they pin their own `mcp`).
# Idempotent: stamps hold each lockfile's hash, so a second run exits at once.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
manifests="$root/tests/mcp/third_party"
mkdir -p "$root/.deps/mcp-servers"
cd "$root/.deps/mcp-servers"
cp "$manifests/package.json" "$manifests/package-lock.json" "$manifests/requirements.txt" .
say() { echo "install-mcp-servers: $*"; }
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

if ! command -v npm >/dev/null 2>&1; then
    if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
    say "apt-get install nodejs npm"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi

npm_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.agent-stamp 2>/dev/null)" != "$npm_hash" ]; then
    say "npm ci (@modelcontextprotocol/server-everything, server-filesystem)"
    npm ci --no-progress --loglevel=error
    echo "$npm_hash" > node_modules/.agent-stamp
fi

py_hash=$(sha256sum requirements.txt | cut -d' ' -f1)
if [ "$(cat .venv/.agent-stamp 2>/dev/null)" != "$py_hash" ]; then
    say "pip install mcp-server-git mcp-server-time (own venv)"
    "${PYTHON:-python3}" -m venv .venv
    .venv/bin/python -m pip install --quiet -r requirements.txt
    echo "$py_hash" > .venv/.agent-stamp
fi
say "ready"
