"""The heuristic agent: what a good player weighs, as tunable weights.

Every decision maximises the change of its margin under `sim.agents.evaluate.Evaluator`:
the expected value of each stall (its spot, the customers at the lane's ends and those still
to come, the chance the lane fills), Bobby-fee majorities, the district potential of its 2
and 4 tokens against the value of scoring now and the shrinking neutral token, stalls kept in
hand, and where the Bobby is left for the next player. Tokens are priced by playing out the
turn they give on a copy. The defaults come from tuning matches against greedy (README).
"""

from __future__ import annotations

from sim.agents.base import CompiledTwin
from sim.agents.evaluate import Evaluator
from sim.agents.evaluate import Weights
from sim.agents.evaluate import compiled_params
from sim.agents.planning import Planner
from sim.agents.planning import PlannerAgent
from sim.engine.game import Game

_DEFAULT = Weights()


class HeuristicAgent(PlannerAgent):
    name = "heuristic"

    def __init__(self, seed: int | None = 0, spec: str | None = None, *,
                 lane: float = _DEFAULT.lane, fill: float = _DEFAULT.fill,
                 end: float = _DEFAULT.end, district: float = _DEFAULT.district,
                 horizon: float = _DEFAULT.horizon, majority: float = _DEFAULT.majority,
                 growth: float = _DEFAULT.growth, stall: float = _DEFAULT.stall,
                 tempo: float = _DEFAULT.tempo,
                 bobby: float = _DEFAULT.bobby, rival: float = _DEFAULT.rival,
                 min_gain: float = 0.0, simulate: bool = True) -> None:
        super().__init__(seed, spec)
        self.weights = Weights(lane=lane, fill=fill, end=end, district=district,
                               horizon=horizon, majority=majority, growth=growth, stall=stall,
                               tempo=tempo,
                               bobby=bobby, rival=rival)
        self.min_gain = min_gain
        self.simulate = simulate

    def compiled_twin(self) -> CompiledTwin:
        from sim.fast.play import KIND_HEURISTIC

        row = compiled_params(self.weights, simulate=self.simulate, min_gain=self.min_gain)
        return CompiledTwin(KIND_HEURISTIC, tuple(row.tolist()), self.restrict.flags())

    def make_planner(self, game: Game) -> Planner:
        ev = Evaluator(game.board, game.rules, self.weights)
        return Planner(ev, self.restrict, simulate=self.simulate, min_gain=self.min_gain)
