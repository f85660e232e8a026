"""The LSP test editor's fixtures (tests/lsp/conftest.py), for the front-end tests here."""

from tests.lsp.conftest import editors, launch  # noqa: F401
