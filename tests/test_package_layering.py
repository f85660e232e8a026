"""Dependencies between packages point one way (docs/architecture.md, "Dependency direction"): adapters never import
each other, nothing below the adapters imports them or the runtime, protocol and SDK libraries stay in their package."""

from __future__ import annotations

import ast
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
    "code_intel": ("agent_lsp.adapters", "agent_lsp.runtime", "agent_lsp.headless", "agent_lsp.config.loader"),
}
# Libraries that speak a protocol or an SDK, and the only packages that may import them.
LIBRARIES: dict[str, tuple[str, ...]] = {
    # code_intel/ is the other LSP speaker: the client of the language servers the runtime starts.
    "pygls": ("adapters/lsp", "code_intel"),
    "lsprotocol": ("adapters/lsp", "code_intel"),
    "acp": (),  # the ACP SDK is for tests only: our server speaks ACP itself
    "mcp": ("mcp",),
    "google": ("model",),
    "openai": ("model",),
}


def who_may_import_what() -> str:
    """The table docs/architecture.md shows, made from the tables these tests enforce (print it to update the doc:
    ``python -m tests.test_package_layering``)."""
    from tests.core.test_layering import CORE_MAY_IMPORT

    rows = ["| package | never imports (lazily or for types included) |", "|---|---|"]
    rows += [f"| `{p}` | {', '.join(f'`{m}`' for m in mods)} |" for p, mods in sorted(FORBIDDEN.items())]
    rows.append(f"| `core` | anything of ours but {', '.join(f'`{m}`' for m in CORE_MAY_IMPORT)} |")
    rows += ["", "| library | only in |", "|---|---|"]
    rows += [f"| `{lib}` | {', '.join(f'`{p}`' for p in where) or 'tests only'} |" for lib, where in LIBRARIES.items()]
    return "\n".join(rows) + "\n"


def test_the_architecture_doc_shows_the_rules_these_tests_keep() -> None:
    doc = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert who_may_import_what() in doc, "docs/architecture.md: paste `python -m tests.test_package_layering`"


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


# --- no circles, and the size of the rooms ------------------------------------------------------------------

MAX_MODULE_LINES = 450
MAX_CLASS_LINES = 250
MAX_FUNCTION_LINES = 80
FUNCTIONS_OVER_THE_LIMIT = 3  # wiring and dispatch (assemble, to_updates, ...) may pass it, no more than three


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Our modules and the modules of ours each imports (lazily or for types included); ``from a import b`` counts
    as importing the module ``a.b`` when there is one, else ``a``."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = {resolve(imported) for _line, imported in imported_modules(path) if imported.startswith("agent_lsp")}
        graph[name] = {t for t in targets if t is not None and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one member (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_no_module_imports_itself_through_others() -> None:
    assert cycles(import_graph()) == []


def test_no_package_imports_itself_through_others() -> None:
    def package(module: str) -> str:
        return ".".join(module.split(".")[:2])

    graph: dict[str, set[str]] = {}
    for module, targets in import_graph().items():
        graph.setdefault(package(module), set()).update(package(t) for t in targets if package(t) != package(module))
    assert cycles(graph) == []


def test_the_cycle_check_finds_a_type_only_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_modules_classes_and_functions_stay_small() -> None:
    big: list[str] = []
    long_functions: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        where = path.relative_to(PACKAGE)
        if len(source.splitlines()) > MAX_MODULE_LINES:
            big.append(f"{where}: {len(source.splitlines())} lines")
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            size = (node.end_lineno or node.lineno) - node.lineno + 1
            if isinstance(node, ast.ClassDef) and size > MAX_CLASS_LINES:
                big.append(f"{where}: class {node.name}: {size} lines")
            elif not isinstance(node, ast.ClassDef) and size > MAX_FUNCTION_LINES:
                long_functions.append(f"{where}: {node.name}: {size} lines")
    assert big == []
    assert len(long_functions) <= FUNCTIONS_OVER_THE_LIMIT, long_functions


def test_no_re_export_is_kept_only_for_tests() -> None:
    """A name a module lists in ``__all__`` but imports from another of ours is there for the product's callers;
    tests import a name from the module that defines it."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    imported_through: dict[tuple[str, str], int] = {}
    exported: list[tuple[str, str]] = []
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        as_module: dict[str, str] = {}  # a local name bound to one of our modules: ``from agent_lsp.mcp import oauth``
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in modules and node.module != name:
                for alias in node.names:
                    key = (node.module, alias.name)
                    imported_through[key] = imported_through.get(key, 0) + 1
                    if f"{node.module}.{alias.name}" in modules:
                        as_module[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Import):
                as_module.update({a.asname: a.name for a in node.names if a.asname and a.name in modules})
        for node in ast.walk(tree):  # ``oauth.SignInFailed`` uses the name through the module too
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in as_module:
                key = (as_module[node.value.id], node.attr)
                imported_through[key] = imported_through.get(key, 0) + 1
        listed = next(
            (
                ast.literal_eval(n.value)
                for n in tree.body
                if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)
            ),
            [],
        )
        borrowed = {
            alias.asname or alias.name
            for n in tree.body
            if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("agent_lsp")
            for alias in n.names
        }
        exported += [(name, item) for item in listed if item in borrowed]
    assert [f"{module}.{item}" for module, item in exported if (module, item) not in imported_through] == []


if __name__ == "__main__":
    print(who_may_import_what(), end="")
