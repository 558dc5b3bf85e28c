"""The search agent (`fastmcts`): Monte Carlo tree search run in compiled code
(`sim.games.portobello.agents.compiled.mcts`, the one implementation).

Information sets by sampled bag orders, the planner's options as edges with heuristic
priors, PUCT, heuristic rollouts to a horizon, squashed margins; each iteration costs tens of
microseconds. The budget is `iterations` per
decision and/or `time` seconds per decision (checked between chunks of `chunk`
iterations, on the `clock`: `wall` or `cpu`); with iterations only, play is fully
determined by the seed. The compiled code is imported on first use, so listing agents or
playing others never loads numba.

With `reuse` (on by default) the subtree of the chosen option is kept: for the next
decision of the same turn, and for the next turn when the opponents' options and the
customers drawn in between are in the tree (`sim.games.portobello.agents.compiled.mcts.follow` finds
the node by the position itself, so no game log is needed); otherwise the search starts afresh. The
kept visits count towards `iterations` (at least a quarter of it is searched anew each
decision), so a kept tree makes a decision cheaper at about the same tree size.
`reuse=false` starts every decision afresh.

The rollout `horizon` (rounds past the searching seat's next turn) defaults to `auto`: 2
rounds at 2 and 3 players, 3 at 4 players (`HORIZONS`). Against three heuristics at 2,000
iterations a 4-player search gained about 8 points of margin with 3 rounds over 2 (40
games at the same seeds, 95% interval +0.8 to +15.4) for a third more time per iteration;
at 3 players 3 rounds gained nothing clear (+3 +- 9 over 30 games) and 1 round lost at
both counts (-11 and -13 points). A number in the spec overrides it at every count.
"""

from __future__ import annotations

import math
import time as _time
from typing import Any

from sim.games.portobello import actions as A
from sim.games.portobello.actions import Action
from sim.games.portobello.agents import weight_sets
from sim.games.portobello.agents.base import Plan
from sim.games.portobello.agents.compiled_seat import CompiledPlanningAgent
from sim.games.portobello.agents.evaluate import compiled_params
from sim.games.portobello.game import Game

RETURNS = ("margin", "rank")
CLOCKS = {"wall": _time.perf_counter, "cpu": _time.process_time}


def check_budget(name: str, iterations: int, time: float, returns: str, clock: str) -> None:
    """The settings every MCTS agent shares: a budget, a known return and a known clock."""
    if iterations < 1 and time <= 0:
        raise ValueError(f"{name} needs a budget: iterations >= 1 or time > 0")
    if returns not in RETURNS:
        raise ValueError(f"returns must be one of {', '.join(RETURNS)}, got {returns!r}")
    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, got {clock!r}")


ROLLOUTS = ("heuristic", "random")
# `horizon=auto`: rounds a rollout plays past the searching seat's next turn, by player
# count (measured against the heuristic; see `FastMCTSAgent`).
HORIZONS = {2: 2, 3: 2, 4: 3}


class FastMCTSAgent(CompiledPlanningAgent):
    name = "fastmcts"

    def __init__(self, seed: int | None = 0, spec: str | None = None, *,
                 iterations: int = 2000, time: float = 0.0, c: float = 1.2, temp: float = 3.0,
                 width: int = 8, horizon: int | str = "auto", scale: float = 15.0, expand: int = 1,
                 tree_sim: bool = True,
                 returns: str = "margin", rollout: str = "heuristic",
                 rollout_sim: bool = False, clock: str = "wall",
                 chunk: int = 32, nodes: int = 100_000, reuse: bool = True,
                 weights: str = weight_sets.DEFAULT) -> None:
        check_budget(self.name, iterations, time, returns, clock)
        weight_sets.check(weights)
        self.weight_ref = weights
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        if width < 1 or chunk < 1 or nodes < 2:
            raise ValueError("width, chunk and nodes must be at least 1, 1 and 2")
        self.iterations, self.time, self.c, self.temp = iterations, time, c, temp
        horizon = str(horizon)
        if horizon != "auto" and not (horizon.lstrip("-").isdigit() and int(horizon) >= -1):
            raise ValueError(f"horizon must be auto or a whole number of rounds >= -1 "
                             f"(-1: to the end), got {horizon!r}")
        self.width, self.horizon, self.scale, self.returns = width, horizon, scale, returns
        self.rollout, self.expand, self.tree_sim = rollout, expand, tree_sim
        self.rollout_sim, self.clock, self.chunk, self.nodes = rollout_sim, clock, chunk, nodes
        self.reuse = reuse
        super().__init__(seed, spec)
        # The kept subtree: the tools it lives in, the position its root stands for (after
        # the chosen edge's steps) and that node's index in the tree.
        self._kept: tuple[dict[str, Any], Any, int] | None = None
        self.last_iterations = 0
        self.last_kept = 0  # visits the last decision's root kept from earlier searches

    def reseed(self, seed: int) -> None:
        super().reseed(seed)
        self._kept = None

    def horizon_for(self, players: int) -> int:
        """The rollout horizon in rounds for games of `players` (`HORIZONS` when auto)."""
        return HORIZONS.get(players, 2) if self.horizon == "auto" else int(self.horizon)

    def tools(self, game: Game) -> dict[str, Any]:
        """Packed board and rules, planner rows, work space and tree for this game's setup."""
        def build() -> dict[str, Any]:
            import numpy as np

            from sim.games.portobello.agents.compiled import mcts as M
            from sim.games.portobello.agents.compiled.plan_work import new_work
            from sim.games.portobello.compiled.layout import BAG_SIZE
            from sim.games.portobello.compiled.layout import MAX_STEPS
            from sim.games.portobello.compiled.layout import S_SIZE

            B = game.B
            settings = np.zeros(M.N_SETTINGS, np.float64)
            settings[[M.C, M.TEMP, M.WIDTH, M.HORIZON, M.SCALE, M.RANK,
                      M.RANDOM_ROLLOUT, M.EXPAND]] = (
                self.c, self.temp, self.width, self.horizon_for(game.n), self.scale,
                self.returns == "rank", self.rollout == "random", self.expand)
            WF, WI = new_work(B)
            w = weight_sets.resolve(self.weight_ref, game.n).weights
            # A kept subtree takes room next to the new iterations' nodes (each iteration
            # adds at most two: a decision and a chance node).
            if self.time > 0:
                nodes = self.nodes
            elif self.reuse:
                nodes = min(self.nodes, 3 * self.iterations + 64)
            else:
                nodes = min(self.nodes, self.iterations + 2)
            return {
                "B": B, "settings": settings, "WF": WF, "WI": WI,
                "tree": M.new_tree(nodes, self.width),
                "spare": M.new_tree(nodes, self.width) if self.reuse else None,
                "queue": np.zeros(nodes, np.int64),
                "states": np.zeros((256, int(B[S_SIZE])), np.int64),
                "at_node": np.zeros(256, np.int64),
                "at_next": np.zeros(256, np.int64),
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

        return self.cached_tools(game, build)

    def leaf_net(self, tools: dict[str, Any]) -> tuple[Any, ...] | None:
        """What values a new leaf instead of a rollout (`expert-search`'s network), or
        None: a rollout."""
        return None

    def searched(self, game: Game, tools: dict[str, Any], S: Any, tree: tuple[Any, ...]
                 ) -> None:
        """Called with every finished search, before its best option is taken (the
        learned agent's teacher reads the root here, `sim.learning.teacher`)."""

    def decide(self, game: Game, plan: Plan) -> Action:
        from sim.games.portobello.agents.compiled import mcts as M

        rng = self._generator()
        kept, self._kept = self._kept, None
        placement = self.setup_move(game)
        if placement is not None:
            return placement
        t = self.tools(game)
        S = self.position(game)
        must_act = plan.acted_turn != game.turn
        k = -1
        if kept is not None and kept[0] is t:
            x = M.follow(t["B"], kept[1], kept[2], S, t["tree"], t["states"], t["at_node"],
                         t["at_next"])
            if x >= 0 and t["tree"][0][x, M.NSEAT] == game.seat:
                k = M.resume(S, t["tree"], x, t["spare"], t["queue"], must_act)
                t["tree"], t["spare"] = t["spare"], t["tree"]
        tree = t["tree"]
        if k < 0:
            k = M.begin(t["B"], S, tree, t["P_root"], t["Rs_me"], t["WF"], t["WI"], rng,
                        t["settings"], must_act)
        self.last_kept = int(tree[0][0, M.NV])
        done = 0
        if k > 1:
            now = CLOCKS[self.clock]
            deadline = now() + self.time if self.time > 0 else math.inf
            # Kept visits count towards the budget; at least a quarter of it is new work.
            limit = max(self.iterations - self.last_kept, self.iterations // 4, 1) \
                if self.iterations > 0 else 1 << 40
            while done < limit:
                done += M.iterate(t["B"], S, tree, t["P_tree"], t["P_roll"], t["Rs_me"],
                                  t["Rs_free"], game.seat, t["WF"], t["WI"], rng,
                                  t["settings"], min(self.chunk, limit - done), t["path"],
                                  t["order"], t["values"], t["scratch"], self.leaf_net(t))
                if now() >= deadline:
                    break
        self.last_iterations = done
        if k == 0:  # pragma: no cover - a decision always has an option
            return A.END
        self.searched(game, t, S, tree)
        e = M.best(tree)
        if self.reuse and tree[2][e, M.ECHILD] >= 0:
            self._kept = (t, M.after(t["B"], S, tree, e), int(tree[2][e, M.ECHILD]))
        first = tree[2][e, M.ESTEP0]
        steps = [int(a) for a in tree[4][first:first + tree[2][e, M.ENSTEPS]]]
        return plan.start(game, steps)
