"""Any OpenAI-compatible Chat Completions endpoint: the only package that imports ``openai``, lazily."""

from agent_lsp.model.openai_compat.client import OpenAIClient, warm

__all__ = ["OpenAIClient", "warm"]
