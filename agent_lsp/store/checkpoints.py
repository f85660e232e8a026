"""Checkpoints: a shadow git repository snapshots the project before file-changing tools, and restores it.

The shadow repository lives in agent-lsp's state dir and is always addressed with an explicit git dir and
work tree, so the project's own ``.git`` is never read or written. Restoring first snapshots the current
state, so nothing a restore deletes or overwrites is lost: it is in the shadow repository's history.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import shutil
import uuid
import weakref
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent_lsp.atomic_file import json_bytes, write_atomic
from agent_lsp.config.paths import project_state_dir
from agent_lsp.errors import AgentError
from agent_lsp.events import ToolCallInfo
from agent_lsp.model.base import Content
from agent_lsp.model.wire import content_from_json, content_to_json

log = logging.getLogger(__name__)

_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,200}")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_PATH_ARGS = ("file_path", "absolute_path", "path", "notebook_path", "dir_path", "directory", "source")
_LOCK_RETRIES = 50  # another agent process on the same project may hold the shadow index briefly
# In $GIT_DIR/info/attributes these outrank the project's .gitattributes: no eol conversion, filters or
# encodings, so a restore gives back exactly the bytes that were snapshotted.
_RAW_ATTRIBUTES = "* -text -filter -ident -working-tree-encoding\n"


_REPO_LOCKS: weakref.WeakValueDictionary[Path, asyncio.Lock] = weakref.WeakValueDictionary()


class CheckpointError(AgentError):
    """A checkpoint could not be taken or restored; the message is for a person."""


class CheckpointsUnavailable(CheckpointError):
    """git is missing or unusable, so checkpointing is off. Raised once by ``before_tool`` (a Notice), then silent."""


@dataclass(frozen=True)
class CheckpointInfo:
    id: str
    tool_name: str
    file: str | None
    created: str  # ISO 8601, UTC


@dataclass(frozen=True)
class RestoredCheckpoint:
    """What the caller needs after a restore: the history to rewind to and the tool call to offer again."""

    history: list[Content]
    call: dict[str, Any]  # {"name", "args", "call_id"}
    commit: str = ""
    pre_restore_commit: str = ""  # the state just before the restore, kept so a restore can be undone by hand


class ShadowGitCheckpointer:
    """A :class:`agent_lsp.core.ports.Checkpointer` backed by a private git repository per project."""

    def __init__(self, project_root: Path, *, state_dir: Path | None = None, git: str | None = None) -> None:
        self.project_root = project_root.resolve()
        self.state_dir = (state_dir or project_state_dir(project_root)).resolve()
        self.shadow_dir = self.state_dir / "shadow-git"
        self.checkpoints_dir = self.state_dir / "checkpoints"
        self._git_exe = git or shutil.which("git")
        self.disabled_reason: str | None = None
        if self._git_exe is None:
            self.disabled_reason = "Checkpoints are disabled: git was not found on PATH. Install git to enable them."
        self._reported = False
        self._ready = False
        # Sessions of one project in one process share the shadow repository, so they share its lock too.
        self._lock = _REPO_LOCKS.setdefault(self.shadow_dir, asyncio.Lock())

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
        async with self._exclusive():
            commit = await self._snapshot(f"Checkpoint before {call.name} {file or ''}".rstrip())
        created = datetime.now(UTC)
        record = {
            "id": "",
            "commit": commit,
            "tool_call": {"name": call.name, "args": call.args, "call_id": call.call_id},
            "history": _history_json(history),
            "created": created.isoformat(timespec="milliseconds"),
            "file": file,
        }
        self._write_record(record, created, file, call.name)

    def list(self) -> list[CheckpointInfo]:
        """Every saved checkpoint, oldest first."""
        found: list[CheckpointInfo] = []
        if not self.checkpoints_dir.is_dir():
            return found
        for path in self.checkpoints_dir.glob("*.json"):
            data = _read_json(path)
            if data is None:
                continue
            call = _call_of(data)
            found.append(
                CheckpointInfo(
                    id=path.stem,
                    tool_name=str(call.get("name", "")),
                    file=data.get("file") if isinstance(data.get("file"), str) else None,
                    created=str(data.get("created", "")),
                )
            )
        found.sort(key=lambda c: (c.created, c.id))
        return found

    async def restore(self, checkpoint_id: str) -> RestoredCheckpoint:
        """Put the project back as it was when the checkpoint was taken.

        Files that were tracked then are rewritten byte for byte; files that exist now, are not ignored and
        did not exist then are removed. Ignored files (build output, secrets in .env, ...) are never touched.
        Everything is snapshotted first, so whatever this removes or overwrites can still be recovered.
        """
        if self.disabled_reason is not None:
            raise CheckpointsUnavailable(self.disabled_reason)
        data = self._load(checkpoint_id)
        commit = data.get("commit")
        if not isinstance(commit, str) or not re.fullmatch(r"[0-9a-f]{7,64}", commit):
            raise CheckpointError(f"Checkpoint {checkpoint_id} has no valid commit.")
        async with self._exclusive():
            await self._ensure_repo()
            code, _, _ = await self._git("cat-file", "-e", f"{commit}^{{commit}}", check=False)
            if code != 0:
                raise CheckpointError(f"Checkpoint {checkpoint_id} refers to a snapshot the shadow repository lacks.")
            pre = await self._snapshot(f"Before restoring {checkpoint_id}")
            wanted = await self._rev(f"{commit}^{{tree}}")
            if await self._rev(f"{pre}^{{tree}}") != wanted:
                # The index now holds every non-ignored file (the snapshot above), so restoring index and work
                # tree from the old commit deletes exactly the non-ignored files that did not exist back then.
                await self._git("restore", f"--source={commit}", "--staged", "--worktree", "--", ".", locks=True)
        history = [content_from_json(c) for c in data.get("history") or [] if isinstance(c, dict)]
        call = _call_of(data)
        return RestoredCheckpoint(history=history, call=call, commit=commit, pre_restore_commit=pre)

    @contextlib.asynccontextmanager
    async def _exclusive(self) -> AsyncIterator[None]:
        """This process's lock, plus an OS lock shared by every agent process of the project: whoever holds
        both is the only one running git on the shadow repository, so a git lock file found then was left by
        a git that was killed (a kill of the agent's whole process group) and is removed instead of blocking
        every later checkpoint."""
        async with self._lock:
            held = await self._lock_across_processes()
            try:
                if held is not None:
                    for lock in _lock_files(self.shadow_dir):
                        log.warning("removing %s, left by a git process that was killed", lock)
                        with contextlib.suppress(FileNotFoundError):
                            lock.unlink()
                yield
            finally:
                if held is not None:
                    os.close(held)  # closing the descriptor releases the lock

    async def _lock_across_processes(self) -> int | None:
        """A descriptor holding an exclusive flock on ``shadow-git.lock`` (None: unavailable; waits up to 30 s)."""
        try:
            import fcntl
        except ImportError:  # Windows: keep waiting for git's own locks instead
            return None
        try:
            self.state_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.state_dir / "shadow-git.lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return None
        try:
            for _ in range(600):
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return fd
                except BlockingIOError:
                    await asyncio.sleep(0.05)  # another agent process is taking a checkpoint of this project
                except OSError:
                    break
        except BaseException:
            os.close(fd)  # cancelled while waiting
            raise
        os.close(fd)
        return None

    def _load(self, checkpoint_id: str) -> dict[str, Any]:
        if not _ID_RE.fullmatch(checkpoint_id):
            raise CheckpointError(f"No checkpoint named {checkpoint_id!r}.")
        data = _read_json(self.checkpoints_dir / f"{checkpoint_id}.json")
        if data is None:
            raise CheckpointError(f"No checkpoint named {checkpoint_id!r}.")
        return data

    def _write_record(self, record: dict[str, Any], created: datetime, file: str | None, tool: str) -> None:
        self.checkpoints_dir.mkdir(parents=True, exist_ok=True)
        stamp = created.strftime("%Y-%m-%dT%H-%M-%S-%f")[:-3] + "Z"  # no colons: valid file names everywhere
        stem = f"{stamp}-{_safe(Path(file).name if file else 'none')}-{_safe(tool)}"
        cid, n = stem, 1
        while True:
            record["id"] = cid
            # Serialised before the name is claimed, so an argument JSON cannot hold never leaves half a file.
            data = json_bytes(record, default=repr)
            try:
                # Written whole to a temp file and published under a name no other checkpoint has (two in one
                # millisecond both survive): a kill at any point leaves the record complete or absent.
                write_atomic(self.checkpoints_dir / f"{cid}.json", data, exclusive=True, sweep=True)
                return
            except FileExistsError:
                n += 1
                cid = f"{stem}-{n}"

    async def _snapshot(self, message: str) -> str:
        await self._ensure_repo()
        await self._git("add", "-A", "--", ".", locks=True)
        await self._git("commit", "--quiet", "--allow-empty", "--no-verify", "--no-gpg-sign", "-m", message, locks=True)
        return await self._rev("HEAD")

    async def _rev(self, spec: str) -> str:
        _, out, _ = await self._git("rev-parse", "--verify", spec)
        return out.strip()

    async def _ensure_repo(self) -> None:
        if self._ready:
            return
        self.state_dir.mkdir(parents=True, exist_ok=True)
        if not self.shadow_dir.is_dir():
            await self._create_repo()
        info = self.shadow_dir / "info"
        info.mkdir(exist_ok=True)
        # Replaced whole: a torn exclude file could let a snapshot take in our own state folder.
        write_atomic(info / "attributes", _RAW_ATTRIBUTES.encode())
        write_atomic(info / "exclude", self._exclude_text().encode("utf-8", "surrogateescape"))
        self._ready = True

    async def _create_repo(self) -> None:
        """Build the repository beside its final place and move it in whole, so a set-up that is cancelled
        or crashes never leaves a half-made repository where a later run would trust it."""
        staging = self.state_dir / f"shadow-git.init-{uuid.uuid4().hex}"
        settings = {
            "user.name": "agent-lsp",
            "user.email": "agent-lsp@localhost",
            "commit.gpgsign": "false",
            "tag.gpgsign": "false",
            "core.autocrlf": "false",
            "core.safecrlf": "false",
            "core.fsmonitor": "false",
            "core.quotepath": "false",
            "core.hooksPath": str(self.shadow_dir / "hooks-disabled"),
            "gc.autoDetach": "false",
        }
        try:
            # An empty template: no sample hooks, no description, nothing we did not ask for.
            await self._git("-c", "init.defaultBranch=main", "init", "--quiet", "--template=", git_dir=staging)
            for key, value in settings.items():
                await self._git("config", "--local", key, value, git_dir=staging)
            try:
                staging.rename(self.shadow_dir)
            except OSError:
                if not self.shadow_dir.is_dir():
                    raise
                log.debug("another process created %s first; using it", self.shadow_dir)
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)

    def _exclude_text(self) -> str:
        """The shadow repo's own excludes: the project's .git/info/exclude (read only), and our state dir if it
        lies inside the project, so we never snapshot ourselves."""
        lines = ["# maintained by agent-lsp"]
        project_exclude = self.project_root / ".git" / "info" / "exclude"
        with contextlib.suppress(OSError, UnicodeDecodeError):
            lines.append(project_exclude.read_text(encoding="utf-8"))
        with contextlib.suppress(ValueError):
            rel = self.state_dir.relative_to(self.project_root)
            if rel.parts:
                lines.append("/" + rel.as_posix() + "/")
        return "\n".join(lines) + "\n"

    def _env(self, git_dir: Path) -> dict[str, str]:
        env = {
            "GIT_DIR": str(git_dir),
            "GIT_WORK_TREE": str(self.project_root),
            # The user's global and system git config (signing, hooks, filters, aliases) must not apply here.
            "HOME": str(self.state_dir),
            "XDG_CONFIG_HOME": str(self.state_dir / "xdg-config"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_OPTIONAL_LOCKS": "0",
            "LC_ALL": "C",
            "PATH": os.environ.get("PATH", os.defpath),
        }
        for name in ("SYSTEMROOT", "WINDIR", "TEMP", "TMP", "TMPDIR"):  # Windows needs these to start processes
            if name in os.environ:
                env[name] = os.environ[name]
        return env

    async def _git(
        self, *args: str, check: bool = True, locks: bool = False, git_dir: Path | None = None
    ) -> tuple[int, str, str]:
        assert self._git_exe is not None
        # Only these two paths are vouched for, so a project owned by another user still works.
        prefix = ("-c", f"safe.directory={self.project_root}", "-c", f"safe.directory={self.shadow_dir}")
        for attempt in range(_LOCK_RETRIES if locks else 1):
            code, out, err = await self._run(prefix + args, locks, git_dir or self.shadow_dir)
            if code != 0 and locks and ".lock" in err and attempt + 1 < _LOCK_RETRIES:
                log.debug("shadow repository busy (%s); retrying", err.strip())
                await asyncio.sleep(0.1)
                continue
            break
        if check and code != 0:
            detail = err.strip() or out.strip() or f"exit status {code}"
            raise CheckpointError(f"git {args[0]} failed in the shadow repository: {detail}")
        return code, out, err

    async def _run(self, argv: tuple[str, ...], locks: bool, git_dir: Path) -> tuple[int, str, str]:
        assert self._git_exe is not None
        # Locks that exist before we start belong to someone else (another agent process): never ours to delete.
        foreign_locks = _lock_files(git_dir) if locks else set()
        proc: asyncio.subprocess.Process | None = None
        try:
            proc = await asyncio.create_subprocess_exec(
                self._git_exe,
                *argv,
                cwd=self.project_root,
                env=self._env(git_dir),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            out, err = await proc.communicate()
        except OSError as exc:
            if proc is not None:
                raise
            self.disabled_reason = f"Checkpoints are disabled: git could not be run ({exc})."
            raise CheckpointsUnavailable(self.disabled_reason) from exc
        except BaseException:
            # Cancelled: asyncio has already killed a git that was still starting; kill one that was running.
            if proc is not None and proc.returncode is None:
                proc.kill()
                await proc.wait()
            if locks:
                # A killed git leaves its index and ref locks behind, which would block every later checkpoint.
                for lock in _lock_files(git_dir) - foreign_locks:
                    with contextlib.suppress(FileNotFoundError):
                        lock.unlink()
            raise
        code = proc.returncode if proc.returncode is not None else -1
        return code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def _lock_files(git_dir: Path) -> set[Path]:
    found = {p for p in (git_dir / "index.lock", git_dir / "HEAD.lock") if p.exists()}
    heads = git_dir / "refs" / "heads"
    if heads.is_dir():
        found.update(heads.glob("*.lock"))
    return found


def main_path(call: ToolCallInfo) -> str | None:
    """The file a tool call is mainly about: its first location, else the first path-like argument."""
    if call.locations:
        return call.locations[0].path
    for key in _PATH_ARGS:
        value = call.args.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _safe(name: str) -> str:
    return _UNSAFE.sub("_", name).strip("._")[:40] or "none"


def _history_json(history: Sequence[object]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for item in history:
        if isinstance(item, Content):
            out.append(content_to_json(item))
        elif isinstance(item, Mapping):
            out.append(dict(item))  # already wire JSON
        else:
            log.warning("checkpoint history: skipping a %s that is not a Content", type(item).__name__)
    return out


def _call_of(data: dict[str, Any]) -> dict[str, Any]:
    call = data.get("tool_call")
    return dict(call) if isinstance(call, dict) else {}


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, RecursionError) as exc:
        # A checkpoint torn by a crash in an older version, or damaged by hand: left out, never fatal.
        log.warning("skipping unreadable checkpoint %s: %s", path, exc)
        return None
    return data if isinstance(data, dict) else None
