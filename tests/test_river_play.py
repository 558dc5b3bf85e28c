"""River Market's compiled batches play the very games the readable front plays with the
same agents (each seat drawing from its own generator), the greedy agent beats random
play, and `portobello bench river` reports what its games did."""

from __future__ import annotations

import numpy as np
import pytest

from sim.river import tables as T
from sim.river.agents import GreedyAgent
from sim.river.agents import RandomAgent
from sim.river.game import RiverGame
from sim.river.play import RES_ACTIONS
from sim.river.play import RES_END
from sim.river.play import RES_SCORES
from sim.river.play import RES_TURNS
from sim.river.play import play
from sim.river.play import play_random
from sim.river.rules import RiverRules


def front_game(players: int, seed: int, lineup: list[str]) -> RiverGame:
    """The game of `seed` played through `RiverGame`, each seat's agent seated at the front
    with its own generator (stream 0 of its seat's seed)."""
    g = RiverGame.new(RiverRules(players=players), seed=seed)
    kinds = {"random": RandomAgent, "greedy": GreedyAgent}
    agents = [kinds[name](seed, p) for p, name in enumerate(lineup)]
    while not g.over:
        g.play(agents[g.decider].choose(g))
    return g


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_batches_play_the_fronts_games(players: int) -> None:
    seeds = list(range(100, 104))
    lineups = [["random"] * players, ["greedy"] + ["random"] * (players - 1),
               ["random"] * (players - 1) + ["greedy"], ["greedy"] * players]
    tables = RiverGame.new(RiverRules(players=players)).tables
    res = play(tables, np.array(seeds, np.uint64), lineups)
    for row, seed, lineup in zip(res, seeds, lineups, strict=True):
        g = front_game(players, seed, lineup)
        assert list(row[RES_SCORES:]) == g.scores()
        assert row[RES_TURNS] == g.turn and row[RES_END] == g.S[T.END_REASON]
        assert row[RES_ACTIONS] == g.S[T.ACTIONS_DONE]


def test_the_greedy_agent_beats_random_play() -> None:
    """The ladder's first rung: one greedy agent against random ones, its seat rotated, wins
    far more than its fair share at 2 to 4 players (150 games each)."""
    for players in (2, 3, 4):
        tables = RiverGame.new(RiverRules(players=players)).tables
        seeds = np.arange(150, dtype=np.uint64)
        lineups = [["greedy" if g % players == p else "random" for p in range(players)]
                   for g in range(150)]
        scores = play(tables, seeds, lineups)[:, RES_SCORES:]
        share = 0.0
        for g, row in enumerate(scores):
            best = row == row.max()
            share += best[g % players] / best.sum()
        assert share / 150 > 0.8, (players, share / 150)


def test_bench_river_reports_the_games_it_played() -> None:
    from sim.bench.river import bench_river

    r = bench_river([3], 40, seed=7)
    (row,) = r["rows"]
    tables = RiverGame.new(RiverRules(players=3)).tables
    res = play_random(tables, np.arange(7, 47, dtype=np.uint64))
    assert row["mean_actions"] == pytest.approx(res[:, RES_ACTIONS].mean())
    assert row["mean_scores"] == pytest.approx(list(res[:, RES_SCORES:].mean(axis=0)))
    assert row["games_per_second"] == pytest.approx(40 / row["seconds"])
