"""The learned agent (`expert`): a network trained on the search's choices picks among the
planner's options by the value of the position each leads to, one network evaluation per
option and no search (`sim.agents.compiled.expert`); with `margin=M` it keeps the planner's
best candidate unless another's predicted advantage is more than M above it. `model=FILE`
names the model file (a model trained by `sim.learning`); the model is refused, by name,
when it was trained for another board, player count or features layout.

Its play is compiled code only, the same in the runner's batches and at a `Game`
(`sim.agents.compiled_agent.CompiledAgent`); the compiled code is imported on first use, so
listing agents never loads numba.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.agents import weight_sets
from sim.agents.base import CompiledRow
from sim.agents.compiled_agent import CompiledAgent
from sim.agents.evaluate import compiled_params
from sim.agents.model import Model
from sim.engine.board import Board


class ExpertAgent(CompiledAgent):
    name = "expert"

    def __init__(self, seed: int | None = 0, spec: str | None = None, *, model: str = "",
                 width: int = 8, margin: float = 0.0) -> None:
        if width < 1:
            raise ValueError("width must be at least 1")
        if margin < 0:
            raise ValueError("margin must be at least 0")
        if not model:
            raise ValueError("needs model=FILE, a model trained for this board and player "
                             "count")
        super().__init__(seed, spec)
        self.model_path, self.model = model, Model.load(model)
        self.width, self.margin = width, margin

    @classmethod
    def with_model(cls, model: Model, width: int = 8, seed: int = 0) -> ExpertAgent:
        """The agent playing a model held in memory (a training's student)."""
        agent = cls.__new__(cls)
        CompiledAgent.__init__(agent, seed, "expert")
        agent.model_path, agent.model = "(in memory)", model
        agent.width, agent.margin = width, 0.0
        return agent

    def compiled_row(self, players: int) -> CompiledRow:
        """The planner's row (its options are the candidates) and the network."""
        from sim.agents.compiled.play import KIND_EXPERT

        w = weight_sets.resolve(weight_sets.DEFAULT, players).weights
        return CompiledRow(KIND_EXPERT, tuple(compiled_params(w, simulate=True).tolist()),
                           self.restrict.flags(),
                           (self.model, self.width, self.margin, self.model_path))


def network_entry(row: CompiledRow, board: Board, B: np.ndarray, players: int
                  ) -> tuple[np.ndarray, np.ndarray, int, float] | None:
    """A table row's network for `sim.agents.compiled.expert.pack_networks` (None for an
    agent without one), its model checked against the game's board, player count and
    features layout."""
    if row.network is None:
        return None
    from sim.agents.compiled.features import FEATURES_VERSION
    from sim.agents.compiled.features import input_count

    model, width, margin, source = row.network
    model.check(board.content_hash, players, int(input_count(B)), FEATURES_VERSION,
                source=str(source))
    return model.W, model.L, int(width), float(margin)


def network_work(B: np.ndarray, model: Any, WF: np.ndarray, WI: np.ndarray
                 ) -> tuple[np.ndarray, ...]:
    """The work space of one learned seat at a `Game`."""
    from sim.agents.compiled.expert import expert_work
    from sim.engine.compiled.layout import S_SIZE

    return expert_work(B, int(B[S_SIZE]), model.inputs, model.widest, WF, WI)
