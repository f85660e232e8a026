"""Builder: where a session's events go besides the editor (its recording, local telemetry) and its checkpoints."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lsp.core.ports import EventSink

if TYPE_CHECKING:
    from agent_lsp.config.settings import CheckpointingSettings, TelemetrySettings
    from agent_lsp.store.checkpoints import ShadowGitCheckpointer
    from agent_lsp.store.sessions import SessionRecorder, SessionStore


@dataclass(frozen=True)
class Recording:
    """The session's store and recorder (both None when the adapter asked not to record) and every sink."""

    store: SessionStore | None = None
    recorder: SessionRecorder | None = None
    sinks: list[EventSink] = field(default_factory=list)


def build_recording(
    session_id: str, *, record: bool, primary: Path, cwd: Path, telemetry: TelemetrySettings
) -> Recording:
    store = recorder = None
    sinks: list[EventSink] = []
    if record:
        from agent_lsp.store.sessions import SessionStore

        store = SessionStore(primary)
        recorder = store.recorder(session_id, cwd)
        sinks.append(recorder)
    if telemetry.enabled:
        from agent_lsp.store.telemetry import telemetry_from_settings

        tele = telemetry_from_settings(telemetry.model_dump(by_alias=True))
        if tele is not None:
            sinks.append(tele)
    return Recording(store, recorder, sinks)


def build_checkpointer(
    settings: CheckpointingSettings, asked: bool | None, primary: Path, session_id: str
) -> ShadowGitCheckpointer | None:
    """Checkpoints when settings turn them on, else as the adapter or command line asked."""
    if not (settings.enabled or asked):
        return None
    from agent_lsp.store.checkpoints import ShadowGitCheckpointer

    return ShadowGitCheckpointer(primary, session_id=session_id)
