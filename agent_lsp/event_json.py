"""Events as JSON and back: what a session's recording writes and a loaded session reads (every field, nested
dataclasses as objects, tuples as arrays)."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from agent_lsp.events import AgentEvent, Origin, SubagentEvent

# Keyed by each event's ``kind`` default (the one value its Literal allows), read from the dataclass fields:
# evaluating every class's annotations with get_type_hints here cost ~2 ms of every start-up.
EVENT_TYPES: dict[str, type[Any]] = {
    cls.__dataclass_fields__["kind"].default: cls for cls in typing.get_args(AgentEvent)
}


def event_to_dict(event: AgentEvent) -> dict[str, Any]:
    """A JSON-ready dict of an event (nested dataclasses become dicts, tuples lists)."""
    plain: dict[str, Any] = _plain(event)
    return plain


def event_from_dict(data: dict[str, Any]) -> AgentEvent:
    """Rebuild an event written by :func:`event_to_dict`; unknown keys are ignored."""
    if data["kind"] == "subagent":  # its inner event is any of the union: read by its own kind
        return SubagentEvent(_build(Origin, data["origin"]), event_from_dict(data["event"]))
    cls = EVENT_TYPES[data["kind"]]
    result: AgentEvent = _build(cls, data)
    return result


def _plain(value: Any) -> Any:
    # Hand-rolled instead of dataclasses.asdict, which deep-copies every value: this runs for every event.
    fields = getattr(value, "__dataclass_fields__", None)
    if fields is not None:
        return {name: _plain(getattr(value, name)) for name in fields}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _build(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(tp)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        hints = typing.get_type_hints(tp)
        kwargs = {f.name: _build(hints[f.name], value[f.name]) for f in dataclasses.fields(tp) if f.name in value}
        return tp(**kwargs)
    if origin is tuple:
        (item_tp, *_rest) = typing.get_args(tp)
        return tuple(_build(item_tp, v) for v in value)
    if origin in (typing.Union, _UnionType):
        for arg in typing.get_args(tp):
            if arg is type(None):
                continue
            if dataclasses.is_dataclass(arg) and isinstance(value, dict):
                return _build(arg, value)
            if not dataclasses.is_dataclass(arg):
                return value
        return value
    return value


_UnionType = type(int | None)
