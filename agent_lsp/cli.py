"""Command line: ``agent-lsp run | acp | lsp | demo``. Parses arguments and hands off; imports stay lazy."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

MODES = ("default", "auto_edit", "yolo", "plan")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="agent-lsp", description="A coding agent that lives in your editor.")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command")

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--model", "-m", help="Gemini model (default: settings, else gemini-2.5-pro)")
        sp.add_argument("--approval-mode", choices=MODES, help="when tools may run without asking")
        sp.add_argument(
            "--fake-responses",
            type=Path,
            metavar="FILE",
            help="replay model responses from a Gemini CLI --fake-responses JSONL file",
        )
        sp.add_argument("--log-file", type=Path, help="write logs here (stdout carries protocol frames only)")
        sp.add_argument("--debug", action="store_true", help="verbose logs")

    run = sub.add_parser("run", help="run one prompt headless and stream the answer")
    run.add_argument("prompt", nargs="+", help="the prompt")
    run.add_argument("--output-format", "-o", choices=("text", "json", "stream-json"), default="text")
    run.add_argument("--cwd", type=Path, default=None, help="workspace folder (default: current directory)")
    common(run)
    acp = sub.add_parser("acp", help="serve the Agent Client Protocol over stdio")
    common(acp)
    lsp = sub.add_parser("lsp", help="serve the Language Server Protocol over stdio")
    common(lsp)
    demo = sub.add_parser("demo", help="run the built-in demo on a temp copy of an example project")
    demo.add_argument("--keep", action="store_true", help="keep the temp project and print its path")
    demo.add_argument("--delay", type=float, default=0.0, help="seconds between streamed chunks")
    return p


def _setup_logging(log_file: Path | None, debug: bool) -> None:
    import logging

    level = logging.DEBUG if debug else logging.INFO
    handler: logging.Handler = logging.FileHandler(log_file) if log_file else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level if log_file or debug else logging.WARNING)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.version:
        from agent_lsp import __version__

        print(f"agent-lsp {__version__}")
        return 0
    if args.command is None:
        _parser().print_help(sys.stderr)
        return 2
    if args.command == "demo":
        from agent_lsp.headless import run_demo

        return run_demo(keep=args.keep, delay=args.delay)
    _setup_logging(args.log_file, args.debug)
    if args.command == "run":
        from agent_lsp.headless import run_prompt

        return run_prompt(
            " ".join(args.prompt),
            cwd=args.cwd or Path.cwd(),
            model=args.model,
            approval_mode=args.approval_mode,
            fake_responses=args.fake_responses,
            output_format=args.output_format,
        )
    if args.command == "acp":
        from agent_lsp.adapters.acp.main import serve as serve_acp

        return serve_acp(args)
    if args.command == "lsp":
        from agent_lsp.adapters.lsp.main import serve as serve_lsp

        return serve_lsp(args)
    return 2
