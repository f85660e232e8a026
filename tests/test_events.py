"""The event kinds: every AgentEvent is found by the one ``kind`` its Literal allows (what recordings store)."""

from __future__ import annotations

import typing

from agent_lsp import event_json
from agent_lsp import events as ev


def test_every_event_is_keyed_by_the_kind_its_annotation_allows() -> None:
    members = typing.get_args(ev.AgentEvent)
    assert len(event_json.EVENT_TYPES) == len(members)
    for cls in members:
        (kind,) = typing.get_args(typing.get_type_hints(cls)["kind"])
        assert event_json.EVENT_TYPES[kind] is cls
        assert cls.__dataclass_fields__["kind"].default == kind  # what an event built without ``kind`` carries


def test_usage_arithmetic_covers_every_count() -> None:
    """Usage's sum and difference go field by field: a count added to the class must be in counts() too."""
    import dataclasses

    names = [f.name for f in dataclasses.fields(ev.Usage)]
    a = ev.Usage(*range(1, len(names) + 1))
    assert a.counts() == tuple(getattr(a, n) for n in names)
    assert (a + a) - a == a and (a + a).counts() == tuple(2 * v for v in a.counts())
