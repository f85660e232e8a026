"""Bench: agent RSS for many sessions in one ACP process (goal ≤ 8 MB more per session, measured with 20).

Each session gets one prompt (zero-delay replay), so its model history, tools and recorder exist. RSS is read
from /proc after the first session and after the last; the difference over the extra sessions is printed.
Run: ``.venv/bin/python bench/sessions_rss.py [--sessions N]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from acp_throughput import Agent, text_turn

GOAL_MB = 8.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        project = work / "project"
        project.mkdir()
        script = work / "script.jsonl"
        script.write_text("".join(json.dumps(text_turn("ok " * 200)) + "\n" for _ in range(args.sessions)))
        agent = Agent(script, work, loop_detection=True)
        agent.call("initialize", {"protocolVersion": 1})
        first = last = 0.0
        for i in range(args.sessions):
            sid = agent.call("session/new", {"cwd": str(project), "mcpServers": []})["sessionId"]
            agent.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": f"hi {i}"}]})
            if i == 0:
                first = agent.rss_mib()
            last = agent.rss_mib()
        agent.close()
    per = (last - first) / max(1, args.sessions - 1)
    print(f"RSS with 1 session: {first:.1f} MiB; with {args.sessions}: {last:.1f} MiB")
    print(f"per extra session: {per:.2f} MiB (goal ≤ {GOAL_MB:.0f} MB, ratio {per / GOAL_MB:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
