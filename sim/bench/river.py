"""River Market's random games per second on one core (`portobello bench river`): the
compiled batches of `sim.games.river.play`, each player count timed after a first small batch
that loads (or compiles) the code."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from sim.bench import BenchError
from sim.games.river.cards import load_cards
from sim.games.river.play import RES_ACTIONS
from sim.games.river.play import RES_SCORES
from sim.games.river.play import RES_TURNS
from sim.games.river.play import play_random
from sim.games.river.rules import PLAYERS
from sim.games.river.rules import RiverRules
from sim.games.river.tables import build_tables


def bench_river(players: Sequence[int], games: int, seed: int = 0,
                cards: str = "river-market") -> dict[str, Any]:
    """Games/s and actions/s per player count, and each count's averages (turns, actions,
    scores): `portobello bench river --json`."""
    for n in players:
        if not PLAYERS[0] <= n <= PLAYERS[1]:
            raise BenchError(f"River Market is for 2 to 5 players, got {n}", field="players")
    card_set = load_cards(cards)
    rows = []
    for n in players:
        tables = build_tables(card_set, RiverRules(players=n))
        seeds = np.arange(seed, seed + games, dtype=np.uint64)
        start = time.perf_counter()
        play_random(tables, seeds[:2])
        first = time.perf_counter() - start
        start = time.perf_counter()
        res = play_random(tables, seeds)
        seconds = time.perf_counter() - start
        rows.append({"players": n, "games": games, "seconds": seconds,
                     "games_per_second": games / seconds,
                     "actions_per_second": float(res[:, RES_ACTIONS].sum()) / seconds,
                     "mean_turns": float(res[:, RES_TURNS].mean()),
                     "mean_actions": float(res[:, RES_ACTIONS].mean()),
                     "mean_scores": [float(x) for x in res[:, RES_SCORES:].mean(axis=0)],
                     "first_batch_seconds": first})
    return {"cards": card_set.name, "cards_hash": card_set.content_hash,
            "load": os.getloadavg()[0], "rows": rows}
