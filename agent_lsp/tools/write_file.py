"""write_file: create a file or replace its whole content, after the user has seen the diff."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_lsp.tools.base import ContextTool, ToolInvocation
from agent_lsp.tools.diffing import FileEditInvocation
from agent_lsp.tools.file_utils import find_omission_placeholder, path_problem, placeholder_message, resolve
from agent_lsp.tools.line_endings import restore_endings, to_lf
from agent_lsp.workspace.filesystem import read_disk_text


@dataclass(frozen=True)
class WriteFileParams:
    path: Path
    content: str


class WriteFileTool(ContextTool):
    name = "write_file"
    display_name = "WriteFile"
    kind = "edit"
    description = (
        "Writes the complete content of one file, creating it (and missing parent folders) or replacing what is "
        "there. The user is normally shown a diff and may approve, change or refuse it. Always give the full "
        "final text: placeholders such as '// ... rest of the code ...' are refused because they would replace "
        "real code. For a targeted change in an existing file prefer replace. An existing file keeps its encoding "
        "and line endings (LF, CRLF or mixed)."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "file_path": {
                "type": "string",
                "description": "The file to write: an absolute path, or a path relative to the workspace root.",
            },
            "content": {"type": "string", "description": "The complete new content of the file."},
        },
        "required": ["file_path", "content"],
    }

    def check(self, params: dict[str, Any]) -> str | None:
        problem = path_problem(self.ctx, params["file_path"])
        if problem:
            return problem
        path = resolve(self.ctx, params["file_path"])
        if path.is_dir():
            return f"{params['file_path']} is a directory, not a file."
        placeholder = find_omission_placeholder(params["content"], None)
        if placeholder is not None:
            placeholder = find_omission_placeholder(params["content"], _disk_text(path))
        if placeholder is not None:
            return placeholder_message(placeholder, "content")
        return None

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        path = resolve(self.ctx, params["file_path"])
        return WriteFileInvocation(self.ctx, WriteFileParams(path, params["content"]), path)


def _disk_text(path: Path) -> str | None:
    """The file's current text on disk, only to let a placeholder-like line that is already there pass."""
    try:
        return read_disk_text(path)
    except OSError:
        return None


class WriteFileInvocation(FileEditInvocation[WriteFileParams]):
    verb = "Write"

    def describe(self) -> str:
        return f"Write {self.shown_path}"

    def propose(self, current: str | None) -> str:
        content = self.params.content
        if current is None:
            return content
        # Models write LF; lines that stay keep their own ending (CRLF, LF or a mix), new ones the file's usual one.
        return restore_endings(current, to_lf(content))

    def success_message(self, old: str | None, new: str) -> str:
        if old is None:
            return f"Successfully created and wrote to new file: {self.path}."
        return f"Successfully overwrote file: {self.path}."
