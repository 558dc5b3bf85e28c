"""Candidates against a panel, played by the game (`sim.tuning.games.TuneGame`: its tuning
facet plays them, Portobello Market's on its compiled engine, River Market's in its
batches): every candidate plays the same games (common random numbers), so the differences
between candidates are differences of play, not of luck.

A candidate meets each panel member in blocks of n games that share one game seed, the
candidate rotated through every seat and the member's copies in the others (the
tournament's design, `sim.run.tournament`). Its fitness is its mean win share (a tie
shares the win) over all those games; the mean margin (its score minus the best other
score) is kept beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.games.registry import default_game
from sim.run.execution import Execution
from sim.run.execution import Pool
from sim.run.execution import chunks
from sim.run.execution import pool_for
from sim.run.execution import task_size
from sim.run.task_store import TaskStore
from sim.tuning.games import Games
from sim.tuning.games import TuneGame


@dataclass(frozen=True)
class Score:
    """A candidate's results over its games."""

    share: float  # mean win share (parity: 1 / players)
    margin: float  # mean of its score minus the best other score
    games: int
    wins: float  # summed win shares (for intervals)


def lineups(candidate: str, member: str, players: int) -> list[list[str]]:
    """The n rotations of a block: the candidate in seat r, the member's copies elsewhere."""
    out = []
    for r in range(players):
        seats = [member] * players
        seats[r] = candidate
        out.append(seats)
    return out


def _play(game: TuneGame, games: Games) -> np.ndarray:
    """A task: the game's scores of these games (in a worker process)."""
    return game.play(games)


def focus_results(scores: np.ndarray, players: int) -> tuple[np.ndarray, np.ndarray]:
    """Win share and margin of the focus seat of each game (game i's focus sits in seat
    i mod players, the rotation order of `lineups`)."""
    seat = np.arange(len(scores)) % players
    mine = scores[np.arange(len(scores)), seat]
    best = scores.max(axis=1)
    ties = (scores == best[:, None]).sum(axis=1)
    share = np.where(mine == best, 1.0 / ties, 0.0)
    others = scores.copy()
    others[np.arange(len(scores)), seat] = np.iinfo(np.int64).min
    margin = mine - others.max(axis=1)
    return share, margin.astype(np.float64)


def opponents(candidate: str, panel: Sequence[str], guards: Sequence[str]) -> list[str]:
    """Whom a candidate meets: the panel, then its own restricted versions (`guards`,
    wrapper names): a candidate whose free choice loses to its restricted self is penalised,
    so a weakness like a poor choice of lane end cannot survive the tuning."""
    return [*panel, *(f"{g}({candidate})" for g in guards)]


def evaluate(material: Any, rules: Any, candidates: Sequence[str], panel: Sequence[str],
             seeds: Sequence[int], jobs: int = 1, guards: Sequence[str] = (),
             pool: Pool | None = None, store: TaskStore | None = None,
             game: str | None = None) -> list[Score]:
    """`evaluate_game` for the heuristic of `game` (the default game unless named) with its
    `material` (a board, a card set) under `rules`."""
    return evaluate_game(TuneGame(game or default_game(), material, rules), candidates, panel,
                         seeds, jobs=jobs, guards=guards, pool=pool, store=store)


def evaluate_game(game: TuneGame, candidates: Sequence[str], panel: Sequence[str],
                  seeds: Sequence[int], jobs: int = 1, guards: Sequence[str] = (),
                  pool: Pool | None = None, store: TaskStore | None = None) -> list[Score]:
    """Each candidate against every panel member and its guards over the blocks `seeds`
    (one game seed per block), played in tasks on `pool` (else on `jobs` local processes).
    The scores do not depend on where they are played: each game depends on its seed and
    seats, and the games are merged in order. `store` keeps finished tasks (a stopped
    tuning plays only the rest of a generation)."""
    n = game.players
    games = [(seed, lineup) for c in candidates for m in opponents(c, panel, guards)
             for seed in seeds for lineup in lineups(c, m, n)]
    with pool_for(pool, Execution(jobs)) as workers:
        # Tasks of whole blocks (n rotations each), so a game's focus seat stays i mod n.
        size = n * task_size(len(games) // n, workers.workers, 1, 10_000)
        tasks = [(game, list(chunk)) for chunk in chunks(games, size)]
        scores = np.concatenate(workers.ordered(_play, tasks, store=store, keys=[
            game.task_key(t[1]) for t in tasks]))
    share, margin = focus_results(scores, n)
    per = (len(panel) + len(guards)) * len(seeds) * n
    out = []
    for i in range(len(candidates)):
        s, m = share[i * per:(i + 1) * per], margin[i * per:(i + 1) * per]
        out.append(Score(float(s.mean()), float(m.mean()), per, float(s.sum())))
    return out
