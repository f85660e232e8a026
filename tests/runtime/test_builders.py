"""The runtime's builders one at a time, on real settings, files and folders: what each part is made of."""

from __future__ import annotations

import json
from pathlib import Path

from agent_lsp import events as ev
from agent_lsp.child_env import ChildEnv
from agent_lsp.config.settings import Settings
from agent_lsp.extensions.manifest import Manifest
from agent_lsp.runtime.external import mcp_server_specs
from agent_lsp.runtime.hooks import build_hooks
from agent_lsp.runtime.memory import Memory
from agent_lsp.runtime.policy import build_policy, start_mode
from agent_lsp.runtime.recording import build_checkpointer, build_recording
from agent_lsp.runtime.workspace import build_workspace
from agent_lsp.workspace.roots import Workspace


def settings(raw: dict[str, object]) -> Settings:
    return Settings.model_validate(raw)


def test_workspace_roots_come_from_every_source_and_missing_ones_are_dropped(
    tmp_path: Path, _private_home: Path
) -> None:
    cwd, editor = tmp_path / "cwd", tmp_path / "editor"
    for folder in (cwd, editor, cwd / "flag", _private_home / "listed"):
        folder.mkdir(parents=True)
    temp = tmp_path / "scratch"
    temp.mkdir()
    context = settings({"context": {"includeDirectories": ["~/listed", "gone"]}}).context
    workspace = build_workspace(cwd, [editor, tmp_path / "missing"], [Path("flag")], context, temp)
    assert workspace.roots == (cwd, editor, cwd / "flag", _private_home / "listed")
    # The scratch folder can be read (a truncated output's full text) but is not offered as a root.
    assert workspace.contains(temp / "out.txt") and temp not in workspace.roots


def test_yolo_is_refused_when_settings_disable_it() -> None:
    notices: list[ev.Notice] = []
    security = settings({"security": {"disableYoloMode": True}}).security
    assert start_mode("yolo", security, notices) == "default"
    assert notices == [
        ev.Notice("warning", "yolo mode is disabled by settings (security.disableYoloMode); using default")
    ]
    assert start_mode("auto_edit", security, []) == "auto_edit"


def test_policy_refuses_auto_approval_in_an_untrusted_folder_and_denies_extension_exclusions(
    tmp_path: Path,
) -> None:
    s = settings({"tools": {"allowed": ["read_file"]}})
    notices: list[ev.Notice] = []
    policy = build_policy(
        mode="auto_edit",
        cwd=tmp_path,
        env={},
        trusted=False,
        interactive=True,
        tools=s.tools,
        mcp=s.mcp,
        policy_paths=(),
        allowed_tools=(),
        allowed_mcp_server_names=None,
        excluded_by_extensions=["run_shell_command"],
        notices=notices,
    )
    assert policy.mode == "default"
    assert [n.message.split(":")[0] for n in notices] == ["Approval mode auto_edit refused"]
    assert not policy.is_enabled("run_shell_command") and policy.is_enabled("read_file")


def test_policy_files_that_do_not_parse_become_notices(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[[rule]\n")
    s = Settings()
    notices: list[ev.Notice] = []
    build_policy(
        mode="plan",
        cwd=tmp_path,
        env={},
        trusted=True,
        interactive=False,
        tools=s.tools,
        mcp=s.mcp,
        policy_paths=[bad],
        allowed_tools=(),
        allowed_mcp_server_names=None,
        excluded_by_extensions=(),
        notices=notices,
    )
    assert len(notices) == 1 and notices[0].level == "error" and "bad.toml" in notices[0].message


def _extension(tmp_path: Path, servers: dict[str, object]) -> Manifest:
    return Manifest(name="ext", version="1.0.0", path=tmp_path, mcp_servers=servers)


def test_mcp_servers_from_settings_extensions_and_the_editor(tmp_path: Path) -> None:
    s = settings(
        {
            "mcpServers": {"a": {"command": "a-cmd"}, "b": {"command": "b-cmd"}, "shared": {"command": "mine"}},
            "mcp": {"excluded": ["b"]},
        }
    )
    ext = _extension(tmp_path, {"shared": {"command": "theirs"}, "c": {"command": "c-cmd", "trust": True}})
    notices: list[ev.Notice] = []
    specs = mcp_server_specs(
        s.mcp_servers,
        allowed=None,
        excluded=s.mcp.excluded,
        trusted=True,
        extensions=[ext],
        from_editor={"d": {"command": "d-cmd"}, "broken": {}},
        notices=notices,
    )
    by_name = {spec.name: spec for spec in specs}
    assert sorted(by_name) == ["a", "c", "d", "shared"]
    assert by_name["shared"].command == "mine"  # a settings server of the same name wins
    assert not by_name["c"].trust  # an extension cannot declare its own server trusted
    assert [n.level for n in notices] == ["error"] and "'broken'" in notices[0].message


def test_extension_servers_wait_for_trust_and_allowed_names_filter(tmp_path: Path) -> None:
    s = settings({"mcpServers": {"a": {"command": "a-cmd"}, "b": {"command": "b-cmd"}}})
    notices: list[ev.Notice] = []
    specs = mcp_server_specs(
        s.mcp_servers,
        allowed=["a", "c"],
        excluded=[],
        trusted=False,
        extensions=[_extension(tmp_path, {"c": {"command": "c-cmd"}})],
        from_editor={},
        notices=notices,
    )
    assert [spec.name for spec in specs] == ["a"]
    assert notices == [ev.Notice("warning", "MCP servers of extensions (ext) not started: folder not trusted")]


async def test_memory_is_reread_on_reload_and_follows_new_roots(tmp_path: Path, _private_home: Path) -> None:
    root, other = tmp_path / "root", tmp_path / "other"
    root.mkdir()
    other.mkdir()
    (root / "GEMINI.md").write_text("first fact\n")
    workspace = Workspace([root])
    memory = Memory(workspace, ["GEMINI.md"], trusted=True, extra_files=[])
    assert "first fact" in memory.text and memory.files == [str(root / "GEMINI.md")]
    (other / "GEMINI.md").write_text("second fact\n")
    workspace.add_root(other)
    said = await memory.reload()
    assert said.startswith("Reloaded memory from 2 file(s)")
    assert "first fact" in memory.text and "second fact" in memory.text


def test_untrusted_memory_reads_no_workspace_file(tmp_path: Path) -> None:
    (tmp_path / "GEMINI.md").write_text("do something risky\n")
    memory = Memory(Workspace([tmp_path]), ["GEMINI.md"], trusted=False, extra_files=[])
    assert "risky" not in memory.text
    assert memory.jit.context_for([str(tmp_path / "GEMINI.md")]) is None


def test_recording_and_telemetry_sinks(tmp_path: Path) -> None:
    quiet = build_recording("s1", record=False, primary=tmp_path, cwd=tmp_path, telemetry=Settings().telemetry)
    assert quiet.store is None and quiet.recorder is None and quiet.sinks == []
    out = tmp_path / "telemetry.jsonl"
    telemetry = settings({"telemetry": {"enabled": True, "outfile": str(out)}}).telemetry
    recorded = build_recording("s2", record=True, primary=tmp_path, cwd=tmp_path, telemetry=telemetry)
    assert recorded.recorder is not None and recorded.sinks[0] is recorded.recorder
    assert recorded.store is not None and recorded.recorder.path == recorded.store.path_for("s2")
    assert len(recorded.sinks) == 2
    recorded.recorder.close()


def test_checkpoints_when_settings_or_the_adapter_ask(tmp_path: Path) -> None:
    off = Settings().general.checkpointing
    on = settings({"general": {"checkpointing": {"enabled": True}}}).general.checkpointing
    assert build_checkpointer(off, None, tmp_path, "s1") is None
    assert build_checkpointer(off, False, tmp_path, "s1") is None
    assert build_checkpointer(off, True, tmp_path, "s1") is not None
    assert build_checkpointer(on, False, tmp_path, "s1") is not None  # settings turn them on whatever the default


def test_hooks_know_the_session_id_and_extension_hooks_join(tmp_path: Path) -> None:
    ext_dir = tmp_path / "ext"
    (ext_dir / "hooks").mkdir(parents=True)
    (ext_dir / "hooks" / "hooks.json").write_text(
        json.dumps({"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "echo ext"}]}]}})
    )
    ext = Manifest(name="ext", version="1", path=ext_dir)
    s = settings({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo mine"}]}]}})
    notices: list[ev.Notice] = []
    hooks = build_hooks(
        s.hooks,
        s.hooks_config,
        cwd=tmp_path,
        session_id="abc123",
        transcript=tmp_path / "abc123.jsonl",
        extensions=[ext],
        notices=notices,
        child_env=ChildEnv(),
    )
    assert hooks is not None and notices == []
    assert hooks.has("SessionStart") and hooks.has("BeforeTool")
    assert hooks.session_id() == "abc123" and hooks.transcript() == str(tmp_path / "abc123.jsonl")
    off = settings({"hooks": s.hooks, "hooksConfig": {"enabled": False}})
    assert (
        build_hooks(
            off.hooks,
            off.hooks_config,
            cwd=tmp_path,
            session_id="x",
            transcript=None,
            extensions=[],
            notices=[],
            child_env=ChildEnv(),
        )
        is None
    )
