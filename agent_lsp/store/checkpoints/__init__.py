"""Checkpoints: a shadow git repository snapshots the project before file-changing tools, and restores it."""

# The package is split by job (repository plumbing, record files, the checkpointer that joins them); the
# names callers use stay importable from here.
from agent_lsp.store.checkpoints.checkpointer import RestoredCheckpoint, ShadowGitCheckpointer
from agent_lsp.store.checkpoints.records import CheckpointError, CheckpointInfo, CheckpointsUnavailable, main_path

__all__ = [
    "CheckpointError",
    "CheckpointInfo",
    "CheckpointsUnavailable",
    "RestoredCheckpoint",
    "ShadowGitCheckpointer",
    "main_path",
]
