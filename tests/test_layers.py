"""The analysis and sim packages' imports form no cycle: their modules import each other one
way only, imports inside functions and type-only imports included, so data flows down the
layers docs/architecture.md draws. (The layer contracts of pyproject.toml, checked by
`lint-imports` in `make test`, say which way; this test catches any cycle, even between
modules no contract names.)"""

from __future__ import annotations

from typing import ClassVar

import pytest

grimp = pytest.importorskip("grimp", reason="needs grimp (import-linter's graph, dev extra)")


def cycles(graph: object, package: str) -> list[list[str]]:
    """Groups of modules of `package` that import each other in a ring (strongly connected
    components of more than one module). A package importing its own submodules (its
    `__init__` re-exporting them) is not a ring."""
    mods = sorted(m for m in graph.modules if m.startswith(package))  # type: ignore[attr-defined]
    edges = {m: {i for i in graph.find_modules_directly_imported_by(m)  # type: ignore[attr-defined]
                 if i.startswith(package) and i != m and not i.startswith(m + ".")}
             for m in mods}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm, iterative enough for a few hundred
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            ring = []
            while True:
                w = stack.pop()
                on.discard(w)
                ring.append(w)
                if w == v:
                    break
            if len(ring) > 1:
                found.append(sorted(ring))

    for m in mods:
        if m not in index:
            visit(m)
    return found


@pytest.fixture(scope="module")
def graph() -> object:
    return grimp.build_graph("analysis", "sim")


def test_no_import_cycle_in_analysis(graph: object) -> None:
    assert cycles(graph, "analysis") == []


def test_no_import_cycle_in_sim(graph: object) -> None:
    """The games, the shared core and the toolkit alike: no ring, lazy imports included."""
    assert cycles(graph, "sim") == []


def test_the_cycle_finder_sees_a_ring() -> None:
    class Ring:
        modules: ClassVar[set[str]] = {"p.a", "p.b", "p.c", "p"}
        imports: ClassVar[dict[str, set[str]]] = {"p.a": {"p.b"}, "p.b": {"p.c"},
                                                  "p.c": {"p.a"}, "p": {"p.a"}}

        def find_modules_directly_imported_by(self, m: str) -> set[str]:
            return self.imports.get(m, set())

    assert cycles(Ring(), "p") == [["p.a", "p.b", "p.c"]]
