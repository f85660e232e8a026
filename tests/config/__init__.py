"""Tests for agent_lsp.config."""
