"""Tests of session recording, checkpoints and telemetry."""
