"""The core's dependencies point one way: it imports only the layers below it, never tools, adapters or protocols."""

from __future__ import annotations

import ast
from pathlib import Path

import agent_lsp

PACKAGE = Path(agent_lsp.__file__).parent
# What the core may build on (its own modules included); anything else of ours is above it.
CORE_MAY_IMPORT = (
    "agent_lsp.core",
    "agent_lsp.events",
    "agent_lsp.errors",
    "agent_lsp.model",
    "agent_lsp.titles",
    "agent_lsp.untrusted",
    "agent_lsp.vocabulary",
)
# Protocol and SDK libraries stop at the adapters (and mcp/ for the MCP SDK).
FOREIGN = ("pygls", "lsprotocol", "mcp", "acp", "google", "openai", "httpx")


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports, lazily or under TYPE_CHECKING included, with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.extend((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            out.append((node.lineno, "." * node.level + (node.module or "")))
    return sorted(out)


def violations(path: Path) -> list[str]:
    bad = []
    for line, name in imported_modules(path):
        top = name.split(".")[0]
        if name.startswith("."):
            bad.append(f"{path.name}:{line}: relative import {name}")
        else:
            ours = top == "agent_lsp"
            allowed = any(name == m or name.startswith(m + ".") for m in CORE_MAY_IMPORT)
            if (ours and not allowed) or top in FOREIGN:
                bad.append(f"{path.name}:{line}: {name}")
    return bad


def test_core_imports_only_the_layers_below_it() -> None:
    files = sorted((PACKAGE / "core").glob("*.py"))
    assert len(files) > 10  # the walk found the package
    found = [v for f in files for v in violations(f)]
    assert found == []


def test_the_check_catches_what_it_forbids(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from typing import TYPE_CHECKING\n"
        "from agent_lsp.tools.registry import ToolRegistry\n"
        "import pygls.server\n"
        "if TYPE_CHECKING:\n"
        "    from agent_lsp.adapters.acp import agent\n"
        "def f():\n"
        "    from agent_lsp import runtime\n"
        "    from agent_lsp import events\n"
        "    from agent_lsp.core.tool import Tool\n",
        encoding="utf-8",
    )
    assert violations(bad) == [
        "bad.py:2: agent_lsp.tools.registry.ToolRegistry",
        "bad.py:3: pygls.server",
        "bad.py:5: agent_lsp.adapters.acp.agent",
        "bad.py:7: agent_lsp.runtime",
    ]


def test_the_tool_contract_has_one_home() -> None:
    """tools/base.py re-exports the core's contract for the built-in tools; it defines no second one."""
    from agent_lsp.core import tool as core_tool
    from agent_lsp.tools import base

    for name in ("Tool", "ToolInvocation", "ToolResult", "OutputSink"):
        assert getattr(base, name) is getattr(core_tool, name)
