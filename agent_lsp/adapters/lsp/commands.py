"""Code actions and ``workspace/executeCommand``: fix, explain, edit selection, prompt and cancel as agent turns."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from agent_lsp.adapters.lsp import capabilities as lsp_caps
from agent_lsp.adapters.lsp import client as caps
from agent_lsp.adapters.lsp import code_actions
from agent_lsp.adapters.lsp.client import ClientRequestError, LspClient
from agent_lsp.adapters.lsp.client_fs import LspFileSystem
from agent_lsp.adapters.lsp.context import check_context
from agent_lsp.adapters.lsp.documents import line_starts, offset_at, uri_to_path
from agent_lsp.adapters.lsp.messages import show_message
from agent_lsp.adapters.lsp.params import RequestError
from agent_lsp.adapters.lsp.prompts import Prompts
from agent_lsp.adapters.lsp.sessions import Sessions

log = logging.getLogger(__name__)
TURNS = (lsp_caps.CMD_FIX, lsp_caps.CMD_EXPLAIN, lsp_caps.CMD_EDIT_SELECTION, lsp_caps.CMD_PROMPT)


class EditorCommands:
    def __init__(self, client: LspClient, sessions: Sessions, prompts: Prompts, fs: LspFileSystem) -> None:
        self.client = client
        self.sessions = sessions
        self.prompts = prompts
        self.fs = fs
        self._turns: set[asyncio.Task[None]] = set()  # code-action turns already answered (plain clients)

    def code_actions(self, params: Mapping[str, Any]) -> list[Any]:
        context = params.get("context") or {}
        return code_actions.code_actions(
            params["textDocument"]["uri"], params["range"], context.get("diagnostics") or [], context.get("only")
        )

    async def execute(self, command: str, arguments: list[Any], request_id: Any = None) -> Any:
        if command == lsp_caps.CMD_CANCEL:
            current = {"sessionId": self.sessions.current}
            self.prompts.cancel(arguments[0] if arguments and isinstance(arguments[0], Mapping) else current)
            return None
        if command not in TURNS:
            raise RequestError("invalid_params", f"unknown command {command}")
        if command != lsp_caps.CMD_PROMPT:
            if not arguments or not isinstance(arguments[0], Mapping):
                raise RequestError("invalid_params", f"{command} takes one argument: {{uri, range, diagnostics?}}")
            try:
                check_context(arguments[0])
            except ValueError as exc:
                raise RequestError("invalid_params", f"{command}: {exc}") from exc
        if caps.knows_agent_protocol(self.client.capabilities):
            # Our own clients draw agent/update and want the turn's stop reason as the answer.
            return await self._turn(command, arguments, request_id)
        # Any other client waits for this answer with a timeout (Eglot: 10 s) while the turn, and the
        # permission questions in it, can take minutes: answer now, let progress and messages tell the rest.
        task = self.sessions.config.tasks.spawn(self._background_turn(command, arguments), name=command)
        self._turns.add(task)
        task.add_done_callback(self._turns.discard)
        return None

    def stop(self) -> None:
        for task in list(self._turns):
            task.cancel()

    async def _background_turn(self, command: str, arguments: list[Any]) -> None:
        try:
            await self._turn(command, arguments, None)
        except RequestError as exc:
            self.client.notify("window/showMessage", show_message("error", f"Agent: {exc}"))
        except Exception as exc:  # a bug: say so where the user looks, keep the traceback in the log
            log.exception("%s failed", command)
            self.client.notify("window/showMessage", show_message("error", f"Agent: {command} failed: {exc}"))

    async def _turn(self, command: str, arguments: list[Any], request_id: Any) -> Any:
        if command == lsp_caps.CMD_PROMPT:
            arg = arguments[0] if arguments else ""
            request: dict[str, Any] = dict(arg) if isinstance(arg, Mapping) else {"prompt": str(arg)}
            request["sessionId"] = request.get("sessionId") or await self.sessions.current_session()
            result = await self.prompts.prompt(request, request_id)
            return {"sessionId": request["sessionId"], **result}
        context = dict(arguments[0])
        # An editor that keeps its own chat session says which one; the context carries it no further.
        wanted = context.pop("sessionId", None)
        context.setdefault("selectedText", await self._selected_text(context))
        instruction = context.pop("instruction", None)
        if command == lsp_caps.CMD_EDIT_SELECTION and not instruction:
            try:
                choice = await self.client.request("window/showMessageRequest", code_actions.edit_choice_request())
            except ClientRequestError:
                choice = None
            instruction = choice.get("title") if isinstance(choice, Mapping) else None
            if not instruction:
                return None
        text = code_actions.command_prompt(command, context, instruction)
        summary = code_actions.command_summary(command, context, instruction)
        known = isinstance(wanted, str) and wanted in self.sessions.open
        sid = wanted if known else await self.sessions.current_session()
        result = await self.prompts.prompt({"sessionId": sid, "prompt": text}, request_id, summary)
        return {"sessionId": sid, **result}

    async def _selected_text(self, context: Mapping[str, Any]) -> str:
        path = uri_to_path(str(context.get("uri", "")))
        rng = context.get("range")
        if path is None or not isinstance(rng, Mapping):
            return ""
        try:
            text = await self.fs.read_text(path)
        except OSError:
            return ""
        starts = line_starts(text)
        begin = offset_at(text, starts, rng["start"]["line"], rng["start"]["character"])
        end = offset_at(text, starts, rng["end"]["line"], rng["end"]["character"])
        if begin == end:  # no selection: the line under the cursor
            line = rng["start"]["line"]
            begin = offset_at(text, starts, line, 0)
            end = offset_at(text, starts, line + 1, 0)
        return text[begin:end]
