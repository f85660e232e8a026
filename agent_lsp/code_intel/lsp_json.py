"""Plain LSP JSON (what every source hands back: the editor, an ACP client, our own servers) → the neutral types of
``core/code_intel.py``. Malformed parts are skipped, never trusted: a result comes from another program."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, unquote, urlparse

from agent_lsp.core.code_intel import CodeDiagnostic, CodeLocation, CodeSymbol, Severity, Span, TextChange

# LSP's SymbolKind numbers, by name (1-based).
_KINDS = [
    *("file", "module", "namespace", "package", "class", "method", "property", "field", "constructor", "enum"),
    *("interface", "function", "variable", "constant", "string", "number", "boolean", "array", "object", "key"),
    *("null", "enumMember", "struct", "event", "operator", "typeParameter"),
]
T = TypeVar("T")
OFF_LOOP_ITEMS = 500
_SEVERITIES: dict[int, Severity] = {1: "error", 2: "warning", 3: "information", 4: "hint"}


def path_to_uri(path: Path) -> str:
    return "file://" + quote(str(path), safe="/:@!$&'()*+,;=-._~")


def uri_to_path(uri: Any) -> Path | None:
    return _path_of(uri) if isinstance(uri, str) else None


@lru_cache(maxsize=4096)  # a result names the same few files thousands of times (references)
def _path_of(uri: str) -> Path | None:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path))


def _str(item: Mapping[str, Any], key: str) -> str:
    value = item.get(key)
    return value if isinstance(value, str) else ""


def kind_name(kind: Any) -> str:
    return _KINDS[kind - 1] if isinstance(kind, int) and 1 <= kind <= len(_KINDS) else "symbol"


def span(value: Any) -> Span | None:
    """An LSP Range as a Span, or None when it is not one."""
    if not isinstance(value, Mapping):
        return None
    start, end = value.get("start"), value.get("end")
    if not isinstance(start, Mapping) or not isinstance(end, Mapping):
        return None
    nums = (start.get("line"), start.get("character"), end.get("line"), end.get("character"))
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in nums):
        return None
    return Span(*nums)  # type: ignore[arg-type]


def _location(uri: Any, range_: Any) -> CodeLocation | None:
    path, where = uri_to_path(uri), span(range_)
    return CodeLocation(path, where) if path is not None and where is not None else None


def locations(result: Any) -> tuple[CodeLocation, ...]:
    """``Location | Location[] | LocationLink[] | null``."""
    items = result if isinstance(result, list) else [result] if isinstance(result, Mapping) else []
    found: dict[CodeLocation, None] = {}  # ordered and de-duplicated in linear time (references can be thousands)
    for item in items:
        if not isinstance(item, Mapping):
            continue
        if "targetUri" in item:  # a LocationLink: the name's range, else the whole target
            loc = _location(item["targetUri"], item.get("targetSelectionRange") or item.get("targetRange"))
        else:
            loc = _location(item.get("uri"), item.get("range"))
        if loc is not None:
            found[loc] = None
    return tuple(found)


def _marked(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        text = value.get("value")
        if not isinstance(text, str):
            return ""
        language = value.get("language")
        return f"```{language}\n{text}\n```" if isinstance(language, str) else text
    return ""


def hover_text(result: Any) -> str | None:
    """``Hover | null`` as text (MarkupContent, MarkedString or a list of them)."""
    if not isinstance(result, Mapping):
        return None
    contents = result.get("contents")
    parts = contents if isinstance(contents, list) else [contents]
    text = "\n\n".join(p for p in (_marked(c).strip() for c in parts) if p)
    return text or None


def _symbol_tree(items: list[Any], path: Path, container: str, depth: int) -> Iterator[CodeSymbol]:
    for item in items:
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            continue
        where = span(item.get("selectionRange")) or span(item.get("range"))
        if where is None:
            continue
        yield CodeSymbol(
            item["name"], kind_name(item.get("kind")), CodeLocation(path, where), container, _str(item, "detail"), depth
        )
        children = item.get("children")
        if isinstance(children, list):
            yield from _symbol_tree(children, path, item["name"], depth + 1)


def symbols(result: Any, path: Path | None = None) -> tuple[CodeSymbol, ...]:
    """``DocumentSymbol[]`` (a tree, flattened with depths; ``path`` is its file) or ``SymbolInformation[]`` /
    ``WorkspaceSymbol[]``."""
    if not isinstance(result, list):
        return ()
    if path is not None and any(isinstance(i, Mapping) and "selectionRange" in i for i in result):
        return tuple(_symbol_tree(result, path, "", 0))
    found: list[CodeSymbol] = []
    for item in result:
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            continue
        loc_json = item.get("location")
        if not isinstance(loc_json, Mapping):
            continue
        # A WorkspaceSymbol may carry only a uri (its range resolved later): the file's start stands in.
        loc = _location(loc_json.get("uri"), loc_json.get("range") or {"start": _ZERO, "end": _ZERO})
        if loc is None:
            continue
        found.append(CodeSymbol(item["name"], kind_name(item.get("kind")), loc, _str(item, "containerName")))
    return tuple(found)


_ZERO = {"line": 0, "character": 0}


def call_item(item: Any, sites: tuple[CodeLocation, ...] = ()) -> CodeSymbol | None:
    """A CallHierarchyItem (its name's place) with the call sites that go with it."""
    if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
        return None
    loc = _location(item.get("uri"), item.get("selectionRange") or item.get("range"))
    if loc is None:
        return None
    return CodeSymbol(item["name"], kind_name(item.get("kind")), loc, detail=_str(item, "detail"), sites=sites)


def calls(result: Any, *, incoming: bool, caller: Mapping[str, Any] | None = None) -> tuple[CodeSymbol, ...]:
    """``CallHierarchyIncomingCall[]`` (each caller, its call sites in its own file) or
    ``CallHierarchyOutgoingCall[]`` (each callee, its call sites in ``caller``'s file)."""
    if not isinstance(result, list):
        return ()
    found: list[CodeSymbol] = []
    for entry in result:
        if not isinstance(entry, Mapping):
            continue
        item = entry.get("from" if incoming else "to")
        site_uri = item.get("uri") if incoming and isinstance(item, Mapping) else (caller or {}).get("uri")
        ranges = entry.get("fromRanges")
        sites = (
            tuple(loc for r in ranges or () if (loc := _location(site_uri, r)) is not None)
            if isinstance(ranges, list)
            else ()
        )
        symbol = call_item(item, sites)
        if symbol is not None:
            found.append(symbol)
    return tuple(found)


def workspace_edit(result: Any) -> dict[Path, list[TextChange]] | None:
    """``WorkspaceEdit | null`` as text changes per file. Raises ValueError for file creations, renames and
    deletions, which a rename of a symbol has no business doing."""
    if not isinstance(result, Mapping):
        return None
    out: dict[Path, list[TextChange]] = {}

    def add(uri: Any, edits: Any) -> None:
        path = uri_to_path(uri)
        if path is None or not isinstance(edits, list):
            return
        for edit in edits:
            where = span(edit.get("range")) if isinstance(edit, Mapping) else None
            if where is not None and isinstance(edit.get("newText"), str):
                out.setdefault(path, []).append(TextChange(where, edit["newText"]))

    document_changes = result.get("documentChanges")
    if isinstance(document_changes, list):
        for change in document_changes:
            if not isinstance(change, Mapping):
                continue
            if "kind" in change:
                raise ValueError(f"the rename would {change.get('kind')} a file, which is not applied")
            doc = change.get("textDocument")
            add(doc.get("uri") if isinstance(doc, Mapping) else None, change.get("edits"))
    changes = result.get("changes")
    if isinstance(changes, Mapping) and not out:
        for uri, edits in changes.items():
            add(uri, edits)
    return out


def diagnostics(path: Path, items: Any) -> tuple[CodeDiagnostic, ...]:
    """``Diagnostic[]`` of one file."""
    found: list[CodeDiagnostic] = []
    for item in items if isinstance(items, list) else []:
        where = span(item.get("range")) if isinstance(item, Mapping) else None
        if where is None or not isinstance(item.get("message"), str):
            continue
        code = item.get("code")
        source = item.get("source")
        found.append(
            CodeDiagnostic(
                path,
                where,
                _SEVERITIES.get(item.get("severity") or 1, "error"),
                item["message"],
                source if isinstance(source, str) else "",
                str(code) if isinstance(code, (str, int)) and not isinstance(code, bool) else "",
            )
        )
    return tuple(found)


async def off_loop(convert: Callable[..., T], result: Any, *args: Any, **kwargs: Any) -> T:
    """``convert(result, …)``, on a worker thread when the result is long (thousands of references take a good
    part of a second to read): nothing that grows with an answer runs unbounded on the event loop."""
    if isinstance(result, list) and len(result) > OFF_LOOP_ITEMS:
        return await asyncio.to_thread(convert, result, *args, **kwargs)
    return convert(result, *args, **kwargs)
