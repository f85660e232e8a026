"""Start-up budget: importing our MCP modules must not import the mcp SDK (or its HTTP stack)."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys
import agent_lsp.mcp.manager, agent_lsp.mcp.tool, agent_lsp.mcp.config, agent_lsp.mcp.schema
import agent_lsp.mcp.connection, agent_lsp.mcp.transport, agent_lsp.mcp.registration
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("mcp", "mcp_types", "httpx2"))
print(",".join(heavy))
"""


def test_importing_the_manager_does_not_import_the_sdk() -> None:
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=30, check=True)
    assert out.stdout.strip() == ""
