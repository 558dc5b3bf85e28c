"""Portobello Market rules engine, agents and simulation runner.

Packages, in the order data flows: `sim.engine` (board, rules, game, records),
`sim.fast` (compiled twins), `sim.agents`, `sim.run` (play loop, engine seam, runner,
tables, tournaments) and `sim.cli` (the `portobello` command). See docs/architecture.md.
"""

from sim.engine import (
    Board,
    BoardError,
    Game,
    IllegalActionError,
    PortobelloError,
    RecordError,
    Rules,
    RulesError,
    load_board,
    load_rules,
)

__all__ = [
    "Board",
    "BoardError",
    "Game",
    "IllegalActionError",
    "PortobelloError",
    "RecordError",
    "Rules",
    "RulesError",
    "load_board",
    "load_rules",
]
