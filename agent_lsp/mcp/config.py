"""MCP server specs: one McpServerSpec per entry of Gemini CLI's ``mcpServers`` setting (``oauth`` included), read
through the lenient typed reader (``fields.py``): every problem is named by file, key and reason."""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_lsp.child_env import ChildEnv
from agent_lsp.errors import ConfigError
from agent_lsp.fields import Fields

logger = logging.getLogger(__name__)

Transport = Literal["stdio", "sse", "http"]

DEFAULT_TIMEOUT_S = 600.0

# Keys Gemini CLI knows that we accept but do not act on, so a shared settings.json never fails to load.
_IGNORED_KEYS = frozenset(
    {
        "description",
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
        "oauth",
    }
)


@dataclass(frozen=True, repr=False)
class OAuthSettings:
    """A server's ``oauth`` entry (Gemini CLI's keys). ``client_secret`` is a secret: never in repr or logs."""

    enabled: bool = False  # sign in on the first connection, without waiting for `/mcp auth`
    client_id: str | None = None  # a client registered beforehand; else dynamic client registration
    client_secret: str | None = None
    authorization_url: str | None = None  # used when discovery finds no authorization server metadata
    token_url: str | None = None
    registration_url: str | None = None
    redirect_uri: str | None = None  # its port is where the sign-in's answer is awaited
    scopes: tuple[str, ...] | None = None
    audiences: tuple[str, ...] = ()  # accepted for Gemini CLI's settings; the MCP SDK's flow sends none
    token_param_name: str | None = None  # likewise

    def __repr__(self) -> str:
        secret = "'***'" if self.client_secret else "None"
        return f"OAuthSettings(enabled={self.enabled!r}, client_id={self.client_id!r}, client_secret={secret})"


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
    oauth: OAuthSettings | None = field(default=None, hash=False)
    # What a stdio server inherits from us besides its own ``env`` (the session's redaction settings).
    inherit: ChildEnv = field(default_factory=ChildEnv)

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

        Raises ConfigError naming the server, the offending key and why (every problem found, the first's key).
        """
        if not isinstance(name, str) or not name.strip():
            raise ConfigError("an MCP server needs a non-empty name", file, "mcpServers")
        if not isinstance(data, Mapping):
            raise ConfigError(f"MCP server '{name}' must be an object", file, f"mcpServers.{name}")
        for key in data:
            if key not in _KNOWN_KEYS and key not in _IGNORED_KEYS:
                logger.debug("MCP server %r: ignoring unknown key %r", name, key)
        fields = Fields(data, quote_keys=True)
        command = _text(fields, "command")
        url = _text(fields, "url")
        http_url = _text(fields, "httpUrl")
        kind = fields.take("type", Literal["stdio", "sse", "http"], "must be one of stdio, sse, http")
        if kind == "http" and url and not http_url:
            # Newer Gemini CLI configs spell streamable HTTP as {"type": "http", "url": ...}.
            http_url, url = url, None
        timeout_ms = fields.take("timeout", float, "must be a number")
        if timeout_ms is not None and not (math.isfinite(timeout_ms) and timeout_ms > 0):
            fields.problem("timeout", "must be a positive number of milliseconds")
            timeout_ms = None
        include = _str_list(fields, "includeTools")
        spec = cls(
            name=name,
            command=command,
            args=tuple(_str_list(fields, "args") or ()),
            env=_str_map(fields, "env"),
            cwd=_text(fields, "cwd"),
            url=url,
            http_url=http_url,
            headers=_str_map(fields, "headers"),
            timeout_s=timeout_ms / 1000.0 if timeout_ms is not None else DEFAULT_TIMEOUT_S,
            timeout_given=timeout_ms is not None,
            trust=bool(fields.take("trust", bool, "must be true or false")),
            include_tools=tuple(include) if include is not None else None,
            exclude_tools=tuple(_str_list(fields, "excludeTools") or ()),
            oauth=_oauth(fields),
        )
        if fields.problems:
            reason = "; ".join(fields.problems)
            raise ConfigError(f"MCP server '{name}': {reason}", file, f"mcpServers.{name}.{fields.keys[0]}")
        if spec.transport is None:
            raise ConfigError(
                f"MCP server '{name}' needs one of 'command' (stdio), 'url' (SSE) or 'httpUrl' (streamable HTTP)",
                file,
                f"mcpServers.{name}",
            )
        return spec


def specs_from_settings(servers: Mapping[str, Any], *, file: str | None = None) -> list[McpServerSpec]:
    """All specs of an ``mcpServers`` object, in its order."""
    if not isinstance(servers, Mapping):
        raise ConfigError("must be an object mapping server names to settings", file, "mcpServers")
    return [McpServerSpec.from_settings(name, entry, file=file) for name, entry in servers.items()]


def _matches(entry: str, tool_name: str) -> bool:
    return entry == tool_name or entry.startswith(f"{tool_name}(")


def _text(fields: Fields, key: str) -> str | None:
    return fields.take(key, str, "must be a string") or None


def _str_list(fields: Fields, key: str) -> list[str] | None:
    """A list of strings; each bad item is named by its index."""
    value = fields.take(key, list, "must be a list of strings")
    if value is None:
        return None
    checked = [fields.check(f"{key}[{i}]", item, str, "must be a string") for i, item in enumerate(value)]
    return [item for item in checked if item is not None]


def _str_map(fields: Fields, key: str) -> dict[str, str]:
    """An object of strings, or ACP's [{"name": ..., "value": ...}] list of them."""
    value = fields.lookup(key)[1]
    if value is None:
        return {}
    if isinstance(value, list | tuple):
        pairs: dict[str, Any] = {}
        for i, item in enumerate(value):
            if isinstance(item, Mapping) and isinstance(item.get("name"), str) and "value" in item:
                pairs[item["name"]] = item["value"]
            else:
                fields.problem(f"{key}[{i}]", "must be an object with 'name' and 'value'")
        value = pairs
    if not isinstance(value, Mapping):
        fields.problem(key, "must be an object of strings")
        return {}
    out: dict[str, str] = {}
    for k, v in value.items():
        # Numbers and booleans are common in hand-written env blocks; their text form is unambiguous.
        if isinstance(v, bool):
            out[str(k)] = "true" if v else "false"
        elif isinstance(v, str | int | float):
            out[str(k)] = str(v)
        else:
            fields.problem(f"{key}.{k}", "must be a string")
    return out


def _oauth(fields: Fields) -> OAuthSettings | None:
    """Gemini CLI's ``oauth`` object, its keys as Gemini CLI spells them; problems are named ``oauth.<key>``."""
    raw = fields.take("oauth", Mapping, "must be an object")
    if raw is None:
        return None
    inner = Fields(raw, quote_keys=True)
    scopes = _str_list(inner, "scopes")
    audiences = _str_list(inner, "audiences")
    settings = OAuthSettings(
        enabled=bool(inner.take("enabled", bool, "must be true or false")),
        client_id=_text(inner, "clientId"),
        client_secret=_text(inner, "clientSecret"),
        authorization_url=_url(inner, "authorizationUrl"),
        token_url=_url(inner, "tokenUrl"),
        registration_url=_url(inner, "registrationUrl"),
        redirect_uri=_url(inner, "redirectUri"),
        scopes=tuple(scopes) if scopes is not None else None,
        audiences=tuple(audiences or ()),
        token_param_name=_text(inner, "tokenParamName"),
    )
    for key, problem in zip(inner.keys, inner.problems, strict=True):
        fields.keys.append(f"oauth.{key}")
        fields.problems.append(f"oauth.{problem}")
    return settings


def _url(fields: Fields, key: str) -> str | None:
    value = _text(fields, key)
    if value is not None and not value.startswith(("http://", "https://")):
        fields.problem(key, "must be an http:// or https:// URL")
        return None
    return value
