"""Agent definition files as Gemini CLI 0.61 reads them: built-ins first, the workspace's (trusted only) before the
user's, and every file that cannot be used named in a notice."""

from __future__ import annotations

from pathlib import Path

from agent_lsp.config.settings import AgentsSettings
from agent_lsp.tools.internal_docs import GetInternalDocsTool
from agent_lsp.tools.subagents import BUILT_IN, agent_dirs, apply_overrides, load_agents


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_definitions_their_order_and_their_problems(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    write(ws / ".gemini" / "agents" / "fixer.md", "---\nname: fixer\ndescription: Workspace fixer.\n---\nFix.\n")
    write(home / ".gemini" / "agents" / "fixer.md", "---\nname: fixer\ndescription: User fixer.\n---\nFix!\n")
    write(home / ".gemini" / "agents" / "_draft.md", "not read at all")
    write(home / ".gemini" / "agents" / "bare.md", "no front matter\n")
    write(home / ".gemini" / "agents" / "odd.md", "---\nname: odd\ndescription: x\ncolour: blue\n---\n")
    write(
        home / ".gemini" / "agents" / "mcp.md",
        "---\nname: mcp\ndescription: Uses servers.\ntools: [read_file, '*']\n"
        "mcp_servers:\n  x:\n    command: y\n---\n",
    )
    agents, problems = load_agents(agent_dirs(ws, home=home, trusted=True))
    by_name = {a.name: a for a in agents}
    assert list(by_name)[:3] == ["codebase_investigator", "cli_help", "generalist"]
    assert by_name["fixer"].description == "Workspace fixer." and by_name["fixer"].system_prompt == "Fix."
    assert by_name["mcp"].tools is None  # "*": every tool
    assert any("Duplicate agent name 'fixer'" in p for p in problems)
    assert any("bare.md: it must start with front matter" in p for p in problems)
    assert any("odd.md: unknown key(s) colour" in p for p in problems)
    assert any("mcp_servers is not supported yet" in p for p in problems)
    assert not any("_draft" in p for p in problems)
    untrusted, _ = load_agents(agent_dirs(ws, home=home, trusted=False))
    assert next(a for a in untrusted if a.name == "fixer").description == "User fixer."


def test_agents_overrides_disable_an_agent_and_change_its_limits_and_model() -> None:
    settings = AgentsSettings.model_validate(
        {
            "overrides": {
                "generalist": {"enabled": False},
                "codebase_investigator": {
                    "runConfig": {"maxTurns": 5, "maxTimeMinutes": 2},
                    "modelConfig": {"model": "m1"},
                },
                "cli_help": {"modelConfig": {"model": "inherit"}},
                "browser_agent": {"enabled": True},
            }
        }
    )
    agents, problems = apply_overrides(BUILT_IN, settings.overrides)
    by_name = {a.name: a for a in agents}
    assert list(by_name) == ["codebase_investigator", "cli_help"]
    investigator = by_name["codebase_investigator"]
    assert (investigator.max_turns, investigator.max_minutes, investigator.model) == (5, 2, "m1")
    assert by_name["cli_help"].model is None and by_name["cli_help"].max_turns == 10  # untouched limits
    assert problems == [
        "The agent 'browser_agent' is not available in agent-lsp: it drives Chrome through the Chrome DevTools MCP "
        "server, which agent-lsp lacks."
    ]


async def test_get_internal_docs_lists_and_reads_our_documentation_only() -> None:
    tool = GetInternalDocsTool()
    assert tool.root is not None and (tool.root / "tools.md").is_file()  # packaged as agent_lsp/docs
    listing = await tool.build({}).execute(lambda _chunk: None)
    assert "- tools.md" in listing.llm_content and "- editors/" in str(listing.llm_content)
    page = await tool.build({"path": "tools.md"}).execute(lambda _chunk: None)
    assert page.error is None and "# File tools" in str(page.llm_content)
    for outside in ("../pyproject.toml", "/etc/passwd", "images/panel.png"):
        refused = await tool.build({"path": outside}).execute(lambda _chunk: None)
        assert refused.error is not None and "only the documentation's own .md files" in refused.error
