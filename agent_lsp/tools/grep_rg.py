"""Running ripgrep for grep_search: finding the binary, its arguments, and folding its JSON output into results."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import shutil
import sys
import sysconfig
from base64 import b64decode
from pathlib import Path
from typing import Any

from agent_lsp.errors import ToolError
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.file_utils import clip_line, ignore_filter, root_for
from agent_lsp.tools.grep_scope import GREP_LINE_CHARS, GrepFindings, GrepParams, Hit, add_file, python_regex
from agent_lsp.workspace.ignore import GEMINIIGNORE, IgnoreFilter

_READ_CHUNK = 1 << 16


@functools.cache
def find_rg() -> str | None:
    """The ripgrep binary: the one the ``ripgrep`` wheel put next to our interpreter, else the PATH's."""
    name = "rg.exe" if os.name == "nt" else "rg"
    for folder in (Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))):
        candidate = folder / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("rg")


def rg_args(ctx: ToolContext, params: GrepParams, rg: str, target: Path, root: Path) -> list[str]:
    """The rg command line for one target, run from ``root`` (the workspace folder holding it)."""
    p = params
    args = [rg, "--no-config", "--hidden", "--no-ignore-dot", "--no-ignore-global", "-g", "!.git"]
    args += ["--files-with-matches", "--null"] if p.names_only else ["--json"]
    if p.no_ignore:
        args.append("--no-ignore")
    elif not ctx.respect_git_ignore:
        args.append("--no-ignore-vcs")
    if not p.no_ignore and ctx.respect_gemini_ignore and (root / GEMINIIGNORE).is_file():
        args += ["--ignore-file", str(root / GEMINIIGNORE)]
    if p.per_file and not p.names_only:
        args += ["--max-count", str(p.per_file)]
    args.append("--case-sensitive" if p.case_sensitive else "--ignore-case")
    if p.fixed_strings:
        args.append("--fixed-strings")
    if not p.names_only:
        if p.before:
            args += ["--before-context", str(p.before)]
        if p.after:
            args += ["--after-context", str(p.after)]
    # rg anchors globs containing '/' at its working directory (the root); ours are relative to the target.
    base = os.path.relpath(target, root).replace(os.sep, "/") if target.is_dir() else ""
    for glob, neg in ((p.include, ""), (p.exclude, "!")):
        if glob:
            body = glob.lstrip("/")
            if "/" in glob.strip("/") and base not in ("", "."):
                body = f"{base}/{body}"
            args += ["-g", neg + body]
    rel = os.path.relpath(target, root)
    return [*args, "-e", p.pattern, "--", rel]


async def run_rg(
    ctx: ToolContext, params: GrepParams, rg: str, target: Path, found: GrepFindings, skip: set[Path]
) -> bool:
    """Run rg over one target, adding to ``found``. False when rg rejected the pattern (use Python)."""
    p = params
    root = root_for(ctx, target)
    # A whitelist glob makes rg search ignored files it names, so results are re-checked then.
    is_dir = await asyncio.to_thread(target.is_dir)
    recheck = ignore_filter(ctx, target) if p.include and is_dir and not p.no_ignore else None
    proc = await asyncio.create_subprocess_exec(
        *rg_args(ctx, p, rg, target, root),
        cwd=root,
        env=ctx.child_env.for_command(),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    err_task = asyncio.ensure_future(_drain(proc.stderr))
    current: list[Hit] | None = None
    try:
        sep = b"\0" if p.names_only else b"\n"
        pending = b""
        while not found.capped:
            chunk = await proc.stdout.read(_READ_CHUNK)
            if not chunk:
                break
            pending += chunk
            *records, pending = pending.split(sep)
            for record in records:
                if not record:
                    continue
                if p.names_only:
                    path = root / os.fsdecode(record)
                    if path not in skip and (recheck is None or not recheck.is_ignored(path, False)):
                        add_file(found, path, p.max_matches)
                else:
                    current = _rg_event(p, record, root, found, current, skip, recheck)
                if found.capped:
                    break
        if found.capped:
            return True
        rc = await proc.wait()
        err = (await err_task).decode("utf-8", "replace").strip()
        if rc == 2 and "regex parse error" in err:
            if python_regex(p) is not None:
                return False  # e.g. look-around: Python's re can do it
            raise ToolError(f"Invalid regular expression: {err}", "invalid_pattern")
        return True
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
        if not err_task.done():
            err_task.cancel()


def _rg_event(
    params: GrepParams,
    record: bytes,
    root: Path,
    found: GrepFindings,
    current: list[Hit] | None,
    skip: set[Path],
    recheck: IgnoreFilter | None,
) -> list[Hit] | None:
    """Fold one rg --json event into ``found``; returns the hit list of the file being read (None: skip)."""
    event = json.loads(record)
    kind = event.get("type")
    data = event.get("data", {})
    if kind == "begin":
        path = root / _rg_text(data["path"])
        if path in skip or (recheck is not None and recheck.is_ignored(path, False)):
            return None
        return found.files.setdefault(path, [])
    if kind not in ("match", "context") or current is None:
        return current
    if kind == "match":
        if found.matches >= params.max_matches:
            found.capped = True
            return current
        found.matches += 1
    text = _rg_text(data["lines"]).rstrip("\n").removesuffix("\r")
    current.append(Hit(int(data["line_number"]), clip_line(text, GREP_LINE_CHARS)[0], kind == "match"))
    return current


async def _drain(stream: asyncio.StreamReader, keep: int = 1 << 16) -> bytes:
    """Read a stream to its end (so the child never blocks on a full pipe), keeping the first ``keep`` bytes."""
    kept = b""
    while chunk := await stream.read(_READ_CHUNK):
        if len(kept) < keep:
            kept += chunk[: keep - len(kept)]
    return kept


def _rg_text(value: dict[str, Any]) -> str:
    if "text" in value:
        return str(value["text"])
    return b64decode(value.get("bytes", "")).decode("utf-8", "replace")
