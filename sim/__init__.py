"""Portobello Market rules engine, agents and simulation runner.

Packages, in the order data flows: `sim.games.portobello` (board, rules, the compiled rules in
`sim.games.portobello.compiled` and `Game`, their readable front; records),
`sim.games.portobello.agents.compiled` (the compiled agents), `sim.games.portobello.agents` (the
agent classes that seat them at a `Game`), `sim.run` (play loop, engine seam, runner, tables,
tournaments) and `sim.cli` (the `portobello` command). See docs/architecture.md.

The engine's public names (`sim.Game`, `sim.Rules`, `sim.load_board`, ...) are loaded on
first use, so that starting the command line imports nothing before it can answer Ctrl-C.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing itself is not imported: the first lines must load fast
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Board", "BoardError", "Game", "IllegalActionError", "PortobelloError",
           "RecordError", "Rules", "RulesError", "load_board", "load_rules"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("sim.games.portobello"), name)
    raise AttributeError(f"module 'sim' has no attribute {name!r}")
