"""Helpers shared by the file tools: workspace paths, file-type sniffing, line handling, globs, placeholders."""

from __future__ import annotations

import codecs
import mimetypes
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Literal

from agent_lsp.errors import PathOutsideWorkspace, ToolError
from agent_lsp.tools.context import ToolContext
from agent_lsp.workspace.ignore import IgnoreFilter

MAX_LINES_PER_READ = 2000
MAX_LINE_CHARS = 2000
MAX_FILE_BYTES = 20 * 1024 * 1024
SNIFF_BYTES = 8192

FileKind = Literal["text", "image", "pdf", "audio", "video", "binary"]

_IMAGE_EXTS = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".bmp": "image/bmp",
    ".heic": "image/heic",
    ".heif": "image/heif",
}
_AUDIO_EXTS = {
    ".mp3": "audio/mpeg",
    ".wav": "audio/wav",
    ".ogg": "audio/ogg",
    ".flac": "audio/flac",
    ".aac": "audio/aac",
    ".m4a": "audio/mp4",
    ".aiff": "audio/aiff",
}
_VIDEO_EXTS = {
    ".mp4": "video/mp4",
    ".mov": "video/quicktime",
    ".webm": "video/webm",
    ".mpeg": "video/mpeg",
    ".mpg": "video/mpeg",
    ".avi": "video/x-msvideo",
    ".wmv": "video/x-ms-wmv",
    ".flv": "video/x-flv",
    ".3gp": "video/3gpp",
}
# Extensions that are binary no matter what the first bytes look like.
_BINARY_EXTS = frozenset(
    [
        ".zip",
        ".tar",
        ".gz",
        ".tgz",
        ".bz2",
        ".xz",
        ".7z",
        ".rar",
        ".jar",
        ".war",
        ".class",
        ".exe",
        ".dll",
        ".so",
        ".dylib",
        ".o",
        ".a",
        ".lib",
        ".obj",
        ".pyc",
        ".pyo",
        ".wasm",
        ".bin",
        ".dat",
        ".db",
        ".sqlite",
        ".sqlite3",
        ".ico",
        ".ttf",
        ".otf",
        ".woff",
        ".woff2",
        ".eot",
        ".doc",
        ".docx",
        ".xls",
        ".xlsx",
        ".ppt",
        ".pptx",
        ".odt",
        ".ods",
        ".odp",
        ".psd",
        ".iso",
        ".dmg",
        ".deb",
        ".rpm",
        ".parquet",
        ".npy",
        ".npz",
        ".pkl",
        ".pt",
        ".onnx",
    ]
)


# -- workspace paths ------------------------------------------------------------------------------------


def path_problem(ctx: ToolContext, raw: str) -> str | None:
    """Why ``raw`` cannot be used (empty, or outside the workspace), or None. For ``validate``."""
    if not raw.strip():
        return "The path must not be empty."
    try:
        ctx.workspace.resolve(raw)
    except PathOutsideWorkspace as exc:
        return str(exc)
    return None


def resolve(ctx: ToolContext, raw: str) -> Path:
    """Absolute, symlink-free path inside the workspace (raises PathOutsideWorkspace, a ToolError)."""
    return ctx.workspace.resolve(raw)


def root_for(ctx: ToolContext, path: Path) -> Path:
    """The deepest workspace root containing ``path`` (the primary root if none does)."""
    best: Path | None = None
    for root in ctx.workspace.roots:
        if (path == root or root in path.parents) and (best is None or len(root.parts) > len(best.parts)):
            best = root
    return best or ctx.workspace.primary


def shown(ctx: ToolContext, path: Path) -> str:
    """A short path for people: relative to its root when there is one root, else absolute."""
    if len(ctx.workspace.roots) == 1:
        return ctx.workspace.relative(path)
    return str(path)


def ignore_filter(
    ctx: ToolContext, path: Path, respect_git: bool | None = None, respect_gemini: bool | None = None
) -> IgnoreFilter:
    """The ignore filter of the root holding ``path``; None options fall back to the context's settings."""
    return IgnoreFilter(
        root_for(ctx, path),
        respect_git_ignore=ctx.respect_git_ignore if respect_git is None else respect_git,
        respect_gemini_ignore=ctx.respect_gemini_ignore if respect_gemini is None else respect_gemini,
    )


# -- file types -----------------------------------------------------------------------------------------


def media_type(path: Path) -> tuple[FileKind, str]:
    """What kind of file the name says it is, and its mime type (``text/plain`` for text)."""
    ext = path.suffix.lower()
    if ext in _IMAGE_EXTS:
        return "image", _IMAGE_EXTS[ext]
    if ext == ".pdf":
        return "pdf", "application/pdf"
    if ext in _AUDIO_EXTS:
        return "audio", _AUDIO_EXTS[ext]
    if ext in _VIDEO_EXTS:
        return "video", _VIDEO_EXTS[ext]
    if ext in _BINARY_EXTS:
        return "binary", mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return "text", "text/plain"


def looks_binary(data: bytes) -> bool:
    """True for data that is not text: any NUL byte, or too many control / undecodable bytes."""
    if not data:
        return False
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False  # UTF-16 text: its NUL bytes are half of each ASCII character
    if b"\x00" in data:
        return True
    try:
        data.decode("utf-8")
        return False
    except UnicodeDecodeError as exc:
        # A multi-byte character cut off by the sniff window is still text.
        if exc.start >= len(data) - 3 and exc.reason == "unexpected end of data":
            return False
    controls = sum(1 for b in data if b < 9 or 13 < b < 32)
    high = sum(1 for b in data if b >= 0x80)
    return (controls + high) / len(data) > 0.3


def sniff_binary(path: Path) -> bool:
    """Whether the file on disk starts with non-text bytes (False when it cannot be read)."""
    try:
        with open(path, "rb") as fh:
            return looks_binary(fh.read(SNIFF_BYTES))
    except OSError:
        return False


def classify(path: Path) -> tuple[FileKind, str]:
    """Kind and mime type from the name, refined by sniffing so unknown binaries are not read as text."""
    kind, mime = media_type(path)
    if kind == "text" and sniff_binary(path):
        return "binary", "application/octet-stream"
    return kind, mime


# -- text -----------------------------------------------------------------------------------------------


def split_lines(text: str) -> list[str]:
    """Lines without their endings; a final newline does not start an extra empty line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def clip_line(line: str, limit: int = MAX_LINE_CHARS) -> tuple[str, bool]:
    if len(line) <= limit:
        return line, False
    return line[:limit] + f"... [line truncated: {len(line)} characters]", True


# -- globs ----------------------------------------------------------------------------------------------

_GLOB_CHARS = re.compile(r"[*?\[{]")


def has_glob(pattern: str) -> bool:
    return bool(_GLOB_CHARS.search(pattern))


MAX_GLOB_CHARS = 1000
MAX_BRACE_EXPANSIONS = 256
# Every '**' segment nests one more lazy loop in the regex, so a path's matching cost grows as depth ** count;
# three keep the worst case (a deep path that almost matches) under a millisecond.
MAX_GLOBSTARS = 3


class GlobPatternError(ToolError):
    """A glob the matcher refuses (too long, too many brace expansions or '**'); the model reads the message."""

    def __init__(self, pattern: str, why: str) -> None:
        super().__init__(f"Invalid glob pattern {pattern[:200]!r}: {why}", "invalid_pattern")


def expand_braces(pattern: str) -> list[str]:
    """``a.{ts,tsx}`` -> ``a.ts``, ``a.tsx`` (nested braces and ranges work; an unmatched brace is literal).

    Raises GlobPatternError past MAX_BRACE_EXPANSIONS patterns, instead of growing exponentially."""
    import bracex  # not at top level: only glob users need it

    if len(pattern) > MAX_GLOB_CHARS:
        raise GlobPatternError(pattern, f"longer than {MAX_GLOB_CHARS} characters")
    try:
        return list(bracex.expand(pattern, keep_escapes=True, limit=MAX_BRACE_EXPANSIONS))
    except bracex.ExpansionLimitException:
        raise GlobPatternError(
            pattern, f"its {{a,b}} braces expand to more than {MAX_BRACE_EXPANSIONS} patterns; use fewer or '*'"
        ) from None


@lru_cache(maxsize=256)
def glob_regex(pattern: str, case_sensitive: bool = True) -> re.Pattern[str]:
    """A regex that fully matches ``/``-separated relative paths matched by the glob ``pattern`` (wcmatch).

    ``*`` and ``?`` stay within one folder and match dotfiles, ``**`` spans folders, ``[..]`` and ``{a,b}``
    work as in shells, ``\\`` escapes. Raises GlobPatternError for a pattern that would be too costly."""
    from wcmatch import glob as wcglob  # not at top level: 20 ms of imports only glob users need

    pattern = pattern.lstrip("/")
    for expanded in expand_braces(pattern):
        segments = expanded.split("/")
        stars = sum(1 for k, seg in enumerate(segments) if seg == "**" and (k == 0 or segments[k - 1] != "**"))
        if stars > MAX_GLOBSTARS:
            raise GlobPatternError(pattern, f"more than {MAX_GLOBSTARS} '**' segments; one '**' already spans folders")
    flags = wcglob.GLOBSTAR | wcglob.BRACE | wcglob.DOTMATCH | wcglob.FORCEUNIX
    flags |= wcglob.CASE if case_sensitive else wcglob.IGNORECASE
    try:
        include, _ = wcglob.translate(pattern, flags=flags, limit=MAX_BRACE_EXPANSIONS)
        return re.compile("|".join(f"(?:{r})" for r in include))
    except Exception as exc:  # wcmatch's limit error, re.error, anything a strange pattern provokes
        raise GlobPatternError(pattern, str(exc) or type(exc).__name__) from None


def glob_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be used as a glob, or None. For ``validate``."""
    try:
        glob_regex(pattern)
    except GlobPatternError as exc:
        return str(exc)
    return None


def glob_match(pattern: str, rel: str, case_sensitive: bool = True) -> bool:
    return glob_regex(pattern, case_sensitive).fullmatch(rel) is not None


def split_glob(pattern: str) -> tuple[str, str]:
    """The literal folder prefix of a glob and the rest: ``src/**/*.py`` -> (``src``, ``**/*.py``)."""
    parts = pattern.split("/")
    fixed: list[str] = []
    for i, part in enumerate(parts[:-1]):
        if has_glob(part):
            return "/".join(fixed), "/".join(parts[i:])
        fixed.append(part)
    return "/".join(fixed), parts[-1]


def rel_posix(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` with ``/`` separators; ``path`` must be ``base`` or below it."""
    full, prefix = str(path), os.path.join(str(base), "")
    rel = full[len(prefix) :] if full.startswith(prefix) else os.path.relpath(full, base)
    return rel if os.sep == "/" else rel.replace(os.sep, "/")


# -- omission placeholders ------------------------------------------------------------------------------

_PLACEHOLDERS = (
    r"^(?:\.\.\.|…)?\s*\(?(?:the )?(?:rest|remainder) of (?:the |this |your )?"
    r"(?:code|file|implementation|content|contents|function|method|methods|class|module|component|logic|"
    r"imports|tests)\b",
    r"^(?:\.\.\.|…)\s*(?:existing|previous|original|other|unchanged|remaining|same|more)\b",
    r"\b(?:existing|previous|original|remaining|unchanged|other) (?:code|content|contents|implementation|"
    r"methods|functions|imports|logic|lines|tests)\b.*(?:here|unchanged|remains?|as before|\.\.\.|…|omitted)",
    r"^(?:code|content|implementation|everything else) (?:remains|stays|is) (?:the same|unchanged)",
)


# Compiled on the first edit checked (then cached), not at import: building a session's tools does not need them.
@lru_cache(maxsize=1)
def _placeholder_regexes() -> tuple[re.Pattern[str], re.Pattern[str], tuple[re.Pattern[str], ...]]:
    """(comment lead, comment tail, the placeholder phrases)."""
    lead = re.compile(r"^(?://+|#+|/\*+|\*+|<!--|--|;+|\{/\*|%|')\s*")
    tail = re.compile(r"\s*(?:\*+/\}?|-->)\s*$")
    return lead, tail, tuple(re.compile(p) for p in _PLACEHOLDERS)


_LEADS = frozenset("/#*<-;{%'.…")


def _placeholder_lines(text: str) -> list[str]:
    comment_lead, comment_tail, placeholders = _placeholder_regexes()
    found: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        # Only a comment or a "..." line can be a placeholder: the first character rules out most lines before
        # any regex runs (this is checked on the event loop, for every line a model writes).
        if not line or len(line) > 160 or line[0] not in _LEADS:
            continue
        body = comment_tail.sub("", comment_lead.sub("", line, count=1)).strip()
        # Only comment lines or bare "..." lines count: prose that mentions "existing code" is fine.
        if body == line and not line.startswith(("...", "…")):
            continue
        low = body.lower()
        if any(p.search(low) for p in placeholders):
            found.append(line)
    return found


def find_omission_placeholder(new: str, old: str | None) -> str | None:
    """The first line of ``new`` that stands in for omitted code ("// ... rest of code here"), unless the same
    line was already in ``old`` (then the file legitimately contains it)."""
    already = set(_placeholder_lines(old)) if old else set()
    for line in _placeholder_lines(new):
        if line not in already:
            return line
    return None


def placeholder_message(line: str, what: str) -> str:
    """The validation message for a refused placeholder in ``what`` (e.g. "content", "new_string")."""
    return (
        f"The {what} contains an omission placeholder ({line!r}). This tool writes exactly what you give it, so "
        "the placeholder would replace real code. Provide the complete text, with no parts left out."
    )
