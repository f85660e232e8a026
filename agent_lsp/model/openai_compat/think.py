"""Reasoning inlined in the answer as ``<think>…</think>`` (servers without a reasoning parser) as thought parts."""

from __future__ import annotations

from agent_lsp.model.base import Part


class ThinkSplitter:
    """Reasoning inlined in the text as ``<think>…</think>`` (servers without a reasoning parser) becomes thought
    parts; tags split across chunks are held back until it is clear what they are."""

    OPEN, CLOSE = "<think>", "</think>"

    def __init__(self) -> None:
        self.state = "start"  # start → thinking → text, or start → text
        self.buffer = ""

    def feed(self, text: str) -> list[Part]:
        if self.state == "text":
            return [Part(text=text)]
        self.buffer += text
        if self.state == "start":
            head = self.buffer.lstrip()
            if head.startswith(self.OPEN):
                self.state, self.buffer = "thinking", head[len(self.OPEN) :]
            elif self.OPEN.startswith(head):
                return []  # maybe the start of a tag: wait for more
            else:
                self.state, out, self.buffer = "text", self.buffer, ""
                return [Part(text=out)]
        end = self.buffer.find(self.CLOSE)
        if end >= 0:
            thought, rest = self.buffer[:end], self.buffer[end + len(self.CLOSE) :].lstrip("\n")
            self.state, self.buffer = "text", ""
            return [
                p
                for p in (Part(text=thought, thought=True) if thought else None, Part(text=rest) if rest else None)
                if p
            ]
        # Keep a tail that could be the start of the closing tag; the rest is thought already.
        safe = len(self.buffer) - (len(self.CLOSE) - 1)
        if safe <= 0:
            return []
        thought, self.buffer = self.buffer[:safe], self.buffer[safe:]
        return [Part(text=thought, thought=True)]

    def flush(self) -> list[Part]:
        rest, self.buffer = self.buffer, ""
        if not rest:
            return []
        return [Part(text=rest, thought=self.state == "thinking")]
