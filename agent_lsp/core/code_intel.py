"""The CodeIntel port: definitions, references, symbols, calls, renames and diagnostics from a language-aware source
(the editor, an ACP client's language servers, or servers the runtime starts), in neutral types — no LSP here.

Positions are 0-based lines and 0-based characters counted in UTF-16 code units, as editors and language servers
count them; the tools turn them into the 1-based ``LINE:COL`` people read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

Operation = Literal[
    "goToDefinition",
    "findReferences",
    "hover",
    "documentSymbol",
    "workspaceSymbol",
    "goToImplementation",
    "incomingCalls",
    "outgoingCalls",
]
OPERATIONS: tuple[Operation, ...] = (
    "goToDefinition",
    "findReferences",
    "hover",
    "documentSymbol",
    "workspaceSymbol",
    "goToImplementation",
    "incomingCalls",
    "outgoingCalls",
)
Severity = Literal["error", "warning", "information", "hint"]


@dataclass(frozen=True)
class Span:
    """A range in a file: 0-based lines, 0-based UTF-16 characters, the end exclusive."""

    line: int
    character: int
    end_line: int
    end_character: int


@dataclass(frozen=True)
class CodeLocation:
    path: Path
    span: Span


@dataclass(frozen=True)
class CodeSymbol:
    """A named thing: a document/workspace symbol, or a caller/callee (``sites``: where the call happens)."""

    name: str
    kind: str  # "function", "class", "method", … (LSP's SymbolKind, by name)
    location: CodeLocation
    container: str = ""
    detail: str = ""
    depth: int = 0  # nesting in a document's outline
    sites: tuple[CodeLocation, ...] = ()


@dataclass(frozen=True)
class CodeAnswer:
    """One operation's answer; which fields are set depends on the operation."""

    locations: tuple[CodeLocation, ...] = ()
    symbols: tuple[CodeSymbol, ...] = ()
    hover: str | None = None


@dataclass(frozen=True)
class TextChange:
    span: Span
    new_text: str


@dataclass(frozen=True)
class CodeDiagnostic:
    path: Path
    span: Span
    severity: Severity
    message: str
    source: str = ""
    code: str = ""


@dataclass(frozen=True)
class DiagnosticsReport:
    """The diagnostics of some files; ``pending`` the files whose diagnostics had not come in time (what was known
    of them is in ``by_path`` all the same)."""

    by_path: Mapping[Path, tuple[CodeDiagnostic, ...]] = field(default_factory=dict)
    pending: frozenset[Path] = frozenset()

    @property
    def settled(self) -> bool:
        return not self.pending


class CodeIntelError(Exception):
    """The source could not answer (a server died or hung, the editor refused): the message is for the model."""


class CodeIntel(Protocol):
    """What a session's code intelligence offers. ``None`` answers mean "no source serves this file's language"."""

    @property
    def label(self) -> str:
        """Who answers, for people and the model ("the editor", "the language servers on this machine")."""
        ...

    def operations(self) -> Sequence[Operation]:
        """The operations some source of this session supports."""
        ...

    def can_rename(self) -> bool:
        """Whether some source can rename (rename_symbol is offered)."""
        ...

    def serves(self, path: Path) -> bool:
        """Whether some source covers this file's language (cheap: no server is started)."""
        ...

    async def ask(self, operation: Operation, path: Path, line: int, character: int, query: str) -> CodeAnswer | None:
        """Run one operation at a 0-based position (``query`` for workspaceSymbol). Raises CodeIntelError."""
        ...

    async def rename(
        self, path: Path, line: int, character: int, new_name: str
    ) -> Mapping[Path, list[TextChange]] | None:
        """The source's rename as changes per file (not applied). Raises CodeIntelError."""
        ...

    async def diagnostics(self, paths: Sequence[Path], *, after_edit: bool, budget_s: float) -> DiagnosticsReport:
        """The files' diagnostics. Before an edit: what is known now (a file not yet analysed is waited for, within
        ``budget_s``). After an edit: the diagnostics of the new text, waited for up to ``budget_s``."""
        ...
