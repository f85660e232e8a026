"""Command line: ``agent-lsp [Gemini CLI flags] [query]`` and ``agent-lsp run | acp | lsp | demo``.

Parses arguments and hands off; imports stay lazy so ``--version`` and start-up are quick.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

TYPE_CHECKING = False  # not typing's: importing typing would cost ``agent-lsp acp`` its fast initialize
if TYPE_CHECKING:
    from agent_lsp.vocabulary import ApprovalMode

SUBCOMMANDS = ("run", "acp", "lsp", "demo", "skills", "extensions", "login", "logout")


def _list(value: str) -> list[str]:
    """A flag value that may hold several comma-separated items (yargs' arrays accept both forms)."""
    return [v.strip() for v in value.split(",") if v.strip()]


def _mode(value: str) -> ApprovalMode:
    """--approval-mode's string becomes an ApprovalMode here, at the edge."""
    from agent_lsp.vocabulary import parse_mode

    try:
        return parse_mode(value, "--approval-mode")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


class _Modes:
    """The vocabulary's approval modes, read only when help is shown: ``agent-lsp acp`` answers ``initialize``
    before the vocabulary (and the typing module it needs) is imported."""

    def __iter__(self) -> Iterator[str]:
        from agent_lsp.vocabulary import APPROVAL_MODES

        return iter(APPROVAL_MODES)

    def __contains__(self, value: object) -> bool:
        return value in list(self)


def _approval_mode_flag(p: argparse.ArgumentParser) -> None:
    # A metavar, so argparse does not list the choices (and import them) while the parser is built.
    p.add_argument(
        "--approval-mode", type=_mode, choices=_Modes(), metavar="MODE", help="when tools may run: %(choices)s"
    )


def _headless_flags(p: argparse.ArgumentParser) -> None:
    """Gemini CLI's flags for one-shot runs, shared by ``agent-lsp`` and ``agent-lsp run``."""
    p.add_argument("-p", "--prompt", help="run this prompt headless (appended to piped stdin) and exit")
    p.add_argument("-m", "--model", help="the model (default: settings model.name, else Gemini CLI's default)")
    p.add_argument("-y", "--yolo", action="store_true", help="approve every tool call (approval mode yolo)")
    _approval_mode_flag(p)
    p.add_argument("-o", "--output-format", choices=("text", "json", "stream-json"), default="text")
    p.add_argument(
        "-r",
        "--resume",
        nargs="?",
        const="latest",
        metavar="latest|INDEX|ID",
        help='continue a recorded session: "latest", its number in --list-sessions, or its id',
    )
    p.add_argument(
        "--rewind",
        type=int,
        metavar="N",
        help="with --resume: first go back to before user message N (files and conversation); "
        "without a prompt, print that message and exit",
    )
    p.add_argument("--list-sessions", action="store_true", help="list this project's recorded sessions and exit")
    p.add_argument("--delete-session", metavar="INDEX|ID", help="delete a recorded session and exit")
    p.add_argument("--session-id", help="record the new session under this id")
    p.add_argument(
        "--include-directories", type=_list, action="append", default=[], metavar="DIRS", help="more workspace roots"
    )
    p.add_argument(
        "--allowed-mcp-server-names",
        type=_list,
        action="append",
        default=None,
        metavar="NAMES",
        help="connect only these MCP servers",
    )
    p.add_argument(
        "--allowed-tools", type=_list, action="append", default=[], metavar="TOOLS", help="tools that run unasked"
    )
    p.add_argument(
        "--policy", type=_list, action="append", default=[], metavar="PATHS", help="policy files or folders (user tier)"
    )
    p.add_argument("-e", "--extensions", type=_list, action="append", default=None, metavar="NAMES")
    p.add_argument("-l", "--list-extensions", action="store_true", help="list installed extensions and exit")
    p.add_argument(
        "--fake-responses",
        type=Path,
        metavar="FILE",
        help="replay model responses from a Gemini CLI --fake-responses JSONL file",
    )
    p.add_argument("--cwd", type=Path, default=None, help="workspace folder (default: current directory)")
    p.add_argument("--log-file", type=Path, help="write logs here (stdout carries output only)")
    p.add_argument("-d", "--debug", action="store_true", help="verbose logs on stderr")


def _gemini_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="agent-lsp",
        description="A coding agent that lives in your editor. Without a subcommand it takes Gemini CLI's flags.",
        epilog="Subcommands: run (headless prompt), acp (Agent Client Protocol), lsp (Language Server), demo.",
    )
    p.add_argument("-v", "--version", action="store_true", help="print the version and exit")
    p.add_argument("query", nargs="*", help="the prompt (or use -p)")
    _headless_flags(p)
    return p


def _subcommand_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="agent-lsp", description="A coding agent that lives in your editor.")
    p.add_argument("-v", "--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command")

    def server(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--model", "-m", help="the model (default: settings model.name)")
        _approval_mode_flag(sp)
        sp.add_argument("--fake-responses", type=Path, metavar="FILE", help="replay a --fake-responses JSONL file")
        sp.add_argument("--log-file", type=Path, help="write logs here (stdout carries protocol frames only)")
        sp.add_argument("--debug", "-d", action="store_true", help="verbose logs")

    run = sub.add_parser("run", help="run one prompt headless and stream the answer")
    run.add_argument("query", nargs="*", help="the prompt")
    _headless_flags(run)
    acp = sub.add_parser("acp", help="serve the Agent Client Protocol over stdio")
    server(acp)
    # ACP's terminal auth method: the client appends these args to the command that starts us (docs/auth.md).
    acp.add_argument("--login", action="store_true", help="sign in on this terminal instead of serving, then exit")
    server(sub.add_parser("lsp", help="serve the Language Server Protocol over stdio"))
    demo = sub.add_parser("demo", help="run the built-in demo on a temp copy of an example project")
    demo.add_argument("--keep", action="store_true", help="keep the temp project and print its path")
    demo.add_argument("--delay", type=float, default=0.0, help="seconds between streamed chunks")
    from agent_lsp.manage import add_parsers

    add_parsers(sub)  # skills, extensions
    from agent_lsp.login import add_parsers as add_login_parsers

    add_login_parsers(sub)  # login, logout
    return p


def _setup_logging(log_file: Path | None, debug: bool) -> None:
    import logging

    level = logging.DEBUG if debug else logging.INFO
    handler: logging.Handler = logging.FileHandler(log_file) if log_file else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level if log_file or debug else logging.WARNING)


def _version() -> int:
    from agent_lsp import __version__

    print(f"agent-lsp {__version__}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--login"]:
        argv[0] = "login"  # the ACP Registry's reading of terminal auth: its args replace ours
    if argv and argv[0] in SUBCOMMANDS:
        args = _subcommand_parser().parse_args(argv)
        if args.version:
            return _version()
        if args.command == "demo":
            from agent_lsp.headless import run_demo

            return run_demo(keep=args.keep, delay=args.delay)
        if args.command in ("skills", "extensions"):
            from agent_lsp.manage import run as manage

            return manage(args)
        if args.command == "logout":
            from agent_lsp.login import run_logout

            return run_logout()
        if args.command == "acp" and args.login:
            args = _subcommand_parser().parse_args(["login"])
        if args.command == "login":
            from agent_lsp.login import run_login

            return run_login(args)
        _setup_logging(args.log_file, args.debug)
        if args.command == "run":
            return _headless(args, subcommand=True)
        if args.command == "acp":
            from agent_lsp.adapters.acp.main import serve as serve_acp

            return serve_acp(args)
        from agent_lsp.adapters.lsp.main import serve as serve_lsp

        return serve_lsp(args)
    args = _gemini_parser().parse_args(argv)
    if args.version:
        return _version()
    _setup_logging(args.log_file, args.debug)
    return _headless(args, subcommand=False)


def _headless(args: argparse.Namespace, *, subcommand: bool) -> int:
    from agent_lsp.errors import EXIT_INPUT
    from agent_lsp.headless import HeadlessRequest, run_headless

    err = sys.stderr
    if args.yolo and args.approval_mode:
        err.write("Cannot use both --yolo (-y) and --approval-mode together. Use --approval-mode=yolo instead.\n")
        return 1
    query = " ".join(args.query)
    if query and args.prompt is not None:
        err.write("Cannot use both a positional prompt and the --prompt (-p) flag together\n")
        return 1
    cwd = (args.cwd or Path.cwd()).resolve()

    def flat(groups: list[list[str]] | None) -> list[str] | None:
        return None if groups is None else [item for group in groups for item in group]

    request = HeadlessRequest(
        prompt=args.prompt if args.prompt is not None else query,
        cwd=cwd,
        model=args.model,
        approval_mode="yolo" if args.yolo else args.approval_mode,
        output_format=args.output_format,
        fake_responses=args.fake_responses,
        resume=args.resume,
        rewind=args.rewind,
        session_id=args.session_id,
        include_directories=[Path(d) for d in flat(args.include_directories) or []],
        allowed_mcp_server_names=flat(args.allowed_mcp_server_names),
        allowed_tools=flat(args.allowed_tools) or [],
        policy_paths=[Path(p).expanduser() for p in flat(args.policy) or []],
        extensions=flat(args.extensions),
        debug=args.debug,
        # Our own `run` keeps asking on a terminal; Gemini CLI's -p / positional query never asks.
        ask_on_terminal=subcommand and args.prompt is None and sys.stdin.isatty(),
    )
    if args.list_extensions:
        from agent_lsp.headless_admin import list_extensions

        return list_extensions(cwd)
    if args.list_sessions:
        from agent_lsp.headless_admin import list_sessions

        return list_sessions(cwd)
    if args.delete_session is not None:
        from agent_lsp.headless_admin import delete_session

        return delete_session(cwd, args.delete_session)
    if args.rewind is not None and args.resume is None:
        err.write("--rewind needs --resume: it goes back in a recorded session.\n")
        return EXIT_INPUT
    stdin_text = ""
    if not sys.stdin.isatty():
        stdin_text = sys.stdin.read()
    elif not request.prompt and not subcommand and args.rewind is None:
        err.write(
            "agent-lsp has no interactive terminal UI: give a prompt (-p PROMPT or a positional query), "
            "pipe one on stdin, or run `agent-lsp acp` / `agent-lsp lsp` from an editor. See agent-lsp --help.\n"
        )
        return EXIT_INPUT
    if stdin_text.strip():
        # Gemini CLI puts piped input first and the -p prompt after it.
        request.prompt = f"{stdin_text}\n\n{request.prompt}" if request.prompt else stdin_text
    if not request.prompt.strip() and args.rewind is None:
        err.write(
            "No input provided via stdin. Input can be provided by piping data into agent-lsp "
            "or using the --prompt option.\n"
        )
        return EXIT_INPUT
    return run_headless(request)
