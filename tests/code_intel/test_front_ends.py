"""Every operation, an edit's diagnostics and a rename through each front end, with a scripted model (FakeGemini)
and real language servers: headless, LSP with a plain client and ACP without the proxy (the runtime's servers),
LSP with an editor that answers contract 3 (its own basedpyright), and ACP with a client that advertises the draft
``lsp`` proxy (its own basedpyright answers through lsp/request)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_lsp.code_intel import over_lsp
from agent_lsp.code_intel.lsp_json import uri_to_path
from agent_lsp.code_intel.pool import ServerPool
from tests.acp.harness import RawClient, agent_argv, agent_env
from tests.code_intel.project import BASEDPYRIGHT, make_project, spec, user_settings
from tests.fakes.fake_gemini import FakeGemini
from tests.integration.test_gemini_cli_parity import agent, call, chunk, declared

# (operation, file, line, character, query) and a line its answer must hold.
ASKED: list[tuple[dict[str, Any], str]] = [
    ({"operation": "goToDefinition", "file": "use.py", "line": 5, "character": 12}, "geo/shapes.py:6:5: def area("),
    ({"operation": "findReferences", "file": "shapes.py", "line": 6, "character": 5}, "7 references of `area` in 3"),
    ({"operation": "hover", "file": "use.py", "line": 5, "character": 12}, "The area of a rectangle."),
    ({"operation": "documentSymbol", "file": "shapes.py"}, "  method size (line 24)"),
    ({"operation": "workspaceSymbol", "file": "use.py", "query": "Rect"}, "class Rect — geo/shapes.py:19:7"),
    ({"operation": "goToImplementation", "file": "shapes.py", "line": 16, "character": 9}, "geo/shapes.py:24:9"),
    ({"operation": "incomingCalls", "file": "shapes.py", "line": 6, "character": 5}, "function total (geo/use.py:4)"),
    ({"operation": "outgoingCalls", "file": "use.py", "line": 4, "character": 5}, "function area (geo/shapes.py:6)"),
]


def lsp_calls(project: Path) -> list[dict[str, Any]]:
    calls = []
    for asked, _ in ASKED:
        args = {k: v for k, v in asked.items() if k != "file"}
        calls.append(call("lsp", file_path=str(project / "geo" / asked["file"]), **args))
    return calls


def breaking_edit(project: Path) -> dict[str, Any]:
    return call(
        "replace",
        file_path=str(project / "geo" / "use.py"),
        instruction="use the other spelling",
        old_string="area(1, 1)",
        new_string="aera(1, 1)",
    )


def rename(project: Path) -> dict[str, Any]:
    return call("rename_symbol", file_path=str(project / "geo" / "shapes.py"), line=6, character=5, new_name="surface")


def responses(fake: FakeGemini, index: int) -> list[str]:
    """The outputs the model was sent back in generation request ``index``, in call order."""
    parts = fake.generation_requests()[index].body["contents"][-1]["parts"]
    out = []
    for part in parts:
        answer = part["functionResponse"]["response"]
        out.append(str(answer.get("output", answer.get("error"))))
    return out


def assert_answers(outputs: list[str]) -> None:
    assert len(outputs) == len(ASKED)
    for (asked, expected), output in zip(ASKED, outputs, strict=True):
        assert expected in output, f"{asked['operation']}: {output}"


def script(project: Path) -> list[Any]:
    return [
        chunk(*lsp_calls(project)),
        chunk(breaking_edit(project)),
        chunk(rename(project)),
        chunk({"text": "done"}),
    ]


def assert_edit_and_rename(fake: FakeGemini, project: Path, *, diagnostics: bool = True) -> None:
    [edited] = responses(fake, 2)
    assert edited.startswith("Successfully modified file")
    if diagnostics:
        assert 'geo/use.py:5:25: error: "aera" is not defined (reportUndefinedVariable)' in edited
    else:
        assert "aera" not in edited
    [renamed] = responses(fake, 3)
    assert "Renamed area to surface: 3 file(s) changed" in renamed
    assert "def surface(width: float" in (project / "geo" / "shapes.py").read_text()
    assert "return surface(2, 3) + aera(1, 1)" in (project / "geo" / "use.py").read_text()


def test_headless(tmp_path: Path) -> None:
    home = tmp_path / "home"
    user_settings(home)
    project = make_project(tmp_path / "proj")
    with FakeGemini(script(project)) as fake:
        result = agent(
            "-p",
            "where is area?",
            "-m",
            "gemini-2.5-flash",
            "--approval-mode",
            "yolo",
            cwd=project,
            home=home,
            fake=fake,
        )
        assert result.returncode == 0, result.stderr
        assert {"lsp", "rename_symbol"} <= set(declared(fake.generation_requests()[0]))
        assert_answers(responses(fake, 1))
        assert_edit_and_rename(fake, project)


def test_headless_in_an_untrusted_folder_offers_no_code_intelligence(tmp_path: Path) -> None:
    home = tmp_path / "home"
    user_settings(home)
    project = make_project(tmp_path / "proj")
    with FakeGemini([chunk({"text": "done"})]) as fake:
        result = agent("-p", "hi", "-m", "gemini-2.5-flash", cwd=project, home=home, fake=fake, trust=False)
        assert result.returncode == 0, result.stderr
        tools = declared(fake.generation_requests()[0])
        assert "read_file" in tools and "lsp" not in tools and "rename_symbol" not in tools
        assert "Code intelligence" not in str(fake.generation_requests()[0].body["systemInstruction"])


async def test_lsp_front_end_with_a_plain_client(launch: Callable[..., Any], tmp_path: Path) -> None:
    user_settings(tmp_path / "home")  # the launched server's HOME (tests/lsp/conftest.py)
    with FakeGemini() as fake:
        editor = await launch(
            [],
            replay=False,
            extra_env={"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": fake.url},
            experimental={"agent": {"permissionRequests": True}},
        )
        project = make_project(editor.project)
        fake.push(*script(project))
        session = await editor.new_session()
        answer = await editor.request("agent/prompt", {"sessionId": session, "prompt": "where is area?"})
        assert answer == {"stopReason": "end_turn"}
        assert_answers(responses(fake, 1))
        assert_edit_and_rename(fake, project)
        # The rename was reviewed like every edit: one question carrying a diff for each file, then applied as edits.
        [_edit, renamed] = editor.permission_requests
        diffs = [c for c in renamed["toolCall"]["content"] if c["type"] == "diff"]
        assert sorted(Path(d["path"]).name for d in diffs) == ["old.py", "shapes.py", "use.py"]


async def test_acp_client_with_the_draft_lsp_proxy(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = make_project(tmp_path / "proj")
    pool = ServerPool(os.environ)  # the editor's own language server, reached through lsp/request
    server = await pool.server(spec(BASEDPYRIGHT), project)
    methods = [*over_lsp.METHODS.values(), over_lsp.PREPARE_CALLS, over_lsp.RENAME]
    forwarded: list[str] = []

    async def editor(request: dict[str, Any]) -> Any:
        params = request["params"]
        if request["method"] == "lsp/servers":
            listing = {
                "serverId": f"basedpyright@{project}",
                "name": "basedpyright",
                "workspacePath": str(project),
                "languageId": "python",
                "fileExtensions": ["py"],
                "state": "running",
                "capabilities": server.capabilities,
            }
            return {"servers": [listing], "availableMethods": methods}
        if request["method"] == "lsp/request":
            forwarded.append(params["method"])
            uri = (params["params"] or {}).get("textDocument", {}).get("uri")
            asked = [uri_to_path(uri)] if uri else []
            # The editor opens the file for its server, and passes on the agent's writes (the RFD's rules).
            for path in {*server.open_paths(), *asked}:
                assert path is not None
                server.sync(path, path.read_text())
            return {"lspResult": await server.request(params["method"], params["params"])}
        if request["method"] == "session/request_permission":
            return {"outcome": {"outcome": "selected", "optionId": "proceed_once"}}
        raise LookupError(request["method"])

    try:
        with FakeGemini(script(project)) as fake:
            env = agent_env(home, GEMINI_API_KEY="k", GOOGLE_GEMINI_BASE_URL=fake.url)
            async with RawClient.spawn(agent_argv(None), env, project) as client:
                client.on_request = editor
                await client.initialize({"lsp": {}})
                session = (await client.result("session/new", {"cwd": str(project), "mcpServers": []}))["sessionId"]
                prompt = {"sessionId": session, "prompt": [{"type": "text", "text": "where is area?"}]}
                answer = await client.result("session/prompt", prompt, wait_s=120)
                assert answer["stopReason"] == "end_turn"
                assert_answers(responses(fake, 1))
                # basedpyright has no pull diagnostics, and the proxy carries no published ones: nothing to add.
                assert_edit_and_rename(fake, project, diagnostics=False)
                client.checker.assert_clean()
    finally:
        await pool.aclose()
    assert {"textDocument/definition", "textDocument/references", "callHierarchy/incomingCalls"} <= set(forwarded)
    assert "textDocument/rename" in forwarded


async def test_lsp_front_end_with_an_editor_that_answers_code_intelligence(
    launch: Callable[..., Any], tmp_path: Path
) -> None:
    """Contract 3: the editor advertises experimental.agent.codeIntel and answers agent/codeIntel and
    agent/diagnostics itself (here from its own basedpyright, as VS Code answers from its providers)."""
    user_settings(tmp_path / "home")  # for its diagnosticsWaitMs: the editor's own source wins over lspServers
    pool = ServerPool(os.environ)
    asked: list[dict[str, Any]] = []
    offer = {"operations": [a["operation"] for a, _ in ASKED], "diagnostics": True, "rename": True}
    try:
        with FakeGemini() as fake:
            editor = await launch(
                [],
                replay=False,
                extra_env={"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": fake.url},
                experimental={"agent": {"permissionRequests": True, "codeIntel": offer}},
            )
            project = make_project(editor.project)
            server = await pool.server(spec(BASEDPYRIGHT), project)

            def synced(uri: str | None) -> None:
                for path in {*server.open_paths(), *([uri_to_path(uri)] if uri else [])}:
                    assert path is not None
                    server.sync(path, path.read_text())

            @editor.client.feature("agent/codeIntel")
            async def code_intel(params: Any) -> Any:
                asked.append(params)
                op, at = params["operation"], {k: params[k] for k in ("textDocument", "position")}
                synced(params["textDocument"]["uri"])
                if op == "rename":
                    return await server.request("textDocument/rename", {**at, "newName": params["newName"]})
                if op == "workspaceSymbol":
                    return await server.request("workspace/symbol", {"query": params["query"]})
                if op == "documentSymbol":
                    return await server.request("textDocument/documentSymbol", {"textDocument": at["textDocument"]})
                if op in ("incomingCalls", "outgoingCalls"):
                    items = await server.request(over_lsp.PREPARE_CALLS, at) or []
                    merged: list[Any] = []
                    for item in items:
                        merged += await server.request(over_lsp.METHODS[op], {"item": item}) or []
                    return merged
                if op == "findReferences":
                    at["context"] = {"includeDeclaration": True}
                return await server.request(over_lsp.METHODS[op], at)

            @editor.client.feature("agent/diagnostics")
            async def diagnostics(params: Any) -> Any:
                loop = asyncio.get_running_loop()
                items = []
                for uri in params["uris"]:
                    synced(uri)
                    path = uri_to_path(uri)
                    assert path is not None
                    found, settled = await server.diagnostics(path, loop.time() + params["waitMs"] / 1000)
                    items.append({"uri": uri, "diagnostics": found, "settled": settled})
                return {"items": items}

            fake.push(*script(project))
            session = await editor.new_session()
            answer = await editor.request("agent/prompt", {"sessionId": session, "prompt": "where is area?"})
            assert answer == {"stopReason": "end_turn"}
            assert_answers(responses(fake, 1))
            assert_edit_and_rename(fake, project)
    finally:
        await pool.aclose()
    # Every question went to the editor, in the contract's shape (0-based positions), and rename too.
    assert {a["operation"] for a in asked} == {*(a["operation"] for a, _ in ASKED), "rename"}
    definition = next(a for a in asked if a["operation"] == "goToDefinition")
    assert definition["position"] == {"line": 4, "character": 11}


async def test_acp_client_without_the_proxy_gets_the_runtimes_servers(tmp_path: Path) -> None:
    """Zed or JetBrains over ACP (no ``lsp`` capability): the servers agent-lsp starts answer, diagnostics included."""
    home = tmp_path / "home"
    user_settings(home)
    project = make_project(tmp_path / "proj")
    with FakeGemini(script(project)) as fake:
        env = agent_env(home, GEMINI_API_KEY="k", GOOGLE_GEMINI_BASE_URL=fake.url)
        async with RawClient.spawn(agent_argv(None), env, project) as client:
            await client.initialize({})
            session = (await client.result("session/new", {"cwd": str(project), "mcpServers": []}))["sessionId"]
            prompt = {"sessionId": session, "prompt": [{"type": "text", "text": "where is area?"}]}
            answer = await client.result("session/prompt", prompt, wait_s=180)
            assert answer["stopReason"] == "end_turn"
            assert_answers(responses(fake, 1))
            assert_edit_and_rename(fake, project)
            assert not any(r["method"].startswith("lsp/") for r in client.agent_requests)
            client.checker.assert_clean()
