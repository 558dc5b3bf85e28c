"""The compiled MCTS agent (`fastmcts`): the reference MCTS's search run in numba.

Same idea as `sim.agents.mcts` (information sets by sampled bag orders, planner options as
edges with heuristic priors, PUCT, heuristic rollouts to a horizon, squashed margins) but
each iteration costs tens of microseconds instead of milliseconds, so at the same
wall-clock budget it searches about a hundred times more. The budget is `iterations` per
decision and/or `time` seconds per decision (checked between chunks of `chunk`
iterations, on the `clock`: `wall` or `cpu`); with iterations only, play is fully
determined by the seed. The compiled code is imported on first use, so listing agents or
playing others never loads numba.
"""

from __future__ import annotations

import math
from typing import Any

from sim.agents import weight_sets
from sim.agents.base import Plan
from sim.agents.base import PlanningAgent
from sim.agents.evaluate import compiled_params
from sim.agents.mcts import CLOCKS
from sim.agents.mcts import check_budget
from sim.engine import actions as A
from sim.engine.actions import Action
from sim.engine.codes import SETUP
from sim.engine.game import Game

ROLLOUTS = ("heuristic", "random")


class FastMCTSAgent(PlanningAgent):
    name = "fastmcts"

    def __init__(self, seed: int | None = 0, spec: str | None = None, *,
                 iterations: int = 2000, time: float = 0.0, c: float = 1.2, temp: float = 3.0,
                 width: int = 8, horizon: int = 2, scale: float = 15.0, expand: int = 1,
                 tree_sim: bool = True,
                 returns: str = "margin", rollout: str = "heuristic",
                 rollout_sim: bool = False, clock: str = "wall",
                 chunk: int = 32, nodes: int = 100_000,
                 weights: str = weight_sets.DEFAULT) -> None:
        check_budget(self.name, iterations, time, returns, clock)
        weight_sets.check(weights)
        self.weight_ref = weights
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        if width < 1 or chunk < 1 or nodes < 2:
            raise ValueError("width, chunk and nodes must be at least 1, 1 and 2")
        self.iterations, self.time, self.c, self.temp = iterations, time, c, temp
        self.width, self.horizon, self.scale, self.returns = width, horizon, scale, returns
        self.rollout, self.expand, self.tree_sim = rollout, expand, tree_sim
        self.rollout_sim, self.clock, self.chunk, self.nodes = rollout_sim, clock, chunk, nodes
        super().__init__(seed, spec)
        self._tools: dict[tuple[Any, ...], dict[str, Any]] = {}
        self._state: Any = None  # the compiled generator, seeded on first use
        self._seed: int | str | None = seed
        self.last_iterations = 0

    def reseed(self, seed: int) -> None:
        super().reseed(seed)
        self._seed, self._state = seed, None

    def _generator(self) -> Any:
        """The search's own generator (CPython's Mersenne Twister seeded like `rng`)."""
        if self._state is None:
            import random

            from sim.fast.rng import getstate_from_python

            self._state = getstate_from_python(random.Random(self._seed))
        return self._state

    def tools(self, game: Game) -> dict[str, Any]:
        """Packed board and rules, planner rows, work space and tree for this game's setup."""
        key = (game.board, game.rules, self.restrict)
        t = self._tools.get(key)
        if t is None:
            import numpy as np

            from sim.fast import mcts as M
            from sim.fast.layout import BAG_SIZE
            from sim.fast.layout import MAX_STEPS
            from sim.fast.layout import pack
            from sim.fast.plan_work import new_work

            B = pack(game.board, game.rules)
            settings = np.zeros(M.N_SETTINGS, np.float64)
            settings[[M.C, M.TEMP, M.WIDTH, M.HORIZON, M.SCALE, M.RANK,
                      M.RANDOM_ROLLOUT, M.EXPAND]] = (
                self.c, self.temp, self.width, self.horizon, self.scale,
                self.returns == "rank", self.rollout == "random", self.expand)
            WF, WI = new_work(B)
            w = weight_sets.resolve(self.weight_ref, game.n).weights
            t = self._tools[key] = {
                "B": B, "settings": settings, "WF": WF, "WI": WI,
                "tree": M.new_tree(self.nodes if self.time > 0 else
                                   min(self.nodes, self.iterations + 2), self.width),
                "P_root": compiled_params(w, simulate=True),
                "P_tree": compiled_params(w, simulate=self.tree_sim),
                "P_roll": compiled_params(w, simulate=self.rollout_sim, leave=False),
                "Rs_me": np.array(self.restrict.flags(), np.int64),
                "Rs_free": np.zeros(4, np.int64),
                "path": np.zeros(max(4096, self.nodes + 2), np.int64),
                "order": np.zeros(int(B[BAG_SIZE]) + 1, np.int64),
                "values": np.zeros(game.n, np.float64),
                "scratch": np.zeros(int(B[MAX_STEPS]) + 64, np.int64),
            }
        return t

    def decide(self, game: Game, plan: Plan) -> Action:
        from sim.fast import mcts as M
        from sim.fast import rng as R
        from sim.fast.convert import state_from_game

        rng = self._generator()
        if game.phase == SETUP:
            legal = self.legal_actions(game)
            return legal[R.below(rng, len(legal))]
        t = self.tools(game)
        S = state_from_game(t["B"], game)
        tree = t["tree"]
        k = M.begin(t["B"], S, tree, t["P_root"], t["Rs_me"], t["WF"], t["WI"], rng,
                    t["settings"], plan.acted_turn != game.turn)
        done = 0
        if k > 1:
            now = CLOCKS[self.clock]
            deadline = now() + self.time if self.time > 0 else math.inf
            limit = self.iterations if self.iterations > 0 else 1 << 40
            while done < limit:
                done += M.iterate(t["B"], S, tree, t["P_tree"], t["P_roll"], t["Rs_me"],
                                  t["Rs_free"], game.seat, t["WF"], t["WI"], rng,
                                  t["settings"], min(self.chunk, limit - done), t["path"],
                                  t["order"], t["values"], t["scratch"])
                if now() >= deadline:
                    break
        self.last_iterations = done
        if k == 0:  # pragma: no cover - a decision always has an option
            return A.END
        e = M.best(tree)
        first = tree[2][e, M.ESTEP0]
        steps = [int(a) for a in tree[4][first:first + tree[2][e, M.ENSTEPS]]]
        return plan.start(game, steps)
