"""Scale (issue #24): big files, a big workspace and long waits never hang the agent. Real headless and ACP
subprocesses on generated files; each test fails on a hang (its timeout). One figure is held to its budget here,
with 3× slack for a shared CI machine: the 50k-line headless rewrite; the others' figures and budgets are in
bench/scale.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.fakes.fake_gemini import FakeGemini
from tests.integration.spawned import spawned
from tests.replay_lines import call_line, text_line


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "OPENAI"))}
    env.update(HOME=str(tmp_path / "home"), AGENT_LSP_HOME=str(tmp_path / "state"), AGENT_LSP_TRUST_WORKSPACE="true")
    env.update(extra)
    return env


def _run(tmp_path: Path, project: Path, turns: list[dict[str, Any]], *args: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps(t) + "\n" for t in turns))
    argv = [sys.executable, "-m", "agent_lsp", "run", "--fake-responses", str(script), "--approval-mode", "yolo"]
    return subprocess.run([*argv, *args], cwd=project, env=_env(tmp_path), capture_output=True, text=True, timeout=90)


# bench/scale.py's budget for the agent's own time on a 50k-line rewrite, with the 3× slack the suite allows (a
# shared 2-core CI machine); measured here 2026-11-28: see the commit that added this test.
REWRITE_LINES = 50_000
REWRITE_BUDGET_S = 2.0 * 3


def test_a_50k_line_rewrite_ends_within_its_budget_and_counts_its_lines(tmp_path: Path) -> None:
    """The headless rewrite of bench/scale.py: two lines in three changed (ndiff never finished 8,333, issue #24).
    The figure is the big run's time over a one-line write's run, less writing the text to disk: the agent's own
    work on the big file (diff, checkpoint, stats), which the budget bounds; a hang fails on the runs' timeout."""
    project = tmp_path / "project"
    project.mkdir()
    old = [f"    value_{k} = compute(value_{k - 1}, {k * 7 % 1000})  # step {k}\n" for k in range(REWRITE_LINES)]
    new = [line.replace("compute", "compute_fast") if k % 3 else line for k, line in enumerate(old)]
    (project / "big.py").write_text("".join(old))
    small = [call_line("write_file", {"file_path": "small.txt", "content": "one line\n"}), text_line("ok")]
    started = time.perf_counter()
    assert _run(tmp_path, project, small, "-o", "json", "write a line").returncode == 0
    small_s = time.perf_counter() - started
    turns = [call_line("write_file", {"file_path": "big.py", "content": "".join(new)}), text_line("rewritten")]
    started = time.perf_counter()
    result = _run(tmp_path, project, turns, "-o", "json", "rewrite it")
    big_s = time.perf_counter() - started
    assert result.returncode == 0, result.stderr
    assert (project / "big.py").read_text() == "".join(new)
    changed = len([k for k in range(REWRITE_LINES) if k % 3])
    files = json.loads(result.stdout)["stats"]["files"]
    assert files == {"totalLinesAdded": changed, "totalLinesRemoved": changed}
    started = time.perf_counter()
    plain = tmp_path / "plain.py"
    with open(plain, "w") as f:
        f.write("".join(new))
        f.flush()
        os.fsync(f.fileno())
    floor_s = time.perf_counter() - started
    over = big_s - small_s - floor_s
    print(f"50k rewrite: {over:.3f} s over a one-line write (run {big_s:.3f} s, one line {small_s:.3f} s)")
    assert over < REWRITE_BUDGET_S, f"{over:.2f} s over a one-line write's run; budget {REWRITE_BUDGET_S} s"


def test_one_token_replaced_in_a_five_megabyte_line(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    line = "var a=1;" * 625_000 + "NEEDLE;"
    (project / "app.min.js").write_text(line)
    edit = {"file_path": "app.min.js", "old_string": "NEEDLE;", "new_string": "PIN;"}
    result = _run(tmp_path, project, [call_line("replace", edit), text_line("done")], "-o", "json", "edit it")
    assert result.returncode == 0, result.stderr
    assert (project / "app.min.js").read_text() == line[:-7] + "PIN;"
    assert json.loads(result.stdout)["stats"]["files"] == {"totalLinesAdded": 1, "totalLinesRemoved": 1}


def test_a_twenty_thousand_file_workspace(tmp_path: Path) -> None:
    """The folder tree in the prompt, glob, grep and ls over 20,000 files, in one headless run."""
    project = tmp_path / "project"
    project.mkdir()
    same = tmp_path / "same.py"
    same.write_text("x = 0\n")
    for d in range(100):
        folder = project / f"pkg{d:02d}"
        folder.mkdir()
        for f in range(200):
            # Hard links: 20,000 new files took this machine's disk 50 s, 20,000 names of one file 1 s.
            os.link(same, folder / f"m{f:03d}.py")
    (project / "pkg42" / "m007.py").unlink()
    (project / "pkg42" / "m007.py").write_text("x = 7  # tag42\n")
    turns = [
        call_line("glob", {"pattern": "**/m199.py"}),
        call_line("grep_search", {"pattern": "x = 7  # tag42$"}),
        call_line("list_directory", {"dir_path": "pkg07"}),
        text_line("looked"),
    ]
    result = _run(tmp_path, project, turns, "-o", "stream-json", "look around")
    assert result.returncode == 0, result.stderr
    outputs = [e["output"] for e in map(json.loads, result.stdout.splitlines()) if e["type"] == "tool_result"]
    assert len(outputs) == 3
    assert "100 file(s)" in outputs[0] or "100 matching" in outputs[0] or "Found 100" in outputs[0], outputs[0]
    assert outputs[1].startswith("Found 1 match") and outputs[2] == "Listed 200 item(s)", outputs[1:]


@contextmanager
def _agent(tmp_path: Path, fake: FakeGemini, *args: str) -> Iterator[subprocess.Popen[bytes]]:
    """``agent-lsp ARGS`` against the fake Gemini server, killed if a test leaves it running."""
    env = _env(tmp_path, GEMINI_API_KEY="k", GOOGLE_GEMINI_BASE_URL=fake.url)
    stdin = subprocess.DEVNULL if args[0] == "run" else subprocess.PIPE
    with spawned([sys.executable, "-m", "agent_lsp", *args], cwd=tmp_path, env=env, stdin=stdin) as proc:
        yield proc


def _retrying_server(fake: FakeGemini, retry_after: float) -> None:
    fake.push({"status": 503, "message": "overloaded", "retry_after": retry_after}, text_line("answered"))


def test_headless_tells_a_retry_on_stderr_in_every_format(tmp_path: Path) -> None:
    for fmt in ("json", "stream-json"):
        with FakeGemini() as fake:
            _retrying_server(fake, 0.2)
            env = _env(tmp_path, GEMINI_API_KEY="k", GOOGLE_GEMINI_BASE_URL=fake.url)
            result = subprocess.run(
                [sys.executable, "-m", "agent_lsp", "run", "-o", fmt, "hi"],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
            )
        assert result.returncode == 0, result.stderr
        retry_lines = [line for line in result.stderr.splitlines() if "retry" in line.lower()]
        assert len(retry_lines) == 1 and "0.2s" in retry_lines[0] and "503" in retry_lines[0], result.stderr
        # stdout stays the chosen format: one JSON document, or JSON lines.
        if fmt == "json":
            assert json.loads(result.stdout)["response"] == "answered"
        else:
            assert all(json.loads(line) for line in result.stdout.splitlines())


def _wait_for_request(fake: FakeGemini, count: int) -> None:
    deadline = time.monotonic() + 30
    while len(fake.generation_requests()) < count:
        assert time.monotonic() < deadline, "the agent never asked the model"
        time.sleep(0.02)


def test_sigterm_ends_a_headless_run_waiting_out_a_long_retry(tmp_path: Path) -> None:
    """A quota wait of a minute: SIGTERM still ends the run at once (the wait is cancellable)."""
    with FakeGemini() as fake:
        _retrying_server(fake, 60)
        with _agent(tmp_path, fake, "run", "-o", "json", "hi") as proc:
            _wait_for_request(fake, 1)
            time.sleep(0.3)  # the 503 answered: the agent is now waiting out Retry-After
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=15) == 130


def test_cancel_and_sigterm_end_an_acp_prompt_waiting_out_a_long_retry(tmp_path: Path) -> None:
    with (
        FakeGemini([{"status": 503, "message": "overloaded", "retry_after": 60}] * 2) as fake,
        _agent(tmp_path, fake, "acp") as proc,
    ):
        assert proc.stdin is not None and proc.stdout is not None
        stdin, stdout = proc.stdin, proc.stdout

        def send(message: dict[str, Any]) -> None:
            stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
            stdin.flush()

        def answer(rid: int) -> dict[str, Any]:
            while line := stdout.readline():
                message: dict[str, Any] = json.loads(line)
                if message.get("id") == rid and "method" not in message:
                    return message
            raise AssertionError("the agent closed its output")

        send({"id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
        answer(1)
        send({"id": 2, "method": "session/new", "params": {"cwd": str(tmp_path), "mcpServers": []}})
        sid = answer(2)["result"]["sessionId"]
        prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}
        send({"id": 3, "method": "session/prompt", "params": prompt})
        _wait_for_request(fake, 1)
        time.sleep(0.3)  # answered 503: now waiting out its Retry-After
        send({"method": "session/cancel", "params": {"sessionId": sid}})
        assert answer(3)["result"]["stopReason"] == "cancelled"
        send({"id": 4, "method": "session/prompt", "params": prompt})
        _wait_for_request(fake, 2)
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 128 + signal.SIGTERM


def test_cancel_and_end_of_input_end_an_lsp_prompt_waiting_out_a_long_retry(tmp_path: Path) -> None:
    """(SIGTERM over LSP takes the same path as end of input: tests/integration/test_sigterm.py.)"""
    from tests.lsp.frames import frame, next_frame, open_session

    with (
        FakeGemini([{"status": 503, "message": "overloaded", "retry_after": 60}] * 2) as fake,
        _agent(tmp_path, fake, "lsp") as proc,
    ):
        assert proc.stdin is not None and proc.stdout is not None
        stdin, stdout = proc.stdin, proc.stdout

        def send(message: dict[str, Any]) -> None:
            stdin.write(frame({"jsonrpc": "2.0", **message}))
            stdin.flush()

        def answer(rid: int) -> dict[str, Any]:
            while (message := next_frame(stdout)).get("id") != rid or "method" in message:
                pass
            return message

        open_session(stdin, tmp_path)
        sid = answer(2)["result"]["sessionId"]
        prompt = {"sessionId": sid, "prompt": "hi"}
        send({"id": 3, "method": "agent/prompt", "params": prompt})
        _wait_for_request(fake, 1)
        time.sleep(0.3)  # answered 503: now waiting out its Retry-After
        send({"method": "agent/cancel", "params": {"sessionId": sid}})
        assert answer(3)["result"]["stopReason"] == "cancelled"
        send({"id": 4, "method": "agent/prompt", "params": prompt})
        _wait_for_request(fake, 2)
        time.sleep(0.3)
        stdin.close()
        assert proc.wait(timeout=15) == 0


async def test_a_two_hundred_prompt_session_with_big_tool_outputs_records_and_loads(tmp_path: Path) -> None:
    """200 prompts, each reading a 60 KB file: every prompt ends, and the session loads back whole."""
    from agent_lsp import events as ev
    from agent_lsp.core.ports import AutoConfirmer
    from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup
    from tests.integration.test_agent_flows import write_script

    project = tmp_path / "project"
    project.mkdir()
    for k in range(10):
        (project / f"log{k}.txt").write_text("".join(f"{k}:{n:06d} " + "x" * 50 + "\n" for n in range(1000)))
    lines: list[dict[str, Any]] = []
    for t in range(200):
        lines += [call_line("read_file", {"file_path": f"log{t % 10}.txt"}), text_line(f"read {t}")]
    env = {**os.environ, "AGENT_LSP_TRUST_WORKSPACE": "true"}
    runtime = Runtime(RuntimeOptions(fake_responses=write_script(tmp_path, lines), env=env))
    handle = await runtime.create_session(SessionSetup(cwd=project, confirmer=AutoConfirmer()))
    try:
        for t in range(200):
            stops = [e for e in [e async for e in handle.session.send(f"read {t}")] if isinstance(e, ev.Stop)]
            assert [s.reason for s in stops] == ["end_turn"]
    finally:
        await handle.aclose()
    loaded, events = await runtime.load_session(handle.session.id, SessionSetup(cwd=project, confirmer=AutoConfirmer()))
    try:
        assert sum(isinstance(e, ev.ToolCallResponse) for e in events) == 200
    finally:
        await loaded.aclose()
