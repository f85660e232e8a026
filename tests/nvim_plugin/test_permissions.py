"""Permission questions: vim.ui.select offers "Review diff"; the diff tab accepts (undoable), rejects or edits; an
edit Neovim could not write is a failure the model reads."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.nvim_plugin.conftest import SpecPool
from tests.nvim_plugin.scenarios import STATS, TWO_RESULT


@pytest.mark.nvim_spec("permission_accept")
def test_accept_in_diff_tab_edits_buffer_undoably(nvim_specs: SpecPool) -> None:
    result = nvim_specs.result("permission_accept")
    result.check()
    # The buffer had no unsaved changes, so the accepted edit was also written (save_after_edit).
    assert (result.project / "stats.py").read_text() == STATS.replace("(len(values) - 1)", "len(values)")


@pytest.mark.nvim_spec("permission_reject")
def test_reject_in_diff_tab_leaves_file_unchanged(nvim_specs: SpecPool) -> None:
    result = nvim_specs.result("permission_reject")
    result.check()
    assert (result.project / "stats.py").read_text() == STATS


@pytest.mark.nvim_spec("permission_edit")
def test_edited_proposal_is_sent_as_modified_content(nvim_specs: SpecPool) -> None:
    nvim_specs.result("permission_edit").check()


@pytest.mark.nvim_spec("permission_rename")
def test_a_change_to_several_files_shows_every_files_hunks_in_the_review(nvim_specs: SpecPool) -> None:
    nvim_specs.result("permission_rename").check()


@pytest.mark.nvim_spec("cancel_permission")
def test_cancel_while_reviewing_closes_the_diff_tab(nvim_specs: SpecPool) -> None:
    result = nvim_specs.result("cancel_permission")
    result.check()
    assert (result.project / "stats.py").read_text() == STATS


@pytest.mark.nvim_spec("new_file")
def test_new_file_reviewed_then_created(nvim_specs: SpecPool) -> None:
    nvim_specs.result("new_file").check()


@pytest.mark.nvim_spec("append")
def test_appending_edits_leave_no_stray_line(nvim_specs: SpecPool) -> None:
    nvim_specs.result("append").check()


@pytest.mark.nvim_spec("unsaved_kept")
def test_a_buffer_with_unsaved_user_changes_is_edited_but_never_written(nvim_specs: SpecPool) -> None:
    result = nvim_specs.result("unsaved_kept")
    result.check()
    assert (result.project / "stats.py").read_text() == STATS


@pytest.mark.nvim_spec("inline_partial")
def test_inline_review_takes_one_hunk_and_tells_the_model(nvim_specs: SpecPool) -> None:
    result = nvim_specs.result("inline_partial")
    result.check()
    assert (result.project / "stats.py").read_text() == TWO_RESULT
    told = "".join(p.read_text() for p in (result.tmp / "state").rglob("*.jsonl"))
    assert "Of its 2 hunks: 1 applied, 1 refused." in told
    assert "- hunk 2 (replace line 6 `return sum(values) + 0` with `return sum(values)`): REFUSED" in told


@pytest.mark.nvim_spec("inline_handover")
def test_inline_review_hands_over_to_the_diff_tab_and_rejects_whole(nvim_specs: SpecPool) -> None:
    result = nvim_specs.result("inline_handover")
    result.check()
    assert "max(len(values), 1)" in (result.project / "stats.py").read_text()


@pytest.mark.nvim_spec("permission_save")
def test_allow_in_all_future_sessions_is_saved_and_honoured_after_a_restart(nvim_specs: SpecPool) -> None:
    result = nvim_specs.result("permission_save")
    result.check()
    saved = result.tmp / "home" / ".gemini" / "policies" / "auto-saved.toml"
    assert 'commandPrefix = "echo"' in saved.read_text()


@pytest.mark.nvim_spec("permission_options")
def test_every_offered_option_is_a_choice_and_its_id_is_the_answer(nvim_specs: SpecPool) -> None:
    nvim_specs.result("permission_options").check()


def _told(result_requests: list[Any]) -> list[str]:
    """The tool results the model was sent, in order (each request repeats the earlier ones: the last request's)."""
    return [
        json.dumps(part["functionResponse"]["response"])
        for content in result_requests[-1]["contents"]
        for part in content["parts"]
        if "functionResponse" in part
    ]


@pytest.mark.nvim_spec("refused_write")
def test_a_write_neovim_refuses_reaches_the_model_as_a_failure(nvim_specs: SpecPool) -> None:
    result = nvim_specs.result("refused_write")
    result.check()
    first_turn = [r for r in result.model_requests() if "change util.py" not in json.dumps(r)]
    [readonly] = _told(first_turn)
    assert "did not apply" in readonly and "Neovim could not write ro.py" in readonly and "E45" in readonly, readonly
    told = _told([r for r in result.model_requests() if "rewrite util.py" not in json.dumps(r)])
    stale, retried = told[-2:]
    assert "util.py changed on disk since Neovim read it" in stale, stale
    assert "Successfully" in retried, retried
