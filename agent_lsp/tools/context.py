"""ToolContext: the slice of the runtime that built-in tools are constructed with."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lsp.child_env import ChildEnv
from agent_lsp.tools.background import BackgroundProcesses
from agent_lsp.workspace.filesystem import FileSystem
from agent_lsp.workspace.roots import Workspace

if TYPE_CHECKING:
    from agent_lsp.core.code_intel import CodeIntel
    from agent_lsp.model.base import ModelClient


@dataclass
class ToolContext:
    workspace: Workspace
    fs: FileSystem
    temp_dir: Path  # where truncated outputs are saved in full
    model: ModelClient | None = None  # for google_web_search (grounding) and web_fetch
    model_name: str = "gemini-2.5-flash"
    respect_git_ignore: bool = True
    respect_gemini_ignore: bool = True
    shell_inactivity_timeout_s: float = 300.0
    web_fetch_allow_private: bool = False
    global_memory_file: Path = field(default_factory=lambda: Path.home() / ".gemini" / "GEMINI.md")
    memory_file_name: str = "GEMINI.md"
    # The session's code intelligence (the editor's, an ACP client's or our own language servers); None: no source,
    # and the lsp and rename_symbol tools are not offered.
    code_intel: CodeIntel | None = None
    # What the commands the tools start inherit (never the agent's credentials; security.environmentVariableRedaction).
    child_env: ChildEnv = field(default_factory=ChildEnv)
    # The session's is_background commands (their logs in temp_dir); stopped when the session ends.
    processes: BackgroundProcesses = field(init=False)

    def __post_init__(self) -> None:
        self.processes = BackgroundProcesses(self.temp_dir / "background", self.child_env)
