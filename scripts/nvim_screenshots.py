"""Screenshots of the Neovim chat for docs/images: a real nvim in a tmux terminal, the plugin on a replay model,
the pane captured with its colours and drawn by headless Chromium.

    .venv/bin/python scripts/nvim_screenshots.py [--out docs/images]

Runs tests/nvim_plugin/lua/specs/screenshot.lua (the scene) in ``tmux`` (130x34) with the repository's nvim and
server; each scene is captured with ``tmux capture-pane -e``, its SGR colours turned into HTML, and
``chromium --headless --screenshot`` makes the PNG. Needs tmux and Debian's chromium.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.nvim_plugin.scenarios import FIX, STATS  # noqa: E402
from tests.replay_lines import call_line, text_line  # noqa: E402

COLS, ROWS = 130, 34
SCENES = {"closed": "nvim-chat.png", "open": "nvim-chat-details.png", "subagent": "nvim-chat-subagent.png"}
REPORT = {"SummaryOfFindings": "stats.py has mean().", "ExplorationTrace": [], "RelevantLocations": []}
SCRIPT = [
    call_line("read_file", {"file_path": "stats.py"}, thought="Reading the code"),
    call_line("replace", FIX),
    call_line("run_shell_command", {"command": "python3 -c 'import stats'", "description": "Check it imports"}),
    text_line("Fixed `mean()`: it divides by `len(values)` now, ", "and the module still imports."),
    # The second prompt: a subagent, its steps nested under its call (the plugin advertises subagents).
    call_line("invoke_agent", {"agent_name": "codebase_investigator", "prompt": "What is in stats.py?"}),
    call_line("list_directory", {"dir_path": "."}, thought="Looking for the code"),
    call_line("read_file", {"file_path": "stats.py"}, thought="Reading stats"),
    call_line("complete_task", {"report": REPORT}),
    text_line("`stats.py` has one function, `mean()`."),
]
SGR = re.compile(r"\x1b\[([0-9;:]*)m")
XTERM16 = [
    "#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
    "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
]  # fmt: skip
FG, BG = "#e0e2ea", "#14161b"  # Neovim 0.11's default dark scheme (NvimLightGrey2 on NvimDarkGrey1)


def _hex(r: int, g: int, b: int) -> str:
    return f"#{r:02x}{g:02x}{b:02x}"


def _color256(n: int) -> str:
    if n < 16:
        return XTERM16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return _hex(steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    grey = 8 + (n - 232) * 10
    return _hex(grey, grey, grey)


def ansi_to_html(text: str) -> str:
    """The pane's lines, SGR colours and bold/italic/underline/reverse as styled spans."""
    out: list[str] = []
    state: dict[str, object] = {}
    for line in text.splitlines():
        pos = 0
        row: list[str] = []
        for match in SGR.finditer(line):
            row.append(_span(line[pos : match.start()], state))
            _apply(match.group(1), state)
            pos = match.end()
        row.append(_span(line[pos:], state))
        out.append("".join(row))
    return "\n".join(out)


def _apply(params: str, state: dict[str, object]) -> None:
    codes = [int(c) if c else 0 for c in re.split("[;:]", params)] or [0]
    i = 0
    while i < len(codes):
        c = codes[i]
        if c == 0:
            state.clear()
        elif c in (1, 3, 4, 7):
            state[{1: "bold", 3: "italic", 4: "underline", 7: "reverse"}[c]] = True
        elif c in (22, 23, 24, 27):
            state.pop({22: "bold", 23: "italic", 24: "underline", 27: "reverse"}[c], None)
        elif c in (39, 49):
            state.pop("fg" if c == 39 else "bg", None)
        elif 30 <= c <= 37 or 90 <= c <= 97:
            state["fg"] = XTERM16[c - 30 if c < 90 else c - 82]
        elif 40 <= c <= 47 or 100 <= c <= 107:
            state["bg"] = XTERM16[c - 40 if c < 100 else c - 92]
        elif c in (38, 48) and i + 1 < len(codes):
            key = "fg" if c == 38 else "bg"
            if codes[i + 1] == 2 and i + 4 < len(codes):
                state[key] = _hex(*codes[i + 2 : i + 5])
                i += 4
            elif codes[i + 1] == 5 and i + 2 < len(codes):
                state[key] = _color256(codes[i + 2])
                i += 2
        i += 1


def _span(text: str, state: dict[str, object]) -> str:
    if not text:
        return ""
    fg, bg = state.get("fg", FG), state.get("bg", BG)
    if state.get("reverse"):
        fg, bg = bg, fg
    style = f"color:{fg};background:{bg}"
    style += ";font-weight:bold" if state.get("bold") else ""
    style += ";font-style:italic" if state.get("italic") else ""
    style += ";text-decoration:underline" if state.get("underline") else ""
    return f'<span style="{style}">{html.escape(text)}</span>'


def page(body: str) -> str:
    return (
        "<!doctype html><meta charset='utf-8'><style>"
        f"body{{margin:0;background:{BG}}}pre{{margin:0;padding:8px;font:14px/1.25 'DejaVu Sans Mono',monospace;"
        f"color:{FG};background:{BG}}}</style><pre>{body}</pre>"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(REPO / "docs" / "images"))
    out = Path(parser.parse_args().out)
    tmp = Path(tempfile.mkdtemp(prefix="nvim-shots-"))
    project, home = tmp / "project", tmp / "home"
    project.mkdir()
    home.mkdir()
    (project / "stats.py").write_text(STATS)
    responses = tmp / "responses.jsonl"
    responses.write_text("".join(json.dumps(line) + "\n" for line in SCRIPT))
    flag = tmp / "flag"
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "AGENT_LSP_HOME": str(tmp / "state"),
        "AGENT_LSP_TRUST_WORKSPACE": "true",
        "AGENT_NVIM_REPO": str(REPO),
        "AGENT_NVIM_PROJECT": str(project),
        "AGENT_NVIM_RESPONSES": str(responses),
        "AGENT_NVIM_PYTHON": sys.executable,
        "AGENT_NVIM_SPEC": "screenshot",
        "AGENT_NVIM_SHOT_FLAG": str(flag),
        "COLORTERM": "truecolor",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }
    nvim = REPO / ".venv" / "bin" / "nvim"
    command = " ".join(
        [
            "env",
            *(f"{k}={v}" for k, v in env.items()),
            str(nvim),
            "-n",
            "-i",
            "NONE",
            "-u",
            str(REPO / "tests/nvim_plugin/init.lua"),
        ]
    )
    session = f"agent-shots-{os.getpid()}"
    tmux = ["tmux", "-L", session]
    subprocess.run(
        [*tmux, "-f", "/dev/null", "new-session", "-d", "-s", session, "-x", str(COLS), "-y", str(ROWS), command],
        check=True,
        cwd=project,
    )
    subprocess.run([*tmux, "set", "-g", "default-terminal", "tmux-256color"], check=True)
    subprocess.run([*tmux, "set", "-g", "remain-on-exit", "on"], check=True)
    try:
        for scene, name in SCENES.items():
            deadline = time.monotonic() + 120
            while not (flag.with_suffix(".ready").exists() and flag.with_suffix(".ready").read_text().strip() == scene):
                if time.monotonic() > deadline:
                    pane = subprocess.run([*tmux, "capture-pane", "-p", "-t", session], capture_output=True, text=True)
                    raise SystemExit(f"the scene {scene} never got ready:\n{pane.stdout}")
                time.sleep(0.2)
            time.sleep(0.5)  # the terminal draws what nvim sent
            pane = subprocess.run(
                [*tmux, "capture-pane", "-e", "-p", "-t", session], check=True, capture_output=True, text=True
            ).stdout
            shot_html = tmp / f"{scene}.html"
            shot_html.write_text(page(ansi_to_html(pane)))
            target = out / name
            subprocess.run(
                [
                    "chromium",
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--hide-scrollbars",
                    f"--screenshot={target}",
                    "--window-size=1120,650",
                    shot_html.as_uri(),
                ],
                check=True,
                capture_output=True,
                timeout=60,
            )
            print(f"wrote {target}")
            Path(f"{flag}.{scene}").write_text("taken\n")
    finally:
        subprocess.run([*tmux, "kill-server"], check=False)


if __name__ == "__main__":
    main()
