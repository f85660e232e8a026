"""The command line's one-shot chores: list and delete recorded sessions, resolve ``--resume``, list extensions."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from agent_lsp.store.sessions import SessionInfo, SessionStore

LATEST = "latest"


def sessions_in_order(cwd: Path) -> list[SessionInfo]:
    """This project's sessions, oldest first: the numbering Gemini CLI's --list-sessions shows."""
    store = SessionStore(cwd)
    found: list[SessionInfo] = []
    cursor: str | None = None
    while True:
        page, cursor = store.list(cursor, limit=200)
        found.extend(page)
        if cursor is None:
            return sorted(found, key=lambda s: (s.created, s.id))


def relative_time(iso: str) -> str:
    try:
        then = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    seconds = (datetime.now(UTC) - then).total_seconds()
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return "Just now"


def _title(info: SessionInfo) -> str:
    title = (info.title or "(no prompt yet)").replace("\n", " ")
    return title[:97] + "..." if len(title) > 100 else title


def list_sessions(cwd: Path) -> int:
    sessions = sessions_in_order(cwd)
    if not sessions:
        print("No previous sessions found for this project.")
        return 0
    lines = [f"\nAvailable sessions for this project ({len(sessions)}):"]
    for i, s in enumerate(sessions, 1):
        lines.append(f"  {i}. {_title(s)} ({relative_time(s.updated)}) [{s.id}]")
    print("\n".join(lines))
    return 0


def find_session(cwd: Path, identifier: str) -> tuple[int, SessionInfo] | None:
    """``latest``, a 1-based number from --list-sessions, or a session id."""
    sessions = sessions_in_order(cwd)
    if not sessions:
        return None
    ident = identifier.strip()
    if ident == LATEST:
        latest = max(sessions, key=lambda s: (s.updated, s.id))
        return sessions.index(latest) + 1, latest
    for i, s in enumerate(sessions, 1):
        if s.id == ident:
            return i, s
    if ident.isdigit() and 1 <= int(ident) <= len(sessions):
        return int(ident), sessions[int(ident) - 1]
    return None


def delete_session(cwd: Path, identifier: str) -> int:
    if not sessions_in_order(cwd):
        sys.stderr.write("No sessions found for this project.\n")
        return 0
    found = find_session(cwd, identifier) if identifier != LATEST else None
    if found is None:
        sys.stderr.write(f'Invalid session identifier "{identifier}". Use --list-sessions to see available sessions.\n')
        return 0
    index, info = found
    if not SessionStore(cwd).delete(info.id):
        sys.stderr.write(f"Failed to delete session: {info.id} could not be removed\n")
        return 0
    print(f"Deleted session {index}: {_title(info)} ({relative_time(info.updated)})")
    return 0


def extension_dirs(cwd: Path) -> list[Path]:
    from agent_lsp.config.paths import gemini_dir

    return [gemini_dir() / "extensions", cwd / ".gemini" / "extensions"]


def installed_extensions(cwd: Path) -> dict[str, str]:
    """Name → version of each Gemini CLI extension folder with a readable gemini-extension.json."""
    found: dict[str, str] = {}
    for folder in extension_dirs(cwd):
        if not folder.is_dir():
            continue
        for manifest in sorted(folder.glob("*/gemini-extension.json")):
            try:
                data = json.loads(manifest.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(data, dict) and isinstance(data.get("name"), str):
                found.setdefault(data["name"], str(data.get("version", "")))
    return found


def list_extensions(cwd: Path) -> int:
    found = installed_extensions(cwd)
    if not found:
        print("No extensions installed.")
        return 0
    print("Installed extensions:")
    for name, version in found.items():
        print(f"- {name}" + (f" (v{version})" if version else ""))
    return 0
