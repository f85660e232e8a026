"""CheckpointRewinder: the files side of a rewind, over the shadow repository's before/after snapshots.

Each file-changing call has a snapshot before it and one after it (``<id>.after``), so the files the agent
changed are exactly those that differ between the two, and the user's own edits in between calls are not
mistaken for the agent's. A file is put back as it was before the first of the calls that changed it, unless it
now differs from how the last of them left it: then the user edited it too, and it is a conflict, left alone.
Every file is replaced whole (``write_atomic``), so a kill mid-rewind leaves each file old or new.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from agent_lsp.atomic_file import write_atomic
from agent_lsp.core.rewind import CallRef, FilePlan, FileRewind, RewindError
from agent_lsp.store.checkpoints.checkpointer import ShadowGitCheckpointer
from agent_lsp.store.checkpoints.records import CheckpointError, CheckpointsUnavailable

_Blobs = dict[str, tuple[str, str]]  # path -> (mode, blob id)


class CheckpointRewinder:
    """A :class:`agent_lsp.core.rewind.FileRewinder` over one project's checkpoints."""

    def __init__(self, checkpointer: ShadowGitCheckpointer) -> None:
        self.checkpointer = checkpointer
        self.repo = checkpointer.repo

    async def plan(self, calls: Sequence[CallRef]) -> FilePlan:
        with _said():
            async with self.repo.exclusive():
                plan, _, _, _ = await self._plan(calls)
        return plan

    async def apply(self, calls: Sequence[CallRef]) -> FileRewind:
        with _said():
            async with self.repo.exclusive():
                plan, targets, _, pre = await self._plan(calls)
                for path in (*plan.restore, *plan.delete):
                    await self._put(path, targets.get(path))
        return FileRewind(plan, pre)

    async def undo(self, done: FileRewind) -> None:
        """Put back every file the rewind changed as it was just before it (the snapshot it took first)."""
        paths = (*done.plan.restore, *done.plan.delete)
        with _said():
            async with self.repo.exclusive():
                before = await self._blobs(done.undo_token, paths)
                for path in paths:
                    await self._put(path, before.get(path))

    async def _plan(self, calls: Sequence[CallRef]) -> tuple[FilePlan, _Blobs, _Blobs, str]:
        """The plan, the blobs to restore, the current blobs, and the snapshot of now (the undo point)."""
        if self.checkpointer.disabled_reason is not None:
            raise CheckpointsUnavailable(self.checkpointer.disabled_reason)
        records = await asyncio.to_thread(self.checkpointer.records.afters, self.checkpointer.session_id)
        first_before: dict[str, str] = {}
        last_after: dict[str, str] = {}
        left = _records_of(calls, records)
        for ref in calls:
            queue = left.get((ref.message_id, ref.call_id)) or left.get(("", ref.call_id))
            if not queue:
                continue  # not a file-changing call, or one whose process died mid-call
            rec = queue.pop(0)
            for path in await self._changed(rec["before"], rec["after"]):
                first_before.setdefault(path, rec["before"])
                last_after[path] = rec["after"]
        pre = await self.repo.snapshot("Before rewind")
        paths = sorted(first_before)
        now = await self._blobs(pre, paths)
        targets: _Blobs = {}
        expected: _Blobs = {}
        for commit in set(first_before.values()) | set(last_after.values()):
            blobs = await self._blobs(commit, [p for p in paths if commit in (first_before[p], last_after[p])])
            for p in paths:
                if first_before[p] == commit and p in blobs:
                    targets[p] = blobs[p]
                if last_after[p] == commit and p in blobs:
                    expected[p] = blobs[p]
        restore: list[str] = []
        delete: list[str] = []
        conflicts: list[str] = []
        for p in paths:
            if now.get(p) == targets.get(p):
                continue  # already as it was
            if now.get(p) != expected.get(p):
                conflicts.append(p)
            elif p in targets:
                restore.append(p)
            else:
                delete.append(p)
        return FilePlan(tuple(restore), tuple(delete), tuple(conflicts)), targets, now, pre

    async def _changed(self, before: str, after: str) -> list[str]:
        _, out, _ = await self.repo.git("diff-tree", "-r", "-z", "--no-renames", "--name-only", before, after)
        return [p for p in out.split("\0") if p]

    async def _blobs(self, commit: str, paths: Sequence[str]) -> _Blobs:
        if not paths:
            return {}
        _, out, _ = await self.repo.git("ls-tree", "-r", "-z", "--full-tree", commit, "--", *paths)
        found: _Blobs = {}
        for entry in out.split("\0"):
            meta, _, path = entry.partition("\t")
            if path:
                mode, _, rest = meta.partition(" ")
                found[path] = (mode, rest.partition(" ")[2])
        return found

    async def _put(self, path: str, blob: tuple[str, str] | None) -> None:
        """Make ``path`` hold ``blob`` (absent: remove it), replacing it whole."""
        target = self.repo.project_root / path
        if blob is None:
            await asyncio.to_thread(_remove, target, self.repo.project_root)
            return
        mode, oid = blob
        data = await self.repo.blob(oid)
        await asyncio.to_thread(_write, target, data, mode)


def _records_of(
    calls: Sequence[CallRef], records: dict[str, list[dict[str, str]]]
) -> dict[tuple[str, str], list[dict[str, str]]]:
    """Each call's records, oldest first, by (message id, call id). A model may reuse a call id in another turn,
    and a rewound turn's records stay behind, so a call is found by its message too. A call with no record of its
    message (a recording or records from before message ids were noted) falls back to its id's last k records
    without one, k the times the id is asked for that way: right while the calls are the session's latest."""
    exact: dict[tuple[str, str], list[dict[str, str]]] = {}
    for call_id in {ref.call_id for ref in calls}:
        for rec in records.get(call_id, []):
            if rec["message_id"]:
                exact.setdefault((rec["message_id"], call_id), []).append(rec)
    fallback = [ref.call_id for ref in calls if not ref.message_id or (ref.message_id, ref.call_id) not in exact]
    for call_id in set(fallback):
        older = [rec for rec in records.get(call_id, []) if not rec["message_id"]]
        exact[("", call_id)] = older[-fallback.count(call_id) :]
    return exact


@contextlib.contextmanager
def _said() -> Iterator[None]:
    """A git failure (or git missing) is a RewindError: the front end says it to the person who asked."""
    try:
        yield
    except CheckpointError as exc:
        raise RewindError(f"The files could not be rewound: {exc}") from exc


def _write(target: Path, data: bytes, mode: str) -> None:
    if mode == "120000":  # a symlink: made beside it and renamed over, so it is never missing
        tmp = target.with_name(f".{target.name}.{os.getpid()}.link")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        target.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(os.fsdecode(data), tmp)
        os.replace(tmp, target)
        return
    if target.is_symlink():
        target.unlink()
    write_atomic(target, data, keep_mode=False)
    os.chmod(target, 0o755 if mode == "100755" else 0o644)


def _remove(target: Path, root: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        target.unlink()
    parent = target.parent
    while parent != root and parent.is_dir() and not any(parent.iterdir()):
        parent.rmdir()  # folders the agent made and the rewind emptied
        parent = parent.parent
