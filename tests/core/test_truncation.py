"""Tests for cutting long tool output down for the model."""

from __future__ import annotations

from pathlib import Path

from agent_lsp.core.truncation import DEFAULT_THRESHOLD, HeadTailBuffer, truncate_for_model


def test_short_text_is_untouched_and_not_saved(tmp_path: Path) -> None:
    text = "line\n" * 10
    out, saved = truncate_for_model(text, threshold=1000, temp_dir=tmp_path / "t", call_id="c1", tool_name="shell")
    assert out == text
    assert saved is None
    assert not (tmp_path / "t").exists()


def test_long_text_keeps_head_and_tail_and_saves_everything(tmp_path: Path) -> None:
    lines = [f"line {i:05d}\n" for i in range(10_000)]
    text = "".join(lines)
    out, saved = truncate_for_model(
        text, threshold=DEFAULT_THRESHOLD, temp_dir=tmp_path / "tmp", call_id="call/7", tool_name="run_shell_command"
    )
    assert saved is not None and saved.parent == tmp_path / "tmp"
    assert saved.read_text(encoding="utf-8") == text
    assert "/" not in saved.name  # the call id cannot escape the folder
    assert len(out) <= DEFAULT_THRESHOLD
    assert out.startswith("line 00000\nline 00001\n")
    assert out.endswith("line 09999\n")
    assert str(saved) in out
    kept = [line for line in out.splitlines(keepends=True) if line.startswith("line ")]
    whole = set(lines)
    assert all(line in whole for line in kept)  # only whole lines on both sides
    head = out.split("\n... [", 1)[0]
    tail = out.rsplit("] ...\n", 1)[1]
    assert len(tail) > len(head)  # the end of an output is usually what matters
    omitted = 10_000 - len(kept)
    assert f"{omitted} lines" in out


def test_single_huge_line_is_cut_by_characters(tmp_path: Path) -> None:
    text = "a" * 30_000 + "z" * 30_000
    out, saved = truncate_for_model(text, threshold=5_000, temp_dir=tmp_path, call_id="x", tool_name="mcp_tool")
    assert saved is not None
    assert len(out) <= 5_000
    assert out.startswith("aaaa") and out.endswith("zzzz")
    assert str(saved) in out


def test_same_call_overwrites_its_own_file(tmp_path: Path) -> None:
    _, first = truncate_for_model("x" * 200, threshold=100, temp_dir=tmp_path, call_id="c", tool_name="t")
    _, second = truncate_for_model("y" * 300, threshold=100, temp_dir=tmp_path, call_id="c", tool_name="t")
    assert first == second and second is not None
    assert second.read_text() == "y" * 300


def test_head_tail_buffer_keeps_both_ends() -> None:
    buf = HeadTailBuffer(10)
    for piece in ["abc", "defg", "hijklm", "nop"]:
        buf.add(piece)
    assert buf.dropped == 6
    assert buf.text() == "abcde\n... [6 characters of output not kept] ...\nlmnop"
    small = HeadTailBuffer(100)
    small.add("hello ")
    small.add("world")
    assert small.text() == "hello world" and small.dropped == 0
