"""Builder: a session's code intelligence — the editor's (given by the adapter), else the process's language servers
— and the diagnostics-after-edit check over it. The servers are one pool per event loop (the process has one; each
test has its own), started lazily and stopped by ``close_language_servers`` when the front end ends."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING

from agent_lsp import events as ev

if TYPE_CHECKING:
    from agent_lsp.child_env import ChildEnv
    from agent_lsp.code_intel.pool import ServerPool
    from agent_lsp.config.settings import Settings
    from agent_lsp.core.code_intel import CodeIntel
    from agent_lsp.core.edit_checks import EditChecks
    from agent_lsp.runtime.options import SessionSetup
    from agent_lsp.workspace.filesystem import FileSystem
    from agent_lsp.workspace.roots import Workspace

# The pool is made lazily on a worker thread (the session's second step) and used on the loop: keyed by the
# loop that will run it, which the adapter names when it builds the session.
_POOLS: dict[asyncio.AbstractEventLoop, ServerPool] = {}


def server_pool(loop: asyncio.AbstractEventLoop, env: Mapping[str, str]) -> ServerPool:
    """The loop's pool of language servers (made, not started, on first use)."""
    from agent_lsp.code_intel.pool import ServerPool

    pool = _POOLS.get(loop)
    if pool is None:
        pool = _POOLS[loop] = ServerPool(env)
    return pool


async def close_language_servers() -> None:
    """Stop the language servers of the running loop (front ends call this as they end; nothing if none ran)."""
    pool = _POOLS.pop(asyncio.get_running_loop(), None)
    if pool is not None:
        await pool.aclose()


def build_code_intel(
    *,
    setup: SessionSetup,
    settings: Settings,
    trusted: bool,
    env: Mapping[str, str],
    workspace: Workspace,
    fs: FileSystem,
    loop: asyncio.AbstractEventLoop | None,
    notices: list[ev.Notice],
    child_env: ChildEnv | None = None,
) -> CodeIntel | None:
    """The editor's code intelligence when it offers one; else, in a trusted folder, language servers from the
    user's ``lspServers`` or found on PATH; None when code intelligence is off or nothing serves any language."""
    if not settings.code_intelligence.enabled:
        return None
    if setup.code_intel is not None:
        return setup.code_intel
    if not trusted or loop is None:
        return None  # a repository we do not trust could name the program through PATH or its own files
    from agent_lsp.code_intel.catalog import server_specs
    from agent_lsp.code_intel.session import PoolCodeIntel
    from agent_lsp.config.loader import read_user_settings

    user = read_user_settings(env)  # lspServers and the discovery switch name programs: never a workspace's choice
    problems: list[str] = []
    specs = server_specs(
        user.lsp_servers,
        discover=user.code_intelligence.discover_servers,
        path_env=env.get("PATH"),
        problems=problems,
    )
    notices.extend(ev.Notice("warning", problem) for problem in problems)
    if not specs:
        return None
    return PoolCodeIntel(server_pool(loop, env), specs, lambda: workspace.roots, fs.read_text, child_env)


def build_edit_checks(intel: CodeIntel | None, settings: Settings, workspace: Workspace) -> EditChecks | None:
    """Diagnostics after each edit, unless switched off (``codeIntelligence.diagnosticsAfterEdit``)."""
    if intel is None or not settings.code_intelligence.diagnostics_after_edit:
        return None
    from agent_lsp.core.edit_checks import EditChecks

    return EditChecks(intel, workspace.relative, settings.code_intelligence.diagnostics_wait_ms / 1000)
