"""The learned agent (`expert`): a network trained on the search's choices picks among the
planner's options by the value of the position each leads to, one network evaluation per
option and no search (`sim.games.portobello.agents.compiled.expert`); with `margin=M` it keeps the
planner's best candidate unless another's predicted advantage is more than M above it. `model=FILE`
names the model file (a model trained by `sim.learning`); without it the agent plays the
model shipped for the game's player count
(`sim/games/portobello/agents/models/expert-{2,3,4}p.model`, the standard board). A model is
refused, by name, when it was trained for another board, player count or features layout.

Its play is compiled code only, the same in the runner's batches and at a `Game`
(`sim.games.portobello.agents.compiled_agent.CompiledAgent`); the compiled code is imported on first
use, so listing agents never loads numba.
"""

from __future__ import annotations

from pathlib import Path

from sim.games.portobello.agents import weight_sets
from sim.games.portobello.agents.base import CompiledRow
from sim.games.portobello.agents.compiled_agent import CompiledAgent
from sim.games.portobello.agents.evaluate import compiled_params
from sim.games.portobello.agents.model import Model
from sim.games.portobello.agents.model import ModelError

SHIPPED = Path(__file__).resolve().parent / "models"  # expert-{2,3,4}p.model


class ExpertAgent(CompiledAgent):
    name = "expert"

    def __init__(self, seed: int | None = 0, spec: str | None = None, *, model: str = "",
                 width: int = 8, margin: float = 0.0) -> None:
        if width < 1:
            raise ValueError("width must be at least 1")
        if margin < 0:
            raise ValueError("margin must be at least 0")
        super().__init__(seed, spec)
        # No model named: the shipped model for the game's player count, read when the
        # agent is first seated (`model_for`).
        self.model_path = model
        self.model: Model | None = Model.load(model) if model else None
        self.width, self.margin = width, margin

    def model_for(self, players: int) -> tuple[Model, str]:
        """The model this agent plays at `players`, and where it came from."""
        return model_for(self.model, self.model_path, players)

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
        from sim.games.portobello.agents.compiled.play import KIND_EXPERT

        w = weight_sets.resolve(weight_sets.DEFAULT, players).weights
        model, source = self.model_for(players)
        return CompiledRow(KIND_EXPERT, tuple(compiled_params(w, simulate=True).tolist()),
                           self.restrict.flags(), (model, self.width, self.margin, source))


def model_for(model: Model | None, path: str, players: int) -> tuple[Model, str]:
    """`model` (read from `path`) or, when none was named, the shipped model for
    `players`; and where it came from. Both learned agents (`expert`, `expert-search`)
    choose their model here."""
    if model is not None:
        return model, path
    shipped = SHIPPED / f"expert-{players}p.model"
    if not shipped.is_file():
        raise ModelError(f"no shipped model for {players} players; name one with "
                         "model=FILE", source="expert", field="model")
    return Model.load(shipped), str(shipped)
