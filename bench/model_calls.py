"""Model calls per task: the demo task through the real runtime, counting requests the agent made.

Budget: zero calls beyond the steps the task needs (the scripted steps: one response per step). A call
beyond the script would fail the replay; a call short of it would leave steps unused. Ratio 1.00 is the target.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path

from agent_lsp.core.ports import AutoConfirmer
from agent_lsp.headless import DEMO_DIR
from agent_lsp.model.replay import ReplayModel
from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup


async def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench-calls-"))
    os.environ.update(
        {"HOME": str(tmp / "home"), "AGENT_LSP_HOME": str(tmp / "state"), "AGENT_LSP_TRUST_WORKSPACE": "true"}
    )
    project = tmp / "project"
    shutil.copytree(DEMO_DIR / "project", project)
    script = DEMO_DIR / "demo.jsonl"
    steps = sum(1 for line in script.read_text().splitlines() if line.strip())
    runtime = Runtime(RuntimeOptions(fake_responses=script, approval_mode="yolo", env=dict(os.environ)))
    handle = await runtime.create_session(SessionSetup(cwd=project, confirmer=AutoConfirmer()))
    async for _ in handle.session.send("Fix mean() in stats.py and run the checks."):
        pass
    await handle.aclose()
    model = runtime.model_client()
    assert isinstance(model, ReplayModel)
    calls = len(model.requests)
    print(f"model calls for the demo task: {calls} (steps needed {steps}, ratio {calls / steps:.2f})")
    shutil.rmtree(tmp, ignore_errors=True)
    if calls != steps:
        sys.exit(1)


if __name__ == "__main__":
    asyncio.run(main())
