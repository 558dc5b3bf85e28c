"""The learned agent (`expert`): a network trained on the search's choices picks among the
planner's options by the value of the position each leads to, one network evaluation per
option and no search (`sim.agents.compiled.expert`); with `margin=M` it keeps the planner's
best candidate unless another's predicted advantage is more than M above it. `model=FILE`
names the model file (a model trained by `sim.learning`); the model is refused, by name,
when it was trained for another board, player count or features layout. The compiled code
is imported on first use, so listing agents never loads numba.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sim.agents import weight_sets
from sim.agents.base import Plan
from sim.agents.compiled_seat import CompiledPlanningAgent
from sim.agents.evaluate import compiled_params
from sim.agents.model import Model
from sim.engine import actions as A
from sim.engine.actions import Action
from sim.engine.game import Game


class ExpertAgent(CompiledPlanningAgent):
    name = "expert"

    def __init__(self, seed: int | None = 0, spec: str | None = None, *, model: str = "",
                 width: int = 8, margin: float = 0.0) -> None:
        if width < 1:
            raise ValueError("width must be at least 1")
        if margin < 0:
            raise ValueError("margin must be at least 0")
        self.margin = margin
        if not model:
            raise ValueError("needs model=FILE, a model trained for this board and player "
                             "count")
        self.model_path = model
        self.model = Model.load(model)
        self.width = width
        super().__init__(seed, spec)

    @classmethod
    def with_model(cls, model: Model, width: int = 8, seed: int = 0) -> ExpertAgent:
        """The agent playing a model held in memory (a training's student)."""
        agent = cls.__new__(cls)
        CompiledPlanningAgent.__init__(agent, seed, "expert")
        agent.model_path, agent.model, agent.width = "(in memory)", model, width
        agent.margin = 0.0
        return agent

    def tools(self, game: Game) -> dict[str, Any]:
        """The model checked against this game, the planner's rows and the work space."""
        def build() -> dict[str, Any]:
            import numpy as np

            from sim.agents.compiled.features import FEATURES_VERSION
            from sim.agents.compiled.features import input_count
            from sim.agents.compiled.plan_work import new_work
            from sim.engine.compiled.layout import MAX_STEPS

            B = game.B
            n_features = int(input_count(B))
            self.model.check(game.board.content_hash, game.n, n_features, FEATURES_VERSION,
                             source=str(Path(self.model_path)))
            WF, WI = new_work(B)
            w = weight_sets.resolve(weight_sets.DEFAULT, game.n).weights
            room = int(B[MAX_STEPS]) + 1
            return {
                "B": B, "WF": WF, "WI": WI, "P": compiled_params(w, simulate=True),
                "Rs": np.array(self.restrict.flags(), np.int64),
                "after": np.zeros_like(game.S), "X": np.zeros(n_features),
                "work": np.zeros((2, self.model.widest)), "out": np.zeros(self.model.outputs),
                "steps": np.zeros(room, np.int64), "best": np.zeros(room, np.int64),
            }

        return self.cached_tools(game, build)

    def decide(self, game: Game, plan: Plan) -> Action:
        from sim.agents.compiled.expert import pick

        placement = self.setup_move(game)
        if placement is not None:
            return placement
        t = self.tools(game)
        m = pick(t["B"], self.position(game), t["P"], t["Rs"], t["WF"], t["WI"],
                 self._generator(), self.width,
                 plan.acted_turn != game.turn, self.model.W, self.model.L, t["after"],
                 t["X"], t["work"], t["out"], t["steps"], t["best"], self.margin)
        if m == 0:  # pragma: no cover - a decision always has an option
            return A.END
        return plan.start(game, [int(a) for a in t["best"][:m]])

