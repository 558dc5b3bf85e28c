"""Playing one rules setting and measuring it: each seat's win share (a tie shares the win)
with its 95% Wilson interval, the mean length, and the target's value.

Every setting of a cell is played on the same game seeds (common random numbers): the same
deals and the same agent seeds, so two settings differ by the rules alone and the search
compares them with far less noise than independent games would give. The confirmation and
the checks play fresh seeds of their own (`seeds`), so a setting chosen for its luck on the
search's seeds is judged on games it was not chosen on. Results do not depend on `jobs`:
each game depends on its seed and seats alone.

The game's tuning facet plays them (`sim.tuning.games.FairnessFacet.play_seeds`: Portobello
Market's through its engine, River Market's in its compiled batches, as its runs' shards
play them); either way a task is a chunk of seeds with the same line-up in every game, and
the length is in rounds (turns around the table).
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.games.registry import default_game
from sim.run.execution import Pool
from sim.run.execution import chunks
from sim.run.execution import pool_for
from sim.run.execution import task_size
from sim.run.loop import derive_seed
from sim.run.ratings import wilson_interval
from sim.run.task_store import TaskStore
from sim.run.task_store import task_key
from sim.tuning.fairness.spec import Target
from sim.tuning.games import fairness_facet
from sim.tuning.games import task_tag

CHUNK = 500  # the most games per task (a task of cheap agents takes well under a second)
CHUNK_LEAST = 8  # the fewest: search-level games are spread thin over many workers


@dataclass(frozen=True)
class Outcome:
    """A setting's games: summed win shares per seat, the game count and mean rounds."""

    games: int
    wins: tuple[float, ...]
    rounds: float

    @property
    def players(self) -> int:
        return len(self.wins)

    def shares(self) -> list[float]:
        return [w / self.games for w in self.wins]

    def intervals(self) -> list[tuple[float, float]]:
        """Each seat's 95% Wilson interval (per seat, not corrected for the other seats:
        "fair" below asks every seat's own interval to hold 1/n, the stricter reading)."""
        return [wilson_interval(w, self.games) for w in self.wins]

    def fair(self) -> bool:
        """Whether every seat's 95% interval contains 1/n."""
        parity = 1 / self.players
        return all(lo <= parity <= hi for lo, hi in self.intervals())

    def gap(self) -> float:
        """The largest distance of a seat's win share from 1/n."""
        parity = 1 / self.players
        return max(abs(s - parity) for s in self.shares())

    def gap_bounds(self) -> tuple[float, float]:
        """95% bounds of the largest seat gap, from each seat's interval: the low one is the
        largest distance from 1/n to a seat's interval (0 when every interval holds 1/n, the
        setting fair), the high one the largest distance from 1/n to an interval's far end.
        Racing (`sim.tuning.fairness.race`) drops settings by them."""
        parity = 1 / self.players
        spans = self.intervals()
        return (max(max(lo - parity, parity - hi, 0.0) for lo, hi in spans),
                max(max(hi - parity, parity - lo) for lo, hi in spans))

    def target(self, target: Target) -> float:
        """The target's value (lower is better)."""
        return float(target.values(np.array([self.shares()]), np.array([self.rounds]))[0])

    def to_dict(self) -> dict[str, Any]:
        return {"games": self.games, "wins": list(self.wins), "rounds": self.rounds}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Outcome:
        return cls(int(data["games"]), tuple(float(w) for w in data["wins"]),
                   float(data["rounds"]))


def seeds(seed: int, phase: str, games: int) -> list[int]:
    """The game seeds of a phase (`search`, `confirm`, `check-0`, ...): the same for every
    setting and cell of a tuning (common random numbers), distinct between phases."""
    return [derive_seed(seed, "fairness", phase, i) for i in range(games)]


def _play(board: Any, rules: Any, lineup: Sequence[str], game_seeds: Sequence[int],
          game: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A task of `game`'s games (the default game's unless named), `board` its material:
    every seat's score and each game's rounds, played by the game's tuning facet."""
    return fairness_facet(game or default_game()).play_seeds(board, rules, lineup, game_seeds)


def win_shares(scores: np.ndarray) -> np.ndarray:
    """Each game's win share per seat: 1 to the top score, split evenly on a tie."""
    best = scores.max(axis=1, keepdims=True)
    top = scores == best
    return top / top.sum(axis=1, keepdims=True)


def play(board: Any, rules: Any, lineup: Sequence[str], game_seeds: Sequence[int],
         pool: Pool | None = None, store: TaskStore | None = None,
         game: str | None = None) -> Outcome:
    """Play the games of one setting of `game` (the default game unless named; `board` its
    material: the board, River Market's card set) in tasks on `pool`, else in this process,
    and sum them up: the games are merged in seed order, so the sums do not depend on the
    pool. `store` keeps finished tasks (a stopped tuning plays only the rest of a
    setting)."""
    game = game or default_game()
    # A task's key names its game and playing code beside the rest (`task_tag`), so a
    # stopped tuning never reads back another code's games.
    tag = task_tag(game)
    with pool_for(pool) as workers:
        size = task_size(len(game_seeds), workers.workers, CHUNK_LEAST, CHUNK)
        tasks = [(board, rules, tuple(lineup), c, game) for c in chunks(list(game_seeds), size)]
        parts = workers.ordered(_play, tasks, store=store,
                                keys=[task_key(*tag, board.content_hash, rules.to_dict(),
                                               list(lineup), list(c)) for *_, c, _ in tasks])
    scores = np.concatenate([p[0] for p in parts])
    rounds = np.concatenate([p[1] for p in parts])
    wins = win_shares(scores).sum(axis=0)
    return Outcome(len(game_seeds), tuple(float(w) for w in wins), float(rounds.mean()))
