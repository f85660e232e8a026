"""The Neovim plugin answers the agent's code-intelligence requests from a real language server attached to the
buffer (basedpyright from scripts/install-language-servers.sh): lua/specs/code_intel.lua."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.nvim_plugin.conftest import SpecPool, SpecResult
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
    print(next(line for line in out.splitlines() if line.startswith("latency")))


@pytest.mark.nvim_spec("code_intel_encoding")
def test_positions_are_recoded_for_a_server_that_negotiated_utf8(nvim_specs: SpecPool) -> None:
    assert "code_intel encoding ok" in nvim_specs.result("code_intel_encoding").check()


def _tool_answers(result: SpecResult) -> dict[str, str]:
    """What each tool call answered the model, by call id, from the last model request's history."""
    answers = {}
    for content in result.model_requests()[-1]["contents"]:
        for part in content.get("parts", []):
            if "functionResponse" in part:
                answers[part["functionResponse"]["id"]] = json.dumps(part["functionResponse"]["response"])
    return answers


@pytest.mark.nvim_spec("code_intel_agent")
def test_the_agents_lsp_tool_and_edit_diagnostics_come_from_neovims_language_server(nvim_specs: SpecPool) -> None:
    _need(PYRIGHT)
    result = nvim_specs.result("code_intel_agent")
    assert "none a language server" in result.check()
    answers = _tool_answers(result)
    assert "shapes.py:4:5" in answers["def"] and "def area(width: int, height: int) -> int:" in answers["def"]
    assert "total" in answers["callers"] and "label" in answers["callers"], answers["callers"]
    assert '\\"missing_name\\" is not defined' in answers["break"], answers["break"]
    assert "main.py:9:22" in answers["break"], answers["break"]
    assert "rename" in answers, answers.keys()
    # old.py was loaded for the question before the edit, so its checker had not reported: no "before" to compare.
    assert '\\"undefined_old_name\\" is not defined' in answers["old"], answers["old"]
    assert "Nothing was known about old.py before the edit: older problems may be listed too." in answers["old"]
    declared = json.dumps(result.model_requests()[0].get("tools", []))
    assert "the editor's language features" in declared


@pytest.mark.nvim_spec("rename_review")
def test_a_rename_in_the_default_mode_is_reviewed_file_by_file_then_applied(nvim_specs: SpecPool) -> None:
    _need(PYRIGHT)
    result = nvim_specs.result("rename_review")
    result.check()
    assert "def surface(width: int" in (result.project / "shapes.py").read_text()
    assert "return surface(2, 3) + surface(4, 5)" in (result.project / "main.py").read_text()
