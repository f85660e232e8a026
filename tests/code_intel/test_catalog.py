"""Which server serves which files: the user's lspServers, else well-known servers on PATH (a type checker first
for Python); and the operations the catalog promises for each well-known server are what the real one offers."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from agent_lsp.code_intel import over_lsp
from agent_lsp.code_intel.catalog import discovered, server_specs, spec_for
from agent_lsp.code_intel.pool import ServerPool
from agent_lsp.config.settings import Settings
from tests.code_intel.project import BASEDPYRIGHT, JEDI, TYPESCRIPT, installed, spec

PATH = os.pathsep.join(str(installed(p).parent) for p in (JEDI, TYPESCRIPT))


@pytest.mark.parametrize("exe", [BASEDPYRIGHT, JEDI, TYPESCRIPT], ids=lambda p: p.name)
async def test_the_catalog_promises_what_the_real_server_offers(exe: Path, tmp_path: Path) -> None:
    language = "typescript" if exe == TYPESCRIPT else "python"
    server_spec = spec(exe, language)
    pool = ServerPool(os.environ)
    try:
        server = await pool.server(server_spec, tmp_path)
        assert tuple(over_lsp.supported(server.capabilities)) == server_spec.operations
        assert over_lsp.can_rename(server.capabilities)
    finally:
        await pool.aclose()


def test_discovery_prefers_a_type_checker_for_python() -> None:
    found = {s.language: Path(s.command).name for s in discovered(PATH)}
    assert found == {"python": "basedpyright-langserver", "typescript": "typescript-language-server"}
    only_jedi = str(tmp_bin_with(JEDI))
    assert [Path(s.command).name for s in discovered(only_jedi)] == ["jedi-language-server"]


def tmp_bin_with(exe: Path) -> Path:
    """A PATH folder holding just ``exe`` (a link), so discovery sees nothing else."""
    folder = Path(os.environ["HOME"]) / "bin"
    folder.mkdir(exist_ok=True)
    (folder / exe.name).symlink_to(exe)
    return folder


def test_settings_name_servers_switch_languages_off_and_say_what_is_wrong() -> None:
    settings = Settings.model_validate(
        {
            "lspServers": {
                "python": {"command": str(JEDI), "filePatterns": ["*.py", "*.pyx"]},
                "typescript": {"disabled": True},
                "go": {"command": "no-such-gopls"},
                "mine": {"command": sys.executable, "args": ["-m", "my_server"]},
            }
        }
    )
    problems: list[str] = []
    specs = server_specs(settings.lsp_servers, discover=True, path_env=PATH, problems=problems)
    assert [(s.language, Path(s.command).name) for s in specs] == [("python", "jedi-language-server")]
    assert spec_for(specs, Path("/p/a.pyx")) is specs[0]
    assert spec_for(specs, Path("/p/a.ts")) is None  # switched off, though one is on PATH
    assert problems == [
        "lspServers.go: 'no-such-gopls' was not found; no server for go",
        f"lspServers.mine: filePatterns is empty and {sys.executable!r} is not a known server",
    ]


def test_lsp_is_read_only_and_rename_an_edit_in_every_mode(tmp_path: Path) -> None:
    """lsp never asks and runs in plan mode; rename_symbol asks like replace and plan mode refuses it."""
    from agent_lsp.code_intel.session import PoolCodeIntel
    from agent_lsp.tools.code_nav import LspTool
    from agent_lsp.tools.context import ToolContext
    from agent_lsp.tools.policy import Policy
    from agent_lsp.tools.rename_symbol import RenameSymbolTool
    from agent_lsp.workspace.filesystem import LocalFileSystem
    from agent_lsp.workspace.roots import Workspace

    intel = PoolCodeIntel(ServerPool({}), [spec(BASEDPYRIGHT)], lambda: [tmp_path], LocalFileSystem().read_text)
    ctx = ToolContext(workspace=Workspace([tmp_path]), fs=LocalFileSystem(), temp_dir=tmp_path, code_intel=intel)
    lsp, rename = LspTool(ctx, intel), RenameSymbolTool(ctx, intel)
    expected = {"default": ("allow", "ask"), "auto_edit": ("allow", "allow"), "plan": ("allow", "deny")}
    for mode, (for_lsp, for_rename) in expected.items():
        policy = Policy(mode=mode)  # type: ignore[arg-type]
        assert policy.decide(lsp, {"operation": "hover"})[0] == for_lsp, mode
        assert policy.decide(rename, {"new_name": "x"})[0] == for_rename, mode
    assert lsp.read_only and not rename.read_only
