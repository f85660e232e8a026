"""The editors' ``@`` pickers over MCP resources: listed resources matching what was typed, resource templates,
and a template's value completed by its server (``completion/complete``) once the typing reaches it."""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_lsp.mcp.manager import McpManager

log = logging.getLogger(__name__)

_VARIABLE = re.compile(r"\{([^{}]+)\}")
_COMPLETE_S = 5.0  # a picker row is not worth a longer wait


@dataclass(frozen=True)
class ResourceHit:
    """One row of a picker: ``mention`` is what follows the ``@`` (``server:uri``). A template's row has the
    template as its mention and ``template`` set: picking it puts the text before the first ``{`` in the box."""

    mention: str
    server: str
    name: str
    description: str = ""
    template: bool = False

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mention": self.mention, "server": self.server, "name": self.name}
        if self.description:
            out["description"] = self.description
        if self.template:
            out["template"] = True
            out["prefix"] = self.mention.split("{", 1)[0]
        return out


async def find_resources(manager: McpManager, query: str, limit: int) -> list[ResourceHit]:
    """The connected servers' resources for ``query`` (the text after ``@``), best first: listed resources whose
    mention or name contains it, then templates; a query that runs into a template's variable is completed."""
    q = query.lower()
    hits: list[ResourceHit] = []
    for server, res in manager.resources():
        mention = f"{server}:{res.uri}"
        name = str(res.title or res.name or res.uri)
        if q in mention.lower() or q in name.lower():
            hits.append(ResourceHit(mention, server, name, str(res.description or "")))
    for srv in manager.servers():
        if srv.state != "connected":
            continue
        for tpl in srv.templates:
            hits.extend(await _template_hits(srv, tpl, query))
    return hits[:limit]


async def _template_hits(srv: Any, tpl: Any, query: str) -> list[ResourceHit]:
    server = srv.spec.name
    mention = f"{server}:{tpl.uri_template}"
    name = str(tpl.title or tpl.name or tpl.uri_template)
    description = str(tpl.description or "")
    variable = _VARIABLE.search(mention)
    prefix = mention[: variable.start()] if variable else mention
    if variable is None or not query.startswith(prefix) or len(query) == len(prefix):
        shown = query.lower() in mention.lower() or query.lower() in name.lower() or prefix.startswith(query)
        return [ResourceHit(mention, server, name, description, template=True)] if shown else []
    rest = mention[variable.end() :]
    if _VARIABLE.search(rest):
        return []  # only a template's first variable, before a literal end, is completed
    values = await _complete(srv, tpl.uri_template, variable.group(1), query[len(prefix) :])
    return [ResourceHit(prefix + v + rest, server, name, description) for v in values]


async def _complete(srv: Any, template: str, argument: str, value: str) -> list[str]:
    """The server's completions of ``argument`` (none when it offers no completions or the request fails)."""
    session = srv.session
    caps = getattr(session, "server_capabilities", None)
    if session is None or getattr(caps, "completions", None) is None:
        return []
    from mcp_types import ResourceTemplateReference

    try:
        async with asyncio.timeout(_COMPLETE_S):
            result = await session.complete(ResourceTemplateReference(uri=template), {"name": argument, "value": value})
    except Exception:
        log.info("MCP server %r could not complete %s", srv.spec.name, template, exc_info=True)
        return []
    return [str(v) for v in result.completion.values]
