"""The package's layers: every import, those inside functions and under ``TYPE_CHECKING``
included, goes to the same layer or one below, and no modules import each other in a
circle. docs/architecture.rst draws the layers this test holds the package to."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

import samecode

PACKAGE = Path(samecode.__file__).parent

#: Bottom to top. A unit is a subpackage or a module of the package's top folder; each may
#: import the units of its own layer and of the layers below it, never those above.
LAYERS: list[set[str]] = [
    {"errors", "_validation", "_columns", "_groups", "similarity", "_kernels", "_numpy_kernels"},
    {"text", "store", "chunking"},
    {"hamming", "minhash"},
    {"fingerprints"},
    {"halohash", "set_digests"},
    {""},  # the package's own __init__: the names it gathers from the layers below
    {"sources", "engine"},
    {"scan"},
    {"fragments"},
    {"profiles"},
    {"corpus"},
    {"reports"},
    {"spark"},
    {"cli", "__main__"},
]


def module_imports(root: Path) -> dict[str, set[str]]:
    """Every module of the package under ``root`` and the package's modules it imports
    (an ``from a.b import c`` counts as importing ``a.b.c`` where that is a module)."""
    found: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.py")):
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative: from the module's package up
                    package = parts if path.name == "__init__.py" else parts[:-1]
                    base = package[: len(package) - node.level + 1]
                    module = ".".join([*base, node.module] if node.module else base)
                else:
                    module = node.module or ""
                imported.add(module)
                imported.update(f"{module}.{alias.name}" for alias in node.names)
        found[".".join(parts)] = imported
    return {
        name: {target for target in imported if target in found and target != name}
        for name, imported in found.items()
    }


def unit_of(module: str) -> str:
    """The layer unit a module belongs to: ``samecode.scan.join`` -> ``scan``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def upward(graph: Mapping[str, Iterable[str]], layers: list[set[str]]) -> list[str]:
    """The imports that go to a higher layer, or from or to a unit no layer holds."""
    level = {unit: number for number, units in enumerate(layers) for unit in units}
    wrong = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            here, there = level.get(unit_of(module)), level.get(unit_of(target))
            if here is None or there is None or there > here:
                wrong.append(f"{module} -> {target}")
    return wrong


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The groups of modules that import each other in a circle (strongly connected
    components of more than one module, by Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_checks_catch_an_upward_import_and_a_cycle() -> None:
    graph = {
        "samecode.scan.a": {"samecode.corpus.b"},
        "samecode.corpus.b": {"samecode.corpus.c"},
        "samecode.corpus.c": {"samecode.corpus.b", "samecode.errors"},
        "samecode.errors": set(),
    }
    layers = [{"errors"}, {"scan"}, {"corpus"}]
    assert upward(graph, layers) == ["samecode.scan.a -> samecode.corpus.b"]
    assert cycles(graph) == [["samecode.corpus.b", "samecode.corpus.c"]]
    assert upward({"samecode.nowhere": {"samecode.errors"}}, layers) == [
        "samecode.nowhere -> samecode.errors"
    ]


def test_the_reader_sees_imports_inside_functions(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    (root / "low").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "low" / "__init__.py").write_text("")
    (root / "low" / "a.py").write_text("def f():\n    from pkg.high import b\n")
    (root / "high.py").write_text("from .low import a\n")
    graph = module_imports(root)
    assert graph["pkg.low.a"] == {"pkg.high"}
    assert graph["pkg.high"] == {"pkg.low", "pkg.low.a"}


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return module_imports(PACKAGE)


def test_every_unit_has_a_layer(graph: dict[str, set[str]]) -> None:
    placed = set().union(*LAYERS)
    assert {unit_of(module) for module in graph} == placed


def test_imports_only_go_down(graph: dict[str, set[str]]) -> None:
    assert upward(graph, LAYERS) == []


def test_no_modules_import_each_other_in_a_circle(graph: dict[str, set[str]]) -> None:
    assert cycles(graph) == []
