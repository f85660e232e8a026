"""Diagnostics after every edit: the problems a file-changing call introduced, read from the session's CodeIntel
before and after it runs, added to what the model reads. Problems that were there before are not blamed on it
(compared by what they say, not where: an edit moves lines); a clean edit adds nothing."""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_lsp.core.code_intel import CodeDiagnostic, CodeIntel, CodeIntelError, DiagnosticsReport
from agent_lsp.core.tool import ToolResult

log = logging.getLogger(__name__)
SETTLE_S = 1.5  # how long an edit's result waits for the language server's new diagnostics
MAX_ERRORS = 20
MAX_WARNINGS = 5


@dataclass(frozen=True)
class Before:
    """What the source said about the files a call is about to change."""

    paths: tuple[Path, ...]
    report: DiagnosticsReport | None  # None: it could not say


def _key(d: CodeDiagnostic) -> tuple[Path, str, str, str, str]:
    return (d.path, d.severity, d.message, d.source, d.code)


class EditChecks:
    """Built once per session over its CodeIntel; the scheduler calls ``before`` and ``after`` around each
    file-changing call. ``shown`` turns a path into what the model reads (workspace-relative)."""

    def __init__(self, intel: CodeIntel, shown: Callable[[Path], str], settle_s: float = SETTLE_S) -> None:
        self.intel = intel
        self.shown = shown
        self.settle_s = settle_s

    async def before(self, paths: Sequence[str]) -> Before | None:
        served = tuple(dict.fromkeys(p for p in map(Path, paths) if self.intel.serves(p)))
        if not served:
            return None
        try:
            report = await self.intel.diagnostics(served, after_edit=False, budget_s=self.settle_s)
        except CodeIntelError as exc:
            log.info("no diagnostics before the edit: %s", exc)
            report = None
        return Before(served, report)

    async def after(self, before: Before | None, result: ToolResult) -> ToolResult:
        if result.error or not isinstance(result.llm_content, str):
            return result
        touched = [Path(p) for p in result.touched_paths if self.intel.serves(Path(p))]
        paths = tuple(dict.fromkeys([*(before.paths if before else ()), *touched]))
        if not paths:
            return result
        try:
            report = await self.intel.diagnostics(paths, after_edit=True, budget_s=self.settle_s)
        except CodeIntelError as exc:
            note = f"\n\nNo diagnostics for this edit: {exc}"
            return dataclasses.replace(result, llm_content=result.llm_content + note)
        text, errors = self.describe(before.report if before else None, report, paths)
        if not text:
            return result
        display = result.display
        if display and errors:
            display += f" — {errors} new error{'s' if errors != 1 else ''}"
        return dataclasses.replace(result, llm_content=result.llm_content + "\n\n" + text, display=display)

    def describe(
        self, before: DiagnosticsReport | None, after: DiagnosticsReport, paths: Sequence[Path]
    ) -> tuple[str, int]:
        """The model's paragraph about what changed, and how many new errors it lists ("" when nothing did)."""
        old: Counter[tuple[Path, str, str, str, str]] = Counter()
        unknown: list[Path] = []
        for path in paths:
            if before is None or path not in before.by_path or path in before.pending:
                unknown.append(path)
            old.update(_key(d) for d in (before.by_path.get(path, ()) if before is not None else ()))
        remaining = old.copy()
        new: list[CodeDiagnostic] = []
        for path in paths:
            for d in after.by_path.get(path, ()):
                if remaining[_key(d)] > 0:
                    remaining[_key(d)] -= 1
                else:
                    new.append(d)
        errors = [d for d in new if d.severity == "error"]
        warnings = [d for d in new if d.severity == "warning"]
        resolved = sum(n for k, n in remaining.items() if k[1] == "error" and n > 0)
        lines: list[str] = []
        if errors or warnings:
            lines.append("The language server reports problems this edit introduced:")
            lines += self._listed(errors, MAX_ERRORS, "error")
            lines += self._listed(warnings, MAX_WARNINGS, "warning")
        if resolved:
            lines.append(f"This edit resolved {resolved} error{'s' if resolved != 1 else ''} reported before it.")
        if unknown and (errors or warnings):
            names = ", ".join(self.shown(p) for p in unknown)
            lines.append(f"(Nothing was known about {names} before the edit: older problems may be listed too.)")
        if not after.settled:
            lines.append(
                f"(The language server had not finished within {self.settle_s:g} s; this is what it had "
                "reported by then.)"
            )
        return "\n".join(lines), len(errors)

    def _listed(self, found: list[CodeDiagnostic], cap: int, severity: str) -> list[str]:
        lines = []
        for d in found[:cap]:
            where = f"{self.shown(d.path)}:{d.span.line + 1}:{d.span.character + 1}"
            tag = f" ({d.code})" if d.code else ""
            lines.append(f"{where}: {severity}: {d.message}{tag}")
        if len(found) > cap:
            lines.append(f"… and {len(found) - cap} more {severity}s")
        return lines
