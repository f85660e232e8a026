"""A stand-in for the user's browser in the sign-in tests: it opens the sign-in page the agent hands it and follows
the redirects, as a browser would, until the agent's localhost listener has the answer. Each address it was given
is noted in $OAUTH_BROWSER_LOG."""

from __future__ import annotations

import os
import sys
import urllib.request


def main() -> None:
    url = sys.argv[1]
    log = os.environ.get("OAUTH_BROWSER_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(url + "\n")
    with urllib.request.urlopen(url, timeout=30) as page:  # follows the authorization server's redirect
        page.read()


if __name__ == "__main__":
    main()
