"""Headless runs: ``agent-lsp run PROMPT`` and ``agent-lsp demo`` print the event stream to the terminal."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import TextIO

from agent_lsp import events as ev
from agent_lsp.core.ports import ConfirmationResult
from agent_lsp.render import render
from agent_lsp.tools.policy import ApprovalMode

DEMO_DIR = Path(__file__).parent / "demo"


class TerminalConfirmer:
    """Asks on the terminal when there is one; otherwise declines and says how to allow."""

    def __init__(self, interactive: bool, out: TextIO = sys.stderr) -> None:
        self.interactive = interactive
        self.out = out

    async def confirm(self, call: ev.ToolCallInfo, details: ev.ConfirmationDetails) -> ConfirmationResult:
        if details.diff is not None and details.diff.unified:
            self.out.write(details.diff.unified + "\n")
        if not self.interactive:
            self.out.write(
                f"  declined {call.name}: nobody to ask; pass --approval-mode auto_edit or yolo to allow it\n"
            )
            return ConfirmationResult("reject")
        answer = await asyncio.to_thread(input, f"Allow {call.name} — {details.title}? [y]es/[a]lways/[n]o: ")
        choice = answer.strip().lower()[:1]
        return ConfirmationResult({"y": "proceed_once", "a": "proceed_always"}.get(choice, "reject"))  # type: ignore[arg-type]


class DemoConfirmer:
    """Plays the user in the demo: shows what is asked and approves it."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    async def confirm(self, call: ev.ToolCallInfo, details: ev.ConfirmationDetails) -> ConfirmationResult:
        self.out.write(f"  ✔ (demo user) approved {call.name}\n")
        return ConfirmationResult("proceed_once")


async def _drive(
    prompt: str,
    *,
    cwd: Path,
    runtime_options: object,
    confirmer: object,
    output_format: str,
    out: TextIO,
    err: TextIO,
) -> ev.Stop:
    from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup

    assert isinstance(runtime_options, RuntimeOptions)
    runtime = Runtime(runtime_options)
    handle = await runtime.create_session(SessionSetup(cwd=cwd, confirmer=confirmer))  # type: ignore[arg-type]
    for notice in handle.notices:
        err.write(render(notice) or "")

    def show(notice: ev.Notice) -> None:
        err.write(render(notice) or "")

    handle.notice_sink = show
    stop = ev.Stop("error")
    texts: list[str] = []
    started = time.perf_counter()
    tools = 0
    try:
        async for event in handle.session.send(prompt):
            if isinstance(event, ev.Stop):
                stop = event
            if isinstance(event, ev.ToolCallResponse):
                tools += 1
            if output_format == "stream-json":
                out.write(json.dumps(ev.event_to_dict(event)) + "\n")
                out.flush()
                continue
            if isinstance(event, ev.Content):
                texts.append(event.text)
                if output_format == "text":
                    out.write(event.text)
                    out.flush()
                continue
            if output_format == "text":
                text = render(event, verbose=out is err)
                if text:
                    err.write(text)
                    err.flush()
            if isinstance(event, ev.Error) and output_format == "json":
                texts.append("")
    finally:
        await handle.aclose()
    if output_format == "json":
        error = None if stop.reason != "error" else "the turn ended with an error"
        out.write(
            json.dumps(
                {
                    "response": "".join(texts),
                    "stats": {
                        "duration_ms": round((time.perf_counter() - started) * 1000),
                        "tool_calls": tools,
                        "stop_reason": stop.reason,
                        "usage": ev.event_to_dict(stop).get("usage"),
                    },
                    "error": error,
                },
                indent=2,
            )
            + "\n"
        )
    elif output_format == "text":
        out.write("\n")
    return stop


def run_prompt(
    prompt: str,
    *,
    cwd: Path,
    model: str | None,
    approval_mode: ApprovalMode | None,
    fake_responses: Path | None,
    output_format: str,
) -> int:
    from agent_lsp.runtime import Runtime, RuntimeOptions

    options = RuntimeOptions(fake_responses=fake_responses, model=model, approval_mode=approval_mode)
    problem = Runtime(options).check_auth()
    if problem:
        sys.stderr.write(f"agent-lsp: {problem}\n")
        return 1
    confirmer = TerminalConfirmer(sys.stdin.isatty())
    try:
        stop = asyncio.run(
            _drive(
                prompt,
                cwd=cwd,
                runtime_options=options,
                confirmer=confirmer,
                output_format=output_format,
                out=sys.stdout,
                err=sys.stderr,
            )
        )
    except KeyboardInterrupt:
        return 130
    return {"end_turn": 0, "max_tokens": 0, "cancelled": 130}.get(stop.reason, 1)


def run_demo(*, keep: bool = False, delay: float = 0.0) -> int:
    """Copy the bundled example project to a temp folder and run the scripted session on it."""
    from agent_lsp.runtime import RuntimeOptions

    tmp = Path(tempfile.mkdtemp(prefix="agent-lsp-demo-"))
    project = tmp / "project"
    shutil.copytree(DEMO_DIR / "project", project)
    home = tmp / "home"
    home.mkdir()
    # The demo is its own little world: it must never read or write the user's real settings or state.
    os.environ.update(
        {"HOME": str(home), "AGENT_LSP_HOME": str(home / ".agent-lsp"), "AGENT_LSP_TRUST_WORKSPACE": "true"}
    )
    env = dict(os.environ)
    before = (project / "stats.py").read_text()
    out = sys.stdout
    out.write(f"agent-lsp demo — replay model, example project copied to {project}\n\n")
    prompt = "The mean() in stats.py gives wrong answers. Find the bug, fix it and check the tests pass."
    out.write(f"> {prompt}\n\n")
    options = RuntimeOptions(fake_responses=DEMO_DIR / "demo.jsonl", chunk_delay=delay, env=env)
    stop = asyncio.run(
        _drive(
            prompt,
            cwd=project,
            runtime_options=options,
            confirmer=DemoConfirmer(out),
            output_format="text",
            out=out,
            err=out,
        )
    )
    after = (project / "stats.py").read_text()
    changed = before != after
    out.write(
        f"\nstats.py {'was changed by the agent' if changed else 'was NOT changed'}; stop reason: {stop.reason}\n"
    )
    if keep:
        out.write(f"project kept at {project}\n")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if changed and stop.reason == "end_turn" else 1
