# agent-lsp — two commands for a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-deps install lint typecheck bench clean wheel vsix

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip uninstall --quiet --yes agent-lsp 2>/dev/null || true; rm -rf agent_lsp.egg-info  # the name before agent-lsp-server
	$(PY) -m pip install --quiet -e '.[dev]' --config-settings editable_mode=compat
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/agent-lsp demo

lint: $(STAMP)
	$(VENV)/bin/ruff check agent_lsp tests bench
	$(VENV)/bin/ruff format --check agent_lsp tests bench

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# Editor toolchains for the editor tests: luacheck (Debian), Emacs 30 + tmux (Debian, bookworm-backports),
# Chromium + Node 24 + code-server 4.139 (npm); the ACP schema (npm, tests/npm); the third-party MCP servers the
# MCP tests run (npm and PyPI, into .deps/mcp-servers from tests/mcp/third_party's manifests); the language servers the
# code-intelligence tests run (basedpyright, jedi-language-server, typescript-language-server into .deps/language-servers
# from tests/code_intel/third_party's manifests). The scripts are idempotent and return at once when everything is in place.
test-deps: $(STAMP)
	bash scripts/install-lua-tools.sh
	bash scripts/install-emacs.sh
	bash scripts/install-vscode-deps.sh
	bash scripts/install-test-npm.sh
	bash scripts/install-mcp-servers.sh
	bash scripts/install-language-servers.sh

test: $(STAMP) test-deps
	$(VENV)/bin/ruff check agent_lsp tests bench
	$(VENV)/bin/mypy
	$(PY) -m pytest -q -p no:cacheprovider

# The server as a wheel in dist/ (what `uv tool install .` / `pipx install .` build too).
wheel:
	$(PYTHON) -m pip wheel --no-deps --quiet --wheel-dir dist .

# The VS Code extension with the server's wheel inside: vscode-extension/agent-lsp.vsix. `vsce package` runs the
# extension's vscode:prepublish (esbuild bundle + scripts/bundle-server.mjs, which builds the wheel with
# AGENT_LSP_PYTHON, or copies AGENT_LSP_WHEEL when that names a wheel already built).
vsix:
	cd vscode-extension && { [ -x node_modules/.bin/vsce ] || npm ci; } && \
	  AGENT_LSP_PYTHON="$(if $(wildcard $(PY)),$(abspath $(PY)),$(PYTHON))" npx --no-install vsce package --no-dependencies --out agent-lsp.vsix

bench: $(STAMP)
	for b in bench/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache vscode-extension/server vscode-extension/agent-lsp.vsix
