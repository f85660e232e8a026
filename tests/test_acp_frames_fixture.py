"""The automatic ACP frame check (tests/conftest.py) fails a test whose agent sent an invalid frame, though the
test never asked its checker; a test with valid frames passes. Run as an inner pytest session."""

from __future__ import annotations

import pytest

INNER = """
from tests.acp.harness import SchemaChecker

CHUNK = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}
UPDATE = {"sessionId": "s", "update": CHUNK}


def test_valid() -> None:
    SchemaChecker().incoming({"jsonrpc": "2.0", "method": "session/update", "params": UPDATE})


def test_invalid_and_never_asked() -> None:
    bad = {"sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "txt"}}}
    SchemaChecker().incoming({"jsonrpc": "2.0", "method": "session/update", "params": bad})
"""


def test_an_invalid_frame_fails_the_test_that_received_it(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makeconftest("from tests.conftest import _acp_frames_are_valid  # noqa: F401\n")
    pytester.makepyfile(test_inner=INNER)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, errors=1)  # the invalid one fails at teardown, where the fixture checks
    result.stdout.fnmatch_lines(["*invalid ACP frames from the agent*", "*test_invalid_and_never_asked*"])
