"""The compiled seats' seeds (`sim.engine.compiled.seeds`) equal `sim.run.loop.seat_seeds`
(hashlib's
BLAKE2b) for every game seed: edge values (0, one digit, the largest 63-bit seed), many
drawn seeds at every player count, and the compiled engine's fallback for negative seeds."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from sim.engine.board import load_board
from sim.engine.compiled.seeds import seat_seeds_batch
from sim.engine.rules import Rules
from sim.run.engines import CompiledEngine
from sim.run.loop import seat_seeds

EDGES = [0, 1, 9, 10, 99, 100, 10**18 - 1, 10**18, 2**62, 2**63 - 1]


def test_edge_seeds_at_every_player_count() -> None:
    for players in (2, 3, 4, 10, 12):  # 10 and 12: two-digit seats
        got = seat_seeds_batch(np.array(EDGES, np.int64), players)
        assert got.tolist() == [seat_seeds(s, players) for s in EDGES]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 2**63 - 1), min_size=1, max_size=40), st.integers(2, 6))
def test_drawn_seeds(seeds: list[int], players: int) -> None:
    got = seat_seeds_batch(np.array(seeds, np.int64), players)
    assert got.tolist() == [seat_seeds(s, players) for s in seeds]


def test_the_engine_takes_negative_seeds_the_python_way() -> None:
    fast = CompiledEngine(load_board("standard"), Rules(players=3), ["random"])
    _, per_seat, rows = fast.prepare([-5, 7], [["random"] * 3] * 2)
    assert per_seat.tolist() == [seat_seeds(-5, 3), seat_seeds(7, 3)]
    assert rows.tolist() == [[0, 0, 0], [0, 0, 0]]
