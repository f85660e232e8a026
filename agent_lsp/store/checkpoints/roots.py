"""Checkpoints and rewind over every root a tool may write in: the primary's shadow repository, and one per extra
root (an LSP editor's other workspace folders, ACP's ``additionalDirectories``, ``/directory add``), each in that
root's own state folder. A root inside the primary is already covered by the primary's snapshots.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agent_lsp.core.rewind import FilePlan, FileRewind
from agent_lsp.events import ToolCallInfo
from agent_lsp.store.checkpoints.checkpointer import RestoredCheckpoint, ShadowGitCheckpointer
from agent_lsp.store.checkpoints.records import CheckpointError
from agent_lsp.store.checkpoints.rewind import CheckpointRewinder


class RootsCheckpointer:
    """A :class:`agent_lsp.core.ports.Checkpointer` snapshotting each current root; extra roots' repositories are
    made the first time a file-changing call runs while they are roots."""

    def __init__(self, primary: ShadowGitCheckpointer, roots: Callable[[], Sequence[Path]]) -> None:
        self.primary = primary
        self._roots = roots
        self._extra: dict[Path, ShadowGitCheckpointer] = {}

    def current(self) -> list[ShadowGitCheckpointer]:
        """The primary's checkpointer, then one per extra root the workspace has now."""
        found = [self.primary]
        top = self.primary.project_root
        for root in self._roots():
            real = root.resolve()
            if real == top or top in real.parents:
                continue
            if real not in self._extra:
                self._extra[real] = ShadowGitCheckpointer(real, session_id=self.primary.session_id)
            if self._extra[real] not in found:
                found.append(self._extra[real])
        return found

    def known(self) -> list[ShadowGitCheckpointer]:
        """Every checkpointer made so far (a root removed later may still hold calls to rewind)."""
        return [self.primary, *self._extra.values()]

    async def before_tool(self, call: ToolCallInfo, history: Sequence[object]) -> None:
        """Snapshot every root; the first failure is raised once all were tried (the scheduler says it)."""
        failure: Exception | None = None
        current = self.current()
        for checkpointer in current:
            try:
                await checkpointer.before_tool(call, history)
            except Exception as exc:  # one root's git trouble must not skip the others' snapshots
                failure = failure or exc
        self._link(call.call_id, current[1:])
        if failure is not None:
            raise failure

    def _link(self, call_id: str, extras: Sequence[ShadowGitCheckpointer]) -> None:
        # The primary's checkpoint is the one /restore lists, so it names the other roots' checkpoints of this call.
        primary = self.primary.pending_id(call_id)
        linked = {str(c.project_root): cid for c in extras if (cid := c.pending_id(call_id)) is not None}
        if primary is not None and linked:
            self.primary.records.write_roots(primary, linked)

    async def restore(self, checkpoint_id: str) -> tuple[RestoredCheckpoint, list[str]]:
        """/restore: the primary root back to the checkpoint (its history and call are the session's), then every
        other root to its checkpoint taken before the same call. Returns what a person is told about those roots:
        one line per root restored or not. A primary failure raises before any other root is touched."""
        restored = await self.primary.restore(checkpoint_id)
        said: list[str] = []
        for root, cid in self.primary.records.roots(checkpoint_id).items():
            path = Path(root)
            if not await asyncio.to_thread(path.is_dir):
                said.append(f"`{root}` is gone, so it was not restored.")
                continue
            checkpointer = self._extra.setdefault(path, ShadowGitCheckpointer(path, session_id=self.primary.session_id))
            try:
                await checkpointer.restore(cid)
            except CheckpointError as exc:  # the primary is already back: say which root was not, and why
                said.append(f"`{root}` was not restored: {exc}")
            else:
                said.append(f"`{root}` restored too.")
        return restored, said

    async def after_tool(self, call: ToolCallInfo) -> None:
        for checkpointer in self.known():
            await checkpointer.after_tool(call)


class RootsRewinder:
    """A :class:`agent_lsp.core.rewind.FileRewinder` over every root: the primary's paths stay workspace-relative,
    other roots' paths are given in full, so a person can tell them apart."""

    def __init__(self, roots: RootsCheckpointer) -> None:
        self.roots = roots

    def _each(self) -> list[tuple[str, CheckpointRewinder]]:
        return [
            ("" if c is self.roots.primary else str(c.project_root), CheckpointRewinder(c)) for c in self.roots.known()
        ]

    async def plan(self, call_ids: Sequence[str]) -> FilePlan:
        plans = [(prefix, await rewinder.plan(call_ids)) for prefix, rewinder in self._each()]
        return _joined(plans)

    async def apply(self, call_ids: Sequence[str]) -> FileRewind:
        done: list[tuple[str, FileRewind]] = []
        for prefix, rewinder in self._each():
            done.append((prefix, await rewinder.apply(call_ids)))
        token = {prefix: {"token": d.undo_token, "plan": _plan_json(d.plan)} for prefix, d in done}
        return FileRewind(_joined([(p, d.plan) for p, d in done]), json.dumps(token))

    async def undo(self, done: FileRewind) -> None:
        # A token from before there were several roots is the primary's own.
        parts: dict[str, Any] = (
            json.loads(done.undo_token) if done.undo_token.startswith("{") else {"": {"token": done.undo_token}}
        )
        for prefix, rewinder in self._each():
            part = parts.get(prefix)
            if not isinstance(part, dict):
                continue
            raw = part.get("plan")
            plan = FilePlan(**{k: tuple(v) for k, v in raw.items()}) if isinstance(raw, dict) else done.plan
            await rewinder.undo(FileRewind(plan, str(part.get("token", ""))))


def _qualified(prefix: str, paths: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(str(Path(prefix) / p) for p in paths) if prefix else paths


def _joined(plans: Sequence[tuple[str, FilePlan]]) -> FilePlan:
    return FilePlan(
        tuple(p for prefix, plan in plans for p in _qualified(prefix, plan.restore)),
        tuple(p for prefix, plan in plans for p in _qualified(prefix, plan.delete)),
        tuple(p for prefix, plan in plans for p in _qualified(prefix, plan.conflicts)),
    )


def _plan_json(plan: FilePlan) -> dict[str, list[str]]:
    return {"restore": list(plan.restore), "delete": list(plan.delete), "conflicts": list(plan.conflicts)}
