"""A server that never answers: it ignores its stdin closing and SIGTERM, and leaves a child of its own running.

The worst case for clean-up: only SIGKILL to its whole process group ends it. ``--pid-file`` gets its pid and
its child's, one a line, once both run.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pid-file", required=True)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    with open(args.pid_file, "w") as f:
        f.write(f"{os.getpid()}\n{child.pid}\n")
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
