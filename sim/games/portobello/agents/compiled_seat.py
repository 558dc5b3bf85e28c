"""What a planning agent deciding in compiled code at a `Game` needs (the search,
`fastmcts`, and the search with the learned network, `expert-search`): its own compiled
generator, seeded from the seat's seed
on first use; the Bobby placed at random with it; the position as the compiled code reads
it; and their per-setup tools (packed rows and work space), built once per board, rules and
restriction."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sim.games.portobello.actions import Action
from sim.games.portobello.agents.base import PlanningAgent
from sim.games.portobello.codes import SETUP
from sim.games.portobello.game import Game


class CompiledPlanningAgent(PlanningAgent):
    """A planning agent whose decisions run in compiled code."""

    def __init__(self, seed: int | str | None = 0, spec: str | None = None) -> None:
        super().__init__(seed, spec)
        self._tools: dict[tuple[Any, ...], dict[str, Any]] = {}
        self._state: Any = None  # the compiled generator, seeded on first use
        self._seed: int | str | None = seed

    def reseed(self, seed: int) -> None:
        super().reseed(seed)
        self._seed, self._state = seed, None

    def _generator(self) -> Any:
        """The agent's own compiled generator (stream 0 of its seed)."""
        if self._state is None:
            from sim.core.rng import new

            self._state = new(self._seed)
        return self._state

    def setup_move(self, game: Game) -> Action | None:
        """The Bobby's placement, at random with the agent's generator (None after it)."""
        if game.phase != SETUP:
            return None
        from sim.core import rng as R

        legal = self.legal_actions(game)
        return legal[R.below(self._generator(), len(legal))]

    @staticmethod
    def position(game: Game) -> Any:
        """The state array to decide on: the game's, its record's length left out (no part
        of the position)."""
        from sim.games.portobello.compiled.layout import LOG_LEN
        from sim.games.portobello.compiled.layout import LOG_OVERFLOW

        S = game.S.copy()
        S[LOG_LEN] = S[LOG_OVERFLOW] = 0
        return S

    def cached_tools(self, game: Game, build: Callable[[], dict[str, Any]]
                     ) -> dict[str, Any]:
        """The tools for this game's board, rules and the agent's restriction, built by
        `build` the first time."""
        key = (game.board, game.rules, self.restrict)
        t = self._tools.get(key)
        if t is None:
            t = self._tools[key] = build()
        return t
