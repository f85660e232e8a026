"""Package exports loaded on first use (PEP 562): a package names what it offers without importing all of it."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def exports(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``homes`` maps each exported name to the submodule defining it.
    A name is imported when first asked for, then kept in the package like an ordinary import."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        setattr(importlib.import_module(package), name, value)
        return value

    return __getattr__
