"""The search with the learned agent's network at its leaves (`expert-search`): the
compiled search of `fastmcts` (the same tree, edges, priors and selection), but a new leaf
is valued by the network from every seat's chair instead of being rolled out with the
planner, so an iteration costs a few network evaluations instead of some twenty planner
steps. `model=FILE` as for `expert` (without it, the shipped model for the player count);
`iterations` (default 300) and the search's other settings as for `fastmcts`.
"""

from __future__ import annotations

from typing import Any

from sim.games.portobello.agents.expert import model_for
from sim.games.portobello.agents.fast_mcts import FastMCTSAgent
from sim.games.portobello.agents.model import Model
from sim.games.portobello.game import Game


class ExpertSearchAgent(FastMCTSAgent):
    name = "expert-search"

    def __init__(self, seed: int | None = 0, spec: str | None = None, *, model: str = "",
                 iterations: int = 300, time: float = 0.0, c: float = 1.2, temp: float = 3.0,
                 width: int = 8, expand: int = 1, chunk: int = 32, nodes: int = 100_000,
                 reuse: bool = True) -> None:
        super().__init__(seed, spec, iterations=iterations, time=time, c=c, temp=temp,
                         width=width, expand=expand, chunk=chunk, nodes=nodes, reuse=reuse)
        self.model_path = model
        self.model = Model.load(model) if model else None

    def tools(self, game: Game) -> dict[str, Any]:
        """The search's tools and the network with its work space, the model checked
        against this game."""
        t = super().tools(game)
        if "net" not in t:
            import numpy as np

            from sim.games.portobello.agents.compiled.features import FEATURES_VERSION
            from sim.games.portobello.agents.compiled.features import input_count

            model, source = model_for(self.model, self.model_path, game.n)
            n_inputs = int(input_count(game.B))
            model.check(game.board.content_hash, game.n, n_inputs, FEATURES_VERSION,
                        source=source)
            t["net"] = (model.W, model.L, np.zeros(n_inputs), np.zeros(model.widest),
                        np.zeros((2, model.widest)), np.zeros(model.outputs))
        return t

    def leaf_net(self, tools: dict[str, Any]) -> tuple[Any, ...]:
        return tools["net"]
