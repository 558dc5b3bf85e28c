"""The games whose heuristics self-play tuning tunes (`TuneGame`): each brings its weight
space, how a weight set is named and played as an agent spec, what its games depend on, and
a function that plays game seeds with line-ups of specs and gives every seat's score.

- `PortobelloTuning`: Portobello Market's heuristic
  (`sim.games.portobello.agents.evaluate.Weights`), played by the compiled engine on a board under
  `Rules`;
- `RiverTuning`: River Market's heuristic (`sim.games.river.agents.WEIGHTS`), played by River
  Market's compiled batches on a card set under `RiverRules`.

A game is plain data (it goes to the worker processes with every task) and plays the same
games wherever it is played.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from typing import Protocol

import numpy as np

from sim.games.portobello.agents.evaluate import Weights
from sim.games.portobello.board import Board
from sim.games.portobello.rules import Rules
from sim.run.config import play_code
from sim.run.task_store import task_key
from sim.tuning import space
from sim.tuning.space import Space

PORTOBELLO = "portobello-market"
RIVER = "river-market"
GAMES = (PORTOBELLO, RIVER)
Games = Sequence[tuple[int, list[str]]]  # (game seed, the spec of every seat)


class TuneGame(Protocol):
    """What a tuning needs of a game."""

    name: str
    space: Space

    @property
    def players(self) -> int: ...

    def resolve(self, ref: str) -> dict[str, float]:
        """The weights of a weight set's name or file (the start, the opponents)."""
        ...

    def spec_of(self, weights: Mapping[str, float]) -> str:
        """The agent spec that plays exactly these weights."""
        ...

    def identity(self) -> dict[str, Any]:
        """What the games depend on besides the seeds and line-ups (the material, the
        rules), for a tuning's identity."""
        ...

    def play_code(self) -> str:
        """A hash of the code that plays the games (a tuning is never resumed by other
        code)."""
        ...

    def task_key(self, games: Games) -> str:
        """The key a task of these games is kept under while a generation is played."""
        ...

    def play(self, games: Games) -> np.ndarray:
        """Every seat's final score, a row per game, in order."""
        ...


@dataclass(frozen=True)
class PortobelloTuning:
    """Portobello Market's heuristic on `board` under `rules`."""

    board: Board
    rules: Rules
    name: str = PORTOBELLO
    space: Space = space.PORTOBELLO

    @property
    def players(self) -> int:
        return self.rules.players

    def resolve(self, ref: str) -> dict[str, float]:
        from sim.games.portobello.agents.weight_sets import resolve

        return resolve(ref, self.players).weights.as_dict()

    def spec_of(self, weights: Mapping[str, float]) -> str:
        return space.spec_of(Weights(**weights))

    def identity(self) -> dict[str, Any]:
        return {"board_hash": self.board.content_hash, "rules": self.rules.to_dict()}

    def play_code(self) -> str:
        return play_code()

    def task_key(self, games: Games) -> str:
        return task_key(self.board.content_hash, self.rules.to_dict(), list(games))

    def play(self, games: Games) -> np.ndarray:
        from sim.run.engines import CompiledEngine

        specs = sorted({s for _, lineup in games for s in lineup})
        engine = CompiledEngine(self.board, self.rules, specs)
        res = engine.play([g for g, _ in games], [lineup for _, lineup in games])
        return np.asarray(res.scores, np.int64)


@dataclass(frozen=True)
class RiverTuning:
    """River Market's heuristic with `cards` (a `CardSet`) under `rules` (`RiverRules`)."""

    cards: Any
    rules: Any
    name: str = RIVER
    space: Space = space.RIVER

    @property
    def players(self) -> int:
        return int(self.rules.players)

    def resolve(self, ref: str) -> dict[str, float]:
        from sim.games.river.agents import WEIGHTS
        from sim.games.river.weight_sets import resolve

        return dict(zip(WEIGHTS, resolve(ref), strict=True))

    def spec_of(self, weights: Mapping[str, float]) -> str:
        return space.river_spec_of(weights)

    def identity(self) -> dict[str, Any]:
        return {"game": RIVER, "cards": self.cards.name, "cards_hash": self.cards.content_hash,
                "rules": self.rules.to_dict()}

    def play_code(self) -> str:
        return play_code(RIVER)

    def task_key(self, games: Games) -> str:
        return task_key(RIVER, play_code(RIVER), self.cards.content_hash,
                        self.rules.to_dict(), list(games))

    def play(self, games: Games) -> np.ndarray:
        from sim.games.river.play import RES_SCORES
        from sim.games.river.play import play
        from sim.games.river.tables import cached_tables

        tables = cached_tables(self.cards, self.rules)
        out = play(tables, np.array([g for g, _ in games], np.uint64),
                   [lineup for _, lineup in games])
        return np.asarray(out[:, RES_SCORES:], np.int64)


