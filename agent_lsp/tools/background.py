"""The session's background processes: shell commands started with ``is_background``, each in its own process
group with its output in a log file; listed, read, and stopped when the session ends."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent_lsp.child_env import ChildEnv
from agent_lsp.tools.shell_process import KILL_GRACE_S, signal_group, spawn_detached

MAX_READ_BYTES = 64 * 1024  # of a log's end read per call; the first, partial line is dropped
KEEP_FINISHED = 50  # finished processes still listed (and readable); older ones are forgotten


@dataclass
class BackgroundProcess:
    pid: int  # also its process group: it leads a session of its own
    command: str
    log: Path
    started: float
    proc: subprocess.Popen[bytes]

    @property
    def returncode(self) -> int | None:
        return self.proc.poll()

    @property
    def status(self) -> str:
        return "running" if self.returncode is None else "exited"

    def ending(self) -> str:
        """How it ended, for the user: ``exited with code 1`` / ``was killed by SIGKILL``."""
        code = self.returncode
        if code is None:
            return "is running"
        return f"exited with code {code}" if code >= 0 else f"was killed by {_signal_name(-code)}"

    def summary(self) -> str:
        code = self.returncode
        line = f"- [PID {self.pid}] {self.status.upper()}: `{self.command}`"
        if code is not None and code >= 0:
            line += f" (Exit Code: {code})"
        elif code is not None:
            line += f" (Signal: {_signal_name(-code)})"
        return line


class BackgroundProcesses:
    """One session's background processes. Only what this session started can be listed or read."""

    def __init__(self, log_dir: Path, child_env: ChildEnv | None = None) -> None:
        self.log_dir = log_dir
        self.child_env = child_env or ChildEnv()
        self._procs: dict[int, BackgroundProcess] = {}
        self._on_exit: Callable[[BackgroundProcess], None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closing = False

    def watch(self, on_exit: Callable[[BackgroundProcess], None]) -> None:
        """Call ``on_exit`` on the running event loop whenever a process started from now on ends by itself (not
        when the session stops it). Set once, when the session starts (``SessionHandle.start``)."""
        self._loop = asyncio.get_running_loop()
        self._on_exit = on_exit

    def start(self, command: str, cwd: Path) -> BackgroundProcess:
        """Start ``command`` detached, its output going to a fresh log file. Raises OSError when bash cannot start."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix="background-", suffix=".log", dir=self.log_dir)
        try:
            proc = spawn_detached(command, cwd, fd, self.child_env.for_command())
        except OSError:
            Path(name).unlink(missing_ok=True)
            raise
        finally:
            os.close(fd)
        log = Path(name)
        entry = BackgroundProcess(proc.pid, command, log, time.time(), proc)
        self._procs[proc.pid] = entry
        self._forget_old()
        if self._on_exit is not None:
            threading.Thread(target=self._wait, args=(entry,), name=f"watch-{proc.pid}", daemon=True).start()
        return entry

    def _wait(self, entry: BackgroundProcess) -> None:
        """On a thread: the process's end, handed to the loop (nothing if the session is stopping it)."""
        entry.proc.wait()
        loop, on_exit = self._loop, self._on_exit
        if self._closing or loop is None or on_exit is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop closed first: nobody is left to tell
            loop.call_soon_threadsafe(self._exited, entry)

    def _exited(self, entry: BackgroundProcess) -> None:
        if not self._closing and self._on_exit is not None:
            self._on_exit(entry)

    def get(self, pid: int) -> BackgroundProcess | None:
        return self._procs.get(pid)

    def all(self) -> list[BackgroundProcess]:
        return list(self._procs.values())

    def _forget_old(self) -> None:
        finished = [p for p in self._procs.values() if p.returncode is not None]
        for p in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            del self._procs[p.pid]
            p.log.unlink(missing_ok=True)

    async def stop(self, entry: BackgroundProcess) -> None:
        """Stop one process group the user asked to stop (/tasks stop): SIGTERM, SIGKILL after the grace period."""
        await _stop([entry])

    async def aclose(self) -> None:
        """Stop every process group still running: SIGTERM, then SIGKILL after a grace period."""
        self._closing = True
        await _stop([p for p in self._procs.values() if p.returncode is None])


async def _stop(running: list[BackgroundProcess]) -> None:
    """SIGTERM to each group, then SIGKILL after the grace period (also when the leader exited: what it started
    may still be in its group)."""
    for p in running:
        signal_group(p.pid, signal.SIGTERM)
    deadline = time.monotonic() + KILL_GRACE_S
    while any(p.returncode is None for p in running) and time.monotonic() < deadline:  # noqa: ASYNC110
        await asyncio.sleep(0.02)  # the reaper threads set the return codes; there is nothing to await
    for p in running:
        signal_group(p.pid, signal.SIGKILL)


def read_tail(path: Path, lines: int) -> tuple[list[str], int]:
    """The last ``lines`` lines of the log (from at most its last 64 KB) and how many lines that window held."""
    with path.open("rb") as fh:
        size = fh.seek(0, os.SEEK_END)
        start = max(0, size - MAX_READ_BYTES)
        fh.seek(start)
        data = fh.read()
    text = data.decode("utf-8", errors="replace")
    all_lines = text.split("\n")
    if all_lines and all_lines[-1] == "":
        all_lines.pop()
    if start > 0 and all_lines:
        all_lines.pop(0)  # cut mid-line
    return all_lines[-lines:], len(all_lines)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)
