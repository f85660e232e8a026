"""Custom slash commands: Gemini CLI's ``.toml`` files under ``commands/`` folders, found, parsed and named."""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

CommandSource = Literal["user", "workspace", "extension"]
_UNSAFE = re.compile(r"[^a-zA-Z0-9_\-.]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
MAX_SEGMENT = 50  # Gemini CLI shortens longer path segments to 47 characters and "..."
MAX_DESCRIPTION = 100


@dataclass(frozen=True)
class CommandDir:
    path: Path
    source: CommandSource
    extension: str | None = None


@dataclass(frozen=True)
class CustomCommand:
    name: str  # "git:commit"
    description: str
    prompt: str
    path: Path
    source: CommandSource
    extension: str | None = None


@dataclass(frozen=True)
class LoadedCommands:
    commands: dict[str, CustomCommand]  # by name; later folders override earlier ones
    problems: tuple[str, ...]  # one line per file that could not be used, naming the file and why


def command_dirs(
    workspace_root: Path,
    *,
    user_dir: Path,
    trusted: bool,
    extensions: Sequence[tuple[str, Path]] = (),
) -> list[CommandDir]:
    """The folders to read, in loading order: user, then workspace, then extensions by name.

    As in Gemini CLI, an untrusted folder gets no file commands at all (a user command may run shell
    snippets there too), and the workspace folder is skipped when the workspace is the home folder
    (it would be the user folder again)."""
    if not trusted:
        return []
    dirs = [CommandDir(user_dir / "commands", "user")]
    project = workspace_root / ".gemini" / "commands"
    if _real(project) != _real(user_dir / "commands"):
        dirs.append(CommandDir(project, "workspace"))
    for name, root in sorted(extensions):
        dirs.append(CommandDir(root / "commands", "extension", name))
    return dirs


def load_commands(dirs: Iterable[CommandDir], reserved: Collection[str] = ()) -> LoadedCommands:
    """The commands of ``dirs``, named as Gemini CLI 0.61's SlashCommandResolver names them: when two want
    the same name, neither keeps it (``/user.x``, ``/workspace.x``, ``/<extension>:x``); a built-in name
    (``reserved``) always stays the built-in's."""
    parsed: list[CustomCommand] = []
    problems: list[str] = []
    for d in dirs:
        for path in _toml_files(d.path):
            command = _parse(path, d, problems)
            if command is not None:
                parsed.append(command)
    return LoadedCommands(resolve_names(parsed, reserved), tuple(problems))


def resolve_names(commands: Iterable[CustomCommand], reserved: Collection[str] = ()) -> dict[str, CustomCommand]:
    """Unique names for ``commands`` (in loading order): every party to a clash is prefixed by where it came from."""
    final: dict[str, CustomCommand] = {}
    claimed = set(reserved)
    for command in commands:
        name = command.name
        if name not in claimed:
            claimed.add(name)
            final[name] = command
            continue
        incoming = _unique(_prefixed(command), final, reserved)
        owner = final.pop(name, None)  # the first claimant is renamed too (a built-in never is: it is not here)
        if owner is not None:
            moved = _unique(_prefixed(owner), final, reserved)
            final[moved] = _renamed(owner, moved)
        final[incoming] = _renamed(command, incoming)
    return {c.name: c for c in final.values()}


def _prefixed(command: CustomCommand) -> str:
    if command.source == "extension" and command.extension:
        return f"{command.extension}:{command.name}"
    return f"{command.source}.{command.name}"


def _unique(base: str, taken: Mapping[str, object], reserved: Collection[str]) -> str:
    name, n = base, 1
    while name in taken or name in reserved:
        name, n = f"{base}{n}", n + 1
    return name


def fingerprint(dirs: Iterable[CommandDir]) -> tuple[tuple[str, int, int], ...]:
    """What changes when a command file is added, removed or edited: cheap enough to take at every prompt."""
    out: list[tuple[str, int, int]] = []
    for d in dirs:
        for path in _toml_files(d.path):
            try:
                st = path.stat()
            except OSError:
                continue
            out.append((str(path), st.st_mtime_ns, st.st_size))
    return tuple(out)


def _toml_files(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    found: list[Path] = []
    # followlinks: Gemini CLI's glob follows symbolic links too; a link loop is cut by the seen set.
    seen: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        real = _real(Path(dirpath))
        if str(real) in seen:
            dirnames[:] = []
            continue
        seen.add(str(real))
        dirnames.sort()
        found.extend(Path(dirpath) / f for f in sorted(filenames) if f.endswith(".toml"))
    return found


def _parse(path: Path, d: CommandDir, problems: list[str]) -> CustomCommand | None:
    import tomllib  # imported here: only a command file on disk needs the parser, not every start-up

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"Custom command {path} could not be read: {exc}")
        return None
    except tomllib.TOMLDecodeError as exc:
        problems.append(f"Custom command {path} is not valid TOML: {exc}")
        return None
    prompt = data.get("prompt")
    if prompt is None:
        problems.append(f"Custom command {path} was skipped: the 'prompt' field is required.")
        return None
    if not isinstance(prompt, str):
        problems.append(f"Custom command {path} was skipped: the 'prompt' field must be a string.")
        return None
    description = data.get("description")
    if description is not None and not isinstance(description, str):
        problems.append(f"Custom command {path} was skipped: the 'description' field must be a string.")
        return None
    rel = path.relative_to(d.path).with_suffix("")
    name = ":".join(_segment(s) for s in rel.parts)
    text = _display(description or f"Custom command from {path.name}")
    if d.extension:
        text = f"[{d.extension}] {text}"
    return CustomCommand(name, text, prompt, path, d.source, d.extension)


def _segment(segment: str) -> str:
    clean = _UNSAFE.sub("_", segment)
    return clean if len(clean) <= MAX_SEGMENT else clean[: MAX_SEGMENT - 3] + "..."


def _display(text: str) -> str:
    """One line for a menu: control characters become spaces, long text is cut."""
    one = _CONTROL.sub(" ", text).strip()
    return one if len(one) <= MAX_DESCRIPTION else one[: MAX_DESCRIPTION - 3] + "..."


def _renamed(command: CustomCommand, name: str) -> CustomCommand:
    return CustomCommand(name, command.description, command.prompt, command.path, command.source, command.extension)


def _real(path: Path) -> Path:
    try:
        return Path(os.path.realpath(path))
    except OSError:
        return path


class CommandFiles:
    """A CustomCommandSource over folders on disk: loaded once, reread when a file's mtime or size moves."""

    def __init__(self, dirs: Sequence[CommandDir], reserved: Collection[str] = ()) -> None:
        self.dirs = list(dirs)
        self.reserved = frozenset(reserved)  # the built-in commands' names
        self._print = fingerprint(self.dirs)
        self._loaded = load_commands(self.dirs, self.reserved)

    @property
    def problems(self) -> tuple[str, ...]:
        return self._loaded.problems

    def current(self) -> dict[str, CustomCommand]:
        return self._loaded.commands

    def refresh(self) -> tuple[bool, tuple[str, ...]]:
        now = fingerprint(self.dirs)
        if now == self._print:
            return False, ()
        self._print = now
        before = self._loaded.commands
        self._loaded = load_commands(self.dirs, self.reserved)
        return self._loaded.commands != before, self._loaded.problems
