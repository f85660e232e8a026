"""agent-lsp: a coding agent that lives in the editor."""

__version__ = "0.1.0"  # keep in step with pyproject.toml; read without importlib.metadata, which is slow
