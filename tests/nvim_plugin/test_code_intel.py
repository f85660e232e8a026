"""The Neovim plugin answers the agent's code-intelligence requests from a real language server attached to the
buffer (basedpyright from scripts/install-language-servers.sh): lua/specs/code_intel.lua."""

from __future__ import annotations

import pytest

from tests.nvim_plugin.conftest import SpecPool
from tests.nvim_plugin.scenarios import PYRIGHT


def _need_server() -> None:
    from pathlib import Path

    if not Path(PYRIGHT["AGENT_NVIM_PYRIGHT"]).exists():
        pytest.fail("basedpyright is not installed: run scripts/install-language-servers.sh (make test-deps)")


@pytest.mark.nvim_spec("code_intel")
def test_code_intel_and_diagnostics_come_from_the_buffers_language_server(nvim_specs: SpecPool) -> None:
    _need_server()
    out = nvim_specs.result("code_intel").check()
    assert "code_intel direct ok" in out
