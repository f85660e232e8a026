"""Tests of the model layer: auth, the google-genai client, retries, and the fake Gemini server."""
