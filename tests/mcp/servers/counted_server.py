"""echo_server.py's stdio server that first appends its pid to a file (argv[1]): the pooling tests count processes.

Usage: counted_server.py PID_FILE
"""

from __future__ import annotations

import os
import sys

from echo_server import build

with open(sys.argv[1], "a", encoding="utf-8") as started:
    started.write(f"{os.getpid()}\n")
build("counted").run()
