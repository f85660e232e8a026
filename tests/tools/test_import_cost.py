"""Start-up budget: opening a session builds every tool's declaration without importing what only a call needs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

# Imported by a tool's first call, never by building the tool set: the page-to-text parser and the local
# fetcher (web_fetch), the shell parser package and its grammar (run_shell_command), diffs and the review of a
# user-edited proposal (edit tools), the TOML parser (policy and custom-command files, when there are any),
# and the glob matchers.
CALL_ONLY = (
    "html.parser",
    "agent_lsp.tools.web_fetch_local",
    "httpx",
    "agent_lsp.shellparse",
    "tree_sitter",
    "difflib",
    "agent_lsp.tools.review_report",
    "tomllib",
    "wcmatch",
    "bracex",
)
# With Gemini configured the client is built at once, but not its SDK (warmed after session/new) nor the date
# parser a Retry-After header may need.
GEMINI_CALL_ONLY = (*CALL_ONLY, "email.utils", "google.genai")

CHECK = """
import asyncio, json, os, pathlib, sys, tempfile

tmp = pathlib.Path(tempfile.mkdtemp())
os.environ.update(HOME=str(tmp / "home"), AGENT_LSP_HOME=str(tmp / "state"), AGENT_LSP_TRUST_WORKSPACE="true")
(tmp / "project").mkdir()
script = tmp / "empty.jsonl"
script.write_text("")
watched = json.loads(sys.argv[1])
replay = sys.argv[2] == "replay"

from agent_lsp.core.ports import AutoConfirmer
from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup


async def main():
    runtime = Runtime(RuntimeOptions(fake_responses=script if replay else None, warm_model=False))
    handle = await runtime.create_session(SessionSetup(cwd=tmp / "project", confirmer=AutoConfirmer(), record=False))
    registry = handle.session.registry
    declared = [d.name for d in registry.declarations()]
    opened = [m for m in watched if m in sys.modules]
    shell = registry.get("run_shell_command")
    problem = shell.validate({"command": "ls -la"})
    await handle.aclose()
    after_shell = "agent_lsp.shellparse" in sys.modules
    return {
        "declared": declared,
        "opened": opened,
        "shell_problem": problem,
        "after_shell": after_shell,
        "client": type(handle.session.client.inner).__name__,  # the metered wrapper around the provider's client
    }


print(json.dumps(asyncio.run(main())))
"""


@pytest.mark.parametrize(
    ("provider", "watched", "client"),
    [("replay", CALL_ONLY, "ReplayModel"), ("gemini", GEMINI_CALL_ONLY, "GeminiClient")],
)
def test_a_new_session_declares_every_tool_without_importing_what_only_a_call_needs(
    provider: str, watched: tuple[str, ...], client: str
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI_", "GOOGLE_", "OPENAI_"))}
    if provider == "gemini":
        env["GEMINI_API_KEY"] = "test-key"  # never used: no request is made
    done = subprocess.run(
        [sys.executable, "-c", CHECK, json.dumps(watched), provider],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=env,
    )
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["client"] == client
    assert {"web_fetch", "run_shell_command", "replace", "write_file", "glob", "grep_search"} <= set(seen["declared"])
    assert seen["opened"] == [], f"imported while opening a session: {seen['opened']}"
    # The shell check still runs its parser: it is loaded on the first command checked.
    assert seen["shell_problem"] is None
    assert seen["after_shell"] is True
