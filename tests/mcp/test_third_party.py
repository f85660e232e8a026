"""The manager against MCP servers nobody here wrote: the reference servers from npm and PyPI, every transport."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_lsp.mcp.config import McpServerSpec
from agent_lsp.untrusted import wrap_untrusted

from .conftest import Harness
from .third_party_servers import everything_stdio, filesystem, python_server, start_everything


async def test_server_everything_over_stdio_names_calls_and_progress(tmp_path: Path) -> None:
    h = Harness([everything_stdio()], tmp_path)
    h.manager.start()
    await h.manager.wait_ready()
    try:
        assert h.manager.status() == {"everything": "connected"}, h.notices
        names = {t.name for t in h.registry.tools()}
        assert {"mcp_everything_echo", "mcp_everything_get-sum", "mcp_everything_get-tiny-image"} <= names
        echo = await h.call("everything", "echo", message="hi")
        assert echo.llm_content == wrap_untrusted("Echo: hi") and echo.display == "Echo: hi"
        image = await h.call("everything", "get-tiny-image")
        assert isinstance(image.llm_content, list)
        assert any(p.inline_data is not None and p.inline_data.mime_type == "image/png" for p in image.llm_content)

        # Every call carries a progress token, so the server reports its steps; they are the call's live output.
        lines: list[str] = []
        tool = h.tool("everything", "trigger-long-running-operation")
        done = await tool.build({"duration": 0.3, "steps": 3}).execute(lines.append)
        assert done.error is None
        assert lines == ["[1/3]\n", "[2/3]\n", "[3/3]\n"]
    finally:
        await h.manager.aclose()


async def test_server_everything_over_sse_and_streamable_http(tmp_path: Path) -> None:
    sse = start_everything("sse", tmp_path / "sse.log")
    http = start_everything("streamableHttp", tmp_path / "http.log")
    try:
        specs = [
            McpServerSpec.from_settings("old", {"url": f"http://127.0.0.1:{sse.port}/sse"}),
            McpServerSpec.from_settings("new", {"httpUrl": f"http://127.0.0.1:{http.port}/mcp"}),
        ]
        h = Harness(specs, tmp_path)
        h.manager.start()
        await h.manager.wait_ready()
        try:
            assert h.manager.status() == {"old": "connected", "new": "connected"}, h.notices
            for server in ("old", "new"):
                total = await h.call(server, "get-sum", a=2, b=3)
                assert total.llm_content == wrap_untrusted("The sum of 2 and 3 is 5."), server
                lines: list[str] = []
                tool = h.tool(server, "trigger-long-running-operation")
                await tool.build({"duration": 0.2, "steps": 2}).execute(lines.append)
                assert lines == ["[1/2]\n", "[2/2]\n"], server
        finally:
            await h.manager.aclose()
    finally:
        sse.stop()
        http.stop()


async def test_time_git_and_filesystem_servers(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git = await asyncio.create_subprocess_exec("git", "init", "-q", str(repo))
    assert await git.wait() == 0
    (repo / "notes.txt").write_text("remember the milk\n")
    h = Harness(
        [
            python_server("time", "mcp-server-time", "--local-timezone", "UTC"),
            python_server("git", "mcp-server-git", "--repository", str(repo)),
            filesystem("files", repo),
        ],
        tmp_path,
    )
    h.manager.start()
    await h.manager.wait_ready()
    try:
        assert h.manager.status() == {"time": "connected", "git": "connected", "files": "connected"}, h.notices
        now = await h.call("time", "get_current_time", timezone="Europe/Paris")
        assert now.error is None and "Europe/Paris" in str(now.llm_content)
        status = await h.call("git", "git_status", repo_path=str(repo))
        assert status.error is None and "notes.txt" in str(status.llm_content)
        text = await h.call("files", "read_text_file", path=str(repo / "notes.txt"))
        assert text.llm_content == wrap_untrusted("remember the milk\n")
        outside = await h.call("files", "read_text_file", path=str(tmp_path / "elsewhere.txt"))
        assert outside.error is not None and outside.error_type == "mcp_tool_error"  # the server refuses
        names = {t.name for t in h.registry.tools()}
        assert {"mcp_time_get_current_time", "mcp_git_git_status", "mcp_files_read_text_file"} <= names
    finally:
        await h.manager.aclose()


async def test_roots_are_the_workspace_folders_and_follow_them(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second folder"
    first.mkdir()
    second.mkdir()
    folders = [first]
    h = Harness([everything_stdio()], tmp_path, roots=lambda: list(folders))
    h.manager.start()
    await h.manager.wait_ready()
    try:
        # server-everything offers get-roots-list only to a client that declares roots.
        listed = await h.call("everything", "get-roots-list")
        assert first.as_uri() in str(listed.llm_content) and "second" not in str(listed.llm_content)
        folders.append(second)
        h.manager.roots_changed()  # the server asks again when told the list changed

        async def sees_second() -> bool:
            return second.as_uri() in str((await h.call("everything", "get-roots-list")).llm_content)

        for _ in range(100):
            if await sees_second():
                break
            await asyncio.sleep(0.05)
        assert await sees_second()
    finally:
        await h.manager.aclose()
