"""A new session's Gemini client is built (google-genai imported, validators ready) while the user types, so the
first prompt does not pay for it: the runtime must warm the client the session actually uses."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

from agent_lsp.core.ports import AutoConfirmer
from agent_lsp.model.gemini import GeminiClient
from agent_lsp.model.metered import MeteredClient
from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup
from tests.fakes.fake_gemini import FakeGemini
from tests.integration.test_gemini_session import chunk


async def test_new_session_warms_its_own_gemini_client_before_any_prompt(tmp_path: Path, _private_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    with FakeGemini() as fake:
        env = {
            **os.environ,
            "GEMINI_API_KEY": "warm-key",
            "GOOGLE_GEMINI_BASE_URL": fake.url,
            "AGENT_LSP_TRUST_WORKSPACE": "true",
        }
        runtime = Runtime(RuntimeOptions(env=env))
        handle = await runtime.create_session(SessionSetup(cwd=project, confirmer=AutoConfirmer(), record=False))
        metered = handle.session.client
        assert isinstance(metered, MeteredClient)  # every call of the session is counted (model/metered.py)
        client = metered.inner
        assert isinstance(client, GeminiClient)
        # No prompt yet: only the warm-up can build the SDK client. Wait for it (bounded, not timed).
        for _ in range(600):
            if client._sdk is not None and not any(t.name == "genai-warm" for t in threading.enumerate()):
                break
            await asyncio.sleep(0.05)
        assert client._sdk is not None, "the session's client was not warmed after session creation"
        built = client._sdk
        fake.push([chunk({"text": "warm"}, finish="STOP")])
        events = [e async for e in handle.session.send("hi")]
        assert "".join(getattr(e, "text", "") for e in events if e.kind == "content") == "warm"
        assert client._sdk is built  # the first prompt used the warmed client, not a second one
        await handle.aclose()
