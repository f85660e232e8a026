"""MCP elicitation: a server's form request (``elicitation/create``) as a neutral form an editor can show, and
the user's answer checked against it before it goes back to the server.

The adapters implement :class:`Elicitor` (ACP ``elicitation/create``, the VS Code panel, a plain question, or a
refusal where nobody can answer); this module never imports the SDK at import time.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

log = logging.getLogger(__name__)

FieldKind = Literal["string", "number", "integer", "boolean", "choice", "choices"]
Action = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True)
class FormField:
    """One field of a form: a primitive of the MCP spec's restricted JSON Schema (enums become choices)."""

    name: str
    kind: FieldKind
    title: str
    description: str = ""
    required: bool = False
    default: Any = None
    options: tuple[tuple[str, str], ...] = ()  # (value, label) of a choice or choices field
    format: str | None = None  # email, uri, date, date-time (strings only)
    minimum: float | None = None
    maximum: float | None = None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "title": self.title, "required": self.required}
        if self.description:
            out["description"] = self.description
        if self.default is not None:
            out["default"] = self.default
        if self.options:
            out["options"] = [{"value": v, "label": label} for v, label in self.options]
        for key in ("format", "minimum", "maximum"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


@dataclass(frozen=True)
class FormRequest:
    """What a server asks the user: its message and the fields of the form."""

    server: str
    message: str
    fields: tuple[FormField, ...]

    @property
    def question(self) -> str:
        """One line for a plain question: who asks, what, and (for a one-field form) about which field."""
        text = f"MCP server '{self.server}' asks: {self.message.strip()}"
        if len(self.fields) == 1 and not re.search(rf"\b{re.escape(self.fields[0].title)}\b", self.message, re.I):
            text += f" ({self.fields[0].title})"
        return text

    def as_json(self) -> dict[str, Any]:
        """The LSP shape (``agent/elicit``'s params besides the session)."""
        return {"server": self.server, "message": self.message, "fields": [f.as_json() for f in self.fields]}


@dataclass(frozen=True)
class FormAnswer:
    """The user's answer: accept (with the form's values), decline, or cancel (dismissed without a choice)."""

    action: Action
    content: Mapping[str, Any] | None = None

    @classmethod
    def from_json(cls, result: Any) -> FormAnswer:
        """An editor's ``{action, content?}`` (ACP's CreateElicitationResponse, LSP's agent/elicit answer);
        anything else (a future action, a malformed answer) is a cancel."""
        action = result.get("action") if isinstance(result, Mapping) else None
        if action == "accept":
            content = result.get("content")
            return cls("accept", content if isinstance(content, Mapping) else {})
        return cls("decline") if action == "decline" else cls("cancel")


class Elicitor(Protocol):
    """Shows a server's form to the user and returns the answer (an adapter's; the runtime passes it on)."""

    async def elicit(self, request: FormRequest) -> FormAnswer: ...


class UnsupportedForm(ValueError):
    """The requested schema has a field no editor form can show (nested objects, arrays of numbers, ...)."""


def parse_form(server: str, message: str, schema: Mapping[str, Any]) -> FormRequest:
    """The form of a server's ``requestedSchema``; UnsupportedForm naming the field it cannot show."""
    props = schema.get("properties")
    props = props if isinstance(props, Mapping) else {}
    required = schema.get("required")
    needed = {str(n) for n in required} if isinstance(required, list) else set()
    fields = tuple(_field(str(name), spec, str(name) in needed) for name, spec in props.items())
    return FormRequest(server, message, fields)


def _field(name: str, spec: Any, required: bool) -> FormField:
    if not isinstance(spec, Mapping):
        raise UnsupportedForm(f"field {name!r} has no schema")
    kind = spec.get("type")
    title = str(spec.get("title") or name)
    common: dict[str, Any] = {
        "title": title,
        "description": str(spec.get("description") or ""),
        "required": required,
        "default": spec.get("default"),
    }
    if kind == "string":
        options = _options(spec)
        if options:
            return FormField(name, "choice", options=options, **common)
        fmt = spec.get("format")
        return FormField(name, "string", format=fmt if isinstance(fmt, str) else None, **common)
    if kind in ("number", "integer"):
        low, high = spec.get("minimum"), spec.get("maximum")
        return FormField(name, kind, minimum=_num(low), maximum=_num(high), **common)
    if kind == "boolean":
        return FormField(name, "boolean", **common)
    if kind == "array" and isinstance(spec.get("items"), Mapping):
        options = _options(spec["items"])
        if options:
            return FormField(name, "choices", options=options, **common)
    raise UnsupportedForm(f"field {name!r} is of a type a form cannot show ({kind!r})")


def _options(spec: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """An enum's (value, label) pairs: ``enum`` (with the legacy ``enumNames``), or ``oneOf``/``anyOf`` consts."""
    values = spec.get("enum")
    if isinstance(values, list):
        names = spec.get("enumNames")
        labels = names if isinstance(names, list) and len(names) == len(values) else values
        return tuple((str(v), str(label)) for v, label in zip(values, labels, strict=True))
    for key in ("oneOf", "anyOf"):
        titled = spec.get(key)
        if isinstance(titled, list) and all(isinstance(o, Mapping) and "const" in o for o in titled):
            return tuple((str(o["const"]), str(o.get("title") or o["const"])) for o in titled)
    return ()


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def simple_choices(request: FormRequest) -> list[tuple[str, dict[str, Any]]] | None:
    """A form small enough for a plain question (no fields, one yes/no, one choice): (button label, content)
    per answer; None when it needs a real form."""
    if not request.fields:
        return [("Accept", {})]
    if len(request.fields) != 1:
        return None
    only = request.fields[0]
    if only.kind == "boolean":
        return [("Yes", {only.name: True}), ("No", {only.name: False})]
    if only.kind == "choice":
        return [(label, {only.name: value}) for value, label in only.options]
    return None


def check_answer(request: FormRequest, content: Any) -> dict[str, Any]:
    """The accepted values, each coerced to its field's type (an editor's text box gives "3" for a number);
    ValueError naming the field when a value does not fit or a required one is missing. Unknown keys are
    dropped: the server gets only what it asked for."""
    given = content if isinstance(content, Mapping) else {}
    out: dict[str, Any] = {}
    for f in request.fields:
        value = given.get(f.name)
        if value is None or value == "" or value == []:
            if f.required:
                raise ValueError(f"{f.title} is required")
            continue
        out[f.name] = _coerce(f, value)
    return out


def _coerce(f: FormField, value: Any) -> Any:
    if f.kind == "boolean":
        if isinstance(value, bool):
            return value
        if str(value).lower() in ("true", "false"):
            return str(value).lower() == "true"
    elif f.kind in ("number", "integer"):
        number = _as_number(value, integer=f.kind == "integer")
        if number is not None and _in_range(f, number):
            return number
    elif f.kind == "choice":
        if str(value) in (v for v, _label in f.options):
            return str(value)
    elif f.kind == "choices":
        picked = value if isinstance(value, list) else [value]
        allowed = {v for v, _label in f.options}
        if all(str(v) in allowed for v in picked):
            return [str(v) for v in picked]
    elif isinstance(value, str):
        return value
    raise ValueError(f"{f.title}: {value!r} does not fit ({_expected(f)})")


def _as_number(value: Any, *, integer: bool) -> int | float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(value) if not isinstance(value, int | float) else value
    except (TypeError, ValueError):
        return None
    if not math.isfinite(number):
        return None
    if integer:
        return int(number) if float(number).is_integer() else None
    return number


def _in_range(f: FormField, number: float) -> bool:
    return (f.minimum is None or number >= f.minimum) and (f.maximum is None or number <= f.maximum)


def _expected(f: FormField) -> str:
    if f.kind in ("choice", "choices"):
        return "one of " + ", ".join(v for v, _label in f.options)
    what = "an integer" if f.kind == "integer" else f"a {f.kind}"
    low, high = f.minimum, f.maximum
    if low is not None and high is not None:
        return f"{what} from {low:g} to {high:g}"
    if low is not None or high is not None:
        return f"{what} ≥ {low:g}" if low is not None else f"{what} ≤ {high:g}"
    return what


class NobodyToAsk:
    """The headless elicitor: every form is declined, with a line saying so (stderr, through ``say``)."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say

    async def elicit(self, request: FormRequest) -> FormAnswer:
        self.say(
            f"MCP server '{request.server}' asked for input ({request.message.strip() or 'a form'}); "
            "declined: nobody can answer in a non-interactive run."
        )
        return FormAnswer("decline")


async def answer_elicitation(elicitor: Elicitor, server: str, params: Any) -> Any:
    """A server's ``elicitation/create`` answered through ``elicitor``: the SDK's ElicitResult. A URL request,
    or a form no editor can show, is declined; an editor's answer that does not fit the form is declined too
    (the server is never sent values it did not ask for)."""
    from mcp_types import ElicitResult

    if getattr(params, "mode", "form") != "form":
        log.info("MCP server %r asked for a URL elicitation; declined (not supported)", server)
        return ElicitResult(action="decline")
    try:
        request = parse_form(server, params.message, dict(params.requested_schema or {}))
    except UnsupportedForm as exc:
        log.warning("MCP server %r asked for a form that cannot be shown: %s", server, exc)
        return ElicitResult(action="decline")
    answer = await elicitor.elicit(request)
    if answer.action != "accept":
        return ElicitResult(action=answer.action)
    try:
        content = check_answer(request, answer.content)
    except ValueError as exc:
        log.warning("the answer to MCP server %r's form was declined: %s", server, exc)
        return ElicitResult(action="decline")
    return ElicitResult(action="accept", content=content)
