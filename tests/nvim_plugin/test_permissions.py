"""Permission questions: vim.ui.select offers "Review diff"; the diff tab accepts (undoable), rejects or edits."""

from __future__ import annotations

from tests.nvim_plugin.conftest import SpecRun, call_line, text_line

STATS = "def mean(values):\n    return sum(values) / (len(values) - 1)\n"
FIX = {
    "file_path": "stats.py",
    "instruction": "Divide by the number of values.",
    "old_string": "    return sum(values) / (len(values) - 1)",
    "new_string": "    return sum(values) / len(values)",
}


def test_accept_in_diff_tab_edits_buffer_undoably(nvim_spec: SpecRun) -> None:
    nvim_spec.write("stats.py", STATS)
    nvim_spec.run("permission_accept", [call_line("replace", FIX), text_line("Fixed the divisor.")])


def test_reject_in_diff_tab_leaves_file_unchanged(nvim_spec: SpecRun) -> None:
    nvim_spec.write("stats.py", STATS)
    nvim_spec.run("permission_reject", [call_line("replace", FIX), text_line("Understood, no change.")])
    assert (nvim_spec.project / "stats.py").read_text() == STATS


def test_edited_proposal_is_sent_as_modified_content(nvim_spec: SpecRun) -> None:
    nvim_spec.write("stats.py", STATS)
    nvim_spec.run("permission_edit", [call_line("replace", FIX), text_line("Fixed.")])
