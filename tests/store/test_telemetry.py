"""Local telemetry: durations, usage and latency recorded; prompts, file contents and keys kept out."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from agent_lsp import events as ev
from agent_lsp.store.telemetry import LocalTelemetry, default_outfile, redact_secrets, telemetry_from_settings

SECRET_PROMPT = "deploy with key AIzaSyD3adb33f00000000000000000000000000 and password=hunter22 please"
FILE_TEXT = "TOP SECRET FILE CONTENTS"


class SteppingClock:
    """A deterministic monotonic clock: each reading is the next of the given seconds."""

    def __init__(self, *readings: float) -> None:
        self.readings = list(readings)

    def __call__(self) -> float:
        return self.readings.pop(0)


def session_events() -> list[ev.AgentEvent]:
    diff = ev.FileDiff("/p/secret.txt", FILE_TEXT, FILE_TEXT + " v2", f"-{FILE_TEXT}\n+{FILE_TEXT} v2\n")
    call = ev.ToolCallInfo("c1", "write_file", {"file_path": "/p/secret.txt", "content": FILE_TEXT}, "Write")
    return [
        ev.UserMessage(SECRET_PROMPT),
        ev.Content("model text " + FILE_TEXT),
        ev.ToolCallRequest(call),
        ev.Finished("STOP", ev.Usage(100, 20, 7, 50, 127)),
        ev.ToolCallResponse("c1", "write_file", "success", display=FILE_TEXT, diff=diff, duration_ms=41.25),
        ev.ToolCallResponse("c2", "run_shell_command", "error", error=FILE_TEXT, duration_ms=5.0),
        ev.Finished("MAX_TOKENS", None),
        ev.Error("quota exceeded for " + FILE_TEXT, 429),
        ev.Stop("end_turn"),
    ]


def read(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_records_durations_usage_and_latency_without_content(tmp_path: Path) -> None:
    out = tmp_path / "t" / "telemetry.jsonl"
    # Readings: user prompt at 10.0, first Finished at 10.8, tool responses at 11.0 and 11.5, second Finished at 13.0
    sink = LocalTelemetry(out, session_id="sess-1", clock=SteppingClock(10.0, 10.8, 11.0, 11.5, 13.0))
    for event in session_events():
        sink(event)
    sink.close()

    records = read(out)
    assert [r["type"] for r in records] == [
        "user_prompt",
        "model_response",
        "tool_call",
        "tool_call",
        "model_response",
        "api_error",
    ]
    assert all(r["session_id"] == "sess-1" and isinstance(r["ts"], str) for r in records)
    prompt, first, tool1, tool2, second, error = records
    assert prompt == {"ts": prompt["ts"], "session_id": "sess-1", "type": "user_prompt", "length": len(SECRET_PROMPT)}
    assert first["finish_reason"] == "STOP"
    assert (first["prompt_tokens"], first["candidates_tokens"], first["thoughts_tokens"]) == (100, 20, 7)
    assert (first["cached_tokens"], first["total_tokens"]) == (50, 127)
    assert first["latency_ms"] == pytest.approx(800.0)
    assert (tool1["name"], tool1["status"], tool1["duration_ms"]) == ("write_file", "success", 41.25)
    assert (tool2["name"], tool2["status"], tool2["duration_ms"]) == ("run_shell_command", "error", 5.0)
    assert second["finish_reason"] == "MAX_TOKENS" and second["total_tokens"] is None
    assert second["latency_ms"] == pytest.approx(1500.0)  # measured from the last tool response
    assert error["status"] == 429

    raw = out.read_text(encoding="utf-8")
    for forbidden in (FILE_TEXT, "hunter22", "AIza", "deploy", "/p/secret.txt"):
        assert forbidden not in raw


def test_log_prompts_records_text_with_keys_redacted(tmp_path: Path) -> None:
    out = tmp_path / "telemetry.jsonl"
    sink = LocalTelemetry(out, log_prompts=True)
    sink(ev.UserMessage(SECRET_PROMPT))
    sink(ev.Finished("STOP"))
    sink.close()
    prompt, response = read(out)
    assert prompt["type"] == "user_prompt"
    text = str(prompt["text"])
    assert text.startswith("deploy with key [REDACTED] and password=[REDACTED] please")
    assert "hunter22" not in text and "AIza" not in text
    assert response["latency_ms"] is not None
    assert "session_id" not in prompt


@pytest.mark.parametrize(
    "secret",
    [
        "sk-proj-abcdefghijklmnop1234567890",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "AKIAIOSFODNN7EXAMPLE",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
        "3f786850e387550fdab836ed7e6dc881de23001b",
    ],
)
def test_redact_secrets_hides_key_shapes(secret: str) -> None:
    redacted = redact_secrets(f"use {secret} now")
    assert secret not in redacted
    assert redacted.startswith("use ") and redacted.endswith(" now") and "[REDACTED]" in redacted


def test_redact_secrets_keeps_ordinary_prose() -> None:
    text = "Refactor the auth module in src/components/authentication_controller.ts, author: me"
    assert redact_secrets(text) == text


def test_settings_default_off_and_outfile(tmp_path: Path) -> None:
    assert telemetry_from_settings({}) is None
    assert telemetry_from_settings({"enabled": False, "outfile": "x.jsonl"}) is None
    sink = telemetry_from_settings({"enabled": True})
    assert sink is not None
    assert sink.outfile == default_outfile()
    assert sink.log_prompts  # telemetry.logPrompts defaults to true (docs/settings.md), written or not
    quiet = telemetry_from_settings({"enabled": True, "logPrompts": False})
    assert quiet is not None and not quiet.log_prompts
    quiet.close()
    sink(ev.ToolCallResponse("c", "read_file", "success", duration_ms=1.0))
    sink.close()
    assert default_outfile().is_file()  # under the private AGENT_LSP_HOME of this test
    custom = telemetry_from_settings(
        {"enabled": True, "outfile": "logs/t.jsonl", "logPrompts": True}, base_dir=tmp_path, session_id="s"
    )
    assert custom is not None
    assert custom.outfile == tmp_path / "logs" / "t.jsonl"
    assert custom.log_prompts and custom.session_id == "s"


def test_sink_never_raises(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocked = tmp_path / "is-a-dir"
    blocked.mkdir()
    sink = LocalTelemetry(blocked)
    with caplog.at_level(logging.ERROR, logger="agent_lsp.store.telemetry"):
        sink(ev.ToolCallResponse("c", "read_file", "success", duration_ms=1.0))
        sink(ev.ToolCallResponse("c", "read_file", "success", duration_ms=1.0))
    assert len(caplog.records) == 1  # logged once, not per event
    sink.close()
    sink(ev.UserMessage("after close"))
