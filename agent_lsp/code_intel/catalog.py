"""Which language server serves which files: the user's ``lspServers`` settings, else well-known servers on PATH.

Only the user's own settings name a program (a repository could otherwise make us run one of its choosing);
with nothing configured for a language, the first well-known server found on PATH serves it. For Python a type
checker's server (basedpyright, pyright) comes before the others: its diagnostics are the useful ones after an edit.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_lsp.child_env import ChildEnv
from agent_lsp.core.code_intel import OPERATIONS, Operation
from agent_lsp.tools.file_utils import glob_match


@dataclass(frozen=True)
class ServerSpec:
    """One language server: how to start it and which files it serves."""

    language: str
    command: str  # a resolved executable
    args: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()  # globs on the file name ("*.py") or its workspace-relative path
    initialization_options: Mapping[str, Any] | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    # What the server answers, when known beforehand (well-known servers); None: unknown until it starts.
    operations: tuple[Operation, ...] | None = None
    rename: bool = True

    @property
    def name(self) -> str:
        return Path(self.command).name

    def matches(self, path: Path) -> bool:
        return any(glob_match(p, path.name) for p in self.patterns)


_PY = ("*.py", "*.pyi")
_TS = ("*.ts", "*.tsx", "*.mts", "*.cts", "*.js", "*.jsx", "*.mjs", "*.cjs")
_C = ("*.c", "*.h", "*.cc", "*.cpp", "*.cxx", "*.hpp", "*.hh", "*.hxx")
_NO_CALLS = tuple(op for op in OPERATIONS if op not in ("goToImplementation", "incomingCalls", "outgoingCalls"))
_NO_IMPL = tuple(op for op in OPERATIONS if op != "goToImplementation")

# (language, executable, args, patterns, operations) in order of preference within a language. The operations are
# what each server's initialize answer offers (tests/code_intel checks them against the real servers installed).
WELL_KNOWN: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...], tuple[Operation, ...]], ...] = (
    ("python", "basedpyright-langserver", ("--stdio",), _PY, OPERATIONS),
    ("python", "pyright-langserver", ("--stdio",), _PY, _NO_IMPL),
    ("python", "pylsp", (), _PY, _NO_CALLS),
    ("python", "jedi-language-server", (), _PY, _NO_CALLS),
    ("typescript", "typescript-language-server", ("--stdio",), _TS, OPERATIONS),
    ("go", "gopls", (), ("*.go",), OPERATIONS),
    ("rust", "rust-analyzer", (), ("*.rs",), OPERATIONS),
    ("c", "clangd", (), _C, OPERATIONS),
)
_LANGUAGE_IDS = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascriptreact",
    ".go": "go",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
}


def language_id(path: Path, fallback: str) -> str:
    """The LSP languageId of a file (didOpen needs it)."""
    suffix = path.suffix.lower()
    if suffix in _LANGUAGE_IDS:
        return _LANGUAGE_IDS[suffix]
    return "cpp" if fallback == "c" and suffix in (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx") else fallback


def _which(command: str, path_env: str | None) -> str | None:
    return shutil.which(command, path=path_env) if path_env is not None else shutil.which(command)


def discovered(path_env: str | None) -> list[ServerSpec]:
    """The preferred well-known server of each language that is on PATH."""
    found: dict[str, ServerSpec] = {}
    for language, command, args, patterns, ops in WELL_KNOWN:
        if language in found:
            continue
        exe = _which(command, path_env)
        if exe is not None:
            found[language] = ServerSpec(language, exe, args, patterns, operations=ops)
    return list(found.values())


def configured(raw: Mapping[str, Any], path_env: str | None, problems: list[str]) -> tuple[list[ServerSpec], set[str]]:
    """The ``lspServers`` entries as specs, and the languages switched off (``"disabled": true``)."""
    specs: list[ServerSpec] = []
    off: set[str] = set()
    for language, entry in raw.items():
        if entry.disabled:
            off.add(language)
            continue
        exe = _which(entry.command, path_env) if entry.command else None
        if exe is None:
            problems.append(f"lspServers.{language}: {entry.command!r} was not found; no server for {language}")
            continue
        known = next((w for w in WELL_KNOWN if w[1] == Path(exe).name), None)
        patterns = tuple(entry.file_patterns) or (known[3] if known else ())
        if not patterns:
            problems.append(f"lspServers.{language}: filePatterns is empty and {entry.command!r} is not a known server")
            continue
        specs.append(
            ServerSpec(
                language,
                exe,
                tuple(entry.args),
                patterns,
                entry.initialization_options,
                dict(entry.env),
                operations=known[4] if known and not entry.args else None,
            )
        )
    return specs, off


def server_specs(
    raw: Mapping[str, Any], *, discover: bool, path_env: str | None, problems: list[str]
) -> list[ServerSpec]:
    """Configured servers first, then (``discover``) a well-known one for each language left."""
    specs, off = configured(raw, path_env, problems)
    if discover:
        taken = {s.language for s in specs} | off
        specs += [s for s in discovered(path_env) if s.language not in taken]
    return specs


def spec_for(specs: Sequence[ServerSpec], path: Path) -> ServerSpec | None:
    return next((s for s in specs if s.matches(path)), None)


def server_env(env: Mapping[str, str], extra: Mapping[str, str], child_env: ChildEnv | None = None) -> dict[str, str]:
    """The environment a language server runs with: as an MCP server's (child_env.py: fully redacted, never the
    agent's credentials), its own ``env`` on top."""
    return (child_env or ChildEnv()).for_server(extra, base=env)


def default_path_env() -> str | None:
    return os.environ.get("PATH")
