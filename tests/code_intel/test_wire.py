"""A change to several files (rename_symbol) on the wire and in a recording: one diff per file, in ACP's shapes."""

from __future__ import annotations

from agent_lsp import events as ev
from agent_lsp.adapters.updates import UpdateState, permission_tool_call, to_updates
from agent_lsp.event_json import event_from_dict, event_to_dict
from tests.acp_schema import validate

DIFFS = (
    ev.FileDiff("/p/geo/shapes.py", "def area(): ...\n", "def surface(): ...\n"),
    ev.FileDiff("/p/geo/use.py", "area()\n", "surface()\n"),
    ev.FileDiff("/p/geo/old.py", "area()\n", "surface()\n"),
)
CALL = ev.ToolCallInfo("c1", "rename_symbol", {"new_name": "surface"}, "Rename area → surface (geo/use.py:5)", "edit")


def test_the_question_and_the_result_carry_a_diff_for_each_file() -> None:
    details = ev.ConfirmationDetails(
        "edit", "Rename area → surface in 3 file(s)", DIFFS[0].path, DIFFS[0], extra_diffs=DIFFS[1:]
    )
    asked = permission_tool_call(CALL, details)
    validate("ToolCall", asked)
    assert [c["path"] for c in asked["content"]] == [d.path for d in DIFFS]
    done = ev.ToolCallResponse("c1", "rename_symbol", "success", "Renamed", DIFFS[0], extra_diffs=DIFFS[1:])
    [update], _ = to_updates(done, UpdateState())
    validate("SessionUpdate", update)
    assert [c["path"] for c in update["content"] if c["type"] == "diff"] == [d.path for d in DIFFS]


def test_a_recorded_rename_loads_with_all_its_diffs() -> None:
    done = ev.ToolCallResponse("c1", "rename_symbol", "success", "Renamed", DIFFS[0], extra_diffs=DIFFS[1:])
    assert event_from_dict(event_to_dict(done)) == done
    asked = ev.ToolCallConfirmation(
        CALL, ev.ConfirmationDetails("edit", "Rename", DIFFS[0].path, DIFFS[0], extra_diffs=DIFFS[1:])
    )
    assert event_from_dict(event_to_dict(asked)) == asked
