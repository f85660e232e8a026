"""Gemini CLI hooks: configured commands run at points of the agent loop (settings ``hooks``/``hooksConfig``)."""
