"""GEMINI.md memory: discovery (global, then project root down to each workspace root), @imports, and JIT loading."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent_lsp.config import paths

log = logging.getLogger(__name__)

MAX_IMPORT_DEPTH = 5
MAX_FILE_BYTES = 1_000_000  # a memory file this big is a mistake; do not fill the context with it
_TOKEN = re.compile(r"(?<!\S)@([^\s`]+)")
_TRAILING = ".,;:!?)]}\"'"
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(?:.+?)\1")


@dataclass(frozen=True)
class MemoryResult:
    """``text`` goes into the system instruction; ``files`` are the memory files read (not their imports)."""

    text: str
    files: list[Path]
    imports: list[Path] = field(default_factory=list)


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path.expanduser()))


def _inside(path: Path, bases: Iterable[Path]) -> bool:
    return any(path == b or b in path.parents for b in bases)


def find_project_root(folder: Path, markers: Sequence[str] = (".git",)) -> Path | None:
    """Nearest folder at or above ``folder`` holding one of ``markers`` (a .git dir or file)."""
    current = _real(folder)
    while True:
        if any((current / m).exists() for m in markers):
            return current
        if current.parent == current:
            return None
        current = current.parent


def _folders_down_to(root: Path, top: Path) -> list[Path]:
    """``top``, its child towards ``root``, …, ``root`` (``top`` must be ``root`` or an ancestor of it)."""
    chain = [root]
    while chain[-1] != top and chain[-1].parent != chain[-1]:
        chain.append(chain[-1].parent)
    return list(reversed(chain))


def _read(path: Path) -> str | None:
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        log.warning("cannot read memory file %s: %s", path, exc.__class__.__name__)
        return None
    text = data[:MAX_FILE_BYTES].decode("utf-8", errors="replace")
    if len(data) > MAX_FILE_BYTES:
        text += f"\n[… truncated: {path.name} is larger than {MAX_FILE_BYTES} bytes]"
    return text


class _Importer:
    """Expands ``@path`` imports. Paths are relative to the importing file and must stay inside ``allowed``."""

    def __init__(self, allowed: Iterable[Path]) -> None:
        self.allowed = [_real(p) for p in allowed]
        self.imported: list[Path] = []

    def expand(self, text: str, source: Path, chain: tuple[Path, ...] = ()) -> str:
        chain = (*chain, source)
        out: list[str] = []
        fence: str | None = None
        for line in text.split("\n"):
            m = _FENCE.match(line)
            if fence is not None:
                closer = m.group(1) if m else ""
                # Only a bare run of the same fence character, at least as long, closes the block.
                if closer[:1] == fence[0] and len(closer) >= len(fence) and line.strip() == closer:
                    fence = None
                out.append(line)
            elif m:
                fence = m.group(1)
                out.append(line)
            else:
                out.append(self._expand_line(line, source, chain))
        return "\n".join(out)

    def _expand_line(self, line: str, source: Path, chain: tuple[Path, ...]) -> str:
        if "@" not in line:
            return line
        pieces: list[str] = []
        pos = 0
        # Inline `code` spans are copied untouched; only the text between them is scanned.
        for code in _INLINE_CODE.finditer(line):
            pieces.append(_TOKEN.sub(lambda m: self._replace(m, source, chain), line[pos : code.start()]))
            pieces.append(code.group(0))
            pos = code.end()
        pieces.append(_TOKEN.sub(lambda m: self._replace(m, source, chain), line[pos:]))
        return "".join(pieces)

    def _replace(self, match: re.Match[str], source: Path, chain: tuple[Path, ...]) -> str:
        token = match.group(1).rstrip(_TRAILING)
        tail = match.group(1)[len(token) :]
        if not token or ("/" not in token and not Path(token).suffix):
            return match.group(0)  # an @mention, not a file
        raw = Path(token).expanduser()
        target = _real(raw if raw.is_absolute() else source.parent / raw)
        if not target.is_file():
            log.debug("memory import %s in %s: no such file; left as text", token, source)
            return match.group(0)
        if not _inside(target, self.allowed):
            return f"<!-- Import refused: @{token} is outside the workspace and home folder -->{tail}"
        if target in chain:
            loop = " -> ".join(p.name for p in (*chain[chain.index(target) :], target))
            return f"<!-- Import skipped: @{token} would be a cycle ({loop}) -->{tail}"
        if len(chain) > MAX_IMPORT_DEPTH:
            return f"<!-- Import skipped: @{token} is deeper than {MAX_IMPORT_DEPTH} nested imports -->{tail}"
        content = _read(target)
        if content is None:
            return f"<!-- Import failed: @{token} could not be read -->{tail}"
        self.imported.append(target)
        body = self.expand(content, target, chain).strip("\n")
        return f"<!-- Imported from: {token} -->\n{body}\n<!-- End of import from: {token} -->{tail}"


def _block(path: Path, importer: _Importer) -> str | None:
    content = _read(path)
    if content is None:
        return None
    body = importer.expand(content, path).strip()
    if not body:
        return ""
    return f"--- Context from: {path} ---\n{body}\n--- End of Context from: {path} ---"


def _allowed_bases(roots: Sequence[Path], markers: Sequence[str]) -> list[Path]:
    bases = [paths.home(), *roots]
    bases.extend(p for r in roots if (p := find_project_root(r, markers)) is not None)
    return bases


def memory_paths(
    workspace_roots: Sequence[Path],
    *,
    file_names: Sequence[str],
    trusted: bool,
    boundary_markers: Sequence[str] = (".git",),
) -> list[Path]:
    """Memory files in load order: ``~/.gemini/<name>``, then per root from its project root down to it.
    Untrusted workspaces contribute nothing (a repository's GEMINI.md is instructions to the model)."""
    found: list[Path] = []
    seen: set[Path] = set()

    def add(candidate: Path) -> None:
        if candidate.is_file():
            real = _real(candidate)
            if real not in seen:
                seen.add(real)
                found.append(real)

    for name in file_names:
        add(paths.gemini_dir() / name)
    if not trusted:
        return found
    for root in workspace_roots:
        real_root = _real(root)
        top = find_project_root(real_root, boundary_markers) or real_root
        for folder in _folders_down_to(real_root, top):
            for name in file_names:
                add(folder / name)
    return found


def load_memory(
    workspace_roots: Sequence[Path],
    *,
    file_names: Sequence[str],
    trusted: bool,
    boundary_markers: Sequence[str] = (".git",),
    extra_files: Sequence[Path] = (),
) -> MemoryResult:
    """The hierarchical memory text, each file between ``--- Context from: <path> ---`` markers.
    ``extra_files`` (extensions' context files) come first, before the user's and the project's."""
    files = memory_paths(workspace_roots, file_names=file_names, trusted=trusted, boundary_markers=boundary_markers)
    files = [*(f for f in extra_files if f not in files), *files]
    importer = _Importer(_allowed_bases([_real(r) for r in workspace_roots], boundary_markers))
    blocks: list[str] = []
    read: list[Path] = []
    for path in files:
        block = _block(path, importer)
        if block is None:
            continue
        read.append(path)
        if block:
            blocks.append(block)
    return MemoryResult("\n\n".join(blocks), read, importer.imported)


class JitMemoryLoader:
    """core.ports.JitMemory: memory files in folders a tool touched, from the workspace root down, each once."""

    def __init__(
        self,
        workspace_roots: Sequence[Path],
        file_names: Sequence[str],
        already_loaded: Iterable[Path],
        *,
        trusted: bool = True,
        boundary_markers: Sequence[str] = (".git",),
    ) -> None:
        self._roots = [_real(r) for r in workspace_roots]
        self._names = list(file_names)
        self._given = {_real(p) for p in already_loaded}
        self._checked: set[Path] = set()  # folders already looked at: every tool result would re-stat them
        self._trusted = trusted
        self._allowed = _allowed_bases(self._roots, boundary_markers)

    def context_for(self, paths: Sequence[str]) -> str | None:
        if not self._trusted or not self._roots:
            return None
        importer = _Importer(self._allowed)
        blocks: list[str] = []
        for raw in paths:
            for memory_file in self._new_files_for(raw):
                self._given.add(memory_file)
                block = _block(memory_file, importer)
                if block:
                    blocks.append(block)
        return "\n\n".join(blocks) or None

    def _new_files_for(self, raw: str) -> list[Path]:
        given = Path(raw).expanduser()
        target = _real(given if given.is_absolute() else self._roots[0] / given)
        roots = [r for r in self._roots if _inside(target, [r])]
        if not roots:
            return []
        root = max(roots, key=lambda r: len(r.parts))  # nested roots: the closest one bounds the walk
        folder = target if target.is_dir() else target.parent
        while folder != root and not folder.is_dir():
            folder = folder.parent  # a file about to be created in a folder that does not exist yet
        found: list[Path] = []
        for d in _folders_down_to(folder, root):
            if d in self._checked:
                continue
            self._checked.add(d)
            for name in self._names:
                candidate = d / name
                if candidate.is_file() and _real(candidate) not in self._given:
                    real = _real(candidate)
                    if real not in found:
                        found.append(real)
        return found
