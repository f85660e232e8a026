"""lsp: definitions, references, hover, symbols, implementations and calls from the session's code intelligence
(the editor's language features, or language servers), at a 1-based line and column as an editor shows them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_lsp.core.code_intel import OPERATIONS, CodeIntel, CodeIntelError, Operation
from agent_lsp.errors import ToolError
from agent_lsp.events import Location
from agent_lsp.tools.base import ContextTool, OutputSink, ToolInvocation, ToolResult
from agent_lsp.tools.code_answers import index_to_utf16, render
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.file_utils import path_problem, resolve, split_lines

_IDENT = re.compile(r"\w+")
# Keywords of the common languages: never what a question about a symbol means, so a column near one goes on
# to the nearest name.
_KEYWORDS = frozenset(
    {
        "and",
        "as",
        "assert",
        "async",
        "await",
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "def",
        "del",
        "do",
        "elif",
        "else",
        "enum",
        "except",
        "export",
        "extends",
        "fn",
        "for",
        "from",
        "func",
        "function",
        "go",
        "if",
        "impl",
        "import",
        "in",
        "interface",
        "is",
        "let",
        "match",
        "mod",
        "new",
        "not",
        "or",
        "package",
        "pass",
        "pub",
        "raise",
        "return",
        "static",
        "struct",
        "switch",
        "throw",
        "try",
        "type",
        "use",
        "var",
        "while",
        "with",
        "yield",
    }
)
_AT_POSITION = ("goToDefinition", "findReferences", "hover", "goToImplementation", "incomingCalls", "outgoingCalls")


def snap(line_text: str, column: int, name: str = "") -> tuple[int, str] | None:
    """The 0-based index of the identifier at (or nearest to) the 1-based ``column``, and the identifier; ``name``
    wins when it is on the line. None when the line has no identifier. Models count columns badly."""
    words = [
        (m.start(), m.end(), m.group())
        for m in _IDENT.finditer(line_text)
        if not m.group().isdigit() and m.group() not in _KEYWORDS
    ]
    if not words:
        return None
    if name:
        named = [w for w in words if w[2] == name]
        if named:
            words = named
    at = column - 1

    def distance(word: tuple[int, int, str]) -> tuple[int, int]:
        start, end, _ = word
        # On a tie the name to the right wins: a column that misses usually falls just before the name.
        return (0 if start <= at < end else min(abs(at - start), abs(at - (end - 1))), -start)

    start, _end, ident = min(words, key=distance)
    return start, ident


def describe_tool(intel: CodeIntel) -> str:
    ops = ", ".join(intel.operations())
    return (
        "Asks the code intelligence of this session (" + intel.label + ") about code: goToDefinition, "
        "findReferences, hover (type and docs), documentSymbol (a file's outline), workspaceSymbol (find a symbol "
        "by name: set query), goToImplementation, incomingCalls (who calls this) and outgoingCalls (what it "
        f"calls). Supported here: {ops}. Prefer it to grep_search for questions about symbols (where is X defined, "
        "who uses or calls it, what type is it): the answers are exact and short. file_path is the file to ask "
        "about (for workspaceSymbol, any file of the language); line and character are 1-based as an editor shows "
        "them, and a column a little off still finds the nearest name on that line (give the name as query to be "
        "sure). Locations come back as path:LINE:COL with that line of source."
    )


@dataclass(frozen=True)
class LspParams:
    operation: Operation
    path: Path
    line: int  # 1-based
    character: int  # 1-based
    query: str


class LspTool(ContextTool):
    name = "lsp"
    display_name = "Code intelligence"
    kind = "read"
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "operation": {"type": "string", "enum": list(OPERATIONS), "description": "What to ask."},
            "file_path": {"type": "string", "description": "Absolute path of the file, inside the workspace."},
            "line": {"type": "integer", "minimum": 1, "description": "1-based line of the symbol."},
            "character": {"type": "integer", "minimum": 1, "description": "1-based column of the symbol."},
            "query": {
                "type": "string",
                "description": "workspaceSymbol: the name to look for. Other operations: optionally the symbol's "
                "name, to find it on the line.",
            },
        },
        "required": ["operation", "file_path"],
    }

    def __init__(self, ctx: ToolContext, intel: CodeIntel) -> None:
        super().__init__(ctx)
        self.intel = intel
        self.description = describe_tool(intel)

    def check(self, params: dict[str, Any]) -> str | None:
        problem = path_problem(self.ctx, params["file_path"])
        if problem:
            return problem
        op = params["operation"]
        if op in _AT_POSITION and (params.get("line") is None):
            return f"{op} needs line (1-based) and character of the symbol."
        if op == "workspaceSymbol" and not str(params.get("query") or "").strip():
            return "workspaceSymbol needs query: the name (or part of it) to look for."
        return None

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        return LspInvocation(
            self.ctx,
            self.intel,
            LspParams(
                params["operation"],
                resolve(self.ctx, params["file_path"]),
                int(params.get("line") or 1),
                int(params.get("character") or 1),
                str(params.get("query") or "").strip(),
            ),
        )


class LspInvocation(ToolInvocation[LspParams]):
    def __init__(self, ctx: ToolContext, intel: CodeIntel, params: LspParams) -> None:
        super().__init__(params)
        self.ctx = ctx
        self.intel = intel

    def describe(self) -> str:
        p = self.params
        where = self.ctx.workspace.relative(p.path)
        if p.operation == "workspaceSymbol":
            return f"{p.operation} {p.query!r}"
        if p.operation == "documentSymbol":
            return f"{p.operation} {where}"
        return f"{p.operation} {where}:{p.line}:{p.character}"

    def locations(self) -> list[Location]:
        return [Location(str(self.params.path), self.params.line)]

    async def _lines(self, path: Path) -> list[str] | None:
        if not self.ctx.workspace.contains(path):
            return None
        try:
            return split_lines(await self.ctx.fs.read_text(path))
        except (OSError, UnicodeError):
            return None

    async def execute(self, output: OutputSink) -> ToolResult:
        p = self.params
        shown = self.ctx.workspace.relative(p.path)
        if not self.intel.serves(p.path):
            message = (
                f"No code intelligence serves {p.path.suffix or p.path.name} files in this session "
                f"({self.intel.label}); use grep_search and read_file instead."
            )
            return ToolResult(llm_content=message, display=message)
        line0, char0, target = 0, 0, p.query or shown
        if p.operation in _AT_POSITION:
            lines = await self._lines(p.path)
            if lines is None:
                raise ToolError(f"File not found or unreadable: {shown}", "file_not_found")
            if p.line > len(lines):
                raise ToolError(f"{shown} has {len(lines)} lines; line {p.line} does not exist.", "invalid_params")
            found = snap(lines[p.line - 1], p.character, p.query)
            if found is None:
                raise ToolError(f"Line {p.line} of {shown} has no identifier to ask about.", "invalid_params")
            index, name = found
            line0, char0, target = p.line - 1, index_to_utf16(lines[p.line - 1], index), f"`{name}`"
        elif p.operation == "documentSymbol":
            target = shown
        try:
            answer = await self.intel.ask(p.operation, p.path, line0, char0, p.query)
        except CodeIntelError as exc:
            raise ToolError(f"{p.operation} failed: {exc}", "code_intel_failed") from exc
        if answer is None:
            message = f"No code intelligence serves {shown} in this session; use grep_search and read_file instead."
            return ToolResult(llm_content=message, display=message)
        text = await render(p.operation, answer, target=target, shown=self.ctx.workspace.relative, lines=self._lines)
        first = text.splitlines()[0] if text else ""
        return ToolResult(llm_content=text, display=first, touched_paths=(str(p.path),))
