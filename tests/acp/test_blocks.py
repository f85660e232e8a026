"""Prompt content blocks → model Parts, and client MCP server entries → our mcpServers settings shape."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from agent_lsp.adapters.acp.jsonrpc import RpcError
from agent_lsp.adapters.acp.prompt import prompt_from_blocks
from agent_lsp.adapters.acp.session_setup import mcp_servers_from_acp
from agent_lsp.model.base import InlineData, Part
from agent_lsp.workspace.filesystem import LocalFileSystem

read = LocalFileSystem().read_text


async def test_text_only_prompts_stay_a_string_so_slash_commands_work() -> None:
    blocks = [{"type": "text", "text": "/memory "}, {"type": "text", "text": "show"}]
    assert await prompt_from_blocks(blocks, read) == ("/memory show", [])


async def test_resource_links(tmp_path: Path) -> None:
    notes = tmp_path / "my notes.txt"
    notes.write_text("remember @this\n")
    image = tmp_path / "shot.png"
    image.write_bytes(b"\x89PNG-bytes")
    blocks = [
        {"type": "text", "text": "Look at"},
        {"type": "resource_link", "name": "notes", "uri": notes.as_uri()},
        {"type": "resource_link", "name": "gone", "uri": (tmp_path / "gone.txt").as_uri()},
        {"type": "resource_link", "name": "docs", "uri": "https://example.com/docs"},
        {"type": "resource_link", "name": "shot", "uri": image.as_uri(), "mimeType": "image/png"},
    ]
    typed, parts = await prompt_from_blocks(blocks, read)
    assert typed == "Look at"  # what the user typed; the linked contents are attachments (never @-scanned)
    texts = [p.text for p in parts if p.text is not None]
    assert f"--- Content from {notes} ---\nremember @this\n" in texts[0]
    assert "(no such file)" in texts[1] and texts[2] == "[docs](https://example.com/docs)"
    assert parts[-1] == Part(inline_data=InlineData("image/png", b"\x89PNG-bytes"))


async def test_embedded_resources_images_and_audio() -> None:
    blob = base64.b64encode(b"%PDF-1.7").decode()
    wav = base64.b64encode(b"RIFF....WAVE").decode()
    blocks = [
        {"type": "resource", "resource": {"uri": "file:///w/a.py", "text": "print(1)", "mimeType": "text/x-python"}},
        {"type": "resource", "resource": {"uri": "file:///w/spec.pdf", "blob": blob}},
        {"type": "audio", "mimeType": "audio/wav", "data": wav},
    ]
    typed, attached = await prompt_from_blocks(blocks, read)
    assert typed == [Part(inline_data=InlineData("audio/wav", b"RIFF....WAVE"))]
    assert attached[0].text is not None and "file:///w/a.py" in attached[0].text and "print(1)" in attached[0].text
    assert attached[1].inline_data == InlineData("application/pdf", b"%PDF-1.7")


@pytest.mark.parametrize(
    ("block", "field"),
    [
        ("text", "prompt[0]"),
        ({"type": "video"}, "prompt[0].type"),
        ({"type": "image", "data": "AAAA"}, "prompt[0].mimeType"),
        ({"type": "audio", "mimeType": "audio/wav", "data": "not base64!"}, "prompt[0].data"),
        ({"type": "resource_link", "name": "x"}, "prompt[0].uri"),
        ({"type": "resource", "resource": {"uri": "x:y"}}, "prompt[0].resource"),
        ({"type": "resource", "resource": {"text": "t"}}, "prompt[0].resource.uri"),
    ],
)
async def test_bad_blocks_name_the_field(block: object, field: str) -> None:
    with pytest.raises(RpcError) as info:
        await prompt_from_blocks([block], read)
    assert info.value.code == -32602 and info.value.data == {"field": field}


def test_mcp_servers_from_the_client() -> None:
    servers = [
        {"name": "local", "command": "node", "args": ["srv.js"], "env": [{"name": "TOKEN", "value": "t"}]},
        {
            "type": "http",
            "name": "remote",
            "url": "https://h/mcp",
            "headers": [{"name": "Authorization", "value": "b"}],
        },
        {"type": "sse", "name": "events", "url": "https://h/sse", "headers": []},
    ]
    assert mcp_servers_from_acp(servers) == {
        "local": {"command": "node", "args": ["srv.js"], "env": {"TOKEN": "t"}},
        "remote": {"httpUrl": "https://h/mcp", "headers": {"Authorization": "b"}},
        "events": {"url": "https://h/sse", "type": "sse"},
    }
    with pytest.raises(RpcError) as info:
        mcp_servers_from_acp([{"type": "ws", "name": "x", "url": "ws://h"}])
    assert info.value.data == {"field": "mcpServers[0].type"}
    with pytest.raises(RpcError) as info:
        mcp_servers_from_acp([{"name": "x", "command": "c", "args": [], "env": [{"name": "A"}]}])
    assert info.value.data == {"field": "mcpServers[0].env[0]"}
