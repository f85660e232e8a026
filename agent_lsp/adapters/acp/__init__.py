"""acp package."""
