"""OpenSpiel's MCTS and ISMCTS bots as agents (`openspiel-mcts`, `openspiel-ismcts`), so a
tournament measures them against ours on the same seeds.

Each decision hands the engine's game to the bot as a state of the OpenSpiel game
(`sim.adapters.openspiel`, made at the game) and plays the engine action the bot's choice
stands for. The bots are OpenSpiel's own (`open_spiel.python.algorithms.mcts` and
`.ismcts`) with random-rollout evaluators; the extra `portobello[openspiel]` brings them,
and without it these agents are refused with that advice.

Budget: `simulations` per decision, or with `time` above 0 seconds per decision met on
average: each decision runs the budget over the seconds per simulation measured in the
decisions before it (a bot has no clock of its own), on the `clock`: `wall`, or `cpu`
(the process's CPU time, as `fastmcts` offers, for fair budgets on a busy machine). The
bots search from the position alone; the agent counts its own Bobby moves in the turn, so
the game's bound on them (`sim.adapters.core.settings`) holds across its decisions and a
turn always ends.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.core.errors import PortobelloError
from sim.games.portobello import actions as A
from sim.games.portobello.actions import Action
from sim.games.portobello.agents.base import NO_RESTRICTIONS
from sim.games.portobello.agents.base import BaseAgent
from sim.games.portobello.agents.base import Restrictions
from sim.games.portobello.agents.fast_mcts import CLOCKS
from sim.games.portobello.game import Game

EXTRA_ADVICE = "pip install 'portobello[openspiel]'"


class OpenSpielMissing(PortobelloError):
    """An OpenSpiel agent asked for where open-spiel is not installed."""


class OpenSpielUnrestricted(PortobelloError):
    """A restriction wrapper around an OpenSpiel bot, which searches every legal action."""


def _adapter() -> Any:
    try:
        from sim.adapters import openspiel
    except ImportError:
        raise OpenSpielMissing(f"the OpenSpiel agents need open-spiel: {EXTRA_ADVICE}",
                               field="agents") from None
    return openspiel


class OpenSpielAgent(BaseAgent):
    """Common parts: the OpenSpiel game for the engine game's board and rules (made once
    per setting), the bot's seeded generator and the budget."""

    name = "openspiel"

    def __init__(self, seed: int | None = 0, spec: str | None = None, *,
                 simulations: int = 100, time: float = 0.0, c: float = 2.0,
                 rollouts: int = 1, clock: str = "wall") -> None:
        if simulations < 1 and time <= 0:
            raise ValueError(f"{self.name} needs a budget: simulations >= 1 or time > 0")
        if rollouts < 1:
            raise ValueError(f"rollouts must be at least 1, got {rollouts}")
        if clock not in CLOCKS:
            raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, got {clock!r}")
        self.adapter = _adapter()
        self.simulations, self.time, self.c, self.rollouts = simulations, time, c, rollouts
        self.clock = CLOCKS[clock]
        super().__init__(seed, spec)
        self.np_rng = np.random.RandomState(self.rng.getrandbits(32))
        self._games: dict[tuple[int, Any], Any] = {}
        self._bots: dict[tuple[int, Any], Any] = {}
        self._per_simulation = 0.0  # seconds, measured (time budget only)
        self._moves = (-1, 0)  # (turn, Bobby moves this agent made in it)
        self.last_iterations = 0  # simulations of the last decision (`bench mcts`)

    @property
    def restrict(self) -> Restrictions:
        return NO_RESTRICTIONS

    @restrict.setter
    def restrict(self, value: Restrictions) -> None:
        # OpenSpiel's bots search every legal action at every node of their tree; a
        # restriction honoured only at the root would play a different game unannounced.
        if value.any:
            raise OpenSpielUnrestricted(f"{self.name} cannot be restricted: OpenSpiel's "
                                        f"bots search every legal action", field="agents")

    def reseed(self, seed: int) -> None:
        super().reseed(seed)
        self.np_rng.seed(self.rng.getrandbits(32))
        self._per_simulation = 0.0
        self._moves = (-1, 0)

    def make_bot(self, game: Any, evaluator: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _bot_for(self, game: Game) -> tuple[Any, Any]:
        key = (id(game.board), game.rules)
        if key not in self._games:
            os_game = self.adapter.PortobelloGame.for_engine(game.board, game.rules)
            from open_spiel.python.algorithms import mcts

            evaluator = mcts.RandomRolloutEvaluator(self.rollouts, self.np_rng)
            self._games[key] = os_game
            self._bots[key] = self.make_bot(os_game, evaluator)
        return self._games[key], self._bots[key]

    def _budget(self) -> int:
        if self.time <= 0:
            return self.simulations
        if self._per_simulation <= 0:
            return max(1, min(self.simulations, 8))  # a first measurement
        return max(1, int(self.time / self._per_simulation))

    def choose(self, game: Game) -> Action:
        os_game, bot = self._bot_for(game)
        turn, moves = self._moves
        moves = moves if turn == game.turn else 0
        state = os_game.state_at(game, moves)
        legal = state.legal_actions()
        self.last_iterations = 0
        if len(legal) == 1:
            index = legal[0]
        else:
            sims = self.last_iterations = self._budget()
            self.set_simulations(bot, sims)
            start = self.clock()
            index = int(bot.step(state))
            if self.time > 0:
                spent = (self.clock() - start) / sims
                self._per_simulation = spent if self._per_simulation <= 0 \
                    else 0.7 * self._per_simulation + 0.3 * spent
        action = os_game.table.codes[index]
        if A.kind(action) == A.MOVE_BOBBY:
            moves += 1
        self._moves = (game.turn, moves)
        return action

    def set_simulations(self, bot: Any, sims: int) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


class OpenSpielMCTSAgent(OpenSpielAgent):
    """OpenSpiel's MCTS (UCT, random rollouts, chance nodes sampled in the tree)."""

    name = "openspiel-mcts"

    def make_bot(self, game: Any, evaluator: Any) -> Any:
        from open_spiel.python.algorithms import mcts

        return mcts.MCTSBot(game, self.c, max(1, self.simulations), evaluator,
                            random_state=self.np_rng)

    def set_simulations(self, bot: Any, sims: int) -> None:
        bot.max_simulations = sims


class OpenSpielISMCTSAgent(OpenSpielAgent):
    """OpenSpiel's information-set MCTS (one tree over information states)."""

    name = "openspiel-ismcts"

    def make_bot(self, game: Any, evaluator: Any) -> Any:
        from open_spiel.python.algorithms import ismcts

        return ismcts.ISMCTSBot(game, evaluator, self.c, max(1, self.simulations),
                                random_state=self.np_rng)

    def set_simulations(self, bot: Any, sims: int) -> None:
        bot._max_simulations = sims  # the bot keeps its budget in this attribute
