"""McpManager over streamable HTTP and SSE, against the real test server run by uvicorn on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

from agent_lsp.mcp.config import McpServerSpec
from agent_lsp.untrusted import wrap_untrusted

from .conftest import Harness, HttpServer, eventually, start_http_server


async def test_streamable_http_with_headers_and_trust(http_server: HttpServer, tmp_path: Path) -> None:
    spec = McpServerSpec.from_settings(
        "web", {"httpUrl": f"{http_server.base}/mcp", "headers": {"X-Probe": "yes"}, "trust": True}
    )
    h = Harness([spec], tmp_path)
    h.manager.start()
    await h.manager.wait_ready(20)
    try:
        assert h.manager.status() == {"web": "connected"}
        assert h.tool("web", "add").name == "mcp_web_add"
        assert h.tool("web", "add").trusted_server is True
        assert (await h.call("web", "add", a=40, b=2)).llm_content == wrap_untrusted("42")
        assert (await h.call("web", "header", name="X-Probe")).llm_content == wrap_untrusted("yes")
        image = await h.call("web", "image")
        assert isinstance(image.llm_content, list) and image.llm_content[0].inline_data is not None
        failed = await h.call("web", "fail")
        assert failed.error is not None and "always fails" in failed.error
        assert h.notices == []
    finally:
        await h.manager.aclose()
    assert h.manager.status() == {"web": "disconnected"}
    assert h.registry.names() == []


async def test_sse(http_server: HttpServer, tmp_path: Path) -> None:
    h = Harness([McpServerSpec("events", url=f"{http_server.base}/sse", headers={"X-Probe": "sse"})], tmp_path)
    h.manager.start()
    await h.manager.wait_ready(20)
    try:
        assert h.manager.status() == {"events": "connected"}
        assert (await h.call("events", "echo", text="over sse")).llm_content == wrap_untrusted("over sse")
        assert (await h.call("events", "header", name="X-Probe")).llm_content == wrap_untrusted("sse")
    finally:
        await h.manager.aclose()
    assert h.manager.status() == {"events": "disconnected"}


async def test_unreachable_http_server_fails_to_start(tmp_path: Path) -> None:
    # Port 9 (discard) on loopback: nothing listens there in a test environment.
    h = Harness([McpServerSpec("nowhere", http_url="http://127.0.0.1:9/mcp")], tmp_path)
    h.manager.start()
    await h.manager.wait_ready(20)
    try:
        assert h.manager.status()["nowhere"].startswith("failed: ")
        assert "'nowhere' failed to start" in h.notices[0].message
    finally:
        await h.manager.aclose()


async def test_http_server_that_dies_is_dropped(tmp_path: Path) -> None:
    server = start_http_server("--http")
    try:
        h = Harness([McpServerSpec("web", http_url=f"{server.base}/mcp")], tmp_path)
        h.manager.start()
        await h.manager.wait_ready(20)
        try:
            assert (await h.call("web", "add", a=1, b=1)).llm_content == wrap_untrusted("2")
            add = h.tool("web", "add").build({"a": 1, "b": 2})
            server.stop()
            result = await add.execute(lambda _c: None)
            assert result.error is not None
            await eventually(lambda: h.manager.status()["web"].startswith("failed"))
            assert h.registry.names() == []
            assert any("'web' disconnected" in n.message for n in h.notices)
            later = await add.execute(lambda _c: None)
            assert later.error is not None and "not connected" in later.error
        finally:
            await h.manager.aclose()
    finally:
        server.stop()
