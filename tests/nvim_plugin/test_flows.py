"""Cancel mid-stream, new/saved sessions, approval modes, code actions and :checkhealth, in headless Neovim."""

from __future__ import annotations

import re

import pytest

from tests.nvim_plugin.conftest import SpecPool
from tests.nvim_plugin.scenarios import CANCEL_CHUNKS


@pytest.mark.nvim_spec("cancel")
def test_cancel_mid_stream_stops_the_turn(nvim_specs: SpecPool) -> None:
    out = nvim_specs.result("cancel").check()
    match = re.search(r"chunks before the cancel took: (\d+) of (\d+)", out)
    assert match is not None and 0 < int(match.group(1)) <= CANCEL_CHUNKS


@pytest.mark.nvim_spec("sessions")
def test_new_session_and_loading_a_saved_one(nvim_specs: SpecPool) -> None:
    nvim_specs.result("sessions").check()


@pytest.mark.nvim_spec("mode")
def test_mode_switch_through_select(nvim_specs: SpecPool) -> None:
    nvim_specs.result("mode").check()


@pytest.mark.nvim_spec("server_lists")
def test_modes_models_and_commands_come_from_the_server(nvim_specs: SpecPool) -> None:
    nvim_specs.result("server_lists").check()


@pytest.mark.nvim_spec("own_mode")
def test_the_users_wide_mode_goes_with_the_session_not_init_options(nvim_specs: SpecPool) -> None:
    nvim_specs.result("own_mode").check()


@pytest.mark.nvim_spec("actions")
def test_code_action_and_fix_range(nvim_specs: SpecPool) -> None:
    nvim_specs.result("actions").check()


@pytest.mark.nvim_spec("health")
def test_checkhealth_reports_command_version_and_auth(nvim_specs: SpecPool) -> None:
    nvim_specs.result("health").check()


@pytest.mark.nvim_spec("login")
def test_agent_login_in_a_terminal_window_then_logout(nvim_specs: SpecPool) -> None:
    nvim_specs.result("login").check()


@pytest.mark.nvim_spec("endpoint_models")
def test_an_endpoints_models_reach_the_model_picker(nvim_specs: SpecPool) -> None:
    nvim_specs.result("endpoint_models").check()
