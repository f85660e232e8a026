"""Install instructions say what works today: every page that offers a path needing a published release (PyPI, the
marketplaces, the ACP Registry, the GitHub repository) also says it waits for the first release and gives the
checkout path that works now — until docs/releasing.md's Status section says a release exists."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NEEDS_RELEASE = (
    "uv tool install agent-lsp-server",
    "pipx install agent-lsp-server",
    "ACP Registry",
    "Marketplace",
    '"agent-lsp/agent-lsp-server"',
)
PAGES = [REPO / "README.md", *sorted((REPO / "docs" / "editors").glob("*.md"))]


def _released() -> bool:
    return "**Nothing has been released yet.**" not in (REPO / "docs" / "releasing.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_paths_that_need_a_release_say_so_and_the_checkout_path_is_given(page: Path) -> None:
    if _released():
        pytest.fail("docs/releasing.md says a release exists: update the install notes and this test with it")
    text = page.read_text(encoding="utf-8")
    if not any(needle in text for needle in NEEDS_RELEASE):
        return
    assert "first release" in text, f"{page.name} offers a release-only path without saying it needs one"
    assert any(way in text for way in ("uv tool install .", "make vsix", 'dir = "', "checkout")), page.name
