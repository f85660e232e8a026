"""A streamed answer's connection kept for the next request: the body's last bytes are read after ``[DONE]``.

The openai SDK stops reading a stream at its ``data: [DONE]`` event and closes the response before the
chunked body's terminator has been read, so httpx cannot put the connection back in its pool: every
request opened a new connection (a TLS handshake to a hosted endpoint; openai-python#3440). A response
hook (httpx's public ``event_hooks``) wraps each event stream so that closing it after ``[DONE]`` first
reads what is left of the body (a few bytes). A stream closed before ``[DONE]`` (the user stopped it, a
loop was cut) is closed at once, as before.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

# What is read after [DONE] at most: the chunked terminator is five bytes; a server that keeps sending is
# not waited for.
DRAIN_LIMIT = 64 * 1024
_DONE_LINE = b"\ndata: [DONE]"


def drain_after_done_hook() -> Any:
    """An httpx ``response`` event hook wrapping server-sent-event bodies (see the module docstring)."""
    import httpx

    class DrainAfterDone(httpx.AsyncByteStream):
        def __init__(self, inner: Any) -> None:
            self._inner = inner
            self._chunks: AsyncIterator[bytes] | None = None
            self._tail = b"\n"  # the last bytes seen, enough to find "[DONE]" split across reads
            self._done = False

        async def __aiter__(self) -> AsyncIterator[bytes]:
            self._chunks = self._inner.__aiter__()
            async for chunk in self._chunks:
                if not self._done:
                    self._tail = (self._tail + chunk)[-64:]
                    # At a line start only: JSON text cannot hold a raw newline, so this is the SSE event.
                    self._done = _DONE_LINE in self._tail
                yield chunk

        async def aclose(self) -> None:
            try:
                if self._done and self._chunks is not None:
                    left = DRAIN_LIMIT
                    async for chunk in self._chunks:
                        left -= len(chunk)
                        if left <= 0:
                            break
            finally:
                await self._inner.aclose()

    async def hook(response: httpx.Response) -> None:
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            response.stream = DrainAfterDone(response.stream)

    return hook
