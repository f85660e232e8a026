"""The open-document mirror: full and incremental didChange with UTF-16 ranges, URIs and symlinks."""

from __future__ import annotations

from pathlib import Path

from agent_lsp.adapters.lsp.documents import (
    DocumentStore,
    line_starts,
    offset_at,
    path_to_uri,
    position_at,
    uri_to_path,
)


def _rng(l1: int, c1: int, l2: int, c2: int) -> dict[str, dict[str, int]]:
    return {"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}}


def test_incremental_changes_apply_in_order(tmp_path: Path) -> None:
    store = DocumentStore()
    uri = path_to_uri(tmp_path / "a.py")
    store.open(uri, "hello world\nsecond line\n", 1)
    store.change(
        uri,
        2,
        [
            {"range": _rng(0, 6, 0, 11), "text": "there"},
            {"range": _rng(1, 0, 1, 6), "text": "2nd"},
            {"range": _rng(2, 0, 2, 0), "text": "third\n"},
        ],
    )
    doc = store.get(tmp_path / "a.py")
    assert doc is not None
    assert doc.text == "hello there\n2nd line\nthird\n"
    assert doc.version == 2


def test_an_applied_edit_is_known_before_the_editor_reports_it(tmp_path: Path) -> None:
    store = DocumentStore()
    uri = path_to_uri(tmp_path / "late.py")
    doc = store.open(uri, "a = 1\nb = 2\n", 1)
    assert doc is not None
    # Two edits applied, no didChange yet (vim-lsp): the mirror holds the latest text at once.
    store.applied(doc, "a = 1\nc = 3\nb = 2\n", doc.changes)
    store.applied(doc, "a = 1\nc = 3\nb = 20\n", doc.changes)
    assert doc.text == "a = 1\nc = 3\nb = 20\n" and doc.reported == "a = 1\nb = 2\n"
    # The late didChange describes both edits against what the editor last told us.
    store.change(uri, 2, [{"range": _rng(1, 0, 2, 0), "text": "c = 3\nb = 20\n"}])
    assert doc.text == "a = 1\nc = 3\nb = 20\n" and doc.reported is None and doc.version == 2


def test_an_editor_that_reported_first_keeps_its_own_account(tmp_path: Path) -> None:
    store = DocumentStore()
    uri = path_to_uri(tmp_path / "prompt.py")
    doc = store.open(uri, "x = 1\n", 1)
    assert doc is not None
    sent_at = doc.changes
    # VS Code sends didChange (with a keystroke of the user's) before it answers applyEdit.
    store.change(uri, 2, [{"text": "x = 2\ny\n"}])
    store.applied(doc, "x = 2\n", sent_at)
    assert doc.text == "x = 2\ny\n" and doc.reported is None


def test_full_change_and_close(tmp_path: Path) -> None:
    store = DocumentStore()
    uri = path_to_uri(tmp_path / "b.txt")
    store.open(uri, "x", 1)
    store.change(uri, 5, [{"text": "replaced"}])
    assert store.by_uri(uri) is not None and store.by_uri(uri).text == "replaced"  # type: ignore[union-attr]
    store.close(uri)
    assert store.get(tmp_path / "b.txt") is None


def test_utf16_ranges_after_astral_characters(tmp_path: Path) -> None:
    store = DocumentStore()
    uri = path_to_uri(tmp_path / "e.txt")
    store.open(uri, "😀abc\n", 1)
    store.change(uri, 2, [{"range": _rng(0, 2, 0, 3), "text": "A"}])  # the emoji is 2 code units
    assert store.by_uri(uri).text == "😀Abc\n"  # type: ignore[union-attr]


def test_symlinked_uri_finds_the_real_path(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    store = DocumentStore()
    store.open(path_to_uri(link / "f.py"), "text", 3)
    doc = store.get(real / "f.py")
    assert doc is not None and doc.uri.endswith("/link/f.py")


def test_positions_round_trip_with_mixed_terminators() -> None:
    text = "a\r\nbb\rccc\nd"
    starts = line_starts(text)
    assert starts == [0, 3, 6, 10]
    for offset in (0, 1, 3, 5, 6, 9, 10, 11):
        pos = position_at(text, starts, offset)
        assert offset_at(text, starts, pos["line"], pos["character"]) == offset
    assert offset_at(text, starts, 0, 99) == 1  # clamped to the line's end, before \r\n
    assert offset_at(text, starts, 99, 0) == len(text)


def test_uri_conversion(tmp_path: Path) -> None:
    p = tmp_path / "with space" / "ü.py"
    assert uri_to_path(path_to_uri(p)) == p
    assert "%20" in path_to_uri(p)
    assert uri_to_path("untitled:Untitled-1") is None
