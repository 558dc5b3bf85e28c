"""No toolkit module names a game: the runner, tuning, web app, command line and analysis ask
the game registry (`sim.games.registry`) and the game's facets, so a new game is its own
package and one registry line, and no toolkit file changes.

Checked from each module's syntax tree, for every registered game (so a game added later is
covered by the same test): an import of the game's package or anything in it, a string in
the code holding its name or title (docstrings and comments may name games as examples), and
a constant named after its package (`RIVER`, `PORTOBELLO`)."""

from __future__ import annotations

import ast
from pathlib import Path

from sim.games.registry import BUILT_IN
from sim.games.registry import kinds

ROOT = Path(__file__).resolve().parents[1]
TOOLKIT = ("sim/run", "sim/tuning", "sim/web", "sim/cli", "analysis")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def offences(path: Path) -> list[str]:
    """Where one module names a game: `file:line: what`."""
    packages = tuple(BUILT_IN)
    words = [w for game in kinds().values() for w in (game.name, game.title)]
    constants = {p.rpartition(".")[2].upper() for p in packages}
    tree = ast.parse(path.read_text(), str(path))
    docs = _docstrings(tree)
    where = path.relative_to(ROOT).as_posix()
    out = []
    for node in ast.walk(tree):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        for module in modules:
            if any(module == p or module.startswith(p + ".") for p in packages):
                out.append(f"{where}:{node.lineno}: imports {module}")
                break
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in docs):
            hits = [w for w in words if w.lower() in node.value.lower()]
            if hits:
                out.append(f"{where}:{node.lineno}: names {hits[0]!r}")
        if isinstance(node, ast.Name) and node.id in constants:
            out.append(f"{where}:{node.lineno}: uses {node.id}")
        if isinstance(node, ast.alias) and (node.asname or node.name) in constants:
            out.append(f"{where}:{getattr(node, 'lineno', 0)}: imports {node.name}")
    return out


def test_the_check_finds_a_game_named_in_code(tmp_path: Path) -> None:
    """The check itself: each way of naming a game is found, a docstring is not."""
    game = next(iter(kinds().values()))
    module = ROOT / "sim" / "run" / "_probe_for_names.py"
    module.write_text(f'"""Plays {game.title} and others."""\n'
                      f"from {BUILT_IN[0]}.rules import Rules\n"
                      f"import {BUILT_IN[-1]}\n"
                      f"NAME = {game.name!r}\n"
                      f"{BUILT_IN[0].rpartition('.')[2].upper()} = 1\n")
    try:
        found = offences(module)
    finally:
        module.unlink()
    assert [f.split(": ", 1)[1] for f in found] == [
        f"imports {BUILT_IN[0]}.rules", f"imports {BUILT_IN[-1]}", f"names {game.name!r}",
        f"uses {BUILT_IN[0].rpartition('.')[2].upper()}"]


def test_no_toolkit_module_names_a_game() -> None:
    found = [o for folder in TOOLKIT for path in sorted((ROOT / folder).rglob("*.py"))
             for o in offences(path)]
    assert not found, f"{len(found)} places name a game:\n" + "\n".join(found)
