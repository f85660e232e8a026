"""MCP server specs: one McpServerSpec per entry of Gemini CLI's ``mcpServers`` setting, validated."""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NoReturn

from agent_lsp.errors import ConfigError

logger = logging.getLogger(__name__)

Transport = Literal["stdio", "sse", "http"]

DEFAULT_TIMEOUT_S = 600.0

# Keys Gemini CLI knows that we accept but do not act on, so a shared settings.json never fails to load.
_IGNORED_KEYS = frozenset(
    {
        "description",
        "oauth",
        "authProviderType",
        "targetAudience",
        "targetServiceAccount",
        "extension",
        "extensionName",
        "tcp",
    }
)
_KNOWN_KEYS = frozenset(
    {
        "command",
        "args",
        "env",
        "cwd",
        "url",
        "httpUrl",
        "type",
        "headers",
        "timeout",
        "trust",
        "includeTools",
        "excludeTools",
    }
)


@dataclass(frozen=True)
class McpServerSpec:
    """How to reach one MCP server and which of its tools to offer the model.

    Exactly one transport is used, in this order of precedence: ``http_url`` (streamable HTTP), ``url``
    (SSE), ``command`` (stdio subprocess).
    """

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict, hash=False)
    cwd: str | None = None
    url: str | None = None
    http_url: str | None = None
    headers: dict[str, str] = field(default_factory=dict, hash=False)
    timeout_s: float = DEFAULT_TIMEOUT_S
    # Whether ``timeout`` was set: then it bounds connecting too, as in Gemini CLI; else the manager's default does.
    timeout_given: bool = False
    trust: bool = False
    include_tools: tuple[str, ...] | None = None
    exclude_tools: tuple[str, ...] = ()

    @property
    def transport(self) -> Transport | None:
        if self.http_url:
            return "http"
        if self.url:
            return "sse"
        if self.command:
            return "stdio"
        return None

    def connect_timeout_s(self, default_s: float) -> float:
        """How long connecting (handshake and first listing) may take: ``timeout`` when set, else ``default_s``."""
        return self.timeout_s if self.timeout_given else default_s

    def allows(self, tool_name: str) -> bool:
        """Whether the filters let this server tool through. Exclusion wins over inclusion.

        Entries may carry an argument suffix like ``tool(…)`` (Gemini CLI allows it); it matches the bare name.
        """
        if any(_matches(entry, tool_name) for entry in self.exclude_tools):
            return False
        if self.include_tools is None:
            return True
        return any(_matches(entry, tool_name) for entry in self.include_tools)

    @classmethod
    def from_settings(cls, name: str, data: Mapping[str, Any], *, file: str | None = None) -> McpServerSpec:
        """Build a spec from one ``mcpServers`` entry. ``timeout`` there is in milliseconds, as in Gemini CLI.

        Raises ConfigError naming the server and the offending key.
        """
        if not isinstance(name, str) or not name.strip():
            raise ConfigError("an MCP server needs a non-empty name", file, "mcpServers")
        if not isinstance(data, Mapping):
            raise ConfigError(f"MCP server '{name}' must be an object", file, f"mcpServers.{name}")
        reader = _Reader(name, data, file)
        for key in data:
            if key not in _KNOWN_KEYS and key not in _IGNORED_KEYS:
                logger.debug("MCP server %r: ignoring unknown key %r", name, key)

        command = reader.optional_str("command")
        url = reader.optional_str("url")
        http_url = reader.optional_str("httpUrl")
        kind = reader.optional_str("type")
        if kind is not None and kind not in ("stdio", "sse", "http"):
            reader.fail("type", f"must be one of stdio, sse, http (got {kind!r})")
        if kind == "http" and url and not http_url:
            # Newer Gemini CLI configs spell streamable HTTP as {"type": "http", "url": ...}.
            http_url, url = url, None
        if not (command or url or http_url):
            raise ConfigError(
                f"MCP server '{name}' needs one of 'command' (stdio), 'url' (SSE) or 'httpUrl' (streamable HTTP)",
                file,
                f"mcpServers.{name}",
            )

        timeout_ms = reader.optional_number("timeout")
        if timeout_ms is not None and timeout_ms <= 0:
            reader.fail("timeout", "must be a positive number of milliseconds")
        include = reader.optional_str_list("includeTools")
        return cls(
            name=name,
            command=command,
            args=tuple(reader.optional_str_list("args") or ()),
            env=reader.optional_str_map("env"),
            cwd=reader.optional_str("cwd"),
            url=url,
            http_url=http_url,
            headers=reader.optional_str_map("headers"),
            timeout_s=timeout_ms / 1000.0 if timeout_ms is not None else DEFAULT_TIMEOUT_S,
            timeout_given=timeout_ms is not None,
            trust=reader.optional_bool("trust"),
            include_tools=tuple(include) if include is not None else None,
            exclude_tools=tuple(reader.optional_str_list("excludeTools") or ()),
        )


def specs_from_settings(servers: Mapping[str, Any], *, file: str | None = None) -> list[McpServerSpec]:
    """All specs of an ``mcpServers`` object, in its order."""
    if not isinstance(servers, Mapping):
        raise ConfigError("must be an object mapping server names to settings", file, "mcpServers")
    return [McpServerSpec.from_settings(name, entry, file=file) for name, entry in servers.items()]


def _matches(entry: str, tool_name: str) -> bool:
    return entry == tool_name or entry.startswith(f"{tool_name}(")


class _Reader:
    """Typed access to one server entry; every failure names the server and the key."""

    def __init__(self, server: str, data: Mapping[str, Any], file: str | None) -> None:
        self.server = server
        self.data = data
        self.file = file

    def fail(self, key: str, reason: str) -> NoReturn:
        raise ConfigError(f"MCP server '{self.server}': '{key}' {reason}", self.file, f"mcpServers.{self.server}.{key}")

    def optional_str(self, key: str) -> str | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            self.fail(key, f"must be a string (got {type(value).__name__})")
        return str(value) or None

    def optional_bool(self, key: str) -> bool:
        value = self.data.get(key)
        if value is None:
            return False
        if not isinstance(value, bool):
            self.fail(key, f"must be true or false (got {value!r})")
        return bool(value)

    def optional_number(self, key: str) -> float | None:
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            self.fail(key, f"must be a number (got {value!r})")
        return float(value)

    def optional_str_list(self, key: str) -> list[str] | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, list | tuple):
            self.fail(key, f"must be a list of strings (got {type(value).__name__})")
        for i, item in enumerate(value):
            if not isinstance(item, str):
                self.fail(f"{key}[{i}]", f"must be a string (got {item!r})")
        return [str(v) for v in value]

    def optional_str_map(self, key: str) -> dict[str, str]:
        value = self.data.get(key)
        if value is None:
            return {}
        if isinstance(value, list | tuple):
            # ACP clients send env and headers as [{"name": ..., "value": ...}].
            pairs: dict[str, Any] = {}
            for i, item in enumerate(value):
                if not (isinstance(item, Mapping) and isinstance(item.get("name"), str) and "value" in item):
                    self.fail(f"{key}[{i}]", "must be an object with 'name' and 'value'")
                pairs[item["name"]] = item["value"]
            value = pairs
        if not isinstance(value, Mapping):
            self.fail(key, f"must be an object of strings (got {type(value).__name__})")
        out: dict[str, str] = {}
        for k, v in value.items():
            # Numbers and booleans are common in hand-written env blocks; their text form is unambiguous.
            if isinstance(v, bool):
                out[str(k)] = "true" if v else "false"
            elif isinstance(v, str | int | float):
                out[str(k)] = str(v)
            else:
                self.fail(f"{key}.{k}", f"must be a string (got {type(v).__name__})")
        return out
