"""/tasks (also /bg, /background, as Gemini CLI 0.61 names its background tasks view): the session's background
processes for the user, the end of one's output, or stopping one."""

from __future__ import annotations

import asyncio

from agent_lsp.tools.background import BackgroundProcess, BackgroundProcesses, read_tail

TAIL_LINES = 40
USAGE = "Usage: `/tasks` lists them, `/tasks <pid>` shows the end of one's output, `/tasks stop <pid>` stops one."


async def tasks_command(processes: BackgroundProcesses, rest: str) -> str:
    """The answer to ``/tasks [<pid> | stop <pid>]``, as markdown for the user."""
    words = rest.split()
    if not words:
        entries = processes.all()
        if not entries:
            return "No background processes. Commands the agent starts with `is_background` are listed here."
        return "Background processes of this session:\n\n" + "\n".join(p.summary() for p in entries) + f"\n\n{USAGE}"
    stop = words[0] == "stop"
    pid_text = words[1] if stop and len(words) == 2 else words[0] if len(words) == 1 else ""
    entry = processes.get(int(pid_text)) if pid_text.isdigit() else None
    if entry is None:
        return f"No background process of this session has PID {pid_text or '?'}. {USAGE}"
    if stop:
        if entry.returncode is not None:
            return f"Process {entry.pid} (`{entry.command}`) has already ended: it {entry.ending()}."
        await processes.stop(entry)
        return f"Stopped process {entry.pid} (`{entry.command}`): it {entry.ending()}."
    return await asyncio.to_thread(_tail, entry)


def _tail(entry: BackgroundProcess) -> str:
    try:
        lines, _ = read_tail(entry.log, TAIL_LINES)
    except OSError as exc:
        return f"The output of process {entry.pid} cannot be read: {exc}"
    shown = "\n".join(lines) if lines else "(no output yet)"
    return f"{entry.summary()[2:]}, the end of its output:\n\n```\n{shown}\n```"
