#!/usr/bin/env bash
# Installs what the Eglot tests need from Debian: Emacs 30 (built-in Eglot) without X, and tmux to type into it. Bookworm's own Emacs is 28
# (no built-in Eglot), so Emacs comes from bookworm-backports, whose source line is added when apt lacks it. A newer
# Debian has Emacs >= 30 in its main suite and gets it from there. Idempotent: returns at once when emacs >= 30 runs.
set -euo pipefail

say() { echo "install-emacs: $*"; }

emacs_major() { emacs --batch --eval '(princ emacs-major-version)' 2>/dev/null || echo 0; }

if command -v emacs >/dev/null 2>&1 && [ "$(emacs_major)" -ge 30 ] && command -v tmux >/dev/null 2>&1; then
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive

codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
target=()
if [ "$codename" = bookworm ]; then
    if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
        say "adding Debian's bookworm-backports source (Emacs 30)"
        echo "deb http://deb.debian.org/debian bookworm-backports main" \
            | $SUDO tee /etc/apt/sources.list.d/bookworm-backports.list >/dev/null
    fi
    target=(-t bookworm-backports)
fi
$SUDO apt-get update -qq
say "apt-get install ${target[*]} emacs-nox tmux"
$SUDO apt-get install -y -qq --no-install-recommends "${target[@]}" emacs-nox tmux >/dev/null
major=$(emacs_major)
if [ "$major" -lt 30 ]; then
    say "emacs $major was installed; the Eglot tests need Emacs 30 (built-in Eglot)" >&2
    exit 1
fi
say "$(emacs --version | head -n1)"
