"""McpServerSpec.from_settings: Gemini CLI's mcpServers entry shape, units and validation messages."""

from __future__ import annotations

from typing import Any

import pytest

from agent_lsp.errors import ConfigError
from agent_lsp.mcp.config import DEFAULT_TIMEOUT_S, McpServerSpec, specs_from_settings


def test_stdio_entry_with_every_key() -> None:
    spec = McpServerSpec.from_settings(
        "files",
        {
            "command": "node",
            "args": ["server.js", "--flag"],
            "env": {"TOKEN": "abc", "PORT": 8080, "DEBUG": True},
            "cwd": "/srv",
            "timeout": 1500,
            "trust": True,
            "includeTools": ["read", "write"],
            "excludeTools": ["write"],
            "description": "ignored but accepted",
        },
        file="/home/me/.gemini/settings.json",
    )
    assert spec.transport == "stdio"
    assert spec.command == "node"
    assert spec.args == ("server.js", "--flag")
    assert spec.env == {"TOKEN": "abc", "PORT": "8080", "DEBUG": "true"}
    assert spec.cwd == "/srv"
    assert spec.timeout_s == 1.5  # settings say milliseconds
    assert spec.trust is True
    assert spec.include_tools == ("read", "write")
    assert spec.exclude_tools == ("write",)


def test_defaults_and_transport_precedence() -> None:
    spec = McpServerSpec.from_settings("s", {"command": "x", "url": "http://h/sse", "httpUrl": "http://h/mcp"})
    assert spec.transport == "http"
    assert spec.timeout_s == DEFAULT_TIMEOUT_S
    assert spec.trust is False
    assert spec.include_tools is None
    assert spec.exclude_tools == ()
    assert McpServerSpec.from_settings("s", {"command": "x", "url": "http://h/sse"}).transport == "sse"


def test_acp_style_name_value_lists_for_env_and_headers() -> None:
    spec = McpServerSpec.from_settings(
        "editor",
        {"type": "sse", "url": "http://h/sse", "headers": [{"name": "Authorization", "value": "Bearer t"}]},
    )
    assert spec.transport == "sse"
    assert spec.headers == {"Authorization": "Bearer t"}
    stdio = McpServerSpec.from_settings("s", {"command": "x", "env": [{"name": "A", "value": "1"}]})
    assert stdio.env == {"A": "1"}
    with pytest.raises(ConfigError) as info:
        McpServerSpec.from_settings("s", {"command": "x", "env": [{"A": "1"}]})
    assert info.value.key == "mcpServers.s.env[0]"


def test_type_http_with_url_means_streamable_http() -> None:
    spec = McpServerSpec.from_settings("s", {"type": "http", "url": "http://h/mcp", "headers": {"Authorization": "t"}})
    assert spec.transport == "http"
    assert spec.http_url == "http://h/mcp"
    assert spec.url is None
    assert spec.headers == {"Authorization": "t"}


@pytest.mark.parametrize(
    ("entry", "key", "words"),
    [
        ({}, "mcpServers.srv", "needs one of"),
        ({"command": 3}, "mcpServers.srv.command", "must be a string"),
        ({"command": "x", "args": "a b"}, "mcpServers.srv.args", "list of strings"),
        ({"command": "x", "args": ["a", 1]}, "mcpServers.srv.args[1]", "must be a string"),
        ({"command": "x", "env": "A=1"}, "mcpServers.srv.env", "object of strings"),
        ({"command": "x", "env": {"A": {"b": 1}}}, "mcpServers.srv.env.A", "must be a string"),
        ({"command": "x", "timeout": "10s"}, "mcpServers.srv.timeout", "must be a number"),
        ({"command": "x", "timeout": 0}, "mcpServers.srv.timeout", "positive"),
        ({"command": "x", "trust": "yes"}, "mcpServers.srv.trust", "true or false"),
        ({"command": "x", "includeTools": "a"}, "mcpServers.srv.includeTools", "list of strings"),
        ({"url": "http://h", "type": "websocket"}, "mcpServers.srv.type", "must be one of"),
    ],
)
def test_validation_errors_name_server_and_key(entry: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        McpServerSpec.from_settings("srv", entry, file="settings.json")
    err = info.value
    assert err.key == key
    assert err.file == "settings.json"
    assert "'srv'" in str(err)
    assert words in str(err)


def test_entry_must_be_an_object() -> None:
    with pytest.raises(ConfigError, match="'srv' must be an object"):
        McpServerSpec.from_settings("srv", "node server.js")  # type: ignore[arg-type]


def test_filters_exclude_wins_and_argument_suffixes_match() -> None:
    spec = McpServerSpec("s", command="x", include_tools=("read(path)", "write", "list"), exclude_tools=("write",))
    assert spec.allows("read")
    assert spec.allows("list")
    assert not spec.allows("write")  # excluded even though included
    assert not spec.allows("delete")  # not included
    assert not spec.allows("rea")
    assert McpServerSpec("s", command="x", exclude_tools=("rm",)).allows("anything")


def test_specs_from_settings_keeps_order_and_validates_shape() -> None:
    specs = specs_from_settings({"b": {"command": "x"}, "a": {"httpUrl": "http://h/mcp"}})
    assert [s.name for s in specs] == ["b", "a"]
    with pytest.raises(ConfigError):
        specs_from_settings(["not", "a", "mapping"])  # type: ignore[arg-type]


def test_spec_is_hashable_despite_dict_fields() -> None:
    spec = McpServerSpec("s", command="x", env={"A": "1"})
    assert hash(spec) == hash(McpServerSpec("s", command="x", env={"A": "2"}))


def test_oauth_settings_as_gemini_cli_spells_them() -> None:
    spec = McpServerSpec.from_settings(
        "remote",
        {
            "httpUrl": "https://mcp.example/mcp",
            "oauth": {
                "enabled": True,
                "clientId": "cli",
                "clientSecret": "s3cret",
                "scopes": ["read", "write"],
                "authorizationUrl": "https://auth.example/authorize",
                "tokenUrl": "https://auth.example/token",
                "redirectUri": "http://localhost:7777/oauth/callback",
                "audiences": ["api"],
            },
        },
    )
    oauth = spec.oauth
    assert oauth is not None and oauth.enabled and oauth.client_id == "cli"
    assert oauth.scopes == ("read", "write") and oauth.audiences == ("api",)
    assert oauth.redirect_uri == "http://localhost:7777/oauth/callback"
    assert "s3cret" not in repr(spec) and "s3cret" not in repr(oauth)


@pytest.mark.parametrize(
    ("oauth", "key", "words"),
    [
        ([], "mcpServers.srv.oauth", "must be an object"),
        ({"enabled": "yes"}, "mcpServers.srv.oauth.enabled", "true or false"),
        ({"scopes": "read"}, "mcpServers.srv.oauth.scopes", "list of strings"),
        ({"scopes": ["read", 3]}, "mcpServers.srv.oauth.scopes[1]", "must be a string"),
        ({"tokenUrl": "ftp://h/token"}, "mcpServers.srv.oauth.tokenUrl", "http:// or https:// URL"),
    ],
)
def test_bad_oauth_values_name_file_key_and_reason(oauth: Any, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        McpServerSpec.from_settings("srv", {"httpUrl": "http://h/mcp", "oauth": oauth}, file="settings.json")
    assert (info.value.key, info.value.file) == (key, "settings.json")
    assert words in str(info.value) and "'srv'" in str(info.value)
