"""What the command line decided for every session of a server process, read once from its arguments (both adapters)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_lsp.vocabulary import ApprovalMode


@dataclass(frozen=True)
class LaunchOptions:
    fake_responses: Path | None = None  # absolute: sessions may run in other folders
    model: str | None = None
    approval_mode: ApprovalMode | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> LaunchOptions:
        """Raises ValueError naming ``--approval-mode`` and its choices for a mode the vocabulary lacks."""
        from agent_lsp.vocabulary import parse_mode

        fake = getattr(args, "fake_responses", None)
        mode = getattr(args, "approval_mode", None)
        return cls(
            fake_responses=Path(fake).absolute() if fake is not None else None,
            model=getattr(args, "model", None),
            approval_mode=parse_mode(mode, "--approval-mode") if mode is not None else None,
        )
