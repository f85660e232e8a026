"""agent-lsp: a coding agent that lives in the editor."""
