"""ShadowGitCheckpointer: snapshots the project before file-changing tools, and restores a snapshot on request.

Restoring first snapshots the current state, so nothing a restore deletes or overwrites is lost: it is in
the shadow repository's history.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent_lsp.config.paths import project_state_dir
from agent_lsp.events import ToolCallInfo
from agent_lsp.model.base import Content
from agent_lsp.model.wire import content_from_json
from agent_lsp.store.checkpoints.records import (
    CheckpointError,
    CheckpointInfo,
    CheckpointRecords,
    CheckpointsUnavailable,
    call_of,
    history_json,
    main_path,
)
from agent_lsp.store.checkpoints.shadow_repo import ShadowRepo


@dataclass(frozen=True)
class RestoredCheckpoint:
    """What the caller needs after a restore: the history to rewind to and the tool call to offer again."""

    history: list[Content]
    call: dict[str, Any]  # {"name", "args", "call_id"}
    commit: str = ""
    pre_restore_commit: str = ""  # the state just before the restore, kept so a restore can be undone by hand


class ShadowGitCheckpointer:
    """A :class:`agent_lsp.core.ports.Checkpointer` backed by a private git repository per project."""

    def __init__(
        self, project_root: Path, *, state_dir: Path | None = None, git: str | None = None, session_id: str = ""
    ) -> None:
        self.session_id = session_id  # whose calls the after-records name (rewind looks one session's up)
        self.project_root = project_root.resolve()
        self.state_dir = (state_dir or project_state_dir(project_root)).resolve()
        self.repo = ShadowRepo(self.project_root, self.state_dir, git or shutil.which("git"))
        self.records = CheckpointRecords(self.state_dir / "checkpoints")
        self.shadow_dir = self.repo.shadow_dir
        self.checkpoints_dir = self.records.directory
        self._reported = False
        self._pending: dict[str, tuple[str, str]] = {}  # call id -> (checkpoint id, its commit), until after_tool

    @property
    def disabled_reason(self) -> str | None:
        # The repository decides: git may also turn out unusable on its first run.
        return self.repo.disabled_reason

    @property
    def enabled(self) -> bool:
        return self.disabled_reason is None

    async def before_tool(self, call: ToolCallInfo, history: Sequence[object]) -> None:
        """Snapshot the work tree and save the call and history. Raises CheckpointError if that failed."""
        if self.disabled_reason is not None:
            if not self._reported:
                self._reported = True
                raise CheckpointsUnavailable(self.disabled_reason)
            return
        file = main_path(call)
        async with self.repo.exclusive():
            commit = await self.repo.snapshot(f"Checkpoint before {call.name} {file or ''}".rstrip())
        created = datetime.now(UTC)
        record = {
            "id": "",
            "commit": commit,
            "tool_call": {"name": call.name, "args": call.args, "call_id": call.call_id},
            "history": history_json(history),
            "created": created.isoformat(timespec="milliseconds"),
            "file": file,
        }
        self._pending[call.call_id] = (self.records.write(record, created, file, call.name), commit)

    async def after_tool(self, call: ToolCallInfo) -> None:
        """Snapshot what the call left and note both commits beside its checkpoint, so a rewind knows exactly
        which files the agent changed (and how it left them) apart from the user's own edits."""
        pending = self._pending.pop(call.call_id, None)
        if pending is None or self.disabled_reason is not None:
            return
        cid, before = pending
        async with self.repo.exclusive():
            after = await self.repo.snapshot(f"After {call.name} {main_path(call) or ''}".rstrip())
        self.records.write_after(
            cid, {"session_id": self.session_id, "call_id": call.call_id, "before": before, "after": after}
        )

    def pending_id(self, call_id: str) -> str | None:
        """The checkpoint taken before this call, while the call runs."""
        pending = self._pending.get(call_id)
        return pending[0] if pending is not None else None

    def list(self) -> list[CheckpointInfo]:
        """Every saved checkpoint, oldest first."""
        return self.records.list()

    async def restore(self, checkpoint_id: str) -> RestoredCheckpoint:
        """Put the project back as it was when the checkpoint was taken.

        Files that were tracked then are rewritten byte for byte; files that exist now, are not ignored and
        did not exist then are removed. Ignored files (build output, secrets in .env, ...) are never touched.
        Everything is snapshotted first, so whatever this removes or overwrites can still be recovered.
        """
        if self.disabled_reason is not None:
            raise CheckpointsUnavailable(self.disabled_reason)
        data = self.records.load(checkpoint_id)
        commit = data.get("commit")
        if not isinstance(commit, str) or not re.fullmatch(r"[0-9a-f]{7,64}", commit):
            raise CheckpointError(f"Checkpoint {checkpoint_id} has no valid commit.")
        repo = self.repo
        async with repo.exclusive():
            await repo.ensure()
            code, _, _ = await repo.git("cat-file", "-e", f"{commit}^{{commit}}", check=False)
            if code != 0:
                raise CheckpointError(f"Checkpoint {checkpoint_id} refers to a snapshot the shadow repository lacks.")
            pre = await repo.snapshot(f"Before restoring {checkpoint_id}")
            wanted = await repo.rev(f"{commit}^{{tree}}")
            if await repo.rev(f"{pre}^{{tree}}") != wanted:
                # The index now holds every non-ignored file (the snapshot above), so restoring index and work
                # tree from the old commit deletes exactly the non-ignored files that did not exist back then.
                await repo.git("restore", f"--source={commit}", "--staged", "--worktree", "--", ".", locks=True)
        history = [content_from_json(c) for c in data.get("history") or [] if isinstance(c, dict)]
        call = call_of(data)
        return RestoredCheckpoint(history=history, call=call, commit=commit, pre_restore_commit=pre)
