"""Exit 0 when the ACP Registry needs a pull request for our entry, 1 when its own hourly update will do.

The registry bumps a listed agent's version (and the ``==version`` of its package) from PyPI by itself, so a pull
request is needed only for the first listing or when anything else in the entry (agent.json, icon.svg) changed.
Usage: registry_pr_needed.py OUR_FOLDER THEIR_FOLDER (the registry's folder may be missing or empty).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def without_version(entry: dict[str, Any]) -> dict[str, Any]:
    """The entry with its version and every package's pinned version taken out."""
    out = json.loads(json.dumps(entry))
    out.pop("version", None)
    for dist in out.get("distribution", {}).values():
        if isinstance(dist, dict) and isinstance(dist.get("package"), str):
            dist["package"] = dist["package"].split("==")[0]
    return out


def main(argv: list[str]) -> int:
    ours, theirs = (Path(a) for a in argv)
    if not (theirs / "agent.json").is_file() or not (theirs / "icon.svg").is_file():
        return 0
    entries = [json.loads((d / "agent.json").read_text(encoding="utf-8")) for d in (ours, theirs)]
    same = without_version(entries[0]) == without_version(entries[1])
    same = same and (ours / "icon.svg").read_bytes() == (theirs / "icon.svg").read_bytes()
    return 1 if same else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
