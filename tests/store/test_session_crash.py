"""A recording survives its writer being killed: what was written loads, and resuming continues cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from agent_lsp import events as ev
from agent_lsp.model.base import Content, Part
from agent_lsp.store.sessions import SessionStore

WRITER = r"""
import sys
from pathlib import Path
from agent_lsp import events as ev
from agent_lsp.model.base import Content, Part
from agent_lsp.store.sessions import SessionStore

root = Path(sys.argv[1])
rec = SessionStore(root).recorder("crash", root)
rec(ev.UserMessage("write forever"))
rec.record_history([Content("user", (Part(text="write forever"),))])
print("ready", flush=True)
i = 0
while True:
    # Large events make it likely the kill lands inside a write.
    rec(ev.ToolOutput("c1", f"chunk {i} " + "x" * 20000))
    i += 1
"""


def test_writer_killed_mid_session_loads_what_was_written(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(root)],
        stdout=subprocess.PIPE,
        env=os.environ.copy(),  # carries the private AGENT_LSP_HOME of this test
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == b"ready"
        store = SessionStore(root)
        path = store.path_for("crash")
        deadline = time.monotonic() + 10
        while path.stat().st_size < 2_000_000 and time.monotonic() < deadline:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    before = path.read_bytes()

    loaded = store.load("crash")
    assert path.read_bytes() == before
    assert loaded.events[0] == ev.UserMessage("write forever")
    outputs = loaded.events[1:]
    assert len(outputs) >= 50
    for i, event in enumerate(outputs):
        assert isinstance(event, ev.ToolOutput)
        assert event.chunk.startswith(f"chunk {i} ")  # consecutive: nothing lost before the last whole line
    assert loaded.history == [Content("user", (Part(text="write forever"),))]
    assert loaded.info.title == "write forever"


def test_truncated_last_line_is_tolerated_and_resume_continues(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    rec = store.recorder("cut", tmp_path)
    rec(ev.UserMessage("hello"))
    rec(ev.Content("a complete line"))
    rec(ev.Content("this line will be cut in half"))
    rec.close()
    path = store.path_for("cut")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 20])  # as if the process died inside the last write

    truncated = path.read_bytes()
    loaded = store.load("cut")
    assert path.read_bytes() == truncated
    assert loaded.events == [ev.UserMessage("hello"), ev.Content("a complete line")]

    rec = store.recorder("cut", tmp_path)
    rec(ev.UserMessage("resumed"))
    rec.close()
    again = store.load("cut")
    assert again.events == [ev.UserMessage("hello"), ev.Content("a complete line"), ev.UserMessage("resumed")]
    assert again.info.prompt_count == 2
