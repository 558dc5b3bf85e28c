"""Portobello Market rules engine, agents and simulation runner.

Packages, in the order data flows: `sim.engine` (board, rules, game, records),
`sim.fast` (compiled twins), `sim.agents`, `sim.run` (play loop, engine seam, runner,
tables, tournaments) and `sim.cli` (the `portobello` command). See docs/architecture.md.
"""

from sim import engine
from sim.engine import *  # noqa: F403 (the public names people use: sim.Game, sim.Rules, ...)

__all__ = list(engine.__all__)
