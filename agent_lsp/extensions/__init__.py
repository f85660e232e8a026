"""Gemini CLI extensions: ``~/.gemini/extensions/<name>/gemini-extension.json`` and what the folder brings."""
