"""River Market's compiled batches play the very games the readable front plays with the
same random agents (each seat drawing from its own generator), and `portobello bench river`
reports what those games did."""

from __future__ import annotations

import numpy as np
import pytest

from sim.engine.compiled import rng
from sim.river import tables as T
from sim.river.game import RiverGame
from sim.river.play import RES_ACTIONS
from sim.river.play import RES_END
from sim.river.play import RES_SCORES
from sim.river.play import RES_TURNS
from sim.river.play import play_random
from sim.river.rules import RiverRules


def front_game(players: int, seed: int) -> RiverGame:
    """The game of `seed` played through `RiverGame`, each decision drawn by the deciding
    seat's generator (stream 0 of its seat's seed) among the legal actions."""
    g = RiverGame.new(RiverRules(players=players), seed=seed)
    gens = [rng.new(s) for s in rng.seat_seeds(seed, players)]
    while not g.over:
        legal = g.legal_actions()
        g.play(legal[int(rng.below(gens[g.decider], len(legal)))])
    return g


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_batches_play_the_fronts_games(players: int) -> None:
    seeds = list(range(100, 106))
    tables = RiverGame.new(RiverRules(players=players)).tables
    res = play_random(tables, np.array(seeds, np.uint64))
    for row, seed in zip(res, seeds, strict=True):
        g = front_game(players, seed)
        assert list(row[RES_SCORES:]) == g.scores()
        assert row[RES_TURNS] == g.turn and row[RES_END] == g.S[T.END_REASON]
        assert row[RES_ACTIONS] == g.S[T.ACTIONS_DONE]


def test_bench_river_reports_the_games_it_played() -> None:
    from sim.bench.river import bench_river

    r = bench_river([3], 40, seed=7)
    (row,) = r["rows"]
    tables = RiverGame.new(RiverRules(players=3)).tables
    res = play_random(tables, np.arange(7, 47, dtype=np.uint64))
    assert row["mean_actions"] == pytest.approx(res[:, RES_ACTIONS].mean())
    assert row["mean_scores"] == pytest.approx(list(res[:, RES_SCORES:].mean(axis=0)))
    assert row["games_per_second"] == pytest.approx(40 / row["seconds"])
