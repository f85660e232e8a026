"""Pure payload builders: progress messages, permission questions and answers, prompts, code actions, config."""

from __future__ import annotations

import base64
from pathlib import Path

from agent_lsp import events as ev
from agent_lsp.adapters.lsp import code_actions, context, permissions, progress
from agent_lsp.adapters.lsp.config import merge, parse_config
from agent_lsp.adapters.permissions import PermissionQuestion
from agent_lsp.model.base import Part

EDIT = ev.ConfirmationDetails(
    type="edit",
    title="Edit a.py",
    path="/p/a.py",
    diff=ev.FileDiff("/p/a.py", "x = 1\n", "x = 2\n", "--- a\n+++ b\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"),
)
CALL = ev.ToolCallInfo("c1", "replace", {"file_path": "a.py"}, "Edit a.py", "edit", (ev.Location("/p/a.py", 1),))


def test_progress_tracker_names_the_running_tool_and_its_place() -> None:
    tracker = progress.ProgressTracker()
    assert tracker.message(ev.Thought("Planning", "…")) == "Thinking: Planning"
    for cid in ("a", "b"):
        assert tracker.message(ev.ToolCallRequest(ev.ToolCallInfo(cid, "grep_search", {}, ""))) is None
    assert tracker.message(ev.ToolCallStatusChange("b", "executing")) == "Running grep_search … (tool 2 of 2)"
    tracker.message(ev.Finished("STOP"))
    tracker.message(ev.ToolCallRequest(ev.ToolCallInfo("c", "replace", {}, "Edit a.py")))
    assert tracker.message(ev.ToolCallStatusChange("c", "awaiting_approval")) == "Waiting for your approval: Edit a.py"
    assert tracker.message(ev.ToolCallStatusChange("c", "executing")) == "Running replace: Edit a.py"
    failed = ev.ToolCallResponse("c", "replace", "error", error="no match\nfor it")
    assert tracker.message(failed) == "Edit a.py failed: no match for it"
    assert tracker.message(ev.Content("Here")) == "Writing the answer…"
    assert tracker.message(ev.Content(" it is")) is None  # once per model response
    assert progress.progress_title("  fix   the\nbug " + "x" * 80).startswith("Agent: fix the bug x")
    assert len(progress.progress_title("y" * 200)) <= len("Agent: ") + progress.TITLE_LIMIT
    assert progress.progress_summary("fix  the\nbug") == "Working on: fix the bug"
    assert progress.progress_end("cancelled", "partial") == {"kind": "end", "message": "Cancelled"}
    assert progress.progress_end("end_turn", "Fixed it.\nDetails follow.") == {
        "kind": "end",
        "message": "Done: Fixed it. Details follow.",
    }


def test_show_message_request_fallback() -> None:
    edit = PermissionQuestion("s1", CALL, EDIT)
    payload = permissions.show_message_request(edit)
    # The same choices as agent/requestPermission offers, by title.
    assert [a["title"] for a in payload["actions"]] == ["Allow once", "Allow all edits this session", "Reject"]
    assert "a.py" in payload["message"] and "+x = 2" in payload["message"]
    shell = ev.ConfirmationDetails(type="exec", title="Shell", command="rm -rf build", root_commands=("rm",))
    asked = permissions.show_message_request(PermissionQuestion("s1", CALL, shell))
    assert asked["type"] == 2 and "rm -rf build" in permissions.permission_message(shell)
    assert permissions.outcome_from_action({"title": "Allow all edits this session"}, edit) == "proceed_always"
    assert permissions.outcome_from_action({"title": "Reject"}, edit) == "reject"
    assert permissions.outcome_from_action({"title": "Allow for this session"}, edit) == "reject"  # not offered
    assert permissions.outcome_from_action(None, edit) == "cancel"
    savable = ev.ConfirmationDetails(type="exec", title="Shell", command="ls", root_commands=("ls",), savable=True)
    titles = [a["title"] for a in permissions.show_message_request(PermissionQuestion("s1", CALL, savable))["actions"]]
    assert "Allow this command in all future sessions" in titles
    chosen = {"title": "Allow this command in all future sessions"}
    assert permissions.outcome_from_action(chosen, PermissionQuestion("s1", CALL, savable)) == "proceed_always_save"


async def _unread(path: Path) -> str:
    raise AssertionError(f"{path} was not to be read")


async def test_prompt_input_keeps_text_prompts_strings_and_builds_parts(tmp_path: Path) -> None:
    assert await context.prompt_input("/memory show", None, _unread) == ("/memory show", [])
    folder = tmp_path / "my dir"
    folder.mkdir()
    blocks = [{"type": "text", "text": "look at"}, {"type": "resource_link", "uri": folder.as_uri(), "name": "my dir"}]
    assert await context.prompt_input(blocks, None, _unread) == (f"look at @{tmp_path}/my\\ dir ", [])
    image = base64.b64encode(b"\x89PNG").decode()
    parts, _ = await context.prompt_input(
        [{"type": "text", "text": "see"}, {"type": "image", "mimeType": "image/png", "data": image}], None, _unread
    )
    assert isinstance(parts, list) and isinstance(parts[1], Part)
    assert parts[1].inline_data is not None and parts[1].inline_data.data == b"\x89PNG"


async def test_editor_context_and_embedded_resources_are_attachments_never_scanned_for_mentions() -> None:
    """Selected code such as ``@decorator`` or ``user@host`` is code, not a file for the mention expander."""
    prompt, attached = await context.prompt_input(
        "why?", {"uri": "file:///p/a.py", "range": _rng(2, 0, 4, 0), "selectedText": "@cache\ny = 2\n"}, _unread
    )
    assert prompt == "why?"
    (extra,) = attached
    assert extra.text is not None and "/p/a.py, lines 3-4" in extra.text and "@cache" in extra.text
    blocks = [
        {"type": "text", "text": "explain"},
        {"type": "resource", "resource": {"uri": "file:///p/b.py", "text": "send to @admin"}},
    ]
    prompt, attached = await context.prompt_input(blocks, {"uri": "file:///p/b.py"}, _unread)
    assert prompt == "explain"
    assert [p.text and p.text.strip().split(":")[0].split(" ---")[0] for p in attached] == [
        "--- Content from file",
        "Editor context",
    ]
    assert attached[0].text is not None and "@admin" in attached[0].text


def _rng(l1: int, c1: int, l2: int, c2: int) -> dict[str, dict[str, int]]:
    return {"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}}


def test_code_actions_follow_diagnostics_selection_and_only() -> None:
    diag = {"range": _rng(3, 0, 3, 4), "message": "undefined name"}
    far = {"range": _rng(30, 0, 30, 1), "message": "elsewhere"}
    actions = code_actions.code_actions("file:///p/a.py", _rng(3, 2, 3, 2), [diag, far], None)
    assert [a["title"] for a in actions] == ["Fix with agent: undefined name", "Explain with agent"]
    assert actions[0]["diagnostics"] == [diag]
    selected = code_actions.code_actions("file:///p/a.py", _rng(1, 0, 5, 0), [], None)
    assert [a["title"] for a in selected] == ["Explain with agent", "Edit selection with agent…"]
    everything = code_actions.code_actions("file:///p/a.py", _rng(1, 0, 5, 0), [diag], [""])
    assert len(everything) == 3  # the empty kind is every kind's root
    only_fix = code_actions.code_actions("file:///p/a.py", _rng(1, 0, 5, 0), [diag], ["quickfix"])
    assert [a["kind"] for a in only_fix] == ["quickfix"]
    prompt = code_actions.command_prompt(
        "agent.fix", {"uri": "file:///p/a.py", "range": diag["range"], "diagnostics": [diag]}
    )
    assert "undefined name" in prompt and "line 4" in prompt


def test_config_parsing_drops_secrets_and_merges() -> None:
    cfg = parse_config(
        {
            "agentLsp": {
                "model": {"name": "gemini-x"},
                "approvalMode": "plan",
                "checkpointing": {"enabled": False},
                "tools": {"core": ["read_file"]},
                "security": {"auth": {"apiKey": "secret-value"}},
                "mcpServers": {"s": {"command": "srv", "env": {"TOKEN": "kept for the server"}}},
            }
        }
    )
    assert (cfg.model, cfg.approval_mode, cfg.checkpointing) == ("gemini-x", "plan", False)
    assert cfg.overrides == {}
    assert "secret-value" not in str(cfg.problems) and "security.auth.apiKey" in cfg.problems[0]
    # What could widen the agent's reach is ignored, in one notice naming each key and where to set it instead.
    assert cfg.mcp_servers == {} and "kept for the server" not in str(cfg.problems)
    assert "ignored mcpServers.s, tools.core" in cfg.problems[1] and "~/.gemini/settings.json" in cfg.problems[1]
    flat = parse_config({"approvalMode": "nonsense", "model": "m2"})
    assert flat.approval_mode is None and flat.problems
    merged = merge(cfg, flat)
    assert merged.model == "m2" and merged.approval_mode == "plan" and merged.checkpointing is False
    assert parse_config(None).model is None
    # workspace/configuration answers null for a section nobody set (Eglot): no settings, no complaint.
    assert parse_config({"agentLsp": None}) == parse_config({})
    assert parse_config({"agentLsp": 3}).problems == ("'agentLsp' must be an object",)


def test_the_editors_trust_only_takes_trust_away_and_can_give_that_back() -> None:
    refused = parse_config({"agentLsp": {"trustWorkspace": False}})
    granted = parse_config({"agentLsp": {"trustWorkspace": True}})
    assert refused.trust is False and granted.trust is None and granted.problems == ()
    assert merge(refused, granted).trust is None  # VS Code's trust granted later: the refusal is withdrawn
    assert merge(refused, parse_config({"agentLsp": {"model": "m"}})).trust is False  # silence changes nothing
