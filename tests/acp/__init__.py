"""Tests of the ACP adapter."""
