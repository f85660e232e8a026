"""A headless run that a mid-turn error ends exits as the error's class says (the ``error`` event carries it):
settings 52, credentials 41, else 1; in the JSON formats an API error's HTTP status, as Gemini CLI does."""

from __future__ import annotations

import io
import json

import pytest

from agent_lsp import events as ev
from agent_lsp.errors import EXIT_AUTH, EXIT_CONFIG, EXIT_FAILURE, AuthError, ConfigError, ModelError
from agent_lsp.event_json import event_from_dict, event_to_dict
from agent_lsp.headless import _finish, _Output


def _exit(fmt: str, error: ev.Error) -> tuple[int, str]:
    out = io.StringIO()
    output = _Output(fmt, out, io.StringIO(), "gemini-2.5-pro", verbose=False)
    output.event(error)
    return _finish(ev.Stop("error"), output, "sid"), out.getvalue()


@pytest.mark.parametrize(
    ("exc", "code"),
    [(ConfigError("bad value", "settings.json", "model.name"), EXIT_CONFIG), (AuthError("no key"), EXIT_AUTH)],
)
def test_the_error_class_decides_the_exit_code(exc: ConfigError | AuthError, code: int) -> None:
    error = ev.Error(str(exc), getattr(exc, "status", None), exc.meaning, exc.exit_code)
    assert _exit("text", error)[0] == code
    assert _exit("json", error)[0] == code  # no HTTP status: the class's code in every format


def test_an_api_error_exits_1_in_text_and_with_its_status_in_json() -> None:
    exc = ModelError("quota exhausted", 429)
    error = ev.Error(str(exc), exc.status, exc.meaning, exc.exit_code)
    assert _exit("text", error)[0] == EXIT_FAILURE
    code, out = _exit("json", error)
    assert code == 429 and json.loads(out)["error"] == {"type": "Error", "message": "quota exhausted", "code": 429}


def test_the_exit_code_survives_the_recording() -> None:
    error = ev.Error("bad settings", None, "internal", EXIT_CONFIG)
    assert event_from_dict(json.loads(json.dumps(event_to_dict(error)))) == error
