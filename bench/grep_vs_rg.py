"""Benchmark: grep_search end to end (through the tool) against the raw rg command on a 50k-file tree.

Usage: .venv/bin/python bench/grep_vs_rg.py [--files N] [--runs N]
Prints the median wall time of each and the ratio (the target is at most 1.2x).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.grep import GrepTool
from agent_lsp.tools.grep_rg import find_rg
from agent_lsp.workspace.filesystem import LocalFileSystem
from agent_lsp.workspace.roots import Workspace

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "theta",
    "lambda",
    "sigma",
    "omega",
    "request",
    "handler",
    "value",
    "index",
]
NEEDLE = "frobnicate_widget"


def make_tree(root: Path, files: int, seed: int = 1234) -> int:
    """A deterministic tree: 250 files per folder, a few lines each, 1 file in 1000 holds the needle."""
    rng = random.Random(seed)
    (root / ".git").mkdir()
    (root / ".gitignore").write_text("*.tmp\nignored/\n")
    hits = 0
    for i in range(files):
        folder = root / f"pkg{i // 2500:02d}" / f"mod{(i // 250) % 10}"
        if i % 250 == 0:
            folder.mkdir(parents=True, exist_ok=True)
        lines = [" ".join(rng.choice(WORDS) for _ in range(8)) for _ in range(6)]
        if i % 1000 == 7:
            lines[3] = f"def {NEEDLE}(x): return x"
            hits += 1
        (folder / f"file{i:05d}.py").write_text("\n".join(lines) + "\n")
    return hits


def time_rg(rg: str, root: Path) -> float:
    args = [rg, "--no-config", "--hidden", "--no-ignore-dot", "--no-ignore-global", "-g", "!.git", "--ignore-case"]
    start = time.perf_counter()
    out = subprocess.run([*args, "-e", NEEDLE, "--", "."], cwd=root, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    assert out.returncode == 0, out.stderr
    return elapsed


async def time_tool(root: Path, tmp: Path) -> tuple[float, str]:
    start = time.perf_counter()
    ctx = ToolContext(workspace=Workspace([root]), fs=LocalFileSystem(), temp_dir=tmp)
    tool = GrepTool(ctx)
    params = {"pattern": NEEDLE}
    assert tool.validate(params) is None
    result = await tool.build(params).execute(lambda _c: None)
    return time.perf_counter() - start, str(result.llm_content)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    rg = find_rg()
    if rg is None:
        raise SystemExit("rg not found")
    with tempfile.TemporaryDirectory(prefix="grep-bench-") as tmpdir:
        root = Path(tmpdir, "tree").resolve()
        root.mkdir()
        t0 = time.perf_counter()
        hits = make_tree(root, args.files)
        print(f"tree: {args.files} files, {hits} containing the needle, built in {time.perf_counter() - t0:.1f}s")
        time_rg(rg, root)  # warm the page cache for both
        _, text = asyncio.run(time_tool(root, Path(tmpdir)))
        assert text.startswith(f"Found {hits} match(es)"), text[:200]
        rg_times, tool_times = [], []
        for _ in range(args.runs):
            rg_times.append(time_rg(rg, root))
            tool_times.append(asyncio.run(time_tool(root, Path(tmpdir)))[0])
        rg_med, tool_med = statistics.median(rg_times), statistics.median(tool_times)
        print(f"raw rg:       median {rg_med * 1000:8.1f} ms over {args.runs} runs")
        print(f"grep_search:  median {tool_med * 1000:8.1f} ms over {args.runs} runs")
        print(f"ratio:        {tool_med / rg_med:.2f}x (target <= 1.2x)")


if __name__ == "__main__":
    main()
