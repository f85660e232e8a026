"""Minimal TextEdits from a text diff: correctness on random edits, minimality, CRLF and UTF-16 positions."""

from __future__ import annotations

import itertools
import random

import pytest

from agent_lsp.adapters.lsp.edits import apply_text_edits, change_edit, create_edit, text_edits


def test_identical_texts_need_no_edit() -> None:
    assert text_edits("a\nb\n", "a\nb\n") == []


def test_one_word_change_is_one_small_edit() -> None:
    old = "".join(f"line {i}\n" for i in range(100))
    new = old.replace("line 50\n", "line fifty\n")
    edits = text_edits(old, new)
    assert edits == [
        {"range": {"start": {"line": 50, "character": 5}, "end": {"line": 50, "character": 7}}, "newText": "fifty"}
    ]


def test_one_token_in_a_five_megabyte_line_is_one_small_edit() -> None:
    # The common head and tail are measured by slices at C speed: character by character this took 16 s.
    old = "var a=1;" * 625_000 + "\n"
    new = old[:2_500_000] + "PIN" + old[2_500_003:]
    edits = text_edits(old, new)
    position = {"line": 0, "character": 2_500_000}
    assert edits == [{"range": {"start": position, "end": {"line": 0, "character": 2_500_003}}, "newText": "PIN"}]
    assert apply_text_edits(old, edits) == new


def test_inserted_line_touches_nothing_else() -> None:
    old = "a\nb\nc\n"
    edits = text_edits(old, "a\nb\nnew\nc\n")
    assert len(edits) == 1
    assert edits[0]["range"]["start"] == edits[0]["range"]["end"]
    assert apply_text_edits(old, edits) == "a\nb\nnew\nc\n"


def test_utf16_columns_count_surrogate_pairs() -> None:
    old = "x = '😀😀' + a\n"
    new = "x = '😀😀' + b\n"
    (edit,) = text_edits(old, new)
    # each emoji is two UTF-16 code units: x␠=␠' (5) + 4 + "' + " (4) = 13
    assert edit["range"]["start"] == {"line": 0, "character": 13}
    assert edit["newText"] == "b"


def test_crlf_is_never_split() -> None:
    old = "one\r\ntwo\r\nthree\r\n"
    new = "one\r\ntwo\nthree\r\n"  # only the terminator of line 1 changes
    edits = text_edits(old, new)
    assert apply_text_edits(old, edits) == new
    for e in edits:
        for pos in (e["range"]["start"], e["range"]["end"]):
            assert pos["character"] <= len(old.split("\r\n")[pos["line"]])


def test_missing_final_newline_is_a_change() -> None:
    assert apply_text_edits("a\nb", text_edits("a\nb", "a\nb\n")) == "a\nb\n"
    assert apply_text_edits("a\nb\n", text_edits("a\nb\n", "a\nb")) == "a\nb"
    assert apply_text_edits("", text_edits("", "hello\n")) == "hello\n"
    assert apply_text_edits("hello\n", text_edits("hello\n", "")) == ""


@pytest.mark.parametrize("seed", range(60))
def test_random_edits_reproduce_the_new_text(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = ["}", "", "x = 1", "y = 2", "return z", "ünï", "😀 smile", "\tindent"]
    eol = rng.choice(["\n", "\r\n", "\n", "\r"])
    lines = [rng.choice(alphabet) + (str(rng.randint(0, 5)) if rng.random() < 0.5 else "") for _ in range(40)]
    old = eol.join(lines) + (eol if rng.random() < 0.7 else "")
    new_lines = list(lines)
    for _ in range(rng.randint(1, 8)):
        op = rng.random()
        k = rng.randrange(len(new_lines) + 1)
        if op < 0.3:
            new_lines.insert(k, rng.choice(alphabet))
        elif op < 0.6 and new_lines:
            del new_lines[min(k, len(new_lines) - 1)]
        elif new_lines:
            k = min(k, len(new_lines) - 1)
            new_lines[k] = new_lines[k][: rng.randint(0, 3)] + "changed"
    new_eol = eol if rng.random() < 0.8 else "\n"
    new = new_eol.join(new_lines) + (new_eol if rng.random() < 0.7 else "")
    edits = text_edits(old, new)
    assert apply_text_edits(old, edits) == new
    # non-overlapping and in order, as LSP requires
    ends = [
        (
            e["range"]["start"]["line"],
            e["range"]["start"]["character"],
            e["range"]["end"]["line"],
            e["range"]["end"]["character"],
        )
        for e in edits
    ]
    for (a, b, c, d), (e, f, _g, _h) in itertools.pairwise(ends):
        assert (a, b) <= (c, d) <= (e, f)


def test_scattered_changes_in_a_big_file_stay_small() -> None:
    lines = [f"value_{i} = {i}" for i in range(5000)]
    new_lines = list(lines)
    for k in (4000, 2500, 10):
        new_lines[k] = new_lines[k] + "  # touched"
    old, new = "\n".join(lines) + "\n", "\n".join(new_lines) + "\n"
    edits = text_edits(old, new)
    assert [e["newText"] for e in edits] == ["  # touched"] * 3
    assert apply_text_edits(old, edits) == new


def test_workspace_edit_shapes() -> None:
    edits = text_edits("a\n", "b\n")
    plain = change_edit("file:///x", 3, edits, label="Edit x", annotate=False, needs_confirmation=False)
    assert plain == {"documentChanges": [{"textDocument": {"uri": "file:///x", "version": 3}, "edits": edits}]}
    noted = change_edit("file:///x", None, edits, label="Edit x", annotate=True, needs_confirmation=True)
    assert noted["changeAnnotations"]["agent-lsp"] == {"label": "Edit x", "needsConfirmation": True}
    assert noted["documentChanges"][0]["edits"][0]["annotationId"] == "agent-lsp"
    legacy = change_edit(
        "file:///x", 3, edits, label="", annotate=False, needs_confirmation=False, document_changes=False
    )
    assert legacy == {"changes": {"file:///x": edits}}
    created = create_edit("file:///n", "hi\n", label="Write n", annotate=False, needs_confirmation=False)
    assert created["documentChanges"][0]["kind"] == "create"
    assert created["documentChanges"][1]["edits"][0]["newText"] == "hi\n"


def test_appends_are_inserted_before_the_final_newline() -> None:
    """Neovim adds a stray empty line for an insert after a document's final newline; the edit avoids it. This is
    the one place that fix lives (issue #35 P12): the Neovim plugin's apply_edit.lua relies on it and keeps only
    the empty-buffer case, which depends on Neovim's buffer model."""
    for old, new in (("a\nb\n", "a\nb\nc\n"), ("a\r\nb\r\n", "a\r\nb\r\nc\r\n"), ("\n", "\nq\n")):
        edits = text_edits(old, new)
        assert apply_text_edits(old, edits) == new
        end = edits[-1]["range"]["end"]
        last_line = old.count("\n")
        assert end["line"] < last_line, (old, edits)  # never at the position after the final newline
