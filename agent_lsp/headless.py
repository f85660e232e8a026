"""Headless runs: ``agent-lsp -p PROMPT`` / ``agent-lsp run`` (Gemini CLI's non-interactive mode) and the demo."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from agent_lsp import events as ev
from agent_lsp.core.ports import ConfirmationResult, Confirmer, Outcome
from agent_lsp.errors import EXIT_CANCELLED, EXIT_FAILURE, EXIT_INPUT, EXIT_TURN_LIMIT
from agent_lsp.headless_output import SessionStats, json_output, stream_event, stream_line
from agent_lsp.render import render
from agent_lsp.vocabulary import ApprovalMode

if TYPE_CHECKING:
    from agent_lsp.adapters.live import PromptInput
    from agent_lsp.core.driving import TurnEnd
    from agent_lsp.runtime import RuntimeOptions, SessionHandle

DEMO_DIR = Path(__file__).parent / "demo"


class NobodyConfirms:
    """Headless runs have nobody to ask. The policy is non-interactive, so "ask" never reaches a confirmer;
    should one arrive anyway, it is rejected."""

    async def confirm(self, call: ev.ToolCallInfo, details: ev.ConfirmationDetails) -> ConfirmationResult:
        return ConfirmationResult("reject")  # the model is told, and goes on


class TerminalConfirmer:
    """``agent-lsp run`` on a terminal (our own command, not Gemini CLI's -p): asks there."""

    def __init__(self, out: TextIO = sys.stderr) -> None:
        self.out = out

    async def confirm(self, call: ev.ToolCallInfo, details: ev.ConfirmationDetails) -> ConfirmationResult:
        for diff in (details.diff, *details.extra_diffs) if details.diff is not None else ():
            if diff.unified:
                self.out.write(diff.unified + "\n")
        answer = await asyncio.to_thread(input, f"Allow {call.name} — {details.title}? [y]es/[a]lways/[n]o: ")
        answers: dict[str, Outcome] = {"y": "proceed_once", "a": "proceed_always"}
        return ConfirmationResult(answers.get(answer.strip().lower()[:1], "reject"))


class DemoConfirmer:
    """Plays the user in the demo: shows what is asked and approves it."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    async def confirm(self, call: ev.ToolCallInfo, details: ev.ConfirmationDetails) -> ConfirmationResult:
        self.out.write(f"  ✔ (demo user) approved {call.name}\n")
        return ConfirmationResult("proceed_once")


@dataclass
class HeadlessRequest:
    """Everything one ``agent-lsp -p`` / ``agent-lsp run`` invocation asked for."""

    prompt: str
    cwd: Path
    model: str | None = None
    approval_mode: ApprovalMode | None = None
    output_format: str = "text"
    fake_responses: Path | None = None
    resume: str | None = None
    rewind: int | None = None  # with resume: go back to before this user message first (docs/sessions.md#rewind)
    session_id: str | None = None
    include_directories: list[Path] = field(default_factory=list)
    allowed_mcp_server_names: list[str] | None = None
    allowed_tools: list[str] = field(default_factory=list)
    policy_paths: list[Path] = field(default_factory=list)
    extensions: list[str] | None = None
    debug: bool = False
    ask_on_terminal: bool = False  # ``agent-lsp run`` on a TTY asks there; ``-p`` never does (as Gemini CLI)


def write_notice(err: TextIO, notice: ev.Notice) -> None:
    # Settings, trust and MCP notices are for the person: stderr, as Gemini CLI's feedback, in every format.
    err.write(render(notice) or "")
    err.flush()


class _Output:
    """Writes one run's events in the chosen format and keeps Gemini CLI's stats."""

    def __init__(self, fmt: str, out: TextIO, err: TextIO, model: str, verbose: bool = False) -> None:
        self.fmt, self.out, self.err, self.verbose = fmt, out, err, verbose
        self.stats = SessionStats(model)
        self.texts: list[str] = []
        self.warnings: list[str] = []
        self.error: ev.Error | None = None
        self.started = time.perf_counter()

    def line(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def notice(self, notice: ev.Notice) -> None:
        write_notice(self.err, notice)

    def event(self, event: ev.AgentEvent) -> None:
        self.stats.observe(event)
        if isinstance(event, ev.Error):
            self.error = event
        if isinstance(event, ev.LoopDetected):
            self.warnings.append("Loop detected, stopping execution")
        if isinstance(event, ev.Content):
            self.texts.append(event.text)
        if isinstance(event, ev.Notice):
            self.notice(event)
            return
        if self.fmt != "text" and isinstance(event, ev.Retry | ev.ModelFallback):
            # A retry, a quota wait or a broken stream is told on stderr in every format (what, how long), as the
            # editors are told; stdout keeps the chosen format.
            self.err.write((render(event) or "").strip() + "\n")
            self.err.flush()
        if self.fmt == "stream-json":
            line = stream_event(event)
            if line:
                self.line(line)
            return
        if isinstance(event, ev.Content):
            if self.fmt == "text":
                self.out.write(event.text)
                self.out.flush()
            return
        if self.fmt == "text" or isinstance(event, ev.Error):
            text = render(event, verbose=self.verbose)
            if text:
                self.err.write(text)
                self.err.flush()

    @property
    def duration_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000


async def _drive(
    prompt: str,
    *,
    cwd: Path,
    runtime_options: RuntimeOptions,
    confirmer: Confirmer,
    output_format: str,
    out: TextIO,
    err: TextIO,
    resume_id: str | None = None,
    session_id: str | None = None,
    model: str | None = None,
    rewind: int | None = None,
) -> tuple[ev.Stop, _Output, str | None]:
    from agent_lsp.runtime import Runtime, SessionSetup
    from agent_lsp.stopping import cancel_on_sigterm

    cancel_on_sigterm()
    runtime = Runtime(runtime_options)
    # Notices after start-up (an MCP server failing later) go straight to stderr, as the start-up ones do below.
    from agent_lsp.mcp.elicitation import NobodyToAsk

    setup = SessionSetup(
        cwd=cwd,
        confirmer=confirmer,
        session_id=session_id,
        notice_sink=lambda notice: write_notice(err, notice),
        # A server's form is declined, with a line on stderr (the capability is declared, as Gemini CLI does).
        elicitor=NobodyToAsk(lambda line: write_notice(err, ev.Notice("warning", line))),
    )
    if resume_id is not None:
        handle, _events = await runtime.load_session(resume_id, setup)
    else:
        handle = await runtime.create_session(setup)
    output = _Output(output_format, out, err, handle.session.model, verbose=out is err)
    for notice in handle.take_notices():
        output.notice(notice)
    stop = ev.Stop("error")
    try:
        if rewind is not None:
            from agent_lsp.core.rewind import describe

            result = await handle.session.rewinds.rewind(rewind)
            err.write(describe(result) + "\n")
            if not prompt:
                output.event(ev.Content(result.text))  # the message, to edit and send again
                return ev.Stop("end_turn"), output, handle.session.id
        stop = ev.Stop((await _run_prompt(handle, prompt, output)).stop)
    finally:
        await handle.aclose()
        await runtime.aclose()
        from agent_lsp.runtime.code_intel import close_language_servers

        await close_language_servers()
        await runtime.tasks.aclose()
    return stop, output, handle.session.id


async def _run_prompt(handle: SessionHandle, prompt: str, output: _Output) -> TurnEnd:
    """The prompt, through the driver every front end uses; its events written as the output format says."""
    from agent_lsp.adapters.live import LiveSession
    from agent_lsp.runtime import SessionOpening

    async def read() -> PromptInput:
        return prompt, []

    async def prepare(handle: SessionHandle) -> None:
        if handle.mcp is not None:
            # As Gemini CLI does headless: the first request goes out with the MCP tools already known.
            await handle.mcp.wait_ready()
        if output.fmt == "stream-json":
            output.line(stream_line("init", session_id=handle.session.id, model=handle.session.model))
            output.line(stream_line("message", role="user", content=prompt))

    async def deliver(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.UserMessage | ev.Stop):
            output.stats.observe(event)  # a Stop carries the session's usage over every model call
        else:
            output.event(event)

    live = LiveSession(opening=SessionOpening.done(handle))
    live.claim()
    return await live.run_prompt(read, deliver, prepare=prepare)


def _finish(stop: ev.Stop, output: _Output, session_id: str | None) -> int:
    """Write the closing output (json document / stream-json result) and pick Gemini CLI's exit code."""
    fmt = output.fmt
    error: dict[str, Any] | None = None
    code = 0
    if stop.reason == "error":
        message = output.error.message if output.error else "the turn ended with an error"
        status = output.error.status if output.error else None
        error = {"type": "Error", "message": message}
        if status:
            error["code"] = status
        # Gemini CLI exits with an API error's HTTP status in the JSON formats; otherwise the error's class says
        # (a settings problem 52, missing credentials 41, anything else 1).
        code = status if status and fmt != "text" else (output.error.exit_code if output.error else EXIT_FAILURE)
    elif stop.reason == "max_turn_requests":
        error = {
            "type": "FatalTurnLimitedError",
            "message": "Reached max session turns for this session. Increase the number of turns by "
            "specifying maxSessionTurns in settings.json.",
        }
        code = EXIT_TURN_LIMIT
    elif stop.reason == "cancelled":
        error = {"type": "FatalCancellationError", "message": "Operation cancelled."}
        code = EXIT_CANCELLED
    elif stop.reason == "refusal":
        error = {"type": "INVALID_STREAM", "message": "The response was blocked for safety reasons."}
    if fmt == "json":
        fatal = code != 0
        output.line(
            json_output(
                session_id,
                None if fatal else "".join(output.texts),
                None if fatal else output.stats.to_json(),
                error,
                output.warnings,
            )
        )
    elif fmt == "stream-json":
        output.line(
            stream_line(
                "result",
                status="error" if error else "success",
                error=error and {"type": error["type"], "message": error["message"]},
                stats=output.stats.stream_stats(output.duration_ms),
            )
        )
    else:
        output.out.write("\n")
        if error and stop.reason != "error":
            output.err.write(error["message"] + "\n")
    return code


def run_headless(request: HeadlessRequest) -> int:
    """One prompt, nobody to confirm: calls that would ask get an error result the model reads."""
    from agent_lsp.headless_admin import find_session, installed_extensions
    from agent_lsp.runtime import RuntimeOptions

    err = sys.stderr
    if request.extensions is not None and request.extensions != ["none"]:
        known = installed_extensions(request.cwd)
        unknown = [e for e in request.extensions if e not in known]
        if unknown:
            err.write(f"Extension(s) not found: {', '.join(unknown)}. Installed: {', '.join(known) or 'none'}\n")
            return EXIT_INPUT
    resume_id = None
    if request.resume is not None:
        found = find_session(request.cwd, request.resume)
        if found is None:
            err.write(
                f'Invalid session identifier "{request.resume}". Use --list-sessions to see available sessions, '
                "then use --resume {number}, --resume {id}, or --resume latest.\n"
            )
            return EXIT_INPUT
        resume_id = found[1].id
    if request.session_id is not None:
        from agent_lsp.store.sessions import valid_session_id

        if not valid_session_id(request.session_id):
            err.write(f"Invalid --session-id {request.session_id!r}: use letters, digits, '-' and '_'.\n")
            return EXIT_INPUT
    options = RuntimeOptions(
        extensions=request.extensions,
        fake_responses=request.fake_responses,
        model=request.model,
        approval_mode=request.approval_mode,
        interactive=request.ask_on_terminal,
        policy_paths=request.policy_paths,
        allowed_tools=request.allowed_tools,
        allowed_mcp_server_names=request.allowed_mcp_server_names,
        include_directories=request.include_directories,
        warm_model=False,
    )
    from agent_lsp.core.rewind import RewindError
    from agent_lsp.errors import AuthError

    try:
        stop, output, session_id = asyncio.run(
            _drive(
                request.prompt,
                cwd=request.cwd,
                runtime_options=options,
                confirmer=TerminalConfirmer() if request.ask_on_terminal else NobodyConfirms(),
                output_format=request.output_format,
                out=sys.stdout,
                err=err,
                resume_id=resume_id,
                session_id=request.session_id,
                rewind=request.rewind,
            )
        )
    except RewindError as exc:
        err.write(f"agent-lsp: {exc}\n")
        return EXIT_INPUT
    except AuthError as exc:  # decided as the session opens: the folder's trusted .env and settings count
        err.write(f"agent-lsp: {exc}\n")
        return exc.exit_code
    except (KeyboardInterrupt, asyncio.CancelledError):  # Ctrl-C or SIGTERM: the session closed on the way out
        return EXIT_CANCELLED
    return _finish(stop, output, session_id)


def run_demo(*, keep: bool = False, delay: float = 0.0) -> int:
    """Copy the bundled example project to a temp folder and run the scripted session on it."""
    from agent_lsp.runtime import RuntimeOptions

    tmp = Path(tempfile.mkdtemp(prefix="agent-lsp-demo-"))
    project = tmp / "project"
    shutil.copytree(DEMO_DIR / "project", project)
    home = tmp / "home"
    home.mkdir()
    # The demo is its own little world: it must never read or write the user's real settings or state.
    os.environ.update(
        {"HOME": str(home), "AGENT_LSP_HOME": str(home / ".agent-lsp"), "AGENT_LSP_TRUST_WORKSPACE": "true"}
    )
    env = dict(os.environ)
    before = (project / "stats.py").read_text()
    out = sys.stdout
    out.write(f"agent-lsp demo — replay model, example project copied to {project}\n\n")
    prompt = "The mean() in stats.py gives wrong answers. Find the bug, fix it and check the tests pass."
    out.write(f"> {prompt}\n\n")
    options = RuntimeOptions(fake_responses=DEMO_DIR / "demo.jsonl", chunk_delay=delay, env=env)
    stop, _output, _sid = asyncio.run(
        _drive(
            prompt,
            cwd=project,
            runtime_options=options,
            confirmer=DemoConfirmer(out),
            output_format="text",
            out=out,
            err=out,
        )
    )
    out.write("\n")
    after = (project / "stats.py").read_text()
    changed = before != after
    out.write(
        f"\nstats.py {'was changed by the agent' if changed else 'was NOT changed'}; stop reason: {stop.reason}\n"
    )
    if keep:
        out.write(f"project kept at {project}\n")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if changed and stop.reason == "end_turn" else 1
