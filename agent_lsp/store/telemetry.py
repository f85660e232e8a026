"""Local, opt-in telemetry: tool timings, token usage and model latency appended to a JSONL file.

What is never written: file contents, diffs, tool arguments, tool output, error messages (they quote
files), and prompt text unless ``log_prompts`` is on, in which case key-like strings are still redacted.
Nothing is exported: an OTLP or GCP target is accepted (Gemini CLI's settings files name them), warned about, and
written to the same local file (docs/settings.md#telemetry).
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from agent_lsp.config.paths import state_dir
from agent_lsp.events import (
    AgentEvent,
    ChatCompressed,
    Error,
    Finished,
    LoopDetected,
    ToolCallResponse,
    UserMessage,
)

log = logging.getLogger(__name__)

LOG_PROMPTS_DEFAULT = True  # telemetry.logPrompts when unset; tests/config/test_settings_reference.py checks it

REDACTED = "[REDACTED]"
_SECRET_PATTERNS = [
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.DOTALL),
    re.compile(r"AIza[0-9A-Za-z_\-]{30,}"),  # Google API keys
    re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{16,}"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    re.compile(r"\beyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]*"),  # JWTs
    re.compile(r"(?i)(?<=bearer )[A-Za-z0-9._~+/=\-]{12,}"),
    re.compile(
        r"(?i)(?<![A-Za-z0-9])((?:api[_-]?key|secret|token|password|passwd|pwd|access[_-]?key|auth)"
        r"[\"']?\s*[:=]\s*)[\"']?[^\s\"',;]+"
    ),
]
# A long unbroken run of letters and digits is more likely a credential than a word.
_LONG_TOKEN = re.compile(r"(?<![A-Za-z0-9_+=\-])[A-Za-z0-9_+=\-]{32,}(?![A-Za-z0-9_+=\-])")


def redact_secrets(text: str) -> str:
    """``text`` with anything that looks like a key, token or password replaced by ``[REDACTED]``."""
    for pattern in _SECRET_PATTERNS:
        # A pattern with a group keeps it (the "api_key=" part) so the reader still sees what was hidden.
        text = pattern.sub((r"\1" if pattern.groups else "") + REDACTED, text)
    return _LONG_TOKEN.sub(
        lambda m: REDACTED if re.search(r"\d", m.group()) and re.search(r"[A-Za-z]", m.group()) else m.group(), text
    )


def default_outfile() -> Path:
    return state_dir() / "telemetry.jsonl"


class LocalTelemetry:
    """An :class:`agent_lsp.core.ports.EventSink` that appends telemetry records as JSON lines.

    Never raises: a telemetry failure is logged once and the session carries on.
    """

    def __init__(
        self,
        outfile: Path | None = None,
        *,
        log_prompts: bool = False,
        session_id: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.outfile = outfile or default_outfile()
        self.log_prompts = log_prompts
        self.session_id = session_id
        self._clock = clock
        self._since: float | None = None  # when the model was last handed something to answer
        self._file: IO[bytes] | None = None
        self._closed = False
        self._failed = False
        self._lock = threading.Lock()

    def __call__(self, event: AgentEvent) -> None:
        try:
            record = self._record_for(event)
            if record is not None:
                self._write(record)
        except Exception:
            if not self._failed:
                self._failed = True
                log.exception("telemetry could not be written to %s", self.outfile)

    def _record_for(self, event: AgentEvent) -> dict[str, Any] | None:
        if isinstance(event, UserMessage):
            self._since = self._clock()
            if self.log_prompts:
                return {"type": "user_prompt", "text": redact_secrets(event.text)}
            return {"type": "user_prompt", "length": len(event.text)}
        if isinstance(event, ToolCallResponse):
            self._since = self._clock()
            return {
                "type": "tool_call",
                "name": event.name,
                "status": event.status,
                "duration_ms": round(event.duration_ms, 3),
            }
        if isinstance(event, Finished):
            usage = event.usage
            latency = None if self._since is None else round((self._clock() - self._since) * 1000, 3)
            return {
                "type": "model_response",
                "finish_reason": event.finish_reason,
                "prompt_tokens": usage.prompt_tokens if usage else None,
                "candidates_tokens": usage.candidates_tokens if usage else None,
                "thoughts_tokens": usage.thoughts_tokens if usage else None,
                "cached_tokens": usage.cached_tokens if usage else None,
                "total_tokens": usage.total_tokens if usage else None,
                "latency_ms": latency,
            }
        if isinstance(event, Error):
            return {"type": "api_error", "status": event.status}  # the message may quote the request: left out
        if isinstance(event, ChatCompressed):
            return {
                "type": "chat_compression",
                "original_tokens": event.original_tokens,
                "new_tokens": event.new_tokens,
            }
        if isinstance(event, LoopDetected):
            return {"type": "loop_detected", "loop_type": event.loop_type}
        return None

    def _write(self, record: dict[str, Any]) -> None:
        stamped: dict[str, Any] = {"ts": datetime.now(UTC).isoformat(timespec="milliseconds")}
        if self.session_id is not None:
            stamped["session_id"] = self.session_id
        stamped.update(record)
        line = json.dumps(stamped, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        with self._lock:
            if self._closed:
                return
            if self._file is None:
                self.outfile.parent.mkdir(parents=True, exist_ok=True)
                self._file = open(self.outfile, "ab")  # noqa: SIM115 - kept open for the life of the sink
                if self._file.tell() and not _ends_with_newline(self.outfile):
                    # A writer killed mid-line left a fragment: end it, so our first record is a line of its own.
                    line = b"\n" + line
            self._file.write(line)
            self._file.flush()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            file, self._file = self._file, None
        if file is not None:
            file.close()


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as fh:
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) == b"\n"


def telemetry_from_settings(
    settings: Mapping[str, Any], *, session_id: str | None = None, base_dir: Path | None = None
) -> LocalTelemetry | None:
    """The sink for a ``telemetry`` settings object, or None when telemetry is off (the default).

    Keys, as in Gemini CLI's settings: ``enabled``, ``logPrompts``, ``outfile``, ``target``. A relative
    outfile is taken from ``base_dir``. Targets other than local are not supported: records go to the file.
    """
    if not settings.get("enabled"):
        return None
    target = settings.get("target")
    if target not in (None, "local"):
        log.warning("telemetry: target %r is not implemented, nothing is exported; writing the local file", target)
    outfile: Path | None = None
    raw = settings.get("outfile")
    if isinstance(raw, str) and raw:
        outfile = Path(raw).expanduser()
        if not outfile.is_absolute() and base_dir is not None:
            outfile = base_dir / outfile
    # The settings model's default (true, as Gemini CLI's): the same whether the key was written or left out.
    log_prompts = bool(settings.get("logPrompts", settings.get("log_prompts", LOG_PROMPTS_DEFAULT)))
    return LocalTelemetry(outfile, log_prompts=log_prompts, session_id=session_id)
