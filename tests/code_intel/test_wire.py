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


async def test_a_huge_answer_is_read_off_the_event_loop() -> None:
    """Thousands of references (a common name) are converted on a worker thread, and de-duplicated in order."""
    import asyncio
    import threading

    from agent_lsp.code_intel import lsp_json

    items = [
        {
            "uri": f"file:///p/m{i % 50}.py",
            "range": {"start": {"line": i, "character": 0}, "end": {"line": i, "character": 3}},
        }
        for i in range(5000)
    ]
    seen: list[str] = []

    def convert(result: object) -> tuple[object, ...]:
        seen.append(threading.current_thread().name)
        return lsp_json.locations(result)

    found = await lsp_json.off_loop(convert, items + items)
    assert len(found) == 5000 and found[0].span.line == 0 and found[-1].span.line == 4999
    assert seen and seen[0] != threading.main_thread().name
    small = await lsp_json.off_loop(convert, items[:3])
    assert len(small) == 3 and seen[-1] == threading.main_thread().name
    assert asyncio.get_running_loop().is_running()
