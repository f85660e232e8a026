"""The VS Code extension's TypeScript keeps the Python rules' shape (tests/test_package_layering.py): no import
circle among its modules (type-only imports included), no file over 450 lines, no class over 250."""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_package_layering import MAX_CLASS_LINES, MAX_MODULE_LINES, cycles

SRC = Path(__file__).resolve().parents[2] / "vscode-extension" / "src"
# `import … from "./x"`, `import type … from`, `export … from`, a bare `import "./x"` and a lazy `import("./x")`.
_IMPORT = re.compile(r"""(?:\bfrom\s+|\bimport\s*\(?\s*)["'](\.{1,2}/[^"']+)["']""")
_CLASS = re.compile(r"^(\s*)(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+(\w+)")


def _modules() -> dict[str, Path]:
    return {p.relative_to(SRC).with_suffix("").as_posix(): p for p in sorted(SRC.rglob("*.ts"))}


def imports(path: Path) -> set[str]:
    """The modules of ours a file imports, as paths below src/ without the suffix (comments are skipped)."""
    found: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith(("//", "*", "/*")):
            continue
        for target in _IMPORT.findall(line):
            resolved = (path.parent / target).resolve()
            if resolved.is_dir():
                resolved = resolved / "index"
            found.add(resolved.relative_to(SRC.resolve()).as_posix().removesuffix(".ts").removesuffix(".js"))
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: {t for t in imports(path) if t in modules and t != name} for name, path in modules.items()}


def class_sizes(source: str) -> list[tuple[str, int]]:
    """Each class and its lines, from `class` to the brace that closes it at the class's own indentation (the code
    is formatted, so the closing brace stands alone on a line indented like the declaration)."""
    lines = source.splitlines()
    sizes: list[tuple[str, int]] = []
    for start, line in enumerate(lines):
        match = _CLASS.match(line)
        if match is None or line.rstrip().endswith(";"):
            continue
        indent, name = match.groups()
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i].rstrip() in (f"{indent}}}", f"{indent}}};")), start
        )
        sizes.append((name, end - start + 1))
    return sizes


def test_the_extension_has_no_import_circle() -> None:
    assert cycles(import_graph()) == []


def test_the_import_reader_sees_type_only_and_lazy_imports(tmp_path: Path) -> None:
    graph = import_graph()
    assert "chatCore" in graph["controller"], "a value import"
    assert "protocol" in graph["state"], "an `import type` counts as an edge"
    assert all(
        not t.startswith("test/") for name, targets in graph.items() if not name.startswith("test/") for t in targets
    )


def test_files_and_classes_of_the_extension_stay_small() -> None:
    big: list[str] = []
    for name, path in _modules().items():
        if name.startswith("test/"):
            continue  # tests are held to readability, not to the product's room sizes (as in the Python rule)
        source = path.read_text(encoding="utf-8")
        if len(source.splitlines()) > MAX_MODULE_LINES:
            big.append(f"{name}.ts: {len(source.splitlines())} lines")
        big += [f"{name}.ts: class {cls}: {size} lines" for cls, size in class_sizes(source) if size > MAX_CLASS_LINES]
    assert big == []


def test_the_class_measure_counts_to_the_closing_brace() -> None:
    source = "export class A {\n  f(): void {\n  }\n}\nclass B {}\n"
    assert class_sizes(source) == [("A", 4), ("B", 1)]
