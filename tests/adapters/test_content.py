"""One content-block reader for every front end (adapters/content.py): what the user typed stays a string when it is
only text, a link to a file is read through the front end's file system and attached, a link to a folder is an
``@path`` mention, embedded text has one framing, base64 is checked on every block, a bad field is named."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from agent_lsp.adapters.content import BlockError, read_blocks
from agent_lsp.model.base import InlineData, Part
from agent_lsp.workspace.filesystem import LocalFileSystem

read = LocalFileSystem().read_text


async def test_text_only_prompts_stay_a_string_so_slash_commands_work() -> None:
    blocks = [{"type": "text", "text": "/memory "}, {"type": "text", "text": "show"}]
    assert await read_blocks(blocks, read) == ("/memory show", [])


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
    typed, parts = await read_blocks(blocks, read)
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
    typed, attached = await read_blocks(blocks, read)
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
        ({"type": "resource", "resource": {"uri": "x:y", "blob": "not base64!"}}, "prompt[0].resource.blob"),
        ({"type": "resource_link", "name": "x"}, "prompt[0].uri"),
        ({"type": "resource", "resource": {"uri": "x:y"}}, "prompt[0].resource"),
        ({"type": "resource", "resource": {"text": "t"}}, "prompt[0].resource.uri"),
    ],
)
async def test_bad_blocks_name_the_field(block: object, field: str) -> None:
    with pytest.raises(BlockError) as info:
        await read_blocks([block], read)
    assert info.value.where == field


async def test_a_linked_file_is_read_through_the_front_ends_file_system_and_a_folder_is_a_mention(
    tmp_path: Path,
) -> None:
    (tmp_path / "src dir").mkdir()
    app = tmp_path / "app.py"
    app.write_text("on disk\n")

    async def editor(path: Path) -> str:  # the editor's unsaved buffer wins over the disk
        return "unsaved @buffer\n" if path == app else await read(path)

    blocks = [
        {"type": "text", "text": "compare"},
        {"type": "resource_link", "name": "app.py", "uri": app.as_uri()},
        {"type": "resource_link", "name": "src", "uri": (tmp_path / "src dir").as_uri()},
    ]
    typed, attached = await read_blocks(blocks, editor)
    assert typed == f"compare @{tmp_path}/src\\ dir "  # the session's mention expander reads the folder
    assert attached == [Part(text=f"\n--- Content from {app} ---\nunsaved @buffer\n\n--- End of content ---\n")]
    with pytest.raises(BlockError) as info:
        await read_blocks({"type": "text"}, read)
    assert info.value.where == "prompt"
