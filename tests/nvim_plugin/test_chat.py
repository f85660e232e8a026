"""The chat: a prompt typed into the chat's prompt buffer streams the answer, thoughts, tool lines and plan."""

from __future__ import annotations

import pytest

from tests.nvim_plugin.conftest import SpecPool


@pytest.mark.nvim_spec("chat")
def test_chat_streams_answer_tools_and_plan(nvim_specs: SpecPool) -> None:
    nvim_specs.result("chat").check()


@pytest.mark.nvim_spec("mcp")
def test_mcp_prompts_complete_and_agent_mcp_lists_the_servers(nvim_specs: SpecPool) -> None:
    nvim_specs.result("mcp").check()


@pytest.mark.nvim_spec("custom_command")
def test_custom_command_completes_in_the_prompt_and_runs(nvim_specs: SpecPool) -> None:
    nvim_specs.result("custom_command").check()


@pytest.mark.nvim_spec("mention")
def test_at_completes_workspace_files_and_agent_add_puts_lines_in_the_prompt(nvim_specs: SpecPool) -> None:
    nvim_specs.result("mention").check()


@pytest.mark.nvim_spec("rewind")
def test_rewind_undo_edit_and_fork_from_the_chat(nvim_specs: SpecPool) -> None:
    result = nvim_specs.result("rewind")
    result.check()
    # The model's last request (the edited message, after the rewind): the cut turn is not in its history.
    last = result.model_requests()[-1]
    asked = [p["text"] for c in last["contents"] if c["role"] == "user" for p in c["parts"] if "text" in p]
    assert [t for t in asked if t.startswith("write ")] == ["write one", "write three"], asked


@pytest.mark.nvim_spec("rewind_buffers")
def test_rewind_and_undo_reload_hidden_buffers_keep_unsaved_ones_and_move_the_winbar(nvim_specs: SpecPool) -> None:
    result = nvim_specs.result("rewind_buffers")
    result.check()
    # The image went to the model with the second message.
    second = result.model_requests()[-1]["contents"][-1]["parts"]
    assert any("inlineData" in p and p["inlineData"]["mimeType"] == "image/png" for p in second), second


@pytest.mark.nvim_spec("render")
def test_compaction_message_ids_subagent_nesting_tool_lines_and_usage_render(nvim_specs: SpecPool) -> None:
    nvim_specs.result("render").check()


@pytest.mark.nvim_spec("steer")
def test_a_message_sent_while_a_turn_runs_steers_it(nvim_specs: SpecPool) -> None:
    result = nvim_specs.result("steer")
    result.check()
    requests = result.model_requests()
    assert len(requests) == 2, "one turn: the command's call, then the answer"
    said = [p.get("text", "") for c in requests[-1]["contents"] if c["role"] == "user" for p in c["parts"]]
    assert any("also say bye" in t for t in said), said
