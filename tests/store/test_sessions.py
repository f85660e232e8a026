"""Session recording and loading: round trips, titles, listing, paging, deleting and resuming."""

from __future__ import annotations

import json
import logging
import os
from datetime import datetime
from pathlib import Path

import pytest

from agent_lsp import events as ev
from agent_lsp.config.paths import project_state_dir
from agent_lsp.model.base import Content, FunctionCall, FunctionResponse, InlineData, Part
from agent_lsp.store.sessions import SessionNotFoundError, SessionStore, derive_title, new_session_id


def sample_events() -> list[ev.AgentEvent]:
    call = ev.ToolCallInfo(
        call_id="c1",
        name="replace",
        args={"file_path": "/p/a.py", "old_string": "x = 1", "new_string": "x = 2", "nested": {"n": [1, 2]}},
        title="Edit a.py",
        kind="edit",
        locations=(ev.Location("/p/a.py", 3), ev.Location("/p/b.py")),
    )
    diff = ev.FileDiff("/p/a.py", "x = 1\n", "x = 2\n", "--- a\n+++ b\n@@ -1 +1 @@\n-x = 1\n+x = 2\n")
    return [
        ev.UserMessage("Fix the   bug in @src/app/main.py\nplease, quickly"),
        ev.Thought("Planning", "I will look at main.py first."),
        ev.Content("Sure — "),
        ev.Content("let me look. ünïcødé ✓"),
        ev.Plan(
            (ev.PlanEntry("read file", "completed"), ev.PlanEntry("edit file", "in_progress"), ev.PlanEntry("test"))
        ),
        ev.ToolCallRequest(call),
        ev.ToolCallConfirmation(call, ev.ConfirmationDetails("edit", "Confirm edit", path="/p/a.py", diff=diff)),
        ev.ToolCallStatusChange("c1", "executing"),
        ev.ToolOutput("c1", "line of output\n"),
        ev.ToolCallResponse(
            "c1", "replace", "success", display="Edited", diff=diff, duration_ms=12.5, locations=call.locations
        ),
        ev.ToolCallResponse("c2", "run_shell_command", "error", error="exit 1", duration_ms=3.0),
        ev.Finished("STOP", ev.Usage(10, 20, 5, 2, 37)),
        ev.Notice("warning", "MCP server x failed"),
        ev.Retry(1, "429", 0.5),
        ev.Error("quota", 429),
        ev.Stop("end_turn", ev.Usage(10, 20, 5, 2, 37)),
    ]


def sample_history() -> list[Content]:
    return [
        Content("user", (Part(text="Fix the bug"),)),
        Content(
            "model",
            (
                Part(text="thinking", thought=True, thought_signature="sig=="),
                Part(function_call=FunctionCall("replace", {"file_path": "/p/a.py"}, id="c1")),
            ),
        ),
        Content("user", (Part(function_response=FunctionResponse("replace", {"output": "ok"}, id="c1")),)),
        Content("user", (Part(inline_data=InlineData("image/png", b"\x89PNG\x00\xff")),)),
    ]


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_record_then_load_gives_equal_events_and_history(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "proj")
    rec = store.recorder("s1", tmp_path / "proj")
    events = sample_events()
    for event in events:
        rec(event)
    history = sample_history()
    rec.record_history(history[:2])
    rec.record_history(history)
    rec.close()

    path = project_state_dir(tmp_path / "proj") / "sessions" / "s1.jsonl"
    assert path.is_file()
    records = lines(path)
    assert records[0]["type"] == "session" and records[0]["id"] == "s1" and records[0]["version"] == 1
    assert records[0]["cwd"] == str(tmp_path / "proj")
    assert [r["type"] for r in records[1:]] == ["event"] * len(events) + ["history", "history"]

    loaded = store.load("s1")
    assert loaded.events == events
    assert loaded.history == history
    assert loaded.info.id == "s1"
    assert loaded.info.prompt_count == 1
    assert loaded.info.title == "Fix the bug in @main.py"


def test_history_snapshots_store_only_changes_and_later_ones_win(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    rec = store.recorder("h", tmp_path)
    history = sample_history()
    rec.record_history(history[:1])
    rec.record_history(history[:3])
    rec.record_history(history)
    compressed = [Content("user", (Part(text="summary of earlier work"),)), history[-1]]
    rec.record_history(compressed)
    rec.close()
    snaps = [r for r in lines(store.path_for("h")) if r["type"] == "history"]
    assert [(r.get("base", 0), len(r["contents"])) for r in snaps] == [(0, 1), (1, 2), (3, 1), (0, 2)]  # type: ignore[arg-type]
    assert store.load("h").history == compressed


def test_titles_explicit_event_and_derived(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    rec = store.recorder("t1", tmp_path)
    rec(ev.UserMessage("first prompt"))
    rec(ev.UserMessage("second prompt"))
    rec.close()
    assert store.load("t1").info.title == "first prompt"
    assert store.info("t1").title == "first prompt"

    rec = store.recorder("t1", tmp_path)
    rec(ev.SessionTitle("Generated title"))
    rec.close()
    assert store.info("t1").title == "Generated title"

    rec = store.recorder("t1", tmp_path)
    rec.set_title("Renamed by user")
    rec.close()
    assert store.load("t1").info.title == "Renamed by user"
    assert store.info("t1").title == "Renamed by user"
    assert store.info("t1").prompt_count == 2

    store.recorder("empty", tmp_path).close()
    assert store.info("empty").title is None
    assert store.info("empty").prompt_count == 0


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("  hello   world  ", "hello world"),
        ("\n\n  second line first\nthird", "second line first"),
        ("/memory add always use tabs", "/memory add always use tabs"),
        ("explain @src/deep/dir/module.py and @docs/", "explain @module.py and @docs/"),
        (r"read @my\ file.txt", "read @my file.txt"),
        ("", "Untitled"),
        ("   \n\t ", "Untitled"),
    ],
)
def test_derive_title_cases(prompt: str, expected: str) -> None:
    assert derive_title(prompt) == expected


def test_derive_title_is_bounded_with_an_ellipsis() -> None:
    long_prompt = "Please refactor the configuration loader so that it merges user and workspace settings"
    title = derive_title(long_prompt)
    assert len(title) <= 60
    assert title.endswith("…")
    assert long_prompt.startswith(title[:-1])
    assert not title[:-1].endswith(" ")
    blob = "x" * 200
    assert derive_title(blob) == "x" * 59 + "…"


def test_list_pages_newest_first_and_delete_leaves_other_projects(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "a")
    other = SessionStore(tmp_path / "b")
    ids = [f"s{i}" for i in range(5)]
    for i, sid in enumerate(ids):
        rec = store.recorder(sid, tmp_path / "a")
        for n in range(i):
            rec(ev.UserMessage(f"prompt {n} of {sid}"))
        rec.close()
        stamp = 1_700_000_000 + i * 60
        os.utime(store.path_for(sid), (stamp, stamp))
    orec = other.recorder("s0", tmp_path / "b")
    orec(ev.UserMessage("other project"))
    orec.close()

    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        page, cursor = store.list(cursor, limit=2)
        pages += 1
        assert len(page) <= 2
        seen.extend(info.id for info in page)
        if cursor is None:
            break
    assert seen == list(reversed(ids))
    assert pages == 3
    all_infos, end = store.list()
    assert end is None
    counts = {info.id: info.prompt_count for info in all_infos}
    assert counts == {sid: i for i, sid in enumerate(ids)}
    s3 = next(info for info in all_infos if info.id == "s3")
    assert s3.title == "prompt 0 of s3"
    assert s3.cwd == str(tmp_path / "a")
    assert s3.updated.startswith("2023-11-14T22:")
    assert datetime.fromisoformat(s3.created).tzinfo is not None

    assert store.delete("s2") is True
    assert store.delete("s2") is False
    assert not store.exists("s2")
    assert [i.id for i in store.list()[0]] == ["s4", "s3", "s1", "s0"]
    assert other.exists("s0")
    assert other.load("s0").info.title == "other project"
    with pytest.raises(SessionNotFoundError):
        store.load("s2")


def test_list_of_a_project_without_sessions_is_empty(tmp_path: Path) -> None:
    assert SessionStore(tmp_path / "nothing").list() == ([], None)


def test_resumed_session_continues_the_same_file(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    sid = new_session_id()
    rec = store.recorder(sid, tmp_path)
    rec(ev.UserMessage("one"))
    rec.record_history(sample_history()[:1])
    rec.close()
    loaded = store.load(sid)

    rec = store.recorder(sid, tmp_path)
    rec(ev.UserMessage("two"))
    rec.record_history([*loaded.history, Content("model", (Part(text="answer"),))])
    rec.close()

    records = lines(store.path_for(sid))
    assert sum(1 for r in records if r["type"] == "session") == 1
    again = store.load(sid)
    assert again.events == [ev.UserMessage("one"), ev.UserMessage("two")]
    assert again.history == [*loaded.history, Content("model", (Part(text="answer"),))]
    assert again.info.prompt_count == 2
    assert len(list(store.directory.iterdir())) == 1


def test_loading_never_modifies_the_file(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    rec = store.recorder("ro", tmp_path)
    for event in sample_events():
        rec(event)
    rec.record_history(sample_history())
    rec.close()
    path = store.path_for("ro")
    before = path.read_bytes()
    stat = path.stat()
    store.load("ro")
    store.list()
    store.info("ro")
    assert path.read_bytes() == before
    assert path.stat().st_mtime_ns == stat.st_mtime_ns


def test_garbled_middle_line_is_skipped_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = SessionStore(tmp_path)
    rec = store.recorder("g", tmp_path)
    rec(ev.UserMessage("before"))
    rec.close()
    with open(store.path_for("g"), "ab") as f:
        f.write(b'{"type":"event","event":{"kind":"content","te\n')
        f.write(b'{"type":"event","event":{"kind":"no_such_kind"}}\n')
        f.write(b"[1, 2]\n")
    rec = store.recorder("g", tmp_path)
    rec(ev.UserMessage("after"))
    rec.close()
    with caplog.at_level(logging.WARNING, logger="agent_lsp.store.sessions"):
        loaded = store.load("g")
    assert loaded.events == [ev.UserMessage("before"), ev.UserMessage("after")]
    assert sum("garbled" in r.getMessage() for r in caplog.records) == 2
    assert any("unreadable" in r.getMessage() for r in caplog.records)


def test_recorder_never_raises(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = SessionStore(tmp_path)
    rec = store.recorder("nr", tmp_path)
    call = ev.ToolCallInfo("c", "weird", {"value": {1, 2}}, "weird")  # a set is not JSON
    with caplog.at_level(logging.ERROR, logger="agent_lsp.store.sessions"):
        rec(ev.ToolCallRequest(call))
    assert any("could not record" in r.getMessage() for r in caplog.records)
    rec(ev.Content("still recording"))
    rec.close()
    assert rec.closed
    rec(ev.Content("after close is dropped"))
    rec.set_title("ignored")
    rec.record_history(sample_history())
    assert store.load("nr").events == [ev.Content("still recording")]


def test_invalid_ids_are_refused(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    for bad in ("../escape", "a/b", ".hidden", "", "x" * 200):
        with pytest.raises(ValueError):
            store.recorder(bad, tmp_path)
        with pytest.raises(SessionNotFoundError):
            store.load(bad)
        assert store.exists(bad) is False
        assert store.delete(bad) is False
    with pytest.raises(ValueError):
        store.list("not-a-cursor!")
