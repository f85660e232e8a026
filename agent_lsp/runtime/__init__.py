"""The composition root: settings + trust + model + filesystem + confirmer → a ready session (see root.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lsp.lazy import exports

if TYPE_CHECKING:
    from agent_lsp.runtime.clients import build_client
    from agent_lsp.runtime.handle import SessionHandle
    from agent_lsp.runtime.opening import SessionOpening, SessionPreview
    from agent_lsp.runtime.options import REPLAY_DELAY_ENV, RuntimeOptions, SessionSetup, replay_delay
    from agent_lsp.runtime.root import Runtime
    from agent_lsp.runtime.temp import remove_temp_dir

# A new session's answer needs the root, the options and the first step's builders, not the session and core
# that SessionHandle brings in: each name is loaded from its module on first use.
__getattr__ = exports(
    __name__,
    {
        "REPLAY_DELAY_ENV": "options",
        "Runtime": "root",
        "RuntimeOptions": "options",
        "SessionHandle": "handle",
        "SessionOpening": "opening",
        "SessionPreview": "opening",
        "SessionSetup": "options",
        "build_client": "clients",
        "remove_temp_dir": "temp",
        "replay_delay": "options",
    },
)

__all__ = [
    "REPLAY_DELAY_ENV",
    "Runtime",
    "RuntimeOptions",
    "SessionHandle",
    "SessionOpening",
    "SessionPreview",
    "SessionSetup",
    "build_client",
    "remove_temp_dir",
    "replay_delay",
]
