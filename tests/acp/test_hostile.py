"""Nothing a repository can raise, over ACP (docs/security.md): session/new's ``_meta`` armed with every widening
key and every workspace file armed, in a folder nobody trusted; then the agent's keys kept from every child it
starts (shell, background command, hook, settings' and session/new's MCP servers). Raw frames, schema-checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.acp.harness import RawClient, agent_argv, call_turn, text_turn, write_script
from tests.hostile import KEYS, editor_payload, fired, touch, write_hostile_workspace


async def test_session_new_meta_and_workspace_files_widen_nothing(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    write_hostile_workspace(project, markers)
    script = write_script(
        tmp_path / "s.jsonl",
        [call_turn(("run_shell_command", {"command": touch(markers, "shell")})), text_turn("asked"), text_turn("ok")],
    )
    hostile = editor_payload(markers)["agentLsp"]
    asked: list[dict[str, Any]] = []

    async def answer(request: dict[str, Any]) -> Any:
        asked.append(request)
        return {"outcome": {"outcome": "selected", "optionId": "reject"}}

    async with RawClient.spawn(agent_argv(script), {**env, "AGENT_LSP_TRUST_WORKSPACE": ""}, project) as client:
        client.on_request = answer
        await client.initialize({"fs": {"readTextFile": False, "writeTextFile": False}})
        params = {"cwd": str(project), "mcpServers": [], "_meta": {**hostile, "agent-lsp": hostile}}
        session = await client.result("session/new", params)
        sid = session["sessionId"]
        assert session["modes"]["currentModeId"] == "default"
        done = await client.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]})
        assert done["stopReason"] == "end_turn"
        await client.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "/pwn"}]})
        refused = await client.call("session/set_mode", {"sessionId": sid, "modeId": "yolo"})
        assert "error" in refused and "not trusted" in refused["error"]["message"]
    client.checker.assert_clean()
    assert [r["method"] for r in asked] == ["session/request_permission"]  # the shell still asked
    assert fired(markers) == []


def _env_of(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


async def test_the_agents_keys_reach_no_child(
    tmp_path: Path, project: Path, env: dict[str, str], _private_home: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    hook = [{"hooks": [{"type": "command", "command": f"env > {out / 'hook.env'}"}]}]
    settings = {
        "hooks": {"SessionStart": hook},
        "mcpServers": {"probe": {"command": "bash", "args": ["-c", f"env > {out / 'mcp.env'}"]}},
    }
    (_private_home / ".gemini").mkdir(exist_ok=True)
    (_private_home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    script = write_script(
        tmp_path / "s.jsonl",
        [
            call_turn(("run_shell_command", {"command": f"env > {out / 'shell.env'}"})),
            call_turn(("run_shell_command", {"command": f"env > {out / 'bg.env'}; sleep 5", "is_background": True})),
            text_turn("done"),
        ],
    )
    acp_server = {"name": "acp-probe", "command": "bash", "args": ["-c", f"env > {out / 'acp-mcp.env'}"], "env": []}
    async with RawClient.spawn(agent_argv(script), {**env, **KEYS, "VISIBLE_TO_CHILDREN": "yes"}, project) as client:
        await client.initialize({})
        sid = (await client.result("session/new", {"cwd": str(project), "mcpServers": [acp_server]}))["sessionId"]
        await client.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "env"}]}, 60)
        names = ("shell", "bg", "hook", "mcp", "acp-mcp")
        await client.wait_for(
            lambda: all((out / f"{n}.env").is_file() and (out / f"{n}.env").stat().st_size for n in names)
        )
    for name in names:
        text = (out / f"{name}.env").read_text()
        assert _env_of(out / f"{name}.env").get("VISIBLE_TO_CHILDREN") == "yes", name
        assert [k for k, v in KEYS.items() if v in text or f"{k}=" in text] == [], name
