"""Agent definition files as Gemini CLI 0.61 reads them: built-ins first, the workspace's (trusted only) before the
user's, and every file that cannot be used named in a notice."""

from __future__ import annotations

from pathlib import Path

from agent_lsp.tools.subagents import agent_dirs, load_agents


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
    assert list(by_name)[:2] == ["codebase_investigator", "generalist"]
    assert by_name["fixer"].description == "Workspace fixer." and by_name["fixer"].system_prompt == "Fix."
    assert by_name["mcp"].tools is None  # "*": every tool
    assert any("Duplicate agent name 'fixer'" in p for p in problems)
    assert any("bare.md: it must start with front matter" in p for p in problems)
    assert any("odd.md: unknown key(s) colour" in p for p in problems)
    assert any("mcp_servers is not supported yet" in p for p in problems)
    assert not any("_draft" in p for p in problems)
    untrusted, _ = load_agents(agent_dirs(ws, home=home, trusted=False))
    assert next(a for a in untrusted if a.name == "fixer").description == "User fixer."
