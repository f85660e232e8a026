"""Importing the model and retry modules must not pull in google.genai or openai (start-up budget)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import agent_lsp

CHECK = """
import sys
import agent_lsp.model.gemini, agent_lsp.model.openai_compat, agent_lsp.model.auth, agent_lsp.core.retry
heavy = sorted(
    m for m in sys.modules if m.split('.')[0] in ('httpx', 'httpx2', 'pydantic', 'openai') or m.startswith('google')
)
print(' '.join(heavy))
"""


def test_import_does_not_load_the_sdk() -> None:
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "", f"heavy modules imported: {done.stdout.strip()}"


OPENAI_CHECK = """
import asyncio, sys, tempfile, pathlib, json
import agent_lsp.model.openai_compat, agent_lsp.model.provider, agent_lsp.model.router
from agent_lsp.core.ports import AutoConfirmer
from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup

tmp = pathlib.Path(tempfile.mkdtemp())
script = tmp / "s.jsonl"
turn = {"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}]}
script.write_text(json.dumps({"method": "generateContentStream", "response": [turn]}) + "\\n")

async def main():
    runtime = Runtime(RuntimeOptions(fake_responses=script))
    handle = await runtime.create_session(SessionSetup(cwd=tmp, confirmer=AutoConfirmer(), record=False))
    [e async for e in handle.session.send("hi")]
    await handle.aclose()

asyncio.run(main())
print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] == 'openai')))
"""


def test_a_session_without_the_openai_provider_never_imports_openai() -> None:
    done = subprocess.run([sys.executable, "-c", OPENAI_CHECK], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "", f"openai imported: {done.stdout.strip()[:200]}"


# Which package may import which SDK; everywhere else, and at any package's top level, it is a start-up cost.
SDK_HOMES = {"google.genai": "agent_lsp/model/gemini/", "openai": "agent_lsp/model/openai_compat/"}


def _sdk_imports(tree: ast.Module) -> list[tuple[ast.stmt, str]]:
    found: list[tuple[ast.stmt, str]] = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            for sdk in SDK_HOMES:
                if name == sdk or name.startswith(sdk + "."):
                    found.append((node, sdk))
    return found


def test_only_the_sdk_packages_import_their_sdk_and_only_inside_functions() -> None:
    root = Path(agent_lsp.__file__).parent
    wrong: list[str] = []
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(root.parent).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top_level = set(map(id, tree.body))
        for node, sdk in _sdk_imports(tree):
            if not where.startswith(SDK_HOMES[sdk]):
                wrong.append(f"{where}:{node.lineno} imports {sdk} outside {SDK_HOMES[sdk]}")
            elif id(node) in top_level:
                wrong.append(f"{where}:{node.lineno} imports {sdk} at module level")
    assert not wrong, "\n".join(wrong)
