"""agent-lsp: a coding agent that lives in the editor."""

# The one version number: pyproject.toml reads it from here (tool.setuptools.dynamic), the tests hold the VS Code
# extension and the ACP Registry entry to it. A literal, read without importlib.metadata, which is slow.
__version__ = "0.1.0"
