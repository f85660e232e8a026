"""The Gemini API (or Vertex AI) through google-genai: the only package that imports ``google.genai``, lazily."""

from agent_lsp.model.gemini.client import GeminiClient

__all__ = ["GeminiClient"]
