#!/usr/bin/env bash
# Installs the real language servers the code-intelligence tests and bench run into .deps/language-servers
# (git-ignored), from the manifests in tests/code_intel/third_party: basedpyright and jedi-language-server from PyPI in
# a virtual environment of their own (.deps/language-servers/py/bin/), typescript-language-server and typescript from
# npm (.deps/language-servers/node_modules/.bin/). typescript-language-server 5.3 is the newest that runs on Node 20,
# and typescript 5.9 still ships the tsserver it drives (7.x is the native port without it).
# Idempotent: stamps hold each manifest's hash, so a second run exits at once.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
manifests="$root/tests/code_intel/third_party"
mkdir -p "$root/.deps/language-servers"
cd "$root/.deps/language-servers"
cp "$manifests/package.json" "$manifests/package-lock.json" "$manifests/requirements.txt" .
say() { echo "install-language-servers: $*"; }
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
    say "npm ci (typescript-language-server, typescript)"
    npm ci --no-progress --loglevel=error
    echo "$npm_hash" > node_modules/.agent-stamp
fi

py_hash=$(sha256sum requirements.txt | cut -d' ' -f1)
if [ "$(cat py/.agent-stamp 2>/dev/null)" != "$py_hash" ]; then
    say "pip install basedpyright jedi-language-server (own venv)"
    "${PYTHON:-python3}" -m venv py
    py/bin/python -m pip install --quiet -r requirements.txt
    echo "$py_hash" > py/.agent-stamp
fi
say "ready"
