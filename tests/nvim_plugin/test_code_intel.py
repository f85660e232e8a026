"""The Neovim plugin answers the agent's code-intelligence requests from a real language server attached to the
buffer (basedpyright from scripts/install-language-servers.sh): lua/specs/code_intel.lua."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.nvim_plugin.conftest import SpecPool
from tests.nvim_plugin.scenarios import PYRIGHT


def _need(server: dict[str, str]) -> None:
    for path in server.values():
        if not Path(path).exists():
            pytest.fail(f"{path} is not installed: run scripts/install-language-servers.sh (make test-deps)")


@pytest.mark.nvim_spec("code_intel")
def test_code_intel_and_diagnostics_come_from_the_buffers_language_server(nvim_specs: SpecPool) -> None:
    _need(PYRIGHT)
    out = nvim_specs.result("code_intel").check()
    assert "code_intel direct ok" in out


@pytest.mark.nvim_spec("code_intel_encoding")
def test_positions_are_recoded_for_a_server_that_negotiated_utf8(nvim_specs: SpecPool) -> None:
    assert "code_intel encoding ok" in nvim_specs.result("code_intel_encoding").check()
