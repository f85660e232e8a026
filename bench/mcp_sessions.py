"""Bench: N ACP sessions in one process, each with the same configured stdio MCP server: how many server
processes start, the time from the first ``session/new`` until every session's first prompt is answered (each
waits for its MCP tools), and the RSS of the agent with its children (the servers) after 1 and after N sessions.
The figures MCP pooling (one server per spec and roots, leased by sessions) is measured against.
Run: ``.venv/bin/python bench/mcp_sessions.py [--sessions 10]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from acp_throughput import Agent, text_turn

SERVER = """
import os, sys
from mcp.server.mcpserver import MCPServer

with open(sys.argv[1], "a") as started:
    started.write(f"{os.getpid()}\\n")
server = MCPServer("counted", log_level="WARNING")

@server.tool(name="echo", description="Echoes its input.")
def echo(x: str) -> str:
    return x

server.run()
"""


def tree_rss_mib(pid: int) -> float:
    """RSS of ``pid`` and every process below it (the MCP servers are its children, or theirs)."""
    children: dict[int, list[int]] = {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
        except OSError:
            continue
        children.setdefault(int(fields.get("PPid", "0").strip()), []).append(int(status.parent.name))
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
        todo += children.get(p, [])
    return total / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        project = work / "project"
        project.mkdir()
        started = work / "started.txt"
        server = work / "counted.py"
        server.write_text(SERVER)
        script = work / "script.jsonl"
        script.write_text("".join(json.dumps(text_turn("ok")) + "\n" for _ in range(args.sessions)))
        mcp = [{"name": "counted", "command": sys.executable, "args": [str(server), str(started)], "env": []}]
        agent = Agent(script, work, loop_detection=True)
        agent.call("initialize", {"protocolVersion": 1})
        t0 = time.perf_counter()
        first_ready = 0.0
        rss_one = 0.0
        for i in range(args.sessions):
            sid = agent.call("session/new", {"cwd": str(project), "mcpServers": mcp})["sessionId"]
            agent.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": f"hi {i}"}]})
            if i == 0:
                first_ready = time.perf_counter() - t0
                rss_one = tree_rss_mib(agent.proc.pid)
        all_ready = time.perf_counter() - t0
        rss_all = tree_rss_mib(agent.proc.pid)
        servers = len(started.read_text().splitlines()) if started.exists() else 0
        agent.close()
    print(f"MCP server processes started for {args.sessions} sessions: {servers}")
    print(f"first session ready (session/new + a prompt that waits for its MCP tools): {first_ready * 1000:.0f} ms")
    print(f"all {args.sessions} sessions ready: {all_ready * 1000:.0f} ms")
    print(f"RSS, agent and its servers: 1 session {rss_one:.1f} MiB; {args.sessions} sessions {rss_all:.1f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
