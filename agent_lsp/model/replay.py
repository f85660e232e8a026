"""A ModelClient that replays Gemini CLI's ``--fake-responses`` JSONL, for the demo and for tests.

Each line is ``{"method": "generateContentStream" | "generateContent" | "countTokens", "response": ...}``;
for a stream ``response`` is the list of chunks. Responses are consumed in order; a request whose
method does not match the next line is a scripting error and says which line it expected.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from agent_lsp.errors import ModelError
from agent_lsp.model.base import GenerateRequest, ModelChunk
from agent_lsp.model.wire import chunk_from_json


class ReplayModel:
    """Replays scripted responses; records every request it was given (for tests to inspect)."""

    def __init__(self, lines: list[dict[str, Any]], *, chunk_delay: float = 0.0, source: str = "<memory>") -> None:
        self._lines = lines
        self._next = 0
        self._chunk_delay = chunk_delay
        self._source = source
        self.requests: list[tuple[str, GenerateRequest]] = []

    @classmethod
    def from_file(cls, path: str | Path, *, chunk_delay: float = 0.0) -> ReplayModel:
        p = Path(path)
        lines: list[dict[str, Any]] = []
        for n, raw in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1):
            if not raw.strip():
                continue
            try:
                item = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise ModelError(f"{p}:{n}: not valid JSON ({exc.msg})") from exc
            if not isinstance(item, dict) or "method" not in item or "response" not in item:
                raise ModelError(f'{p}:{n}: each line needs "method" and "response"')
            lines.append(item)
        return cls(lines, chunk_delay=chunk_delay, source=str(p))

    @property
    def remaining(self) -> int:
        return len(self._lines) - self._next

    def _take(self, method: str, request: GenerateRequest) -> Any:
        self.requests.append((method, request))
        if self._next >= len(self._lines):
            raise ModelError(
                f"replay {self._source}: no scripted response left for {method} (all {len(self._lines)} used)",
                retryable=False,
            )
        item = self._lines[self._next]
        if item["method"] != method:
            raise ModelError(
                f"replay {self._source}: line {self._next + 1} is {item['method']}, but the agent asked for {method}",
                retryable=False,
            )
        self._next += 1
        return item["response"]

    async def stream(self, request: GenerateRequest) -> AsyncIterator[ModelChunk]:
        chunks = self._take("generateContentStream", request)
        if isinstance(chunks, dict):
            chunks = [chunks]
        for raw in chunks:
            if self._chunk_delay:
                await asyncio.sleep(self._chunk_delay)
            else:
                await asyncio.sleep(0)  # stay cancellable even at zero delay
            yield chunk_from_json(raw)

    async def generate(self, request: GenerateRequest) -> ModelChunk:
        return chunk_from_json(self._take("generateContent", request))

    async def count_tokens(self, request: GenerateRequest) -> int:
        response = self._take("countTokens", request)
        return int(response.get("totalTokens", 0))
