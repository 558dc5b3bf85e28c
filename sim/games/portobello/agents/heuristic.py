"""The heuristic agent: what a good player weighs, as tunable weights.

Every decision maximises the change of its margin under the evaluator whose weights
`sim.games.portobello.agents.evaluate.Weights` describes: the expected value of each stall (its
spot, the customers at the lane's ends and those still to come, the chance the lane fills),
Bobby-fee majorities, the district potential of its 2 and 4 tokens against the value of scoring now
and the shrinking neutral token, stalls kept in hand, and where the Bobby is left for the next
player. Tokens are priced by playing out the turn they give on a copy. Its play is the
compiled planner (`sim.games.portobello.agents.compiled.planner`).

The weights come from a weight set (`sim.games.portobello.agents.weight_sets`): by default `tuned`,
the set tuned by self-play for the game's player count; `weights=classic` gives the hand-tuned
weights of the earlier studies, `weights=FILE` a set `portobello agents tune` wrote. A
weight given in the spec (`heuristic:tempo=1.2`) overrides the set's.
"""

from __future__ import annotations

import inspect
from dataclasses import replace

from sim.games.portobello.agents import weight_sets
from sim.games.portobello.agents.base import CompiledRow
from sim.games.portobello.agents.compiled_agent import PlannerAgent
from sim.games.portobello.agents.evaluate import Weights
from sim.games.portobello.agents.evaluate import compiled_params


class HeuristicAgent(PlannerAgent):
    """The heuristic agent; its parameters (`__signature__`, what agent specs are checked
    against) are a weight set, one keyword per weight of `Weights` (None: the set's) and the
    planner's switches."""

    name = "heuristic"

    def __init__(self, seed: int | None = 0, spec: str | None = None, *,
                 weights: str = weight_sets.DEFAULT, min_gain: float = 0.0,
                 simulate: bool = True, **given: float | None) -> None:
        unknown = sorted(set(given) - set(Weights.names()))
        if unknown:
            raise TypeError(f"HeuristicAgent got an unexpected keyword argument {unknown[0]!r}")
        super().__init__(seed, spec)
        weight_sets.check(weights)
        self.weight_ref = weights
        self.overrides = {k: float(v) for k, v in given.items() if v is not None}
        self.min_gain = min_gain
        self.simulate = simulate

    def weights_for(self, players: int) -> Weights:
        """The weights this agent plays with in a game of `players`."""
        base = weight_sets.resolve(self.weight_ref, players).weights
        return replace(base, **self.overrides) if self.overrides else base

    def compiled_row(self, players: int) -> CompiledRow:
        from sim.games.portobello.agents.compiled.play import KIND_HEURISTIC

        row = compiled_params(self.weights_for(players), simulate=self.simulate,
                              min_gain=self.min_gain)
        return CompiledRow(KIND_HEURISTIC, tuple(row.tolist()), self.restrict.flags())


def _signature() -> inspect.Signature:
    """`HeuristicAgent(seed, spec, *, weights, <a keyword per weight>, min_gain, simulate)`:
    its own parameters with the weights' keywords made from `Weights` (default None)."""
    own = inspect.signature(HeuristicAgent.__init__).parameters
    keyword = inspect.Parameter.KEYWORD_ONLY
    return inspect.Signature([
        own["seed"], own["spec"], own["weights"],
        *(inspect.Parameter(w, keyword, default=None, annotation="float | None")
          for w in Weights.names()),
        own["min_gain"], own["simulate"]], return_annotation=None)


HeuristicAgent.__signature__ = _signature()  # type: ignore[attr-defined]
