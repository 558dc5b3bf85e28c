"""Does an agent's table respond to start scores as a start-score compensation assumes: the
more points a seat starts with, the more often it wins?

    .venv/bin/python benchmarks/start_score_response.py [--agent expert] [--players 2]
        [--preset known-order] [--seat 1] [--bonuses 0,3,5,7,9,11] [--base 10,10]
        [--games 4000] [--seed 777] [--jobs 2]

The agent plays every seat; `--seat`'s start score is the base's plus each bonus in turn,
the other seats keep the base, and every bonus plays the same game seeds. One markdown row
per bonus: every seat's win share, the seat's share with its 95% interval, and the change
from the previous bonus with its 95% interval (paired by game seed). A change whose whole
interval is below zero is a reversal: a seat given more points winning less often, which a
compensation tuning cannot work with. The tuned heuristic has none; docs/learning.md gives
the learned agent's figures.
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

import numpy as np

from sim.games.portobello.board import load_board
from sim.games.portobello.rules import preset
from sim.run.config import RunConfig
from sim.run.runner import Run


def seat_wins(agent: str, players: int, rules_name: str, start: tuple[int, ...], games: int,
              seed: int, jobs: int, folder: Path) -> np.ndarray:
    """(games, players) win shares of one run, in game order."""
    from analysis.load import load_run

    rules = preset(rules_name, players=players).with_changes(start_scores=start)
    config = RunConfig(board=load_board("standard"), board_ref="standard", rules=rules,
                       agents=(agent,) * players, games=games, seed=seed)
    run = Run(config, folder)
    run.execute(jobs=jobs, quiet=True)
    table = load_run(folder).players().sort(["game_id", "seat"]).collect()
    return table["win_share"].to_numpy().reshape(games, players)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--agent", default="expert")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--preset", default="known-order")
    p.add_argument("--seat", type=int, default=1)
    p.add_argument("--bonuses", default="0,3,5,7,9,11")
    p.add_argument("--base", default="", help="start scores, seat 0 first (default 10 each)")
    p.add_argument("--games", type=int, default=4000)
    p.add_argument("--seed", type=int, default=777)
    p.add_argument("--jobs", type=int, default=2)
    a = p.parse_args(argv)
    base = [int(v) for v in a.base.split(",")] if a.base else [10] * a.players
    bonuses = [int(v) for v in a.bonuses.split(",")]
    print(f"{a.agent}, {a.players} players, {a.preset}, seat {a.seat}'s bonus over "
          f"{base}; {a.games} games a bonus, seed {a.seed}\n")
    print("| bonus | start scores | every seat | seat share [95%] | change [95%] |")
    print("|---|---|---|---|---|")
    previous, reversals, start_time = None, 0, time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for bonus in bonuses:
            start = list(base)
            start[a.seat] += bonus
            wins = seat_wins(a.agent, a.players, a.preset, tuple(start), a.games, a.seed,
                             a.jobs, Path(tmp) / f"b{bonus}")
            mine = wins[:, a.seat]
            share = mine.mean()
            half = 1.96 * mine.std(ddof=1) / math.sqrt(len(mine))
            change = ""
            if previous is not None:
                d = mine - previous
                dh = 1.96 * d.std(ddof=1) / math.sqrt(len(d))
                change = f"{d.mean():+.3f} [{d.mean() - dh:+.3f}, {d.mean() + dh:+.3f}]"
                if d.mean() + dh < 0:
                    reversals += 1
                    change += " reversal"
            every = ", ".join(f"{s:.3f}" for s in wins.mean(axis=0))
            print(f"| {bonus:+d} | {start} | {every} | {share:.3f} [{share - half:.3f}, "
                  f"{share + half:.3f}] | {change} |")
            previous = mine
    print(f"\n{reversals} reversal(s) in {len(bonuses) - 1} steps; "
          f"{time.perf_counter() - start_time:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
