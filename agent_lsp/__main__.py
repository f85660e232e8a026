"""``python -m agent_lsp``: the same entry point as the ``agent-lsp`` command."""

from agent_lsp.cli import main

raise SystemExit(main())
