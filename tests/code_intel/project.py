"""The fixture projects and the real language servers the code-intelligence tests use (``make test-deps`` installs
them into .deps/language-servers: scripts/install-language-servers.sh)."""

from __future__ import annotations

import json
from pathlib import Path

from agent_lsp.code_intel.catalog import WELL_KNOWN, ServerSpec

REPO = Path(__file__).resolve().parents[2]
SERVERS = REPO / ".deps" / "language-servers"
BASEDPYRIGHT = SERVERS / "py" / "bin" / "basedpyright-langserver"
JEDI = SERVERS / "py" / "bin" / "jedi-language-server"
TYPESCRIPT = SERVERS / "node_modules" / ".bin" / "typescript-language-server"


def installed(exe: Path) -> Path:
    """The server's path; a clear failure (never a skip) when ``make test-deps`` has not installed it."""
    assert exe.exists(), f"{exe} is missing: run `make test-deps` (scripts/install-language-servers.sh)"
    return exe


def spec(exe: Path, language: str = "python") -> ServerSpec:
    """The well-known server at ``exe`` as discovery would make it."""
    entry = next(w for w in WELL_KNOWN if w[1] == exe.name)
    return ServerSpec(language, str(installed(exe)), entry[2], entry[3], operations=entry[4])


SHAPES = '''"""Shapes."""

from abc import ABC, abstractmethod


def area(width: float, height: float) -> float:
    """The area of a rectangle.

    Width times height, in square units.
    """
    return width * height


class Shape(ABC):
    @abstractmethod
    def size(self) -> float: ...


class Rect(Shape):
    def __init__(self, w: float, h: float) -> None:
        self.w = w
        self.h = h

    def size(self) -> float:
        return area(self.w, self.h)
'''
USE = """from geo.shapes import area


def total() -> float:
    return area(2, 3) + area(1, 1)
"""
# A file with a problem of its own before any edit: an edit elsewhere in it must not be blamed for it.
OLD = """from geo.shapes import area

LEGACY = undefined_thing


def half() -> float:
    return area(1, 2) / 2
"""
TS_SHAPES = "export function area(w: number, h: number): number {\n  return w * h;\n}\n"
TS_USE = 'import { area } from "./shapes";\n\nexport function total(): number {\n  return area(2, 3) + area(1, 1);\n}\n'


def make_project(root: Path) -> Path:
    """A Python package with ``area()`` defined in one file and called from two places in another (and one more
    in a file with an old error), and the same in TypeScript under web/."""
    (root / "geo").mkdir(parents=True)
    (root / "geo" / "__init__.py").write_text("")
    (root / "geo" / "shapes.py").write_text(SHAPES)
    (root / "geo" / "use.py").write_text(USE)
    (root / "geo" / "old.py").write_text(OLD)
    (root / "pyproject.toml").write_text('[project]\nname = "geo"\nversion = "0"\n')
    (root / "web").mkdir()
    (root / "web" / "shapes.ts").write_text(TS_SHAPES)
    (root / "web" / "use.ts").write_text(TS_USE)
    (root / "web" / "tsconfig.json").write_text(json.dumps({"compilerOptions": {"strict": True, "noEmit": True}}))
    (root / "README.md").write_text("# geo\n")
    return root.resolve()


def user_settings(home: Path, **extra: object) -> Path:
    """~/.gemini/settings.json naming the installed servers (discovery off: only these run)."""
    settings = {
        "lspServers": {
            "python": {"command": str(installed(BASEDPYRIGHT)), "args": ["--stdio"]},
            "typescript": {"command": str(installed(TYPESCRIPT)), "args": ["--stdio"]},
        },
        # A generous wait: the tests check what is reported, not how fast (test_failures checks the bound).
        "codeIntelligence": {"discoverServers": False, "diagnosticsWaitMs": 30000},
        **extra,
    }
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings))
    return path
