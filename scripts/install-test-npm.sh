#!/usr/bin/env bash
# Installs the npm packages the Python tests read (tests/npm: the ACP JSON Schema from @agentclientprotocol/sdk,
# pinned in its lockfile). Idempotent: a stamp holds the lockfile's hash, so a second run exits at once.
set -euo pipefail
dir="$(cd "$(dirname "$0")/../tests/npm" && pwd)"
say() { echo "install-test-npm: $*"; }

if ! command -v npm >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
        say "apt-get install nodejs npm"
        export DEBIAN_FRONTEND=noninteractive
        $SUDO apt-get update -qq
        $SUDO apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
    else
        say "npm is missing: install Node.js (it brings npm), then run this again"
        exit 1
    fi
fi

hash_of() { python3 -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$1" 2>/dev/null \
    || python -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$1"; }
want="$(hash_of "$dir/package-lock.json")"
stamp="$dir/node_modules/.agent-stamp"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    exit 0
fi
say "npm ci (tests/npm: @agentclientprotocol/sdk, for the ACP schema)"
(cd "$dir" && npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false \
    npm ci --no-progress --loglevel=error)
echo "$want" > "$stamp"
