"""MCP servers' forms over ACP: ``elicitation/create`` (form mode) to a client that advertised
``elicitation.form``; otherwise a small form (a yes/no, one choice) becomes a permission question, and any
other is declined."""

from __future__ import annotations

import itertools
import logging
from typing import Any

from agent_lsp.adapters.acp.jsonrpc import Connection, RpcError
from agent_lsp.mcp.elicitation import FormAnswer, FormField, FormRequest, simple_choices

log = logging.getLogger(__name__)

_ids = itertools.count(1)
_DECLINE = "decline"


class AcpElicitor:
    """Asks the ACP client for a server's form; cancelling the prompt cancels the wait."""

    def __init__(self, conn: Connection, session_id: str, *, form: bool) -> None:
        self.conn = conn
        self.session_id = session_id
        self.form = form

    async def elicit(self, request: FormRequest) -> FormAnswer:
        try:
            if self.form:
                return FormAnswer.from_json(await self.conn.request("elicitation/create", self.create_params(request)))
            return await self._ask(request)
        except RpcError as exc:
            log.warning("asking the editor for MCP server %r's form failed: %s", request.server, exc.message)
            return FormAnswer("decline")
        except ConnectionError:
            return FormAnswer("cancel")

    def create_params(self, request: FormRequest) -> dict[str, Any]:
        return {
            "sessionId": self.session_id,
            "mode": "form",
            "message": f"MCP server '{request.server}': {request.message}",
            "requestedSchema": acp_schema(request),
        }

    async def _ask(self, request: FormRequest) -> FormAnswer:
        """The permission-style question for a form small enough; decline for any other."""
        choices = simple_choices(request)
        if choices is None:
            log.info("MCP server %r asked for a form; declined (the client shows no forms)", request.server)
            return FormAnswer("decline")
        call_id = f"mcp-elicitation-{next(_ids)}"
        options = [
            {"optionId": f"choice-{i}", "name": label, "kind": "allow_once"} for i, (label, _) in enumerate(choices)
        ]
        options.append({"optionId": _DECLINE, "name": "Decline", "kind": "reject_once"})
        params = {
            "sessionId": self.session_id,
            "toolCall": {"toolCallId": call_id, "title": request.question, "kind": "other", "status": "pending"},
            "options": options,
        }
        answer = await self.conn.request("session/request_permission", params)
        outcome = answer.get("outcome") if isinstance(answer, dict) else None
        if not isinstance(outcome, dict) or outcome.get("outcome") != "selected":
            return FormAnswer("cancel")
        picked = str(outcome.get("optionId"))
        for i, (_label, content) in enumerate(choices):
            if picked == f"choice-{i}":
                return FormAnswer("accept", content)
        return FormAnswer("decline")


def acp_schema(request: FormRequest) -> dict[str, Any]:
    """ACP's ElicitationSchema for the form: each field as its property schema, enums with titled options."""
    props = {f.name: _property(f) for f in request.fields}
    schema: dict[str, Any] = {"type": "object", "properties": props}
    required = [f.name for f in request.fields if f.required]
    if required:
        schema["required"] = required
    return schema


def _property(f: FormField) -> dict[str, Any]:
    out: dict[str, Any] = {"title": f.title}
    if f.description:
        out["description"] = f.description
    titled = [{"const": value, "title": label} for value, label in f.options]
    if f.kind == "choice":
        out.update(type="string", oneOf=titled)
    elif f.kind == "choices":
        out.update(type="array", items={"anyOf": titled})
    else:
        out["type"] = f.kind
    if f.kind == "string" and f.format in ("email", "uri", "date", "date-time"):
        out["format"] = f.format
    if f.kind in ("number", "integer"):
        for key in ("minimum", "maximum"):
            bound = getattr(f, key)
            if bound is not None:
                out[key] = int(bound) if f.kind == "integer" else bound
    if f.default is not None:
        out["default"] = f.default
    return out
