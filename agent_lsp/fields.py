"""One lenient typed reader for untyped input (JSON, TOML, editor options): keep what has the right type, report the
rest. Each problem names where the input came from, the key and the reason; the value only when asked to (an
editor's options may hold secrets, a policy file is the user's own).

Plain classes (``str``, ``bool``, ``int``, ``dict``…) are checked with ``isinstance`` (a bool is never an int);
anything richer (``list[str]``, ``Literal[...]``, ``Annotated[int, Field(ge=0)]``) by pydantic in strict mode,
imported only then, so reading an editor's options at ``initialize`` costs no pydantic import.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, overload

T = TypeVar("T")
_MISSING: Any = object()


class Fields:
    """Reads the fields of one mapping; ``problems`` collects what was left out and why, in order."""

    def __init__(
        self, data: Mapping[str, Any], where: str = "", *, show_values: bool = False, quote_keys: bool = False
    ) -> None:
        self.data = data
        self.where = where
        self.show_values = show_values
        self.quote_keys = quote_keys  # 'name' rather than name, where a message reads better so
        self.problems: list[str] = []
        self.keys: list[str] = []  # the key of each problem, in the same order

    @overload
    def take(self, key: str, tp: type[T], must: str, *, aliases: tuple[str, ...] = ()) -> T | None: ...
    @overload
    def take(self, key: str, tp: Any, must: str, *, aliases: tuple[str, ...] = ()) -> Any: ...
    def take(self, key: str, tp: Any, must: str, *, aliases: tuple[str, ...] = ()) -> Any:
        """The value at ``key`` (or its first alias present) if it is a ``tp``; None when absent or null, and None
        with a problem ("<key> <must>") when it is something else."""
        found, value = self.lookup(key, aliases)
        return self.check(found, value, tp, must)

    def check(self, key: str, value: Any, tp: Any, must: str) -> Any:
        """``value`` (read from ``key`` by the caller) if it is a ``tp`` or None; else None and a problem."""
        if value is None or conforms(value, tp):
            return value
        self.problem(key, must, value)
        return None

    def require(self, key: str, tp: Any, must: str) -> Any:
        """Like ``take``, and a missing (or null) ``key`` is a problem too."""
        value = self.take(key, tp, must)
        if value is None and self.data.get(key) is None:
            self.problem(key, must)
        return value

    def lookup(self, key: str, aliases: tuple[str, ...] = ()) -> tuple[str, Any]:
        """(the key that was present, its value); (``key``, None) when none is."""
        for name in (key, *aliases):
            value = self.data.get(name, _MISSING)
            if value is not _MISSING:
                return name, value
        return key, None

    def problem(self, key: str, must: str, value: Any = _MISSING) -> None:
        """Report ``key`` as unusable: "<where>: <key> <must>", with " (got <value>)" when values may be shown."""
        self.keys.append(key)
        text = f"'{key}' {must}" if self.quote_keys else f"{key} {must}"
        if self.show_values and value is not _MISSING:
            text += f" (got {value!r})"
        self.problems.append(f"{self.where}: {text}" if self.where else text)


def conforms(value: Any, tp: Any) -> bool:
    """Whether ``value`` is a ``tp`` as it stands (no coercion: "1" is not an int, 1 is not a bool)."""
    if isinstance(tp, type) and not hasattr(tp, "__total__"):  # a class, not a TypedDict
        if tp is int or tp is float:
            return isinstance(value, int | float if tp is float else int) and not isinstance(value, bool)
        return isinstance(value, tp)
    from pydantic import ValidationError

    try:
        _adapter(tp).validate_python(value, strict=True)
    except ValidationError:
        return False
    return True


_ADAPTERS: dict[Any, Any] = {}


def _adapter(tp: Any) -> Any:
    """Built once per type: building one is what costs (a millisecond or more), validating is cheap."""
    from pydantic import TypeAdapter

    try:
        return _ADAPTERS[tp]
    except KeyError:
        adapter = _ADAPTERS[tp] = TypeAdapter(tp)
        return adapter
    except TypeError:  # an unhashable annotation: not cached
        return TypeAdapter(tp)
