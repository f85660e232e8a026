"""The composition root: settings + trust + model + filesystem + confirmer → a ready session (see root.py)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_lsp.runtime.clients import build_client
    from agent_lsp.runtime.handle import SessionHandle
    from agent_lsp.runtime.opening import SessionOpening, SessionPreview
    from agent_lsp.runtime.options import REPLAY_DELAY_ENV, RuntimeOptions, SessionSetup, replay_delay
    from agent_lsp.runtime.root import Runtime
    from agent_lsp.runtime.temp import remove_temp_dir

# Each name is loaded from its module on first use (PEP 562): a new session's answer needs the root, the
# options and the first step's builders, not the session and core that SessionHandle brings in.
_HOMES = {
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
}

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


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
