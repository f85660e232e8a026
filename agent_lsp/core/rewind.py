"""Rewind: go back to before one of the session's user messages, in its files and its conversation.

Every user message of a session has a stable index (its position among the session's user messages, 0 first).
``MessageLog`` watches the session's events (and replays a loaded session's) to know, for each message, where it
starts in the model's history and which tool calls ran after it; the ``FileRewinder`` port (the shadow-git
checkpoints, store/checkpoints/rewind.py) works out and restores the files those calls changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from agent_lsp import events as ev
from agent_lsp.core.history import History
from agent_lsp.errors import AgentError
from agent_lsp.model.base import Content
from agent_lsp.vocabulary import ErrorMeaning


class RewindError(AgentError):
    """A rewind cannot be done (no such message, the conversation was compressed since); said to a person."""

    meaning: ClassVar[ErrorMeaning] = "invalid_params"


@dataclass
class MessageMark:
    """One user message: its text, where it starts in the history (-1: unknown) and the tool calls after it."""

    text: str
    history_index: int
    call_ids: list[str] = field(default_factory=list)
    message_id: str = ""

    def refs(self) -> list[CallRef]:
        return [CallRef(self.message_id, cid) for cid in self.call_ids]


@dataclass(frozen=True)
class CallRef:
    """One tool call as a rewind addresses it: the model's call id alone is not unique (a model may use the same
    id in two turns), so the user message it ran after goes with it ("": a recording from before message ids)."""

    message_id: str
    call_id: str


@dataclass(frozen=True)
class FilePlan:
    """What rewinding the files would do: paths (workspace-relative) restored, removed, and left as conflicts."""

    restore: tuple[str, ...] = ()
    delete: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()  # the user edited them after the agent's last write: never overwritten


@dataclass(frozen=True)
class FileRewind:
    """What a file rewind did, and what undoing it needs (``undo_token``, the rewinder's own)."""

    plan: FilePlan
    undo_token: str = ""


class FileRewinder(Protocol):
    """Restores the files that tool calls changed to how they were before the first of them."""

    async def plan(self, calls: Sequence[CallRef]) -> FilePlan: ...

    async def apply(self, calls: Sequence[CallRef]) -> FileRewind: ...

    async def undo(self, done: FileRewind) -> None: ...


@dataclass(frozen=True)
class RewindTarget:
    """A user message that can be rewound to, as front ends list it."""

    index: int
    text: str
    rewindable: bool  # False when the conversation was compressed or restored after it
    message_id: str = ""  # empty for messages recorded before ids existed


@dataclass(frozen=True)
class RewindResult:
    """A rewind done: the message's index and text (for the input box) and what happened to the files."""

    index: int
    text: str
    files: FilePlan
    files_available: bool  # False when no checkpoints exist (checkpointing off): the files were not touched


class MessageLog:
    """An event sink that keeps one ``MessageMark`` per user message of the session, in order."""

    def __init__(self, events: Iterable[ev.AgentEvent] = ()) -> None:
        self.marks: list[MessageMark] = []
        self.floor = 0  # messages before this index cannot be rewound (the history was rewritten after them)
        for event in events:
            self(event)

    def __call__(self, event: ev.AgentEvent) -> None:
        if isinstance(event, ev.UserMessage):
            self.marks.append(MessageMark(event.text, event.history_index, message_id=event.message_id))
        elif isinstance(event, ev.ToolCallResponse) and self.marks:
            self.marks[-1].call_ids.append(event.call_id)
        elif isinstance(event, ev.ChatCompressed):
            self.invalidate()

    def invalidate(self) -> None:
        """The history was rewritten (compression, /restore): earlier messages no longer have a place in it."""
        self.floor = len(self.marks)

    def targets(self) -> list[RewindTarget]:
        return [
            RewindTarget(i, m.text, i >= self.floor and m.history_index >= 0, m.message_id)
            for i, m in enumerate(self.marks)
        ]

    def index_of(self, message_id: str) -> int:
        """The index of the user message with this id; RewindError when the session has none."""
        for i, m in enumerate(self.marks):
            if m.message_id == message_id:
                return i
        raise RewindError(f"There is no user message {message_id!r} in this session.")

    def mark(self, index: int) -> MessageMark:
        if not 0 <= index < len(self.marks):
            raise RewindError(f"There is no user message {index} (this session has {len(self.marks)}).")
        if index < self.floor or self.marks[index].history_index < 0:
            raise RewindError(
                f"Message {index} was before the conversation was compressed or restored: it can no longer be "
                "rewound to."
            )
        return self.marks[index]

    def calls_from(self, index: int) -> list[CallRef]:
        """Every tool call made from message ``index`` on, in order."""
        return [ref for m in self.marks[index:] for ref in m.refs()]


@dataclass
class UndoRewind:
    """What one rewind removed, kept until the next prompt so it can be put back."""

    marks: list[MessageMark]
    floor: int
    history: tuple[Content, ...]
    files: FileRewind | None
    index: int


class SessionRewind:
    """A session's rewinds: the narrow interface front ends use (``Session.rewinds``)."""

    def __init__(
        self,
        history: History,
        rewinder: FileRewinder | None,
        messages: MessageLog,
        *,
        running: Callable[[], bool],
        record: Callable[[int | None], None],
    ) -> None:
        self._history = history
        self._rewinder = rewinder
        self._log = messages
        self._running = running
        self._record = record  # into the recording: the cut (or None: undone), then the history
        self._undo: UndoRewind | None = None  # the last rewind, undoable until the next prompt

    def targets(self) -> list[RewindTarget]:
        """Every user message of the session, oldest first, and whether it can be rewound to."""
        return self._log.targets()

    def index_of(self, message_id: str) -> int:
        """The index of the user message with this id (what rewinds take); RewindError when there is none."""
        return self._log.index_of(message_id)

    @property
    def can_undo(self) -> bool:
        return self._undo is not None

    def forget(self) -> None:
        """A new prompt makes the last rewind final."""
        self._undo = None

    async def preview(self, index: int) -> FilePlan:
        """What rewinding to message ``index`` would do to the files (nothing is changed)."""
        self._log.mark(index)
        rewinder = self._rewinder
        return await rewinder.plan(self._log.calls_from(index)) if rewinder is not None else FilePlan()

    async def rewind(self, index: int, *, in_command: bool = False) -> RewindResult:
        """Go back to before user message ``index``: the files the agent changed since are restored (a file the
        user edited after the agent is a conflict, left alone), and the conversation from that message on is
        dropped from the history and the recording. Undoable with ``undo`` until the next prompt.
        ``in_command``: asked by ``/rewind``, which runs as a prompt of its own (and is cut with the rest)."""
        if not in_command:
            self._idle()
        log, history = self._log, self._history
        mark = log.mark(index)
        rewinder = self._rewinder
        # Files first: a kill after this leaves whole files and the session as it was, still loadable.
        files = await rewinder.apply(log.calls_from(index)) if rewinder is not None else None
        self._undo = UndoRewind(log.marks[index:], log.floor, history.contents(), files, index)
        del log.marks[index:]
        history.rollback(mark.history_index)
        self._record(index)
        return RewindResult(index, mark.text, files.plan if files else FilePlan(), files is not None)

    async def revert_turn(self, index: int) -> FilePlan:
        """Undo the file changes of message ``index``'s turn only (its calls), leaving the conversation and later
        turns' changes alone; a file a later turn or the user changed since is a conflict, left alone."""
        self._idle()
        if not 0 <= index < len(self._log.marks):
            raise RewindError(f"There is no user message {index} (this session has {len(self._log.marks)}).")
        if self._rewinder is None:
            raise RewindError("Checkpoints are off, so a turn's file changes cannot be undone.")
        return (await self._rewinder.apply(self._log.marks[index].refs())).plan

    async def undo(self) -> int:
        """Put back what the last rewind removed (files and conversation); the message index it had rewound to."""
        undo = self._undo
        if undo is None:
            raise RewindError("There is no rewind to undo (a prompt sent since makes a rewind final).")
        self._idle()
        if undo.files is not None and self._rewinder is not None:
            await self._rewinder.undo(undo.files)
        self._undo = None
        self._log.marks.extend(undo.marks)
        self._log.floor = undo.floor
        self._history.replace(undo.history)
        self._record(None)
        return undo.index

    def _idle(self) -> None:
        if self._running():
            raise RewindError("A prompt is running; cancel it before rewinding.")


def describe(result: RewindResult) -> str:
    """A rewind's outcome in words, for a person."""
    lines = [f"Rewound to before message {result.index}: {first_line(result.text)}"]
    files = result.files
    if not result.files_available:
        lines.append("Files were not touched: checkpoints are off (`general.checkpointing.enabled`).")
    if files.restore:
        lines.append("Restored: " + ", ".join(f"`{p}`" for p in files.restore))
    if files.delete:
        lines.append("Removed (the agent created them): " + ", ".join(f"`{p}`" for p in files.delete))
    if files.conflicts:
        lines.append("Not restored, you edited them since: " + ", ".join(f"`{p}`" for p in files.conflicts))
    return "\n\n".join(lines)


def first_line(text: str, limit: int = 80) -> str:
    line = " ".join(text.strip().splitlines()[0].split()) if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


async def rewind_command(rewinds: SessionRewind, rest: str, say: Callable[[str], None]) -> None:
    """``/rewind``: list the earlier messages; ``/rewind N``: go back to before message N."""
    targets = rewinds.targets()[:-1]  # the last one is this very /rewind
    if not rest:
        if not targets:
            say("No earlier messages to rewind to.")
            return
        listing = "\n".join(
            f"- {t.index}: {first_line(t.text)}{'' if t.rewindable else ' (before a compression)'}" for t in targets
        )
        say(f"Your messages (`/rewind N` goes back to before message N):\n{listing}")
        return
    if not rest.isdigit() or int(rest) >= len(targets):
        say(f"Usage: `/rewind N`, N one of the message numbers `/rewind` lists (0 to {len(targets) - 1}).")
        return
    try:
        result = await rewinds.rewind(int(rest), in_command=True)
    except AgentError as exc:
        say(str(exc))
        return
    say(describe(result) + f"\n\nThe message was:\n\n{result.text}")
