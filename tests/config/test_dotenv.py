""".env loading: the parser, file order, never overwriting, and skipping workspace files when untrusted."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from agent_lsp.config.dotenv import load_env_files, parse_dotenv
from tests.config.conftest import write_text


def test_parser_handles_quotes_comments_and_export() -> None:
    text = (
        "\ufeff# a comment\n"
        "PLAIN=value\n"
        "export EXPORTED=yes\n"
        "SPACED =  padded value   \n"
        "INLINE=abc # trailing comment\n"
        "URL=http://h/p#frag\n"
        "SINGLE='no $escapes \\n here # kept'\n"
        'DOUBLE="line\\nbreak \\"q\\" # kept"\n'
        'MULTI="first\n'
        'second"\n'
        "EMPTY=\n"
        "not a pair\n"
        "1BAD=x\n"
        "   \n"
        "DOTTED.KEY=ok\n"
    )
    assert parse_dotenv(text) == {
        "PLAIN": "value",
        "EXPORTED": "yes",
        "SPACED": "padded value",
        "INLINE": "abc",
        "URL": "http://h/p#frag",
        "SINGLE": "no $escapes \\n here # kept",
        "DOUBLE": 'line\nbreak "q" # kept',
        "MULTI": "first\nsecond",
        "EMPTY": "",
        "DOTTED.KEY": "ok",
    }


def test_unterminated_quote_skips_only_that_line() -> None:
    assert parse_dotenv('A="never closed\nB=1\n') == {"B": "1"}
    assert parse_dotenv("A='x'\nB=\"y\"\n") == {"A": "x", "B": "y"}


def _files(home: Path, workspace: Path) -> dict[str, Path]:
    return {
        "ws_gemini": write_text(workspace / ".gemini" / ".env", "ORDER=ws_gemini\nA=ws_gemini\n"),
        "ws": write_text(workspace / ".env", "ORDER=ws\nA=ws\nB=ws\nDEBUG=1\n"),
        "home_gemini": write_text(home / ".gemini" / ".env", "ORDER=home_gemini\nB=home_gemini\nC=home_gemini\n"),
        "home": write_text(home / ".env", "ORDER=home\nC=home\nD=home\nDEBUG_MODE=from-home\n"),
    }


def test_order_first_file_wins_and_existing_vars_stay(home: Path, workspace: Path) -> None:
    files = _files(home, workspace)
    env = {"D": "already-set"}
    loaded = load_env_files([workspace], trusted=True, env=env)
    assert loaded == [files["ws_gemini"], files["ws"], files["home_gemini"], files["home"]]
    assert env == {
        "ORDER": "ws_gemini",
        "A": "ws_gemini",
        "B": "ws",
        "C": "home_gemini",
        "D": "already-set",
        "DEBUG_MODE": "from-home",  # excluded only from the project's .env, not the user's own files
    }


def test_untrusted_workspace_files_are_skipped(home: Path, workspace: Path) -> None:
    files = _files(home, workspace)
    env: dict[str, str] = {}
    loaded = load_env_files([workspace], trusted=False, env=env)
    assert loaded == [files["home_gemini"], files["home"]]
    assert env["ORDER"] == "home_gemini" and "A" not in env


def test_nearest_env_above_the_workspace(home: Path, workspace: Path) -> None:
    above = write_text(workspace.parent / ".env", "FROM=parent\n")
    write_text(workspace.parent.parent / "unused" / ".env", "FROM=unrelated\n")
    env: dict[str, str] = {}
    assert load_env_files([workspace], trusted=True, env=env) == [above]
    assert env == {"FROM": "parent"}

    # Untrusted: the workspace's own .env is skipped but the one above it (outside the workspace) is used.
    write_text(workspace / ".env", "FROM=inside\n")
    env = {}
    assert load_env_files([workspace], trusted=False, env=env) == [above]
    assert env == {"FROM": "parent"}

    env = {}
    assert load_env_files([workspace], trusted=True, env=env) == [workspace / ".env"]
    assert env == {"FROM": "inside"}


def test_project_env_cannot_set_excluded_vars(home: Path, workspace: Path) -> None:
    write_text(workspace / ".env", "DEBUG=1\nKEEP=1\nCUSTOM_BAD=1\n")
    env: dict[str, str] = {}
    load_env_files([workspace], trusted=True, env=env, excluded_project_vars=["DEBUG", "CUSTOM_BAD"])
    assert env == {"KEEP": "1"}


def test_values_are_never_logged(home: Path, workspace: Path, caplog: pytest.LogCaptureFixture) -> None:
    write_text(workspace / ".env", "SECRET=hunter2-value\nthis line is broken hunter2-value\n")
    with caplog.at_level(logging.DEBUG, logger="agent_lsp.config.dotenv"):
        load_env_files([workspace], trusted=True, env={})
    assert caplog.records
    assert "hunter2" not in caplog.text
