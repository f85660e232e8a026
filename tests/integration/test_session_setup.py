"""What an adapter contributes goes in through SessionSetup at construction: its notice sink and the tools the
editor provides instead of built-ins (nothing is patched into a session afterwards)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agent_lsp import events as ev
from agent_lsp.core.ports import AutoConfirmer
from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup
from agent_lsp.tools.shell import SHELL_TOOL_NAME, ShellTool


class EditorShell(ShellTool):
    """A shell tool the editor would run (a subclass, so it keeps the built-in's contract)."""


async def test_setup_carries_notice_sink_and_tool_replacements(tmp_path: Path, _private_home: Path) -> None:
    script = tmp_path / "none.jsonl"
    script.write_text("")
    runtime = Runtime(RuntimeOptions(fake_responses=script, env={**os.environ, "AGENT_LSP_TRUST_WORKSPACE": "true"}))
    seen: list[ev.Notice] = []
    contexts: list[Any] = []

    def shell(ctx: Any) -> EditorShell:
        contexts.append(ctx)
        return EditorShell(ctx)

    setup = SessionSetup(
        cwd=tmp_path,
        confirmer=AutoConfirmer(),
        record=False,
        notice_sink=seen.append,
        replace_tools={SHELL_TOOL_NAME: shell},
    )
    handle = await runtime.create_session(setup)
    try:
        tool = handle.session.registry.get(SHELL_TOOL_NAME)
        assert isinstance(tool, EditorShell) and contexts and tool.ctx is contexts[0]
        handle.notify(ev.Notice("warning", "late MCP failure"))
        assert seen == [ev.Notice("warning", "late MCP failure")]
    finally:
        await handle.aclose()
