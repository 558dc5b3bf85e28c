"""The random agent: uniform choices, but with the shape of a real turn.

It picks the kind of action first (so the dozens of district-scoring options do not drown
out playing a token), uses the actions it has, moves the Bobby only a few times per turn
(at most `max_moves`, each time with chance `move_chance` when something useful is left),
and ends its turn when nothing useful is left. Its play is
`sim.games.portobello.agents.compiled.random_agent`.
"""

from __future__ import annotations

from sim.games.portobello.agents.base import CompiledRow
from sim.games.portobello.agents.compiled_agent import CompiledAgent


class RandomAgent(CompiledAgent):
    name = "random"

    def __init__(self, seed: int | None = 0, spec: str | None = None, move_chance: float = 0.25,
                 max_moves: int = 2) -> None:
        super().__init__(seed, spec)
        self.move_chance = move_chance
        self.max_moves = max_moves

    def compiled_row(self, players: int) -> CompiledRow:
        from sim.games.portobello.agents.compiled.play import KIND_RANDOM
        from sim.games.portobello.agents.compiled.play import random_params

        return CompiledRow(KIND_RANDOM, random_params(self.move_chance, self.max_moves),
                           self.restrict.flags())
