"""The plugin's Lua modules, read as the Python layering test reads agent_lsp: ``require`` calls parsed from lua/;
no circle among the requires a module makes when it loads; what a module may not require at all; and the size of a
module (as tests/test_package_layering.py holds Python's).

A require at the start of a line (``local x = require("…")``) runs when the module loads; an indented one runs when
a function calls it (a lazy require, Neovim's usual way to keep start-up light). Lazy requires may point back up
(a chat window's key calls the session), so only the load-time graph must be free of circles.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.nvim_plugin.conftest import REPO
from tests.test_package_layering import cycles

LUA = REPO / "lua"
MAX_MODULE_LINES = 450
REQUIRE = re.compile(r"""require\(?\s*["']([\w.]+)["']""")
# module (or module prefix ending in ".") → modules it must never require, at load time or lazily.
FORBIDDEN: dict[str, tuple[str, ...]] = {
    # Pure rendering and the chat's buffers know nothing of sessions, turns or the server.
    "agent_lsp.chat.render": ("agent_lsp.session", "agent_lsp.turns", "agent_lsp.client", "agent_lsp.updates"),
    "agent_lsp.chat.transcript": ("agent_lsp.session", "agent_lsp.turns", "agent_lsp.client", "agent_lsp.updates"),
    # A session is opened and kept; what runs in it (turns, updates, choices, rewinds) builds on it, not under it.
    "agent_lsp.session": ("agent_lsp.turns", "agent_lsp.updates", "agent_lsp.choices", "agent_lsp.rewind"),
    "agent_lsp.config": (
        "agent_lsp.session",
        "agent_lsp.turns",
        "agent_lsp.updates",
        "agent_lsp.chat.",
        "agent_lsp.rewind",
    ),
}
# module prefix → modules it must not require when it loads (lazily is how such a call reaches up).
FORBIDDEN_AT_LOAD: dict[str, tuple[str, ...]] = {
    "agent_lsp.chat.": ("agent_lsp.session", "agent_lsp.turns", "agent_lsp.updates", "agent_lsp.rewind"),
    "agent_lsp.client": ("agent_lsp.session", "agent_lsp.turns", "agent_lsp.updates", "agent_lsp.apply_edit"),
}


def _name(path: Path) -> str:
    parts = path.relative_to(LUA).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "init" else parts)


def requires(path: Path) -> list[tuple[int, str, bool]]:
    """(line, module, at load time) for each require of one of our modules in ``path``."""
    found = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.lstrip().startswith("--"):
            continue
        for match in REQUIRE.finditer(line):
            if match.group(1).startswith("agent_lsp"):
                found.append((number, match.group(1), not line[:1].isspace()))
    return found


def graph(*, load_time_only: bool) -> dict[str, set[str]]:
    modules = {_name(p): p for p in LUA.rglob("*.lua")}
    return {
        name: {m for _, m, at_load in requires(path) if m in modules and m != name and (at_load or not load_time_only)}
        for name, path in modules.items()
    }


def _matches(module: str, rule: str) -> bool:
    return module == rule or (rule.endswith(".") and module.startswith(rule))


def test_the_parser_tells_load_time_from_lazy_requires(tmp_path: Path) -> None:
    sample = tmp_path / "x.lua"
    sample.write_text(
        'local a = require("agent_lsp.a")\n-- require("agent_lsp.c")\nlocal function f()\n'
        '  return require("agent_lsp.b").go()\nend\n'
    )
    assert requires(sample) == [(1, "agent_lsp.a", True), (4, "agent_lsp.b", False)]


def test_no_module_requires_itself_when_it_loads() -> None:
    assert cycles(graph(load_time_only=True)) == []


def test_the_cycle_check_sees_a_load_time_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"a"}}) == [["a", "b"]]


def test_modules_never_require_what_sits_above_them() -> None:
    found = []
    for path in sorted(LUA.rglob("*.lua")):
        name = _name(path)
        for line, module, at_load in requires(path):
            rules = [bad for owner, bads in FORBIDDEN.items() if _matches(name, owner) for bad in bads]
            if at_load:
                rules += [bad for owner, bads in FORBIDDEN_AT_LOAD.items() if _matches(name, owner) for bad in bads]
            if any(_matches(module, bad) or module == bad for bad in rules):
                found.append(f"{path.relative_to(REPO)}:{line}: {module}")
    assert found == []


def test_modules_stay_small() -> None:
    big = [
        f"{path.relative_to(REPO)}: {count} lines"
        for path in sorted(LUA.rglob("*.lua"))
        if (count := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    ]
    assert big == []
