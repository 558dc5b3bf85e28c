"""The greedy agent: the best immediate change in its own points margin over the turn.

It counts only points that change hands now: lanes completed (by a stall or a customer),
district scorings and Bobby fees. A token is priced by the points the turn it gives can
bring (a greedy plan on a copy); ties are broken at random, a token before a district
scoring worth nothing, and an action before the end of the turn. Its play is the compiled
planner (`sim.games.portobello.agents.compiled.planner`) with the evaluator kept to the score.
"""

from __future__ import annotations

from sim.games.portobello.agents.base import CompiledRow
from sim.games.portobello.agents.compiled_agent import PlannerAgent
from sim.games.portobello.agents.evaluate import compiled_params


class GreedyAgent(PlannerAgent):
    name = "greedy"

    def __init__(self, seed: int | None = 0, spec: str | None = None) -> None:
        super().__init__(seed, spec)

    def compiled_row(self, players: int) -> CompiledRow:
        from sim.games.portobello.agents.compiled.play import KIND_GREEDY

        row = compiled_params(immediate=True, simulate=True, min_gain=0.0)
        return CompiledRow(KIND_GREEDY, tuple(row.tolist()), self.restrict.flags())
