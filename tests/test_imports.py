"""The package's import map: imports run one way, down.

Every module of ``cugraph_match`` is parsed with ``ast`` (nothing is
imported), and every import statement counts, those inside functions too,
relative ones resolved.  The test fails on a cycle between files, on a cycle
between sub-packages (``structure``, ``matching``, ``dask``, ...), and on a
``_private`` name imported from another sub-package.  A module importing
its own package's ``__init__`` (its public face) is not an edge.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "cugraph_match"


def module_files(package: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file of the package."""
    files = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        files[".".join(parts)] = path
    return files


def imported_names(path: Path, module: str) -> list[tuple[str, str | None, int]]:
    """(target module, imported name or None, line) for every import in the file.

    ``from .x import y`` yields ("<pkg>.x", "y"); ``import a.b`` yields
    ("a.b", None).  Relative imports are resolved against the file's package.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((alias.name, None, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                if node.level - 1 > len(parts) - 1:
                    raise AssertionError(f"{path}:{node.lineno}: relative import above the package")
                base = parts[:len(parts) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.extend((target, alias.name, node.lineno) for alias in node.names)
    return out


def resolve(target: str, name: str | None, files: dict) -> str | None:
    """The package module an import reads: ``from pkg import mod`` reads the
    module ``pkg.mod`` when there is one, else ``pkg``; None outside the package."""
    if name is not None and f"{target}.{name}" in files:
        return f"{target}.{name}"
    while target and target not in files:
        target = target.rpartition(".")[0]
    return target or None


def wing(module: str, files: dict) -> str | None:
    """The sub-package a module belongs to (None for the package's top-level modules)."""
    parts = module.split(".")
    if len(parts) > 2 or (len(parts) == 2 and files[module].name == "__init__.py"):
        return parts[1]
    return None


def import_graphs(package: Path):
    """(file graph, sub-package graph, private names imported across sub-packages)."""
    files = module_files(package)
    top = package.name
    file_graph: dict[str, set[str]] = {m: set() for m in files}
    wing_graph: dict[str, set[str]] = {}
    private = []
    for module, path in files.items():
        for target, name, line in imported_names(path, module):
            found = resolve(target, name, files)
            if found is None or found == module or module == top or found == top:
                continue  # outside the package, itself, or the package's face
            if files[found].name == "__init__.py" and module.startswith(found + "."):
                continue  # a module reading its own package's face
            file_graph[module].add(found)
            a, b = wing(module, files), wing(found, files)
            if a and b and a != b:
                wing_graph.setdefault(a, set()).add(b)
                wing_graph.setdefault(b, set())
                imported = name if name is not None and f"{target}.{name}" not in files else None
                leaf = found.rpartition(".")[2]
                if (imported or "").startswith("_") or \
                        (leaf.startswith("_") and not leaf.startswith("__")):
                    private.append(f"{module} (line {line}) imports {found}"
                                   f"{'.' + imported if imported else ''} from sub-package {b}")
    return file_graph, wing_graph, private


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The components with more than one node (or a node importing itself):
    Tarjan's algorithm, iterative."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        work = [(start, iter(sorted(graph[start])))]
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in graph.get(node, ()):
                        found.append(sorted(component))
    return found


@pytest.fixture(scope="module")
def graphs():
    return import_graphs(PACKAGE)


def test_no_cycle_between_files(graphs):
    file_graph, _, _ = graphs
    cycles = strongly_connected(file_graph)
    assert not cycles, "files import each other in a cycle: " + "; ".join(
        " <-> ".join(c) for c in cycles)


def test_no_cycle_between_sub_packages(graphs):
    _, wing_graph, _ = graphs
    cycles = strongly_connected(wing_graph)
    assert not cycles, "sub-packages import each other in a cycle: " + "; ".join(
        " <-> ".join(c) for c in cycles)


def test_no_private_name_crosses_sub_packages(graphs):
    _, _, private = graphs
    assert not private, "private names imported across sub-packages:\n" + "\n".join(private)


def test_the_graph_sees_what_it_must():
    # the checker itself: every relative form resolves, function-level
    # imports count, and a planted cycle, wing loop and private import are found
    files = module_files(PACKAGE)
    assert "cugraph_match.structure.checks" in files and "cugraph_match.matching" in files
    file_graph, wing_graph, _ = import_graphs(PACKAGE)
    # matching/suitor.py imports suitor_gpu inside a function
    assert "cugraph_match.matching.suitor_gpu" in file_graph["cugraph_match.matching.suitor"]
    # ``from . import roma_cpu as cpu`` reads the module roma_cpu, not the package
    assert "cugraph_match.matching.roma_cpu" in file_graph["cugraph_match.matching.roma_complete"]
    assert "structure" in wing_graph["matching"]
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []


def test_a_planted_cycle_and_private_import_are_found(tmp_path):
    package = tmp_path / "pkg"
    for sub in ("one", "two"):
        (package / sub).mkdir(parents=True)
        (package / sub / "__init__.py").write_text("")
    (package / "__init__.py").write_text("from .one import a\n")
    (package / "one" / "a.py").write_text("def f():\n    from ..two.b import _helper\n")
    (package / "two" / "b.py").write_text("from ..one import a\n\ndef _helper():\n    pass\n")
    file_graph, wing_graph, private = import_graphs(package)
    assert strongly_connected(file_graph) == [["pkg.one.a", "pkg.two.b"]]
    assert strongly_connected(wing_graph) == [["one", "two"]]
    assert len(private) == 1 and "pkg.two.b._helper" in private[0]
