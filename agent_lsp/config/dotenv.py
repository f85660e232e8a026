"""Loads .env files (workspace, then home) into an environment mapping without overwriting what is set."""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, MutableMapping, Sequence
from pathlib import Path

from agent_lsp.config import paths

log = logging.getLogger(__name__)

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\", "$": "$"}


def parse_dotenv(text: str) -> dict[str, str]:
    """KEY=VALUE lines: optional ``export``, # comments, '…' literal, "…" with escapes (may span lines).

    Malformed lines are skipped; their content is never logged because it may be a secret."""
    result: dict[str, str] = {}
    lines = text.lstrip("\ufeff").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if not line or line.startswith("#"):
            continue
        if line.startswith("export ") or line.startswith("export\t"):
            line = line[7:].lstrip()
        key, sep, rest = line.partition("=")
        key = key.strip()
        if not sep or not _KEY.fullmatch(key):
            log.debug(".env: skipped a line that is not KEY=VALUE (line %d)", i)
            continue
        rest = rest.lstrip()
        if rest[:1] in ("'", '"'):
            quote = rest[0]
            body = rest[1:]
            resume = i
            # A quoted value may continue on following lines until its closing quote.
            while _closing_quote(body, quote) < 0 and i < len(lines):
                body += "\n" + lines[i]
                i += 1
            end = _closing_quote(body, quote)
            if end < 0:
                log.debug(".env: unterminated quote for %s; skipped that line", key)
                i = resume
                continue
            value = body[:end]
            result[key] = _unescape(value) if quote == '"' else value
        else:
            # Unquoted: a # starts a comment only after whitespace, so URLs with fragments survive.
            hash_at = re.search(r"\s#", rest)
            result[key] = (rest[: hash_at.start()] if hash_at else rest).strip()
    return result


def _closing_quote(body: str, quote: str) -> int:
    i = 0
    while i < len(body):
        if quote == '"' and body[i] == "\\":
            i += 2
            continue
        if body[i] == quote:
            return i
        i += 1
    return -1


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), "\\" + m.group(1)), value)


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == r or r in path.parents for r in roots)


def env_file_candidates(workspace_roots: Sequence[Path], *, trusted: bool) -> list[tuple[Path, bool]]:
    """Files to load in order, each with whether it is project-owned (subject to the excluded variables)."""
    roots = [Path(r).expanduser().resolve() for r in workspace_roots]
    home = paths.home().expanduser().resolve()
    found: list[tuple[Path, bool]] = []
    if trusted:
        found.extend((root / ".gemini" / ".env", False) for root in roots)
    if roots:
        # Nearest .env above the primary root, stopping short of home (home's own .env comes last).
        current = roots[0]
        while True:
            if current == home:
                break
            candidate = current / ".env"
            if candidate.is_file():
                if not _inside(current, roots) or trusted:
                    found.append((candidate, True))
                    break
                log.info("workspace is not trusted; ignoring %s", candidate)
            if current.parent == current:
                break
            current = current.parent
    found.append((paths.gemini_dir() / ".env", False))
    found.append((home / ".env", False))
    return found


def load_env_files(
    workspace_roots: Sequence[Path],
    *,
    trusted: bool,
    env: MutableMapping[str, str],
    excluded_project_vars: Collection[str] = ("DEBUG", "DEBUG_MODE"),
) -> list[Path]:
    """Set variables from .env files into ``env`` (first file wins, existing variables are never replaced):
    ``<root>/.gemini/.env`` (trusted only), the nearest ``.env`` from the primary root upwards (trusted only
    when inside the workspace), ``~/.gemini/.env``, ``~/.env``. Returns the files read.

    ``excluded_project_vars`` (settings advanced.excludedEnvVars) are not taken from the walked-up ``.env``,
    which usually belongs to the project rather than to agent-lsp."""
    loaded: list[Path] = []
    seen: set[Path] = set()
    for path, project_owned in env_file_candidates(workspace_roots, trusted=trusted):
        real = path.resolve()
        if real in seen or not path.is_file():
            continue
        seen.add(real)
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            log.warning("cannot read %s: %s", path, exc.__class__.__name__)
            continue
        values = parse_dotenv(text)
        added = 0
        for key, value in values.items():
            if project_owned and key in excluded_project_vars:
                continue
            if key not in env:
                env[key] = value
                added += 1
        loaded.append(path)
        log.debug("loaded %d new variables from %s", added, path)
    return loaded
