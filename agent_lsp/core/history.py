"""Conversation history kept in a shape the Gemini API always accepts.

Invariants: thoughts are never stored (their signatures are, on the part that carries them);
consecutive same-role contents are merged; every functionCall in a model turn is answered by a
functionResponse in the next user turn; failed requests roll back to a mark.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from agent_lsp.model.base import Content, FunctionResponse, Part, Role


def _keep(part: Part) -> Part | None:
    """Drop thought text; keep a thought signature if the part also carries a call."""
    if part.thought:
        return None
    if part.text is None and part.function_call is None and part.function_response is None and part.inline_data is None:
        return None
    return part


class History:
    def __init__(self, contents: Iterable[Content] = ()) -> None:
        self._contents: list[Content] = []
        # Each entry's estimate in characters, kept beside it as entries change, so the per-response estimate
        # (the context usage, the fixed part of a request) costs nothing that grows with the history.
        self._chars: list[int] = []
        for c in contents:
            self.add(c)

    def contents(self) -> tuple[Content, ...]:
        return tuple(self._contents)

    def __len__(self) -> int:
        return len(self._contents)

    def mark(self) -> int:
        return len(self._contents)

    def rollback(self, mark: int) -> None:
        del self._contents[mark:]
        del self._chars[mark:]

    def estimate(self) -> int:
        """``estimate_tokens`` of the whole history, from the kept per-entry figures."""
        return sum(self._chars) // 4

    def replace(self, contents: Sequence[Content]) -> None:
        self._contents, self._chars = [], []
        for c in contents:
            self.add(c)

    def add(self, content: Content) -> None:
        parts = tuple(p for p in (_keep(p) for p in content.parts) if p is not None)
        # Streamed model text arrives in chunks worth gluing; a user's parts (prompt, files) keep their edges.
        glue = content.role == "model"
        if glue:
            parts = _merge_parts((), parts)
        if not parts:
            return
        if self._contents and self._contents[-1].role == content.role:
            last = self._contents[-1]
            merged = _merge_parts(last.parts, parts) if glue else last.parts + parts
            self._contents[-1] = Content(role=last.role, parts=merged)
            self._chars[-1] += _chars(parts)  # gluing text adds its characters, nothing else changes
        else:
            self._contents.append(Content(role=content.role, parts=parts))
            self._chars.append(_chars(parts))

    def add_user(self, parts: Sequence[Part]) -> None:
        self.add(Content("user", tuple(parts)))

    def add_model(self, parts: Sequence[Part]) -> None:
        self.add(Content("model", tuple(parts)))

    def pending_calls(self) -> list[Part]:
        """Function calls of the last model turn that have no response yet."""
        if not self._contents or self._contents[-1].role != "model":
            return []
        return [p for p in self._contents[-1].parts if p.function_call is not None]

    def answer_pending(self, text: str) -> None:
        """Answer every unanswered call (e.g. after cancellation) so the history stays valid."""
        calls = self.pending_calls()
        if calls:
            self.add_user(
                [
                    Part(
                        function_response=FunctionResponse(
                            name=p.function_call.name, response={"error": text}, id=p.function_call.id
                        )
                    )
                    for p in calls
                    if p.function_call is not None
                ]
            )

    def last_role(self) -> Role | None:
        return self._contents[-1].role if self._contents else None


def _merge_parts(a: tuple[Part, ...], b: tuple[Part, ...]) -> tuple[Part, ...]:
    """Join two part lists, gluing adjacent plain text so streamed chunks become one part."""
    out = list(a)
    for p in b:
        prev = out[-1] if out else None
        if (
            prev is not None
            and _plain_text(prev)
            and _plain_text(p)
            and not p.thought_signature
            and not prev.thought_signature
        ):
            out[-1] = Part(text=(prev.text or "") + (p.text or ""))
        else:
            out.append(p)
    return tuple(out)


def _plain_text(p: Part) -> bool:
    return p.text is not None and p.function_call is None and p.inline_data is None and not p.thought


def is_function_response_turn(content: Content) -> bool:
    return content.role == "user" and any(p.function_response is not None for p in content.parts)


def estimate_tokens(contents: Iterable[Content]) -> int:
    """A cheap token estimate (about 4 characters a token) used where counting would cost a model call."""
    return sum(_chars(c.parts) for c in contents) // 4


def _chars(parts: Iterable[Part]) -> int:
    chars = 0
    for p in parts:
        if p.text:
            chars += len(p.text)
        elif p.function_call is not None:
            chars += len(p.function_call.name) + len(str(p.function_call.args))
        elif p.function_response is not None:
            chars += len(str(p.function_response.response))
        elif p.inline_data is not None:
            chars += 1000  # images cost a roughly fixed number of tokens
    return chars
