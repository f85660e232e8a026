"""A request's params read through the lenient typed reader (agent_lsp/fields.py), strictly: ACP answers the first
bad field with -32602 naming its path and the reason, so the editor's developer sees which one to fix."""

from __future__ import annotations

from typing import Any

from agent_lsp.adapters.acp.jsonrpc import RpcError
from agent_lsp.fields import Fields


class Params:
    """The fields of one params object (or one object inside them, ``where`` being its path, e.g. ``mcpServers[0]``)."""

    def __init__(self, data: dict[str, Any], where: str = "") -> None:
        self.fields = Fields(data)
        self.where = where

    def take(self, key: str, tp: Any, must: str) -> Any:
        """The value at ``key`` if it is a ``tp``; None when absent or null; -32602 when it is something else."""
        return self._checked(key, self.fields.take(key, tp, must), must)

    def require(self, key: str, tp: Any, must: str) -> Any:
        """Like ``take``, and absent, null or an empty string is -32602 too."""
        value = self.fields.require(key, tp, must)
        if value == "":
            self.fields.problem(key, must)
        return self._checked(key, value, must)

    def _checked(self, key: str, value: Any, must: str) -> Any:
        if self.fields.problems:
            raise RpcError.invalid_params(f"{self.where}.{key}" if self.where else key, must)
        return value


def params_object(params: Any) -> dict[str, Any]:
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise RpcError.invalid_params("params", "must be an object")
    return params


def require_str(params: dict[str, Any], key: str) -> str:
    value: str = Params(params).require(key, str, "is required and must be a non-empty string")
    return value


def optional_str(params: dict[str, Any], key: str) -> str | None:
    value: str | None = Params(params).take(key, str, "must be a string")
    return value


def require_list(params: dict[str, Any], key: str, *, default_empty: bool = False) -> list[Any]:
    """The array at ``key`` (an empty one included); [] when absent and ``default_empty``."""
    must = "is required and must be an array"
    reader = Params(params)
    value: list[Any] | None = reader.take(key, list, must) if default_empty else reader.require(key, list, must)
    return value if value is not None else []
