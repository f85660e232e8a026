"""Running a command in its own process group: output streamed as it arrives, an inactivity timeout, and the
whole group killed on cancellation (shared by the shell tool, discovered tools and hooks)."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import os
import signal
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent_lsp.child_env import ChildEnv

log = logging.getLogger(__name__)

KILL_GRACE_S = 1.0  # between SIGTERM and SIGKILL
DRAIN_S = 0.3  # after the shell exits, how long leftover output may still arrive (jobs may hold the pipe)


@dataclass(frozen=True)
class RunResult:
    returncode: int | None  # negative: killed by that signal
    timed_out: bool
    pgid: int | None = None  # the shell led its own process group


async def run_streaming(
    argv: list[str],
    *,
    cwd: Path,
    on_text: Callable[[str], None],
    inactivity_timeout_s: float | None,
    env: dict[str, str] | None = None,
) -> RunResult:
    """Run ``argv`` in a new session (its own process group) with stdout and stderr on one pipe, passing
    decoded text to ``on_text`` as it arrives. Cancellation and inactivity kill the whole group."""
    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=write_fd,
            stderr=write_fd,
            start_new_session=True,
            env=env if env is not None else ChildEnv().for_command(),
        )
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        # Only the child keeps the write end, so EOF means every writer in the group is gone.
        os.close(write_fd)
    reader = _PipeReader(loop)
    pipe = os.fdopen(read_fd, "rb", buffering=0)
    transport: asyncio.ReadTransport | None = None
    finished = False
    timed_out = False
    waiter = asyncio.ensure_future(proc.wait())
    # From here on the group exists: a cancel at any await below (SIGTERM while the pipe is being connected, on a
    # busy machine) must still end it, so everything after the spawn is inside the try.
    try:
        transport, _ = await loop.connect_read_pipe(lambda: reader, pipe)
        while not waiter.done():
            for text in reader.take():
                on_text(text)
            if inactivity_timeout_s is not None and loop.time() - reader.last_activity >= inactivity_timeout_s:
                timed_out = True
                break
            wake = asyncio.ensure_future(reader.changed.wait())
            timeout = None
            if inactivity_timeout_s is not None:
                timeout = max(0.0, reader.last_activity + inactivity_timeout_s - loop.time())
            try:
                await asyncio.wait({waiter, wake}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            finally:
                wake.cancel()
        if not timed_out:
            finished = True
            # Everything the shell wrote is already in the pipe; jobs it left running may still hold it open.
            await asyncio.wait({reader.closed}, timeout=DRAIN_S)
        for text in reader.take(final=True):
            on_text(text)
        if reader.error is not None:
            raise reader.error
    finally:
        if transport is not None:
            transport.close()
        else:
            pipe.close()
        if not finished:
            await terminate_group(proc)
        waiter.cancel()
    return RunResult(returncode=proc.returncode, timed_out=timed_out, pgid=proc.pid)


class _PipeReader(asyncio.Protocol):
    """Collects pipe data as decoded text and notes when it last arrived (for the inactivity timeout)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending: list[str] = []
        self.last_activity = loop.time()
        self.changed = asyncio.Event()
        self.closed: asyncio.Future[None] = loop.create_future()
        self.error: BaseException | None = None

    def data_received(self, data: bytes) -> None:
        self.last_activity = self._loop.time()
        text = self._decoder.decode(data)
        if text:
            self._pending.append(text)
            self.changed.set()

    def eof_received(self) -> bool | None:
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is not None:
            self.error = exc
        if not self.closed.done():
            self.closed.set_result(None)
        self.changed.set()

    def take(self, *, final: bool = False) -> list[str]:
        if final:
            tail = self._decoder.decode(b"", final=True)
            if tail:
                self._pending.append(tail)
        out, self._pending = self._pending, []
        self.changed.clear()
        return out


async def terminate_group(proc: asyncio.subprocess.Process, grace_s: float = KILL_GRACE_S) -> None:
    """SIGTERM the process group led by ``proc``, SIGKILL whatever is left after ``grace_s``, reap ``proc``."""
    pgid = proc.pid  # start_new_session made the child the leader of its own group
    loop = asyncio.get_running_loop()
    signal_group(pgid, signal.SIGTERM)
    try:
        deadline = loop.time() + grace_s
        while loop.time() < deadline:
            if not _group_alive(pgid, proc):
                break
            await asyncio.sleep(0.02)
    finally:
        # Also on a second cancellation: nothing of the group may outlive us.
        signal_group(pgid, signal.SIGKILL)
    if proc.returncode is None:
        try:
            await asyncio.wait_for(proc.wait(), 5.0)
        except TimeoutError:
            log.warning("process %d did not exit after SIGKILL", proc.pid)


def signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is already gone
        os.killpg(pgid, sig)


def _group_alive(pgid: int, proc: asyncio.subprocess.Process) -> bool:
    if proc.returncode is None:
        return True
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    # Orphaned members that have exited but are not yet reaped still count for killpg; ignore zombies.
    return any(not _is_zombie(pid) for pid in _group_members(pgid))


def _group_members(pgid: int) -> list[int]:
    members: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return [pgid]
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            if os.getpgid(int(entry)) == pgid:
                members.append(int(entry))
        except OSError:
            continue
    return members


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


def spawn_detached(command: str, cwd: Path, log_fd: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """Start ``command`` detached in its own session, output to ``log_fd``, for is_background."""
    proc = subprocess.Popen(
        ["bash", "-c", command],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=log_fd,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=env,
    )
    # Reap it whenever it ends so it never lingers as a zombie; nothing else waits for it.
    threading.Thread(target=proc.wait, name=f"reap-{proc.pid}", daemon=True).start()
    return proc
