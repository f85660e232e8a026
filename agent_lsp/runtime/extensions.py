"""Builder: the extensions active in a folder (or named with -e), and how /extensions describes them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lsp import events as ev

if TYPE_CHECKING:
    from agent_lsp.extensions.manifest import Manifest


def active_extensions(cwd: Path, only: Sequence[str] | None, notices: list[ev.Notice]) -> list[Manifest]:
    """The extensions enabled for this folder (or named with -e); broken ones become notices."""
    from agent_lsp.extensions.store import active

    manifests, problems = active(cwd, only)
    notices.extend(ev.Notice("error", problem) for problem in problems)
    return manifests


def describe_extensions(extensions: Sequence[Manifest], trusted: bool) -> str:
    if not extensions:
        return "No extensions are active here. Install one with `agent-lsp extensions install <path>`."
    lines = ["Active extensions:"]
    for m in extensions:
        servers = f"; MCP servers: {', '.join(m.mcp_servers)}" if m.mcp_servers else ""
        if servers and not trusted:
            servers += " (not started: folder not trusted)"
        lines.append(f"- `{m.name}` {m.version}: {m.description or '(no description)'}{servers}")
    return "\n".join(lines)
