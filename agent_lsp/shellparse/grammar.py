"""Loads the tree-sitter bash grammar on first use (never at start-up) and makes parsers on it."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the grammar loads lazily, on the first command checked, never on the start-up path
    from tree_sitter import Language, Parser


@functools.cache
def language() -> Language:
    """The bash grammar, loaded once per process (cached): importing it costs tens of milliseconds."""
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Language(tree_sitter_bash.language())


def new_parser() -> Parser:
    """A fresh parser on the bash grammar."""
    import tree_sitter

    # A parser per call: cheap, and never shared between threads.
    return tree_sitter.Parser(language())
