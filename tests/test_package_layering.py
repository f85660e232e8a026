"""Dependencies between packages point one way (docs/architecture.md, "Dependency direction"): adapters never import
each other, nothing below the adapters imports them or the runtime, protocol and SDK libraries stay in their package."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.test_layering import PACKAGE, imported_modules

# package (relative to agent_lsp/) → our modules it must never import, lazily or for types included.
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "adapters/acp": ("agent_lsp.adapters.lsp", "agent_lsp.headless", "agent_lsp.cli"),
    "adapters/lsp": ("agent_lsp.adapters.acp", "agent_lsp.headless", "agent_lsp.cli"),
    "runtime": ("agent_lsp.adapters", "agent_lsp.headless", "agent_lsp.cli"),
    "tools": ("agent_lsp.adapters", "agent_lsp.runtime", "agent_lsp.headless", "agent_lsp.config.loader"),
    "config": ("agent_lsp.adapters", "agent_lsp.runtime", "agent_lsp.core.session", "agent_lsp.tools"),
    "store": ("agent_lsp.adapters", "agent_lsp.runtime", "agent_lsp.tools"),
    "model": ("agent_lsp.adapters", "agent_lsp.runtime", "agent_lsp.core", "agent_lsp.tools", "agent_lsp.config"),
    "mcp": ("agent_lsp.adapters", "agent_lsp.runtime"),
    "policy": ("agent_lsp.adapters", "agent_lsp.runtime", "agent_lsp.core.session"),
    "hooks": ("agent_lsp.adapters", "agent_lsp.runtime"),
    "workspace": ("agent_lsp.adapters", "agent_lsp.runtime", "agent_lsp.core", "agent_lsp.tools"),
}
# Libraries that speak a protocol or an SDK, and the only packages that may import them.
LIBRARIES: dict[str, tuple[str, ...]] = {
    "pygls": ("adapters/lsp",),
    "lsprotocol": ("adapters/lsp",),
    "acp": (),  # the ACP SDK is for tests only: our server speaks ACP itself
    "mcp": ("mcp",),
    "google": ("model",),
    "openai": ("model",),
}


def _files(package: str) -> list[Path]:
    return sorted((PACKAGE / package).rglob("*.py"))


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_never_imports_what_sits_above_it(package: str) -> None:
    files = _files(package)
    assert files, package
    found = [
        f"{path.relative_to(PACKAGE)}:{line}: {name}"
        for path in files
        for line, name in imported_modules(path)
        if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN[package])
    ]
    assert found == []


def test_protocol_and_sdk_libraries_stay_in_their_package() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        home = path.relative_to(PACKAGE).as_posix()
        for line, name in imported_modules(path):
            allowed = LIBRARIES.get(name.split(".")[0])
            if allowed is not None and not any(home.startswith(p + "/") for p in allowed):
                found.append(f"{home}:{line}: {name}")
    assert found == []
