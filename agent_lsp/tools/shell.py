"""run_shell_command: runs a bash command in the workspace, streaming its output live and killing its
whole process group on cancellation or inactivity."""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_lsp.core.truncation import HeadTailBuffer
from agent_lsp.errors import PathOutsideWorkspace, ToolError
from agent_lsp.events import ConfirmationDetails
from agent_lsp.tools.base import ContextTool, OutputSink, ToolInvocation, ToolResult
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.shell_process import (
    run_streaming,
)
from agent_lsp.untrusted import wrap_untrusted

SHELL_TOOL_NAME = "run_shell_command"
BACKGROUND_SETTLE_S = 0.2  # a background command that dies this fast is reported as failed
MAX_BACKGROUND_DELAY_S = 60.0  # the longest delay_ms honoured
DISPLAY_CHARS = 20_000  # of the final output, shown to the user in the call's result
MAX_KEPT_CHARS = 8_000_000  # head + tail of the output kept in memory; the scheduler truncates further

_DESCRIPTION = """Runs a command with `bash -c` and returns what it printed.

The command runs non-interactively (stdin is closed), so never start programs that wait for input,
editors or pagers. Prefer flags that avoid prompts (for example `--yes`) and that keep output short.
Output (stdout and stderr interleaved) is shown to the user live while the command runs.

The result reports:
- Output: everything it printed (long output is cut in the middle and saved to a file)
- Error: why the command was stopped, when it was
- Exit Code: only when it is not 0; Signal: when the shell was killed
- Background PIDs: processes it left running with `&`, when there are any
- Process Group PGID: the process group the command ran in

Rules:
- Command substitution (`$(...)`, backticks, `<(...)`, `>(...)`) is refused; run the inner command
  first and use its output instead.
- Use `dir_path` (a folder inside the workspace) rather than `cd` to choose the working directory.
- Set `is_background` for servers, watchers and other long-running programs: the call returns at once
  with the process ID, and the output goes to a log file.
- A command that prints nothing for a long time is stopped."""


@dataclass(frozen=True)
class ShellParams:
    command: str
    description: str | None = None
    dir_path: str | None = None
    is_background: bool = False
    delay_ms: int | None = None


class ShellTool(ContextTool):
    name = SHELL_TOOL_NAME
    display_name = "Shell"
    description = _DESCRIPTION
    kind = "execute"
    truncate_output = True
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The exact bash command to run."},
            "description": {
                "type": "string",
                "description": "A short note for the user on what the command does and why.",
            },
            "dir_path": {
                "type": "string",
                "description": "Folder to run in, relative to the workspace root (default: the root).",
            },
            "is_background": {
                "type": "boolean",
                "description": "Start the command detached and return its PID at once (for servers and watchers); "
                "list_background_processes and read_background_output follow it later.",
            },
            "delay_ms": {
                "type": "integer",
                "description": "Optional, with is_background: milliseconds to let the command run before returning "
                "what it printed so far (default 200).",
            },
        },
        "required": ["command"],
    }

    def check(self, params: dict[str, Any]) -> str | None:
        command = str(params["command"])
        if not command.strip():
            return "The command must not be empty."
        if "\x00" in command:
            return "The command contains a NUL byte, which bash cannot receive."
        try:
            os.fsencode(command)
        except UnicodeEncodeError:
            return "The command contains characters that cannot be passed to bash (unpaired UTF-16 surrogates)."
        # Imported on the first command checked, like the grammar it loads: building a session's tools
        # does not need the parser package.
        from agent_lsp.shellparse import parse_shell

        parsed = parse_shell(command)
        if parsed.substitution:
            # Refused in every approval mode: what it runs is decided only when it runs, so nobody approved it.
            return (
                f"Command substitution with {parsed.substitution} is not allowed: it would run a command nobody "
                "approved. Run the inner command on its own first, then use its output."
            )
        try:
            self._cwd(params.get("dir_path"))
        except ToolError as exc:
            return str(exc)
        return None

    def _cwd(self, dir_path: str | None) -> Path:
        if not dir_path:
            return self.ctx.workspace.primary
        try:
            path = self.ctx.workspace.resolve(dir_path)
        except PathOutsideWorkspace as exc:
            raise ToolError(f"dir_path: {exc}", exc.error_type) from exc
        if not path.is_dir():
            raise ToolError(f"dir_path '{dir_path}' is not an existing directory.", "invalid_params")
        return path

    def build(self, params: dict[str, Any]) -> ShellInvocation:
        problem = self.validate(params)
        if problem:
            raise ToolError(problem, "invalid_params")
        p = ShellParams(
            command=str(params["command"]),
            description=params.get("description") or None,
            dir_path=params.get("dir_path") or None,
            is_background=bool(params.get("is_background", False)),
            delay_ms=params.get("delay_ms"),
        )
        return ShellInvocation(p, self.ctx, self._cwd(p.dir_path))


class ShellInvocation(ToolInvocation[ShellParams]):
    def __init__(self, params: ShellParams, ctx: ToolContext, cwd: Path) -> None:
        super().__init__(params)
        self.ctx = ctx
        self.cwd = cwd

    @property
    def _directory(self) -> str:
        rel = self.ctx.workspace.relative(self.cwd)
        return "(root)" if rel == "." else rel

    def describe(self) -> str:
        # The command itself, as Gemini CLI titles it: what the user approves is what runs. The model's own
        # description of it is not the title (it could say anything).
        text = self.params.command
        if self.params.dir_path:
            text += f" [in {self._directory}]"
        if self.params.is_background:
            text += " [background]"
        return text

    async def confirmation(self) -> ConfirmationDetails:
        from agent_lsp.shellparse import parse_shell  # imported here, off the start-up path (see check)

        return ConfirmationDetails(
            type="exec",
            title=self.describe(),
            command=self.params.command,
            root_commands=parse_shell(self.params.command).roots,
        )

    async def execute(self, output: OutputSink) -> ToolResult:
        if self.params.is_background:
            return await self._start_background()
        return await self._run(output)

    async def _run(self, output: OutputSink) -> ToolResult:
        self.ctx.temp_dir.mkdir(parents=True, exist_ok=True)
        fd, jobs_name = tempfile.mkstemp(prefix="shell-jobs-", suffix=".txt", dir=self.ctx.temp_dir)
        os.close(fd)
        jobs_file = Path(jobs_name)
        kept = HeadTailBuffer(MAX_KEPT_CHARS)

        def on_text(text: str) -> None:
            kept.add(text)
            output(text)

        try:
            run = await run_streaming(
                ["bash", "-c", _wrap(self.params.command, jobs_file)],
                cwd=self.cwd,
                on_text=on_text,
                inactivity_timeout_s=self.ctx.shell_inactivity_timeout_s,
                env=self.ctx.child_env.for_command(),
            )
        except OSError as exc:
            message = f"Could not start bash: {exc.strerror or exc}"
            return ToolResult(llm_content=message, error=message, error_type="shell_start_failed")
        finally:
            background = _take_pids(jobs_file)

        text = kept.text().rstrip("\n")
        if run.timed_out:
            background = []  # the whole group was killed, jobs included
        # Gemini CLI 0.61's result text: Exit Code only when non-zero, Background PIDs only when there are any,
        # and the whole of it marked as untrusted data (it is whatever the command printed).
        lines = [f"Output: {text if text.strip() else '(empty)'}"]
        error: str | None = None
        if run.timed_out:
            error = (
                f"The command printed nothing for {self.ctx.shell_inactivity_timeout_s:g} s and was stopped "
                "(its whole process group was killed)."
            )
            lines.append(f"Error: {error}")
        if run.returncode is not None and run.returncode > 0:
            lines.append(f"Exit Code: {run.returncode}")
        if run.returncode is not None and run.returncode < 0:
            lines.append(f"Signal: {_signal_name(-run.returncode)}")
        if background:
            lines.append(f"Background PIDs: {', '.join(map(str, background))}")
        if run.pgid is not None:
            lines.append(f"Process Group PGID: {run.pgid}")
        # The user already saw every chunk live; the final display only needs the end of it.
        display = text
        if len(text) > DISPLAY_CHARS:
            tail = text[-DISPLAY_CHARS:]
            tail = tail[tail.find("\n") + 1 :]  # start on a whole line
            display = f"[... {len(text) - len(tail)} characters above]\n{tail}"
        if run.timed_out:
            display += f"\n[{error}]"
        elif run.returncode is not None and run.returncode > 0:
            display += f"\n[exit code {run.returncode}]"
        elif run.returncode is not None and run.returncode < 0:
            display += f"\n[killed by {_signal_name(-run.returncode)}]"
        return ToolResult(
            llm_content=wrap_untrusted("\n".join(lines)),
            display=display.strip("\n") or "(no output)",
            error=error,
            error_type="shell_inactivity_timeout" if error else None,
        )

    async def _start_background(self) -> ToolResult:
        try:
            entry = self.ctx.processes.start(self.params.command, self.cwd)
        except OSError as exc:
            message = f"Could not start bash: {exc.strerror or exc}"
            return ToolResult(llm_content=message, error=message, error_type="shell_start_failed")
        delay = BACKGROUND_SETTLE_S if self.params.delay_ms is None else max(0, self.params.delay_ms) / 1000
        await asyncio.sleep(min(delay, MAX_BACKGROUND_DELAY_S))
        early = _read_log(str(entry.log))
        code = entry.returncode
        if code is None:
            text = f"Command is running in background. PID: {entry.pid}. Initial output:\n{early}"
            return ToolResult(
                llm_content=wrap_untrusted(text.rstrip("\n")),
                display=f"Background process started with PID {entry.pid}.",
            )
        lines = [
            f"Command: {self.params.command}",
            f"Directory: {self._directory}",
            f"Background PIDs: {entry.pid}",
            f"Output: {early if early.strip() else '(empty)'}",
            f"Signal: {_signal_name(-code)}" if code < 0 else f"Exit Code: {code}",
        ]
        return ToolResult(
            llm_content=wrap_untrusted("\n".join(lines)),
            display=early.strip() or f"Exited at once with code {code}.",
        )


def _wrap(command: str, jobs_file: Path) -> str:
    # An EXIT trap lists the jobs the command left running even when it ends with `exit`; the command
    # itself stays exactly as written on the lines after it.
    listing = f"jobs -p > {shlex.quote(str(jobs_file))} 2>/dev/null"
    return f"trap {shlex.quote(listing)} EXIT\n{command}"


def _take_pids(path: Path) -> list[int]:
    """The PIDs listed in ``path``, which is then removed."""
    try:
        raw = path.read_text(encoding="ascii", errors="replace")
    except OSError:
        return []
    finally:
        path.unlink(missing_ok=True)
    return [int(w) for w in raw.split() if w.isdigit()]


def _read_log(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _signal_name(number: int) -> str:
    try:
        return f"{signal.Signals(number).name} ({number})"
    except ValueError:
        return str(number)
