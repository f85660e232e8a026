"""Bench: code intelligence through the runtime's language servers (the pool), on this repository.

1. Latency of each lsp operation per server (basedpyright and jedi-language-server on agent_lsp/,
   typescript-language-server on the VS Code extension's src/): cold (a fresh pool: start, initialize, first
   analysis, the answer) and warm (median of the next runs).
2. Diagnostics after an edit: the time a replace takes with the check around it (before + after, as the
   scheduler runs it) over the edit alone, on a warm basedpyright; edits alternate breaking and fixing a name in a
   copy of a module of this repository. Budget: ≤ 1 s at p50.
3. RSS of the pool's processes (each server's whole process group) once warm.
4. Reading economy: for navigation questions about this repository, the bytes of tool output the model reads to
   answer with `lsp` against with grep_search + read_file (the real tools' outputs; the grep path reads each file
   whose matching lines do not answer the question by themselves: the definition's file for a signature, every
   calling file to know which function calls).

Run: ``.venv/bin/python bench/code_intel.py [--runs N]`` (servers from ``make test-deps``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent_lsp.code_intel.pool import ServerPool  # noqa: E402
from agent_lsp.code_intel.session import PoolCodeIntel  # noqa: E402
from agent_lsp.core.code_intel import OPERATIONS  # noqa: E402
from agent_lsp.core.edit_checks import EditChecks  # noqa: E402
from agent_lsp.errors import ToolError  # noqa: E402
from agent_lsp.tools.base import Tool  # noqa: E402
from agent_lsp.tools.code_nav import LspTool  # noqa: E402
from agent_lsp.tools.context import ToolContext  # noqa: E402
from agent_lsp.tools.grep import GrepTool  # noqa: E402
from agent_lsp.tools.read_file import ReadFileTool  # noqa: E402
from agent_lsp.tools.replace import ReplaceTool  # noqa: E402
from agent_lsp.workspace.filesystem import LocalFileSystem  # noqa: E402
from agent_lsp.workspace.roots import Workspace  # noqa: E402
from tests.code_intel.project import BASEDPYRIGHT, JEDI, TYPESCRIPT, spec  # noqa: E402

# (operation, file, line, character, query) on this repository.
PY_QUESTIONS: list[dict[str, Any]] = [
    {"operation": "goToDefinition", "file": "agent_lsp/tools/replace.py", "at": "self._plan = plan_replacement("},
    {"operation": "findReferences", "file": "agent_lsp/tools/replace.py", "at": "def plan_replacement("},
    {"operation": "hover", "file": "agent_lsp/tools/replace.py", "at": "self._plan = plan_replacement("},
    {"operation": "documentSymbol", "file": "agent_lsp/core/scheduler.py"},
    {"operation": "workspaceSymbol", "file": "agent_lsp/core/scheduler.py", "query": "EditChecks"},
    {"operation": "goToImplementation", "file": "agent_lsp/core/tool.py", "at": "def describe(self)"},
    {"operation": "incomingCalls", "file": "agent_lsp/tools/replace.py", "at": "def plan_replacement("},
    {"operation": "outgoingCalls", "file": "agent_lsp/tools/replace.py", "at": "def plan_replacement("},
]
TS_QUESTIONS: list[dict[str, Any]] = [
    {"operation": "documentSymbol", "file": "vscode-extension/src/extension.ts"},
    {"operation": "workspaceSymbol", "file": "vscode-extension/src/extension.ts", "query": "activate"},
]


def context(root: Path, intel: PoolCodeIntel | None) -> ToolContext:
    return ToolContext(
        workspace=Workspace([root]), fs=LocalFileSystem(), temp_dir=Path(tempfile.mkdtemp()), code_intel=intel
    )


async def run_tool(tool: Tool, params: dict[str, Any]) -> str:
    problem = tool.validate(params)
    assert problem is None, problem
    result = await tool.build(params).execute(lambda _chunk: None)
    return str(result.llm_content)


def lsp_params(root: Path, q: dict[str, Any]) -> dict[str, Any]:
    """The tool's parameters; ``at`` (text on the line) gives the position: the line holding it, the column of the
    name it ends with (so the bench follows the code as lines move)."""
    params = {**{k: v for k, v in q.items() if k not in ("file", "at")}, "file_path": str(root / q["file"])}
    if "at" in q:
        lines = (root / q["file"]).read_text().splitlines()
        line = next(i for i, text in enumerate(lines, 1) if q["at"] in text)
        name = q["at"].rstrip("(").split()[-1].split(".")[-1].split("(")[0]
        params |= {"line": line, "character": lines[line - 1].index(q["at"]) + q["at"].index(name) + 1}
    return params


async def latencies(
    root: Path, server: Any, questions: list[dict[str, Any]], runs: int
) -> dict[str, tuple[float, float] | str]:
    """Per operation: (cold ms, warm median ms), each cold figure from a pool of its own; or why it failed."""
    out: dict[str, tuple[float, float] | str] = {}
    for q in questions:
        if server.operations is not None and q["operation"] not in server.operations:
            continue
        pool = ServerPool(os.environ)
        intel = PoolCodeIntel(pool, [server], lambda: [root], LocalFileSystem().read_text)
        tool = LspTool(context(root, intel), intel)
        try:
            started = time.perf_counter()
            await run_tool(tool, lsp_params(root, q))
            cold = (time.perf_counter() - started) * 1000
            warm = []
            for _ in range(runs):
                started = time.perf_counter()
                await run_tool(tool, lsp_params(root, q))
                warm.append((time.perf_counter() - started) * 1000)
            out[q["operation"]] = (cold, statistics.median(warm))
        except ToolError as exc:
            out[q["operation"]] = str(exc)
        finally:
            await pool.aclose()
    return out


def group_rss_kib(pgid: int) -> int:
    """Resident memory of every process in a process group (from /proc)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            if int(fields[2]) != pgid:  # field 5: pgrp
                continue
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except (OSError, ValueError):
            continue
    return total


async def diagnostics_cost(runs: int) -> tuple[list[float], list[float], int]:
    """(edit alone ms, edit with the check ms, pool RSS KiB) on a copy of agent_lsp/tools/line_endings.py."""
    work = Path(tempfile.mkdtemp()) / "proj"
    (work / "pkg").mkdir(parents=True)
    shutil.copy(ROOT / "agent_lsp" / "tools" / "line_endings.py", work / "pkg" / "line_endings.py")
    (work / "pkg" / "__init__.py").write_text("")
    target = work / "pkg" / "line_endings.py"
    pool = ServerPool(os.environ)
    intel = PoolCodeIntel(pool, [spec(BASEDPYRIGHT)], lambda: [work.resolve()], LocalFileSystem().read_text)
    ctx = context(work.resolve(), intel)
    checks = EditChecks(intel, ctx.workspace.relative)
    await intel.diagnostics([target.resolve()], after_edit=False, budget_s=60)  # warm: the first analysis done
    plain: list[float] = []
    checked: list[float] = []
    pairs = [
        ('return text.replace("\\r\\n"', 'return txet.replace("\\r\\n"'),
        ('return txet.replace("\\r\\n"', 'return text.replace("\\r\\n"'),
    ]
    original = target.read_text()
    assert pairs[0][0] in original, "pick another line to edit"
    try:
        for i in range(runs * 2):
            old, new = pairs[i % 2]
            params = {"file_path": str(target), "instruction": "bench", "old_string": old, "new_string": new}
            invocation = ReplaceTool(ctx).build(params)
            started = time.perf_counter()
            await invocation.confirmation()
            if i % 4 < 2:
                await invocation.execute(lambda _chunk: None)
                plain.append((time.perf_counter() - started) * 1000)
                # Untimed: the server hears of the edit, so the checked runs start from the same state.
                await intel.diagnostics([target.resolve()], after_edit=True, budget_s=1.5)
                continue
            before = await checks.before([str(target.resolve())])
            result = await invocation.execute(lambda _chunk: None)
            await checks.after(before, result)
            checked.append((time.perf_counter() - started) * 1000)
        rss = sum(group_rss_kib(s.pid) for s in pool.running() if s.pid is not None)
    finally:
        await pool.aclose()
    return plain, checked, rss


# Navigation questions about this repository: what `lsp` asks, and what grep + read_file must read instead.
ECONOMY: list[dict[str, Any]] = [
    {
        "question": "where is plan_replacement defined, and what is its signature?",
        "lsp": [
            {"operation": "workspaceSymbol", "file": "agent_lsp/tools/replace.py", "query": "plan_replacement"},
            {"operation": "hover", "file": "agent_lsp/tools/replace.py", "at": "def plan_replacement("},
        ],
        "grep": {"pattern": r"def plan_replacement\b"},
        "read": "definition",
    },
    {
        "question": "which functions call plan_replacement?",
        "lsp": [{"operation": "incomingCalls", "file": "agent_lsp/tools/replace.py", "at": "def plan_replacement("}],
        "grep": {"pattern": r"\bplan_replacement\("},
        "read": "callers",
    },
    {
        "question": "which functions call make_file_diff?",
        "lsp": [{"operation": "incomingCalls", "file": "agent_lsp/tools/diffing.py", "at": "def make_file_diff("}],
        "grep": {"pattern": r"\bmake_file_diff\("},
        "read": "callers",
    },
    {
        "question": "where is split_lines used?",
        "lsp": [{"operation": "findReferences", "file": "agent_lsp/tools/file_utils.py", "at": "def split_lines("}],
        "grep": {"pattern": r"\bsplit_lines\b"},
        "read": "none",
    },
    {
        "question": "what does core/scheduler.py define?",
        "lsp": [{"operation": "documentSymbol", "file": "agent_lsp/core/scheduler.py"}],
        "grep": None,
        "read": "agent_lsp/core/scheduler.py",
    },
]


async def economy(root: Path) -> tuple[list[tuple[str, int, int]], int]:
    pool = ServerPool(os.environ)
    intel = PoolCodeIntel(pool, [spec(BASEDPYRIGHT)], lambda: [root], LocalFileSystem().read_text)
    ctx = context(root, intel)
    lsp, grep, read = LspTool(ctx, intel), GrepTool(ctx), ReadFileTool(ctx)
    rows = []
    try:
        for q in ECONOMY:
            lsp_bytes = 0
            for asked in q["lsp"]:
                lsp_bytes += len((await run_tool(lsp, lsp_params(root, asked))).encode())
            grep_bytes = 0
            files: list[str] = []
            if q["grep"] is not None:
                found = await run_tool(grep, {**q["grep"], "dir_path": "agent_lsp", "include_pattern": "*.py"})
                grep_bytes += len(found.encode())
                files = [line[len("File: ") :].strip() for line in found.splitlines() if line.startswith("File: ")]
            if q["read"] == "definition":
                files = files[:1]
            elif q["read"] == "none":
                files = []
            elif q["read"] != "callers":
                files = [q["read"]]
            for name in files:
                grep_bytes += len((await run_tool(read, {"file_path": str(root / name)})).encode())
            rows.append((q["question"], lsp_bytes, grep_bytes))
        rss = sum(group_rss_kib(s.pid) for s in pool.running() if s.pid is not None)
    finally:
        await pool.aclose()
    return rows, rss


async def main(runs: int) -> None:
    print(f"## Latency per operation (ms; cold = fresh pool, warm = median of {runs})\n")
    print("| server | operation | cold | warm |\n|---|---|---|---|")
    for server, questions in (
        (spec(BASEDPYRIGHT), PY_QUESTIONS),
        (spec(JEDI), PY_QUESTIONS),
        (spec(TYPESCRIPT, "typescript"), TS_QUESTIONS),
    ):
        found = await latencies(ROOT, server, questions, runs)
        for op in OPERATIONS:
            figures = found.get(op)
            if isinstance(figures, str):
                print(f"| {server.name} | {op} | {figures} | |")
            elif figures is not None:
                print(f"| {server.name} | {op} | {figures[0]:.0f} | {figures[1]:.1f} |")
    plain, checked, rss = await diagnostics_cost(runs)
    p50_plain, p50_checked = statistics.median(plain), statistics.median(checked)
    print("\n## Diagnostics after an edit (basedpyright, warm)\n")
    print(
        f"edit alone p50 {p50_plain:.0f} ms; edit + check p50 {p50_checked:.0f} ms; added p50 "
        f"{p50_checked - p50_plain:.0f} ms (budget 1000 ms); max with check {max(checked):.0f} ms"
    )
    print(f"pool RSS (basedpyright, launcher + node, warm on one module): {rss / 1024:.0f} MiB")
    print("\n## Reading economy (bytes of tool output to answer)\n")
    print("| question | lsp | grep + read_file | ratio |\n|---|---|---|---|")
    total_lsp = total_grep = 0
    rows, repo_rss = await economy(ROOT)
    for question, lsp_bytes, grep_bytes in rows:
        total_lsp += lsp_bytes
        total_grep += grep_bytes
        print(f"| {question} | {lsp_bytes} | {grep_bytes} | {grep_bytes / max(1, lsp_bytes):.1f}× |")
    print(f"| **all** | {total_lsp} | {total_grep} | {total_grep / max(1, total_lsp):.1f}× |")
    print(f"\npool RSS after answering them (basedpyright over this repository): {repo_rss / 1024:.0f} MiB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    asyncio.run(main(parser.parse_args().runs))
