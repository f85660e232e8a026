"""Rewind costs on a real shadow repository: the snapshot before a file-changing call (what checkpoints always
cost), the one after it that rewind adds, and a rewind's plan and apply over a session's calls.

Not budgeted: printed with the after/before ratio. A project of FILES files; CALLS calls each change one file.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from agent_lsp.events import ToolCallInfo
from agent_lsp.store.checkpoints import ShadowGitCheckpointer
from agent_lsp.store.checkpoints.rewind import CheckpointRewinder

FILES = int(sys.argv[1]) if len(sys.argv) > 1 else 500
CALLS = 20


def _call(i: int) -> ToolCallInfo:
    return ToolCallInfo(call_id=f"c{i}", name="write_file", args={"file_path": f"f{i}.txt"}, title="w", kind="edit")


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        root.mkdir()
        for i in range(FILES):
            (root / f"f{i}.txt").write_text(f"file {i}\n" * 50)
        cp = ShadowGitCheckpointer(root, state_dir=Path(tmp) / "state", session_id="bench")
        befores: list[float] = []
        afters: list[float] = []
        for i in range(CALLS):
            t0 = time.perf_counter()
            await cp.before_tool(_call(i), [])
            t1 = time.perf_counter()
            (root / f"f{i}.txt").write_text("changed\n")
            t2 = time.perf_counter()
            await cp.after_tool(_call(i))
            t3 = time.perf_counter()
            befores.append((t1 - t0) * 1000)
            afters.append((t3 - t2) * 1000)
        rewinder = CheckpointRewinder(cp)
        ids = [f"c{i}" for i in range(CALLS)]
        t0 = time.perf_counter()
        plan = await rewinder.plan(ids)
        t1 = time.perf_counter()
        done = await rewinder.apply(ids)
        t2 = time.perf_counter()
        assert len(plan.restore) == CALLS and len(done.plan.restore) == CALLS
    before, after = statistics.median(befores), statistics.median(afters)
    print(f"{FILES} files, {CALLS} calls")
    print(f"snapshot before a call: {before:.1f} ms (median); after a call (added for rewind): {after:.1f} ms")
    print(f"ratio after/before: {after / before:.2f}")
    print(f"rewind over {CALLS} calls: plan {(t1 - t0) * 1000:.0f} ms, apply {(t2 - t1) * 1000:.0f} ms")


if __name__ == "__main__":
    asyncio.run(main())
