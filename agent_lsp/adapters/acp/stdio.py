"""Asyncio access to the process's stdin/stdout for protocol frames, whatever kind of file they are."""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import threading


class PipeSource:
    """Reads stdin through the event loop when it is a pipe or socket, else through a helper thread."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._reader: asyncio.StreamReader | None = None

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=1 << 30)
        mode = os.fstat(self._fd).st_mode
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode):
            protocol = asyncio.StreamReaderProtocol(reader)
            await loop.connect_read_pipe(lambda: protocol, os.fdopen(self._fd, "rb", buffering=0, closefd=False))
        else:
            # A regular file (frames replayed from disk) cannot be watched by the loop: read it in a thread.
            threading.Thread(target=self._pump, args=(loop, reader), name="acp-stdin", daemon=True).start()
        self._reader = reader

    def _pump(self, loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader) -> None:
        try:
            while chunk := os.read(self._fd, 1 << 16):
                loop.call_soon_threadsafe(reader.feed_data, chunk)
        except OSError:
            pass
        with contextlib.suppress(RuntimeError):  # the loop may already be gone at exit
            loop.call_soon_threadsafe(reader.feed_eof)

    async def read(self, n: int) -> bytes:
        assert self._reader is not None, "start() first"
        return await self._reader.read(n)


class PipeWriter:
    """Writes frames to stdout without blocking the loop when it is a pipe; plain writes otherwise."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._transport: asyncio.WriteTransport | None = None
        self._protocol: _FlowControl | None = None

    async def start(self) -> None:
        mode = os.fstat(self._fd).st_mode
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            loop = asyncio.get_running_loop()
            pipe = os.fdopen(self._fd, "wb", buffering=0, closefd=False)
            transport, protocol = await loop.connect_write_pipe(_FlowControl, pipe)
            self._transport = transport
            self._protocol = protocol

    def write(self, data: bytes) -> None:
        if self._transport is not None:
            if not self._transport.is_closing():
                self._transport.write(data)
            return
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]

    async def drain(self) -> None:
        if self._protocol is not None:
            await self._protocol.wait_writable()

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()


class _FlowControl(asyncio.Protocol):
    """Pauses writers while the pipe's buffer is full (the client is slow to read)."""

    def __init__(self) -> None:
        self._writable = asyncio.Event()
        self._writable.set()

    def pause_writing(self) -> None:
        self._writable.clear()

    def resume_writing(self) -> None:
        self._writable.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self._writable.set()

    async def wait_writable(self) -> None:
        await self._writable.wait()
