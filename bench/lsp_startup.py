"""Bench: spawn ``python -m agent_lsp lsp`` → ``initialize`` answered (median of 10 runs, budget 400 ms).

Also spawn → ``agent/newSession`` answered (the panel is ready; goal 150 ms), sent right after ``initialized``,
as our VS Code extension and Neovim plugin do: this one pays for importing pygls + lsprotocol and the runtime.
It is measured with a Gemini key in the environment (what a user has; no prompt is sent, so the key is never
used) and with the replay model (``--fake-responses``, no credentials). ``--floor`` adds the floor under any
pygls server: ``import pygls.lsp.server`` (which imports lsprotocol.types) in a fresh interpreter, and a bare
pygls ``LanguageServer`` whose ``agent/newSession`` handler answers at once. ``--nvim-capabilities`` sends the
ClientCapabilities Neovim 0.11 sends (a real editor's; otherwise ``{}``).

``--python OTHER/.venv/bin/python`` (repeatable) runs another checkout's server too, interleaved run by run
with this one (each from its own repository root), so load hits every side alike.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from spawning import private_env, start

BUDGET_MS = 400.0
GOAL_MS = 150.0
RUNS = 10
ROOT = Path(__file__).resolve().parent.parent
MODES = ("key", "replay")


def frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_frame(stream: object) -> dict[str, object]:
    length = 0
    while True:
        line = stream.readline()  # type: ignore[attr-defined]
        if not line:
            raise RuntimeError("server closed stdout before answering")
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    message: dict[str, object] = json.loads(stream.read(length))  # type: ignore[attr-defined]
    return message


def nvim_capabilities() -> dict[str, object]:
    """The ClientCapabilities Neovim's LSP client sends (``vim.lsp.protocol.make_client_capabilities()``)."""
    here = Path(sys.executable).parent / "nvim"
    nvim = str(here) if here.exists() else shutil.which("nvim")
    if nvim is None:
        raise SystemExit("nvim not found (install the dev dependencies)")
    script = "io.stdout:write(vim.json.encode(vim.lsp.protocol.make_client_capabilities()))"
    out = subprocess.run(
        [nvim, "--headless", "--clean", "-u", "NONE", "-c", f"lua {script}", "-c", "qa!"],
        capture_output=True,
        check=True,
        env=dict(os.environ, HOME=tempfile.gettempdir()),
    ).stdout
    caps: dict[str, object] = json.loads(out)
    return caps


def once(
    home: Path,
    python: str = sys.executable,
    root: Path = ROOT,
    mode: str = "key",
    capabilities: dict[str, object] | None = None,
) -> tuple[float, float]:
    env = private_env(home)
    command = [python, "-m", "agent_lsp", "lsp"]
    if mode == "bare":
        command = [python, "-c", BARE_SERVER]
    elif mode == "key":
        env["GEMINI_API_KEY"] = "bench-key"  # never used: no prompt is sent
    else:
        replay = home / "replay.jsonl"
        replay.write_text("")
        command += ["--fake-responses", str(replay)]
    params = {"processId": None, "capabilities": capabilities or {}}
    initialize = frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    started = time.perf_counter()
    proc = start(command, env, root)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(initialize)
    proc.stdin.flush()
    answer = read_frame(proc.stdout)
    elapsed = (time.perf_counter() - started) * 1000
    assert answer.get("id") == 1 and "capabilities" in answer["result"], answer  # type: ignore[operator]
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    project = home / "project"
    project.mkdir(exist_ok=True)
    proc.stdin.write(frame({"jsonrpc": "2.0", "id": 3, "method": "agent/newSession", "params": {"cwd": str(project)}}))
    proc.stdin.flush()
    # Anything the server asks meanwhile would be a wait on the client: answer it at once (none is expected).
    while (created := read_frame(proc.stdout)).get("id") != 3:
        if "id" in created and "method" in created:
            proc.stdin.write(frame({"jsonrpc": "2.0", "id": created["id"], "result": None}))
            proc.stdin.flush()
    ready = (time.perf_counter() - started) * 1000
    assert "sessionId" in created.get("result", {}), created  # type: ignore[operator]
    proc.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
    proc.stdin.flush()
    while "id" not in (shutdown := read_frame(proc.stdout)):  # notifications may come first
        pass
    assert shutdown.get("id") == 2, shutdown
    proc.wait(timeout=30)
    return elapsed, ready


# The floor under any pygls server: a bare LanguageServer whose agent/newSession answers at once.
BARE_SERVER = """
from pygls.lsp.server import LanguageServer
server = LanguageServer("floor", "0")
server.feature("agent/newSession")(lambda params: {"sessionId": "floor"})
server.start_io()
"""


def floor(python: str) -> float:
    """Spawn → ``import pygls.lsp.server`` done: what any pygls server pays before it can answer."""
    started = time.perf_counter()
    subprocess.run([python, "-c", "import pygls.lsp.server"], check=True)
    return (time.perf_counter() - started) * 1000


def _root_of(python: str) -> Path:
    """The repository a ``<root>/.venv/bin/python`` belongs to (its server runs from there)."""
    return Path(python).absolute().parent.parent.parent


def _summary(values: list[float]) -> str:
    return f"median {statistics.median(values):.0f} ms (min {min(values):.0f}, max {max(values):.0f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--python", action="append", default=[], help="another checkout's interpreter to interleave")
    parser.add_argument("--floor", action="store_true", help="also time `import pygls.lsp.server` alone")
    parser.add_argument("--nvim-capabilities", action="store_true", help="send Neovim's client capabilities")
    args = parser.parse_args(argv)
    capabilities = nvim_capabilities() if args.nvim_capabilities else None
    sides = [("this", sys.executable, ROOT)] + [(p, p, _root_of(p)) for p in args.python]
    results: dict[tuple[str, str], list[tuple[float, float]]] = {}
    floors: list[float] = []
    bare: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.runs):
            for name, python, root in sides:
                for mode in MODES:
                    home = Path(tempfile.mkdtemp(dir=tmp))  # a fresh HOME each run
                    results.setdefault((name, mode), []).append(once(home, python, root, mode, capabilities))
            if args.floor:
                floors.append(floor(sys.executable))
                bare.append(once(Path(tempfile.mkdtemp(dir=tmp)), mode="bare", capabilities=capabilities))
    for name, _, _ in sides:
        print(f"== {name}")
        for mode in MODES:
            pairs = results[(name, mode)]
            init, ready = [a for a, _ in pairs], [b for _, b in pairs]
            print(f"  {mode:6}  spawn → initialize answered: {_summary(init)}")
            print(
                f"  {mode:6}  spawn → agent/newSession answered: {_summary(ready)}; "
                f"goal {GOAL_MS:.0f} ms, ratio {statistics.median(ready) / GOAL_MS:.2f}"
            )
    if floors:
        print(f"floor: spawn → `import pygls.lsp.server` done: {_summary(floors)}")
        print(f"floor: a bare pygls server, spawn → initialize answered: {_summary([a for a, _ in bare])}")
        print(f"floor: a bare pygls server, spawn → agent/newSession answered: {_summary([b for _, b in bare])}")
    init = [a for a, _ in results[("this", "key")]]
    median = statistics.median(init)
    print(
        f"lsp startup (spawn → initialize answered): median {median:.0f} ms over {args.runs} runs; "
        f"budget {BUDGET_MS:.0f} ms, ratio {median / BUDGET_MS:.2f}"
    )
    return 0 if median <= BUDGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
