"""The composition root: settings + trust + model + filesystem + confirmer → a ready session (see root.py)."""

from agent_lsp.runtime.clients import build_client
from agent_lsp.runtime.handle import SessionHandle
from agent_lsp.runtime.options import REPLAY_DELAY_ENV, RuntimeOptions, SessionSetup, replay_delay
from agent_lsp.runtime.root import Runtime
from agent_lsp.runtime.temp import remove_temp_dir

__all__ = [
    "REPLAY_DELAY_ENV",
    "Runtime",
    "RuntimeOptions",
    "SessionHandle",
    "SessionSetup",
    "build_client",
    "remove_temp_dir",
    "replay_delay",
]
