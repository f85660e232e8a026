"""Gemini CLI 0.61's newer tools seen from an ACP editor (the ACP SDK's client over a real subprocess, the fake
Gemini server behind it): the model entering plan mode is a mode change the editor is told of, a new topic renames
the session, and a subagent is one tool call whose content shows its steps."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from acp import text_block

from tests.acp.editor import EditorClient, connect
from tests.acp.harness import agent_argv
from tests.fakes.fake_gemini import FakeGemini
from tests.replay_lines import call_line, text_line
from tests.tools.test_shell import alive, wait_gone


def tools_of(body: dict[str, Any]) -> set[str]:
    return {d["name"] for t in body.get("tools", []) for d in t["functionDeclarations"]}


async def test_the_model_enters_plan_mode_after_the_user_agrees(project: Path, env: dict[str, str]) -> None:
    with FakeGemini() as fake:
        fake.push(
            call_line("enter_plan_mode", {"reason": "a risky refactor"}),
            call_line("write_file", {"file_path": "src/new.py", "content": "x = 1\n"}),
            text_line("Here is the plan."),
        )
        editor = EditorClient()
        async with connect(editor, agent_argv(None), {**env, "GOOGLE_GEMINI_BASE_URL": fake.url}, project) as conn:
            sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            response = await conn.prompt(session_id=sid, prompt=[text_block("refactor everything")])
            assert response.stop_reason == "end_turn"
        first, second, third = (r.body for r in fake.generation_requests())
    editor.checker.assert_clean()
    # Asked, as 0.61 asks: an info question about what plan mode does.
    [asked] = editor.permission_requests
    assert asked["toolCall"]["title"] == "a risky refactor" and asked["toolCall"]["kind"] == "switch_mode"
    assert "restrict the agent to read-only tools" in json.dumps(asked["toolCall"])
    # The editor is told as for any mode change; from then on only read-only tools are offered (and the writes of
    # a plan file), and a write the model tries anyway is refused.
    modes = [u for u in editor.updates(sid) if u["sessionUpdate"] == "current_mode_update"]
    assert modes == [{"sessionUpdate": "current_mode_update", "currentModeId": "plan"}]
    [*_, config] = [u for u in editor.updates(sid) if u["sessionUpdate"] == "config_option_update"]
    assert next(o for o in config["configOptions"] if o["id"] == "mode")["currentValue"] == "plan"
    assert {"write_file", "run_shell_command", "enter_plan_mode"} <= tools_of(first)
    assert "exit_plan_mode" not in tools_of(first)
    assert not {"run_shell_command", "enter_plan_mode"} & tools_of(second)
    assert {"read_file", "exit_plan_mode", "write_file"} <= tools_of(second)  # write_file: for the plan only
    refused = third["contents"][-1]["parts"][0]["functionResponse"]["response"]["error"]
    assert "cannot modify source code" in refused and not (project / "src" / "new.py").exists()


async def test_a_new_topic_renames_the_session(project: Path, env: dict[str, str]) -> None:
    with FakeGemini() as fake:
        fake.push(
            call_line(
                "update_topic", {"title": "Fixing greet", "summary": "Looked around.", "strategic_intent": "Edit"}
            ),
            call_line("update_topic", {"strategic_intent": "Run the tests"}),
            text_line("Done."),
        )
        editor = EditorClient()
        async with connect(editor, agent_argv(None), {**env, "GOOGLE_GEMINI_BASE_URL": fake.url}, project) as conn:
            sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await conn.prompt(session_id=sid, prompt=[text_block("fix greet please")])
        _first, second, _third = (r.body for r in fake.generation_requests())
    editor.checker.assert_clean()
    infos = [u for u in editor.updates(sid) if u["sessionUpdate"] == "session_info_update"]
    titles = [u["title"] for u in infos if "title" in u]  # the others carry the model's inputs (_meta)
    assert titles == ["fix greet please", "Fixing greet"]  # the intent alone leaves the title as it is
    answer = second["contents"][-1]["parts"][0]["functionResponse"]["response"]["output"]
    assert answer == 'Current topic: "Fixing greet"\nTopic summary: Looked around.\n\nStrategic Intent: Edit'


async def test_a_subagent_is_one_tool_call_showing_its_steps(project: Path, env: dict[str, str]) -> None:
    report = {"SummaryOfFindings": "greet concatenates.", "ExplorationTrace": [], "RelevantLocations": []}
    with FakeGemini() as fake:
        fake.push(
            call_line("invoke_agent", {"agent_name": "codebase_investigator", "prompt": "How does greet work?"}),
            call_line("read_file", {"file_path": "src/app.py"}, thought="Reading the source"),
            call_line("complete_task", {"report": report}),
            text_line("It concatenates."),
        )
        editor = EditorClient()
        async with connect(editor, agent_argv(None), {**env, "GOOGLE_GEMINI_BASE_URL": fake.url}, project) as conn:
            sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            response = await conn.prompt(session_id=sid, prompt=[text_block("explain greet")])
            assert response.stop_reason == "end_turn"
    editor.checker.assert_clean()
    updates = editor.updates(sid)
    calls = [u for u in updates if u["sessionUpdate"] == "tool_call"]
    # The subagent's own calls are not tool calls of the session: the editor sees one call.
    assert [c["title"] for c in calls] == ["Delegating to agent 'codebase_investigator'"]
    assert calls[0]["_meta"] == {"agent-lsp": {"subagent": "codebase_investigator"}}  # editors fold its steps
    call_id = calls[0]["toolCallId"]
    steps = [u for u in updates if u["sessionUpdate"] == "tool_call_update" and u["toolCallId"] == call_id]
    assert any(u.get("status") == "in_progress" and "read_file" in json.dumps(u.get("content")) for u in steps)
    assert steps[-1]["status"] == "completed"
    # Its steps first (the editors fold them), then its report.
    shown, report_block = (c["content"]["text"] for c in steps[-1]["content"])
    assert "Reading the source" in shown and "read_file" in shown
    assert report_block.startswith("```json\n") and json.loads(report_block[8:-4]) == report


async def test_background_processes_are_reported_and_stopped_with_the_session(
    project: Path, env: dict[str, str]
) -> None:
    with FakeGemini() as fake:
        fake.push(
            call_line("run_shell_command", {"command": "sleep 0.5; exit 3", "is_background": True, "delay_ms": 0}),
            call_line("run_shell_command", {"command": "sleep 60", "is_background": True, "delay_ms": 0}),
            text_line("Both started."),
            text_line("Noted."),
        )
        editor = EditorClient()
        async with connect(editor, agent_argv(None), {**env, "GOOGLE_GEMINI_BASE_URL": fake.url}, project) as conn:
            sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await conn.set_session_mode(session_id=sid, mode_id="yolo")
            await conn.prompt(session_id=sid, prompt=[text_block("start the servers")])
            _first, second, third = (r.body for r in fake.generation_requests())
            pids = [
                int(
                    re.search(
                        r"PID: (\d+)", body["contents"][-1]["parts"][0]["functionResponse"]["response"]["output"]
                    ).group(1)
                )  # type: ignore[union-attr]
                for body in (second, third)
            ]
            short, server = pids
            assert await wait_gone(short)  # it ends on its own, between prompts
            assert alive(server)
            await asyncio.sleep(0.3)
            # This editor does not take notices outside a prompt, so it is told at the next one.
            await conn.prompt(session_id=sid, prompt=[text_block("anything new?")])
            # The user sees them too: /tasks, offered with the session's commands.
            before = len(editor.updates(sid))
            await conn.prompt(session_id=sid, prompt=[text_block("/tasks")])
            listed = "".join(
                u["content"]["text"]
                for u in editor.updates(sid)[before:]
                if u["sessionUpdate"] == "agent_message_chunk"
            )
    assert f"- [PID {server}] RUNNING: `sleep 60`" in listed
    assert f"- [PID {short}] EXITED: `sleep 0.5; exit 3` (Exit Code: 3)" in listed
    offered = [u for u in editor.updates(sid) if u["sessionUpdate"] == "available_commands_update"]
    assert "tasks" in {c["name"] for c in offered[-1]["availableCommands"]}
    assert len(fake.generation_requests()) == 4  # /tasks did not reach the model
    shown = json.dumps(editor.updates(sid))
    assert re.search(r"Background process \d+ \(`sleep 0.5; exit 3`\) exited with code 3.", shown), shown
    assert "sleep 60`) " not in shown  # stopped by the session's end, which is not news
    assert await wait_gone(server)  # the agent stopped its process group when the session ended
