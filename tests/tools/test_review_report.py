"""The report on a partly accepted proposal: which hunks were applied, refused or edited, and the exact diff."""

from __future__ import annotations

from pathlib import Path

from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.replace import ReplaceTool
from agent_lsp.tools.review_report import classify, hunks, report

from .conftest import write

OLD = "def greet(name):\n    return 'Hello ' + name\n\n\nprint(greet('world'))\n"
PROPOSED = "def greet(name):\n    return f'Hello, {name}!'\n\n\nprint(greet('there'))\n"
FIRST_ONLY = "def greet(name):\n    return f'Hello, {name}!'\n\n\nprint(greet('world'))\n"


def test_hunks_are_runs_of_changed_lines_without_context() -> None:
    found = hunks(OLD.splitlines(keepends=True), PROPOSED.splitlines(keepends=True))
    assert [(h.old_start, h.old_end, h.new_start, h.new_end) for h in found] == [(1, 2, 1, 2), (4, 5, 4, 5)]


def test_one_hunk_taken_one_refused() -> None:
    outcomes = classify(OLD, PROPOSED, FIRST_ONLY)
    assert [o.verdict for o in outcomes] == ["applied", "refused"]
    text = report("app.py", OLD, PROPOSED, FIRST_ONLY)
    assert text.startswith("The user reviewed your proposed change to app.py and did not apply it exactly as proposed.")
    assert "Of its 2 hunks: 1 applied, 1 refused." in text
    assert "- hunk 1 (replace line 2 `return 'Hello ' + name` with `return f'Hello, {name}!'`): applied" in text
    assert "- hunk 2 (replace line 5 `print(greet('world'))` with `print(greet('there'))`): REFUSED" in text
    assert "-print(greet('there'))\n+print(greet('world'))\n```" in text
    assert "outside your hunks" not in text
    assert "Do not re-apply the refused hunks" in text


def test_a_hunk_edited_by_hand_and_changes_elsewhere_are_named() -> None:
    final = FIRST_ONLY.replace("{name}!", "{name}!!")
    outcomes = classify(OLD, PROPOSED, final)
    assert [o.verdict for o in outcomes] == ["edited", "refused"]
    assert outcomes[0].written == ("    return f'Hello, {name}!!'\n",)
    text = report("app.py", OLD, PROPOSED, final)
    assert "applied with the user's own changes" in text
    assert "outside your hunks" not in text
    elsewhere = report("app.py", OLD, PROPOSED, final.replace("def greet", "def hello"))
    assert "The user also changed lines outside your hunks." in elsewhere


def test_insertions_and_deletions() -> None:
    old = "a\nb\nc\nd\n"
    proposed = "a\nnew\nb\nc\n"
    outcomes = classify(old, proposed, "a\nnew\nb\nc\nd\n")
    assert [o.verdict for o in outcomes] == ["applied", "refused"]
    text = report("f.txt", old, proposed, "a\nnew\nb\nc\nd\n")
    assert "insert after line 1: `new`" in text and "delete line 4: `d`" in text


def test_the_proposal_written_unchanged_needs_no_report() -> None:
    assert report("app.py", OLD, PROPOSED, PROPOSED) == ""


async def test_replace_tells_the_model_which_hunks_landed(ctx: ToolContext, root: Path) -> None:
    path = write(root, "app.py", OLD)
    inv = ReplaceTool(ctx).build(
        {"file_path": "app.py", "instruction": "friendlier", "old_string": OLD, "new_string": PROPOSED}
    )
    await inv.confirmation()
    inv.apply_modification(FIRST_ONLY)
    result = await inv.execute(lambda _c: None)
    assert path.read_text() == FIRST_ONLY
    content = str(result.llm_content)
    assert content.startswith(f"Successfully modified file: {path} (1 replacement).\n\nThe user reviewed")
    assert "Of its 2 hunks: 1 applied, 1 refused." in content


def test_line_numbers_count_only_newlines() -> None:
    """A form feed or U+2028 inside a line (as in real files) does not shift the hunks' line numbers."""
    old = "a = 1\n# page\x0cbreak\u2028here\nb = 2\n\nc = 3\n"
    proposed = old.replace("b = 2", "b = 20").replace("c = 3", "c = 30")
    final = old.replace("b = 2", "b = 20")
    text = report("m.py", old, proposed, final)
    assert "hunk 1 (replace line 3 `b = 2` with `b = 20`): applied" in text
    assert "hunk 2 (replace line 5 `c = 3` with `c = 30`): REFUSED" in text
