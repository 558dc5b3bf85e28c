"""The random agent: uniform choices, but with the shape of a real turn.

It picks the kind of action first (so the dozens of district-scoring options do not drown
out playing a token), uses the actions it has, moves the Bobby only a few times per turn,
and ends its turn when nothing useful is left.
"""

from __future__ import annotations

from sim.agents.base import BaseAgent
from sim.agents.base import CompiledTwin
from sim.engine import actions as A
from sim.engine.actions import Action
from sim.engine.codes import ACTIONS
from sim.engine.codes import TURN_START
from sim.engine.game import Game


class RandomAgent(BaseAgent):
    name = "random"

    def __init__(self, seed: int | None = 0, spec: str | None = None, move_chance: float = 0.25,
                 max_moves: int = 2) -> None:
        super().__init__(seed, spec)
        self.move_chance = move_chance
        self.max_moves = max_moves
        self._moves = 0
        self._turn = -1

    def reseed(self, seed: int) -> None:
        super().reseed(seed)
        self._moves, self._turn = 0, -1  # a new game must not inherit the last one's turn

    def compiled_twin(self, players: int) -> CompiledTwin:
        from sim.fast.play import KIND_RANDOM
        from sim.fast.play import random_params

        return CompiledTwin(KIND_RANDOM, random_params(self.move_chance, self.max_moves),
                            self.restrict.flags())

    def choose(self, game: Game) -> Action:
        legal = self.legal_actions(game)
        rng = self.rng
        if game.phase == ACTIONS:
            if game.turn != self._turn:
                self._turn, self._moves = game.turn, 0
            useful = [a for a in legal if A.kind(a) in (A.PLACE_STALL, A.DRAW_CUSTOMER)]
            moves = [a for a in legal if A.kind(a) == A.MOVE_BOBBY]
            if moves and self._moves < self.max_moves and (
                    not useful or rng.random() < self.move_chance):
                self._moves += 1
                return rng.choice(moves)
            if useful:
                return rng.choice(useful)
            return A.END
        if game.phase == TURN_START and len(legal) > 1:
            kinds = sorted({A.kind(a) for a in legal})
            k = rng.choice(kinds)
            return rng.choice([a for a in legal if A.kind(a) == k])
        return rng.choice(legal)
