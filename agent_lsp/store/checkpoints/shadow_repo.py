"""The shadow git repository: creating it, running git on it safely, and the locks that keep it consistent.

It is always addressed with an explicit git dir and work tree, so the project's own ``.git`` is never read
or written, and git runs with a private environment so the user's git config cannot change what it does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import uuid
import weakref
from collections.abc import AsyncIterator
from pathlib import Path

from agent_lsp.atomic_file import write_atomic
from agent_lsp.store.checkpoints.records import CheckpointError, CheckpointsUnavailable

log = logging.getLogger(__name__)

_LOCK_RETRIES = 50  # another agent process on the same project may hold the shadow index briefly
# In $GIT_DIR/info/attributes these outrank the project's .gitattributes: no eol conversion, filters or
# encodings, so a restore gives back exactly the bytes that were snapshotted.
_RAW_ATTRIBUTES = "* -text -filter -ident -working-tree-encoding\n"

_REPO_LOCKS: weakref.WeakValueDictionary[Path, asyncio.Lock] = weakref.WeakValueDictionary()


class ShadowRepo:
    """One project's shadow repository under ``state_dir/shadow-git``; ``disabled_reason`` says why git is off."""

    def __init__(self, project_root: Path, state_dir: Path, git: str | None) -> None:
        self.project_root = project_root
        self.state_dir = state_dir
        self.shadow_dir = state_dir / "shadow-git"
        self._git_exe = git
        self.disabled_reason: str | None = None
        if self._git_exe is None:
            self.disabled_reason = "Checkpoints are disabled: git was not found on PATH. Install git to enable them."
        self._ready = False
        # Sessions of one project in one process share the shadow repository, so they share its lock too.
        self._lock = _REPO_LOCKS.setdefault(self.shadow_dir, asyncio.Lock())

    async def snapshot(self, message: str) -> str:
        """Commit every non-ignored file of the work tree; the commit's id."""
        await self.ensure()
        await self.git("add", "-A", "--", ".", locks=True)
        await self.git("commit", "--quiet", "--allow-empty", "--no-verify", "--no-gpg-sign", "-m", message, locks=True)
        return await self.rev("HEAD")

    async def blob(self, oid: str) -> bytes:
        """A stored file's bytes exactly (text decoding would not survive binaries)."""
        assert self._git_exe is not None
        proc = await asyncio.create_subprocess_exec(
            self._git_exe,
            "-c",
            f"safe.directory={self.project_root}",
            "-c",
            f"safe.directory={self.shadow_dir}",
            "cat-file",
            "blob",
            oid,
            cwd=self.project_root,
            env=self._env(self.shadow_dir),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        data, err = await proc.communicate()
        if proc.returncode != 0:
            raise CheckpointError(f"git cat-file failed in the shadow repository: {err.decode(errors='replace')}")
        return data

    async def rev(self, spec: str) -> str:
        _, out, _ = await self.git("rev-parse", "--verify", spec)
        return out.strip()

    @contextlib.asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        """This process's lock, plus an OS lock shared by every agent process of the project: whoever holds
        both is the only one running git on the shadow repository, so a git lock file found then was left by
        a git that was killed (a kill of the agent's whole process group) and is removed instead of blocking
        every later checkpoint."""
        async with self._lock:
            held = await _lock_across_processes(self.state_dir)
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

    async def ensure(self) -> None:
        """Create the repository if needed and refresh its excludes and attributes (once per instance)."""
        if self._ready:
            return
        self.state_dir.mkdir(parents=True, exist_ok=True)
        if not self.shadow_dir.is_dir():
            await self._create()
        info = self.shadow_dir / "info"
        info.mkdir(exist_ok=True)
        # Replaced whole: a torn exclude file could let a snapshot take in our own state folder.
        write_atomic(info / "attributes", _RAW_ATTRIBUTES.encode())
        write_atomic(info / "exclude", self._exclude_text().encode("utf-8", "surrogateescape"))
        self._ready = True

    async def _create(self) -> None:
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
            await self.git("-c", "init.defaultBranch=main", "init", "--quiet", "--template=", git_dir=staging)
            for key, value in settings.items():
                await self.git("config", "--local", key, value, git_dir=staging)
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

    async def git(
        self, *args: str, check: bool = True, locks: bool = False, git_dir: Path | None = None
    ) -> tuple[int, str, str]:
        """Run git on the shadow repository; ``locks``: it takes git's locks, so retry while another holds them."""
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


async def _lock_across_processes(state_dir: Path) -> int | None:
    """A descriptor holding an exclusive flock on ``shadow-git.lock`` (None: unavailable; waits up to 30 s)."""
    try:
        import fcntl
    except ImportError:  # Windows: keep waiting for git's own locks instead
        return None
    try:
        state_dir.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 - one mkdir of our own folder, no I/O wait
        fd = os.open(state_dir / "shadow-git.lock", os.O_RDWR | os.O_CREAT, 0o600)
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


def _lock_files(git_dir: Path) -> set[Path]:
    found = {p for p in (git_dir / "index.lock", git_dir / "HEAD.lock") if p.exists()}
    heads = git_dir / "refs" / "heads"
    if heads.is_dir():
        found.update(heads.glob("*.lock"))
    return found
