"""Running one hook command: bash, JSON on stdin, a timeout that kills its process group, output parsed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import signal
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_lsp.hooks.config import HookCommand

KILL_GRACE_S = 2.0
EXIT_BLOCK = 2  # Gemini CLI's "system block": stderr is the reason


@dataclass(frozen=True)
class HookRun:
    hook: HookCommand
    exit_code: int | None  # None: it never ran to an end (timeout, could not start)
    output: dict[str, Any] | None  # the JSON answer, or one made from plain text (Gemini CLI's rule)
    stderr: str
    error: str | None = None  # why it failed to run


async def run_hook(hook: HookCommand, payload: Mapping[str, Any], *, cwd: Path, env: Mapping[str, str]) -> HookRun:
    """Run ``hook`` with ``payload`` as JSON on stdin. Never raises for the hook's own failures."""
    session_id = str(payload.get("session_id", ""))
    command = _expand(hook.command, str(cwd), session_id)
    child_env = {
        **env,
        "GEMINI_PROJECT_DIR": str(cwd),
        "GEMINI_CWD": str(cwd),
        "GEMINI_SESSION_ID": session_id,
        "CLAUDE_PROJECT_DIR": str(cwd),
        **dict(hook.env),
    }
    try:
        proc = await asyncio.create_subprocess_exec(
            "bash",
            "-c",
            command,
            cwd=cwd,
            env=child_env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return HookRun(hook, None, None, "", f"could not start: {exc.strerror or exc}")
    data = json.dumps(payload).encode()
    try:
        out, err = await asyncio.wait_for(proc.communicate(data), hook.timeout_ms / 1000)
    except TimeoutError:
        await _kill(proc)
        return HookRun(hook, None, None, "", f"timed out after {hook.timeout_ms} ms")
    except asyncio.CancelledError:
        await _kill(proc)
        raise
    stdout, stderr = out.decode(errors="replace"), err.decode(errors="replace")
    code = proc.returncode if proc.returncode is not None else 0
    return HookRun(hook, code, parse_output(stdout, stderr, code), stderr)


def parse_output(stdout: str, stderr: str, code: int) -> dict[str, Any] | None:
    """JSON from stdout (or stderr when stdout is empty); plain text becomes a message (exit 0), a warning
    (exit 1) or a block with the text as the reason (any other code), as Gemini CLI reads it."""
    text = stdout.strip() or stderr.strip()
    if not text:
        return None
    try:
        value = json.loads(text)
        if isinstance(value, str):
            value = json.loads(value)
        if isinstance(value, dict):
            return value
    except json.JSONDecodeError:
        pass
    if code == EXIT_BLOCK:
        return {"decision": "deny", "reason": text}
    if code == 0:
        return {"decision": "allow", "systemMessage": text}
    # Any other failure is a warning, as Gemini CLI's hook documentation promises: the action goes on.
    return {"decision": "allow", "systemMessage": f"Warning: {text}"}


def _expand(command: str, cwd: str, session_id: str) -> str:
    """``$GEMINI_PROJECT_DIR`` and friends are replaced by quoted values before bash sees the command."""
    cwd_q, sid_q = shlex.quote(cwd), shlex.quote(session_id)
    for name, value in (
        ("$GEMINI_PROJECT_DIR", cwd_q),
        ("$GEMINI_CWD", cwd_q),
        ("$GEMINI_SESSION_ID", sid_q),
        ("$CLAUDE_PROJECT_DIR", cwd_q),
    ):
        command = command.replace(name, value)
    return command


async def _kill(proc: asyncio.subprocess.Process) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        try:
            await asyncio.wait_for(proc.wait(), KILL_GRACE_S)
            return
        except TimeoutError:
            continue
