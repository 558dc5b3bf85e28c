"""A reference game's position as a compiled state array (for agents that search in compiled
code from inside the Python game loop, and for state-by-state differential tests)."""

from __future__ import annotations

import numpy as np

from sim.engine.codes import END_REASONS
from sim.engine.game import Game
from sim.fast import layout as L


def state_from_game(B: np.ndarray, game: Game) -> np.ndarray:
    """The array `S` (see `sim.fast.layout`) of a reference game's current position."""
    S = np.zeros(int(B[L.S_SIZE]), np.int64)
    S[L.SEAT], S[L.ROUND], S[L.TURN], S[L.PHASE] = game.seat, game.round, game.turn, game.phase
    S[L.ACT], S[L.NTOP], S[L.NFULL], S[L.BOBBY] = (game.actions_left, game.neutral_top,
                                                   game.n_full, game.bobby)
    S[L.BAG1], S[L.BAG2], S[L.CLEFT] = game.bag[1], game.bag[2], game.customers_left
    S[L.LPOS], S[L.PEND], S[L.BSQ] = game.line_pos, game.pending, game.baron_square
    S[L.ENDR] = END_REASONS.index(game.end_reason)
    S[L.NSCL] = len(game.scored_lanes)

    def put(slot: int, values: object) -> None:
        arr = np.asarray(values, np.int64)
        S[int(B[slot]):int(B[slot]) + arr.size] = arr

    put(L.S_SCORES, game.scores)
    put(L.S_STALLS, game.stalls_left)
    put(L.S_TV, game.tok_val)
    put(L.S_TN, game.tok_neutral)
    put(L.S_TU, game.tok_up)
    put(L.S_LC, game.lane_count)
    put(L.S_LDIR, game.lane_dir)
    put(L.S_LSC, game.lane_scored)
    put(L.S_LSEAT, game.lane_seat)
    put(L.S_SPOT, game.spot_seat)
    put(L.S_SQC, game.square_customer)
    put(L.S_DSC, game.district_scored)
    if game.line is not None:
        put(L.S_LINE, game.line)
    put(L.S_SCL, game.scored_lanes)
    put(L.S_STATS, game.stats)
    return S
