"""The shared vocabulary: strict modes, permission choices mapped to outcomes, one code per error meaning."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import pytest

from agent_lsp import events as ev
from agent_lsp.adapters import wire
from agent_lsp.vocabulary import APPROVAL_MODES, ErrorMeaning, outcome_for, parse_mode, permission_choices


def test_parse_mode_accepts_the_four_modes_and_names_the_field_otherwise() -> None:
    assert [parse_mode(m) for m in APPROVAL_MODES] == ["default", "auto_edit", "yolo", "plan"]
    with pytest.raises(ValueError, match=r"mode must be one of default, auto_edit, yolo, plan \(got 'YOLO'\)"):
        parse_mode("YOLO", "mode")
    with pytest.raises(ValueError, match="approvalMode"):
        parse_mode(None)


def _exec(*roots: str, savable: bool = False) -> ev.ConfirmationDetails:
    return ev.ConfirmationDetails(
        type="exec", title="Shell", command="git status", root_commands=tuple(roots), savable=savable
    )


def test_shell_choices_name_the_programs_and_map_to_outcomes() -> None:
    offered = permission_choices(_exec("git"))
    assert [c.option_id for c in offered] == ["proceed_once", "proceed_always", "reject"]
    assert offered[1].name == "Always allow `git` this session"
    assert outcome_for("proceed_always", offered) == "proceed_always"
    assert outcome_for("proceed_always_and_save", offered) == "reject"  # not offered: a no
    saved = permission_choices(_exec("git", savable=True))
    assert outcome_for("proceed_always_and_save", saved) == "proceed_always_save"
    # A line that runs no program cannot be saved as a rule.
    assert "proceed_always_and_save" not in [c.option_id for c in permission_choices(_exec(savable=True))]


def test_mcp_choices_offer_the_server() -> None:
    details = ev.ConfirmationDetails(type="mcp", title="t", server="srv", tool="search")
    offered = permission_choices(details)
    assert [c.outcome for c in offered] == ["proceed_once", "proceed_always", "proceed_always_server", "reject"]
    assert {c.kind for c in offered} <= {"allow_once", "allow_always", "reject_once"}


def test_every_error_meaning_has_one_code() -> None:
    assert set(typing.get_args(ErrorMeaning)) == set(wire.CODES)


def test_the_approval_modes_have_one_order_of_permissiveness() -> None:
    from agent_lsp.vocabulary import APPROVAL_MODES, BY_PERMISSIVENESS, at_least_as_permissive, auto_approves

    assert sorted(BY_PERMISSIVENESS) == sorted(APPROVAL_MODES)
    assert at_least_as_permissive("default") == ("default", "auto_edit", "yolo")
    assert at_least_as_permissive("plan") == BY_PERMISSIVENESS and at_least_as_permissive("yolo") == ("yolo",)
    assert [m for m in APPROVAL_MODES if auto_approves(m)] == ["auto_edit", "yolo"]


def test_the_order_of_the_approval_modes_is_written_once() -> None:
    """Only vocabulary.py lists approval modes together (MODES, BY_PERMISSIVENESS); everything else derives its list
    from them (``at_least_as_permissive``, ``APPROVAL_MODES``), so a new mode or a new order is one edit."""
    package = Path(__file__).resolve().parent.parent / "agent_lsp"
    found = []
    for path in sorted(package.rglob("*.py")):
        if path.name == "vocabulary.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Tuple | ast.List | ast.Set):
                names = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                if len(names) >= 2 and len(names) == len(node.elts) and set(names) <= set(APPROVAL_MODES):
                    found.append(f"{path.relative_to(package)}:{node.lineno}: {names}")
    assert found == []
