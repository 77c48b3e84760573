"""The torchedge package's imports point one way: no module imports, directly
or through others, a module that imports it.

The graph is read from the source with `ast`, nothing is imported. Every
import statement counts, wherever it stands: at module level, under
`if TYPE_CHECKING`, or inside a function (a deferred import hides a circle,
it does not remove it). An edge goes to the module an import names:
`from torchedge.emit import control_flow` names the submodule, `from
torchedge.emit import MethodEmitter` the package `torchedge.emit`. The
implicit import of a package's `__init__` before its submodules is not an
edge (every package would otherwise be a circle with its own submodules),
and `import torchedge.emit.method_emitter` is an edge to that module only.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterable, Iterator, Mapping

PACKAGE_ROOT = Path(__file__).resolve().parents[1] / "python" / "torchedge"


def module_files(root: Path) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, whether it is a package's __init__)."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        modules[".".join(parts)] = (path, is_package)
    return modules


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node


def imported_modules(module: str, is_package: bool, tree: ast.AST,
                     modules: Mapping[str, object]) -> set[str]:
    """The package's modules that `module` (parsed as `tree`) imports."""
    names: list[str] = []
    for node in _imports(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            anchor = module.split(".") if is_package else module.split(".")[:-1]
            anchor = anchor[: len(anchor) - (node.level - 1)]
            base = ".".join(anchor + ([node.module] if node.module else []))
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            names.append(submodule if submodule in modules else base)
    # A name that is no module here is another package's (torch, typing) or a
    # module that does not exist, which fails to import on its own.
    return {name for name in names if name in modules and name != module}


def import_graph(root: Path = PACKAGE_ROOT) -> dict[str, set[str]]:
    modules = module_files(root)
    return {
        name: imported_modules(name, is_package, ast.parse(path.read_text(), str(path)), modules)
        for name, (path, is_package) in modules.items()
    }


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan),
    each sorted; a module importing itself is not reported."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:
        # Iterative depth-first search: (node, iterator over its successors).
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph.get(succ, ())))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
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
                if len(component) > 1:
                    found.append(sorted(component))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return sorted(found)


def _describe(graph: Mapping[str, set[str]], component: list[str]) -> str:
    members = set(component)
    return "\n".join(f"  {m} -> {', '.join(sorted(graph[m] & members))}" for m in component)


def test_package_has_no_import_cycles():
    graph = import_graph()
    assert "torchedge.program" in graph and "torchedge.edge.program" in graph
    found = cycles(graph)
    assert not found, "import cycles in python/torchedge:\n" + "\n\n".join(
        _describe(graph, c) for c in found)


def test_cycle_finder_sees_planted_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}}) == [["a", "b"], ["c", "d"]]


def test_graph_counts_deferred_and_type_checking_imports(tmp_path):
    package = tmp_path / "torchedge"
    (package / "emit").mkdir(parents=True)
    (package / "__init__.py").write_text("from torchedge.emit import helper\n")
    (package / "emit" / "__init__.py").write_text("")
    (package / "emit" / "helper.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from torchedge.emit.emitter import Emitter\n")
    (package / "emit" / "emitter.py").write_text(
        "def emit():\n"
        "    from . import helper\n")
    (package / "emit" / "other.py").write_text("from torchedge.emit.helper import x\n")
    graph = import_graph(package)
    assert graph["torchedge"] == {"torchedge.emit.helper"}
    assert graph["torchedge.emit.helper"] == {"torchedge.emit.emitter"}
    assert graph["torchedge.emit.emitter"] == {"torchedge.emit.helper"}
    assert graph["torchedge.emit.other"] == {"torchedge.emit.helper"}
    assert cycles(graph) == [["torchedge.emit.emitter", "torchedge.emit.helper"]]
