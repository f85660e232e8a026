"""Checkpoints: a shadow git repository snapshots the project before file-changing tools, and restores it."""

# The package is split by job (repository plumbing, record files, the checkpointer that joins them); callers use
# the checkpointer, importable from here (the runtime imports it lazily, by this name).
from agent_lsp.store.checkpoints.checkpointer import ShadowGitCheckpointer

__all__ = ["ShadowGitCheckpointer"]
