"""Cancel mid-stream, new/saved sessions, approval modes, code actions and :checkhealth, in headless Neovim."""

from __future__ import annotations

import re

from tests.nvim_plugin.conftest import SpecRun, call_line, text_line

STATS = "def mean(values):\n    return sum(values) / (len(values) - 1)\n"
FIX = {
    "file_path": "stats.py",
    "instruction": "Divide by the number of values.",
    "old_string": "    return sum(values) / (len(values) - 1)",
    "new_string": "    return sum(values) / len(values)",
}
CHUNKS = 5000


def test_cancel_mid_stream_stops_the_turn(nvim_spec: SpecRun) -> None:
    words = [f"word{i} " for i in range(CHUNKS)]
    out = nvim_spec.run("cancel", [text_line(*words)], extra_env={"AGENT_NVIM_CHUNKS": str(CHUNKS)})
    match = re.search(r"chunks before the cancel took: (\d+) of (\d+)", out)
    assert match and int(match.group(1)) < CHUNKS
    print(match.group(0))


def test_new_session_and_loading_a_saved_one(nvim_spec: SpecRun) -> None:
    nvim_spec.run("sessions", [text_line("Hello ", "back.")])


def test_mode_switch_through_select(nvim_spec: SpecRun) -> None:
    nvim_spec.write("stats.py", STATS)
    nvim_spec.run("mode", [call_line("replace", FIX), text_line("Fixed.")])


def test_code_action_and_fix_range(nvim_spec: SpecRun) -> None:
    nvim_spec.write("stats.py", STATS)
    nvim_spec.run("actions", [text_line("It divides by one ", "less than the count."), text_line("That is a bug.")])


def test_checkhealth_reports_command_version_and_auth(nvim_spec: SpecRun) -> None:
    nvim_spec.run("health", [])
