"""replace: swap an exact piece of a file for new text (whitespace-flexible fallback), keeping line endings."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_lsp.errors import ToolError
from agent_lsp.tools.base import ContextTool, ToolInvocation, validate_against_schema
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.diffing import FileEditInvocation
from agent_lsp.tools.file_utils import find_omission_placeholder, path_problem, placeholder_message, resolve
from agent_lsp.tools.line_endings import restore_endings, to_lf

_INDENT = re.compile(r"[ \t]*")


@dataclass(frozen=True)
class ReplaceParams:
    path: Path
    old_string: str
    new_string: str
    instruction: str | None
    allow_multiple: bool
    expected_replacements: int | None


@dataclass(frozen=True)
class EditPlan:
    text: str
    count: int
    flexible: bool  # matched only after ignoring indentation / surrounding whitespace


def _check_count(count: int, allow_multiple: bool, expected: int | None, where: str) -> None:
    if count == 0:
        raise ToolError(
            f"Failed to edit {where}: old_string was not found (0 occurrences), not even when ignoring "
            "indentation and trailing whitespace. The file may differ from what you remember: use read_file to "
            "see its current content and copy old_string from it exactly, with enough surrounding lines.",
            "edit_no_occurrence_found",
        )
    if expected is not None and count != expected:
        raise ToolError(
            f"Failed to edit {where}: expected {expected} occurrence(s) of old_string but found {count}.",
            "edit_expected_occurrence_mismatch",
        )
    if expected is None and count > 1 and not allow_multiple:
        raise ToolError(
            f"Failed to edit {where}: old_string was found {count} times. Include more surrounding lines in "
            f"old_string so it matches exactly one place, or set allow_multiple to true to replace all {count}.",
            "edit_multiple_occurrences",
        )


def _trim_blank_edges(lines: list[str]) -> tuple[list[str], int, int]:
    """Lines without leading/trailing blank ones, and how many were dropped at each end."""
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end], start, len(lines) - end


def _indent(line: str) -> str:
    m = _INDENT.match(line)
    return m.group(0) if m else ""


@dataclass(frozen=True)
class _IndentMap:
    """How the old_string's indentation beyond its first line maps to the file's (two spaces may be a tab)."""

    exact: dict[str, str]
    unit: str = ""
    file_unit: str = ""

    def convert(self, extra: str) -> str:
        if extra in self.exact:
            return self.exact[extra]
        if self.unit and extra == self.unit * (len(extra) // len(self.unit)):
            return self.file_unit * (len(extra) // len(self.unit))
        return extra


def _indent_map(old_lines: list[str], file_lines: list[str], old_base: str, file_base: str) -> _IndentMap:
    exact: dict[str, str] = {}
    for o, f in zip(old_lines, file_lines, strict=False):
        if not o.strip():
            continue
        ow, fw = _indent(o), _indent(f)
        if ow.startswith(old_base) and fw.startswith(file_base):
            exact.setdefault(ow[len(old_base) :], fw[len(file_base) :])
    units = [(k, v) for k, v in exact.items() if k and v]
    if not units:
        return _IndentMap(exact)
    unit, file_unit = min(units, key=lambda kv: len(kv[0]))
    return _IndentMap(exact, unit, file_unit)


def _reindent(line: str, old_base: str, file_base: str, mapping: _IndentMap) -> str:
    """Move ``line`` from the old_string's indentation to the file's, keeping its relative indentation."""
    if not line.strip():
        return ""
    own = _indent(line)
    body = line[len(own) :]
    if own.startswith(old_base):
        return file_base + mapping.convert(own[len(old_base) :]) + body
    keep = max(0, len(file_base) - (len(old_base) - len(own)))
    return file_base[:keep] + body


def _flexible(text: str, old: str, new: str) -> tuple[list[int], str] | None:
    """Line starts where old_string matches line by line ignoring surrounding whitespace, and the result of
    replacing every such block with new_string re-indented to the block's indentation."""
    old_lines, lead, trail = _trim_blank_edges(old.split("\n"))
    if not old_lines:
        return None
    wanted = [ln.strip() for ln in old_lines]
    lines = text.split("\n")
    n = len(wanted)
    starts: list[int] = []
    i = 0
    while i + n <= len(lines):
        if lines[i].strip() == wanted[0] and all(lines[i + j].strip() == wanted[j] for j in range(1, n)):
            starts.append(i)
            i += n
        else:
            i += 1
    if not starts:
        return [], text
    new_lines = new.split("\n")
    # Drop the blank edge lines new_string shares with old_string: they were not part of the matched block.
    drop_lead = lead
    while drop_lead and new_lines and not new_lines[0].strip():
        new_lines.pop(0)
        drop_lead -= 1
    drop_trail = trail
    while drop_trail and new_lines and not new_lines[-1].strip():
        new_lines.pop()
        drop_trail -= 1
    old_base = _indent(old_lines[0])
    for start in reversed(starts):
        file_base = _indent(lines[start])
        mapping = _indent_map(old_lines, lines[start : start + n], old_base, file_base)
        block = [_reindent(ln, old_base, file_base, mapping) for ln in new_lines] if new.strip() else []
        lines[start : start + n] = block
    return starts, "\n".join(lines)


def plan_replacement(
    current: str, old: str, new: str, *, allow_multiple: bool = False, expected: int | None = None, where: str = ""
) -> EditPlan:
    """The new text of a file after replacing ``old`` with ``new``: exact match first, then the
    whitespace-flexible one. Matching is done on LF text; every line keeps its line ending (CRLF, LF, or a
    mix) and new lines take the file's dominant one. Raises ToolError."""
    work = to_lf(current)
    old, new = to_lf(old), to_lf(new)
    where = where or "the file"
    count = work.count(old)
    if count:
        _check_count(count, allow_multiple, expected, where)
        result, flexible = work.replace(old, new), False
    else:
        found = _flexible(work, old, new)
        starts, result = found if found is not None else ([], work)
        _check_count(len(starts), allow_multiple, expected, where)
        count, flexible = len(starts), True
    return EditPlan(restore_endings(current, result), count, flexible)


class ReplaceTool(ContextTool):
    name = "replace"
    display_name = "Edit"
    kind = "edit"
    description = (
        "Replaces text in a file. old_string must be copied exactly from the current file (read it first), "
        "including whitespace, with enough surrounding lines (typically 3 before and after) to match exactly one "
        "place; new_string is what goes there instead. If there is no exact match, a match that ignores "
        "indentation differences is tried and new_string is re-indented to fit. Several matches are an error "
        "unless allow_multiple is true (then all are replaced). To create a new file, give an empty old_string "
        "and the whole content as new_string. Never use placeholders like '... existing code ...' in new_string. "
        "The file's encoding and line endings (LF, CRLF or mixed) are kept."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "file_path": {
                "type": "string",
                "description": "The file to edit: an absolute path, or a path relative to the workspace root.",
            },
            "instruction": {
                "type": "string",
                "description": "What the change does and why, in one or two sentences, e.g. 'rename the retry "
                "counter so it matches the settings key'. Shown to the user when they approve the edit.",
            },
            "old_string": {
                "type": "string",
                "description": "The exact text to replace, with enough context to be unique. Empty to create a "
                "new file.",
            },
            "new_string": {"type": "string", "description": "The exact text to put in its place."},
            "allow_multiple": {
                "type": "boolean",
                "description": "Optional: replace every occurrence of old_string instead of requiring exactly "
                "one. Default false.",
            },
        },
        "required": ["file_path", "instruction", "old_string", "new_string"],
    }

    def validate(self, params: dict[str, Any]) -> str | None:
        # instruction is declared required, as in Gemini CLI 0.61, but a call without it still runs: older
        # replays and other models omit it, and the edit itself does not need it.
        required = [k for k in self.parameters["required"] if k != "instruction"]
        return validate_against_schema(params, {**self.parameters, "required": required}) or self.check(params)

    def check(self, params: dict[str, Any]) -> str | None:
        expected = params.get("expected_replacements")
        if expected is not None and (not isinstance(expected, int) or isinstance(expected, bool) or expected < 1):
            return "params/expected_replacements must be an integer >= 1"
        if params["old_string"] == params["new_string"]:
            return "No changes to apply: old_string and new_string are identical."
        problem = path_problem(self.ctx, params["file_path"])
        if problem:
            return problem
        if resolve(self.ctx, params["file_path"]).is_dir():
            return f"{params['file_path']} is a directory, not a file."
        placeholder = find_omission_placeholder(params["new_string"], params["old_string"])
        if placeholder is not None:
            return placeholder_message(placeholder, "new_string")
        return None

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        path = resolve(self.ctx, params["file_path"])
        rp = ReplaceParams(
            path=path,
            old_string=params["old_string"],
            new_string=params["new_string"],
            instruction=params.get("instruction") or None,
            allow_multiple=bool(params.get("allow_multiple", False)),
            expected_replacements=params.get("expected_replacements"),
        )
        return ReplaceInvocation(self.ctx, rp, path)


class ReplaceInvocation(FileEditInvocation[ReplaceParams]):
    verb = "Edit"

    def __init__(self, ctx: ToolContext, params: ReplaceParams, path: Path) -> None:
        super().__init__(ctx, params, path)
        self._plan: EditPlan | None = None

    def describe(self) -> str:
        p = self.params
        if p.instruction:
            return f"Edit {self.shown_path}: {p.instruction}"
        # The path is what the user needs to see; the change itself is the diff the client shows.
        return f"{'Create' if p.old_string == '' else 'Edit'} {self.shown_path}"

    def propose(self, current: str | None) -> str:
        p = self.params
        if current is None:
            if p.old_string == "":
                return p.new_string
            raise ToolError(
                f"File not found: {self.shown_path}. To create a new file use an empty old_string (or write_file).",
                "file_not_found",
            )
        if p.old_string == "":
            raise ToolError(
                f"Failed to edit {self.shown_path}: the file already exists, so old_string must not be empty. "
                "Give the exact text to replace, or use write_file to replace the whole file.",
                "edit_file_exists",
            )
        self._plan = plan_replacement(
            current,
            p.old_string,
            p.new_string,
            allow_multiple=p.allow_multiple,
            expected=p.expected_replacements,
            where=self.shown_path,
        )
        return self._plan.text

    def success_message(self, old: str | None, new: str) -> str:
        if old is None:
            return f"Created new file: {self.path} with the provided content."
        plan = self._plan
        count = plan.count if plan else 1
        message = f"Successfully modified file: {self.path} ({count} replacement{'s' if count != 1 else ''})."
        if plan is not None and plan.flexible:
            message += " old_string matched only when ignoring indentation; new_string was re-indented to fit."
        return message
