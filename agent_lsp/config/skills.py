"""Agent skills: ``SKILL.md`` folders found in Gemini CLI's discovery tiers, with their front matter read."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

SkillSource = Literal["builtin", "extension", "user", "workspace"]
_FRONT = re.compile(r"\A---\r?\n(.*?)\r?\n---(?:\r?\n(.*))?\Z", re.S)
_UNSAFE_NAME = re.compile(r'[:\\/<>*?"|]')
BUILTIN_SKILLS = Path(__file__).resolve().parent.parent / "builtin_skills"


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    location: Path  # the SKILL.md file
    body: str
    source: SkillSource
    extension: str | None = None

    @property
    def folder(self) -> Path:
        return self.location.parent


@dataclass(frozen=True)
class SkillDir:
    path: Path
    source: SkillSource
    extension: str | None = None


def skill_dirs(
    workspace_root: Path, *, home: Path, trusted: bool, extensions: Sequence[tuple[str, Path]] = ()
) -> list[SkillDir]:
    """Lowest precedence first: the built-in ones (shipped with agent-lsp, as Gemini CLI 0.61 ships its own),
    extensions, the user's (``~/.gemini/skills``, then the ``~/.agents/skills`` alias), then the workspace's
    (same pair; only when trusted). A later skill of the same name wins."""
    dirs = [SkillDir(BUILTIN_SKILLS, "builtin")]
    dirs += [SkillDir(root / "skills", "extension", name) for name, root in extensions]
    dirs += [SkillDir(home / ".gemini" / "skills", "user"), SkillDir(home / ".agents" / "skills", "user")]
    if trusted:
        ws = [SkillDir(workspace_root / ".gemini" / "skills", "workspace")]
        ws.append(SkillDir(workspace_root / ".agents" / "skills", "workspace"))
        user_real = {_real(d.path) for d in dirs}
        dirs += [d for d in ws if _real(d.path) not in user_real]
    return dirs


def discover(dirs: Iterable[SkillDir]) -> tuple[dict[str, Skill], list[str]]:
    """Skills by name (later tiers override earlier ones) and notes on files that could not be used."""
    found: dict[str, Skill] = {}
    problems: list[str] = []
    for d in dirs:
        for path in _skill_files(d.path):
            skill = load_skill(path, d, problems)
            if skill is None:
                continue
            old = found.get(skill.name)
            if old is not None and old.location != skill.location and old.source != "builtin":
                problems.append(f'Skill "{skill.name}" from {skill.location} overrides the one from {old.location}.')
            found[skill.name] = skill
    return found, problems


def read_front_matter(path: Path) -> tuple[str, str]:
    """A Markdown file's front matter (between its first two ``---`` lines) and its body, stripped. Raises
    ValueError saying why when the file cannot be read or has no front matter."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"could not be read: {exc}") from exc
    m = _FRONT.match(text)
    if m is None:
        raise ValueError("it must start with front matter between '---' lines")
    return m.group(1), (m.group(2) or "").strip()


def load_skill(path: Path, d: SkillDir, problems: list[str]) -> Skill | None:
    try:
        front, body = read_front_matter(path)
    except ValueError as exc:
        problems.append(f"Skill {path} was skipped: {exc}.")
        return None
    meta = parse_front_matter(front)
    name, description = meta.get("name"), meta.get("description")
    if not name or description is None:
        problems.append(f"Skill {path} was skipped: its front matter needs 'name' and 'description'.")
        return None
    return Skill(_UNSAFE_NAME.sub("-", name), description, path, body, d.source, d.extension)


def parse_front_matter(text: str) -> dict[str, str]:
    """The flat ``key: value`` pairs of YAML front matter: quoted values, ``|`` / ``>`` blocks and indented
    continuation lines (folded into one line, as Gemini CLI's fallback reader does)."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^([A-Za-z_][\w-]*):\s*(.*)$", lines[i])
        i += 1
        if m is None:
            continue
        key, value = m.group(1), m.group(2).strip()
        more: list[str] = []
        while i < len(lines) and (lines[i].startswith((" ", "\t")) or not lines[i].strip()):
            if lines[i].strip():
                more.append(lines[i].strip())
            i += 1
        if value in ("|", ">", "|-", ">-", "|+", ">+"):
            value = ("\n" if value.startswith("|") else " ").join(more)
        elif more:
            value = " ".join([value, *more]).strip()
        out[key] = _unquote(value)
    return out


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        inner = value[1:-1]
        return inner.replace("''", "'") if value[0] == "'" else inner.replace('\\"', '"')
    return value


def _skill_files(root: Path) -> list[Path]:
    """``SKILL.md`` in the folder itself or one level down, as Gemini CLI looks for them."""
    if not root.is_dir():
        return []
    out = [root / "SKILL.md"] if (root / "SKILL.md").is_file() else []
    try:
        children = sorted(p for p in root.iterdir() if p.is_dir() and p.name not in ("node_modules", ".git"))
    except OSError:
        return out
    out += [c / "SKILL.md" for c in children if (c / "SKILL.md").is_file()]
    return out


def _real(path: Path) -> Path:
    try:
        return Path(os.path.realpath(path))
    except OSError:
        return path


class SkillSet:
    """The session's skills: discovered once, reloadable, with the disabled ones (by name, any case) hidden."""

    def __init__(self, dirs: Sequence[SkillDir], disabled: Iterable[str] = ()) -> None:
        self.dirs = list(dirs)
        self.disabled = {d.lower() for d in disabled}
        self.all: dict[str, Skill] = {}
        self.problems: list[str] = []
        self.active: set[str] = set()
        self.reload()

    def reload(self, disabled: Iterable[str] | None = None) -> list[str]:
        if disabled is not None:
            self.disabled = {d.lower() for d in disabled}
        self.all, self.problems = discover(self.dirs)
        return self.problems

    def enabled(self) -> list[Skill]:
        return [s for s in self.all.values() if s.name.lower() not in self.disabled]

    def get(self, name: str) -> Skill | None:
        skill = self.all.get(name)
        return skill if skill is not None and skill.name.lower() not in self.disabled else None


def settings_file(scope: Literal["user", "workspace"], workspace_root: Path) -> Path:
    from agent_lsp.config.paths import gemini_dir

    return gemini_dir() / "settings.json" if scope == "user" else workspace_root / ".gemini" / "settings.json"


def set_disabled(name: str, disabled: bool, path: Path) -> list[str]:
    """Add ``name`` to (or remove it from) ``skills.disabled`` in the settings file at ``path``, keeping the
    rest of the file; returns the new list. Raises ConfigError if the file cannot be parsed."""
    from agent_lsp.config.jsonc import parse_jsonc
    from agent_lsp.config.jsonc_edit import set_value
    from agent_lsp.errors import ConfigError
    from agent_lsp.workspace.filesystem import atomic_write

    try:
        original = path.read_text(encoding="utf-8") if path.exists() else ""
        data = parse_jsonc(original) if original.strip() else {}
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot update it: {exc}", file=str(path)) from exc
    if not isinstance(data, dict):
        raise ConfigError("cannot update it: the top level is not an object", file=str(path))
    section = data.get("skills", {})
    if not isinstance(section, dict):
        raise ConfigError("cannot update it: 'skills' is not an object", file=str(path))
    names = [n for n in section.get("disabled", []) if isinstance(n, str) and n.lower() != name.lower()]
    if disabled:
        names.append(name)
    # Only this value changes: the user's comments and layout stay (as Gemini CLI keeps them).
    try:
        text = set_value(original, ("skills", "disabled"), names)
    except ValueError as exc:
        raise ConfigError(f"cannot update it: {exc}", file=str(path)) from exc
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, text)
    return names
