"""A reference game's position as a compiled state array (for agents that search in compiled
code from inside the Python game loop, and for state-by-state differential tests)."""

from __future__ import annotations

import numpy as np

from oracle.game import Game
from sim.games.portobello.codes import END_REASONS
from sim.games.portobello.compiled import layout as L


def state_from_game(B: np.ndarray, game: Game) -> np.ndarray:
    """The array `S` (see `sim.games.portobello.compiled.layout`) of a reference game's current
    position."""
    S = np.zeros(int(B[L.S_SIZE]), np.int64)
    S[L.SEAT], S[L.ROUND], S[L.TURN], S[L.PHASE] = game.seat, game.round, game.turn, game.phase
    S[L.ACTIONS_LEFT], S[L.NEUTRAL_TOP] = game.actions_left, game.neutral_top
    S[L.N_FULL_LANES], S[L.BOBBY] = game.n_full, game.bobby
    S[L.BAG_CITIZENS], S[L.BAG_ARISTOCRATS] = game.bag[1], game.bag[2]
    S[L.CUSTOMERS_LEFT], S[L.LINE_POS] = game.customers_left, game.line_pos
    S[L.PENDING], S[L.BARON_SQUARE] = game.pending, game.baron_square
    S[L.END_REASON] = END_REASONS.index(game.end_reason)
    S[L.N_SCORED_LANES] = len(game.scored_lanes)

    def put(slot: int, values: object) -> None:
        arr = np.asarray(values, np.int64)
        S[int(B[slot]):int(B[slot]) + arr.size] = arr

    put(L.S_SCORES, game.scores)
    put(L.S_STALLS_LEFT, game.stalls_left)
    put(L.S_TOK_VAL, game.tok_val)
    put(L.S_TOK_NEUTRAL, game.tok_neutral)
    put(L.S_TOK_UP, game.tok_up)
    put(L.S_LANE_COUNT, game.lane_count)
    put(L.S_LANE_DIR, game.lane_dir)
    put(L.S_LANE_SCORED, game.lane_scored)
    put(L.S_LANE_SEAT, game.lane_seat)
    put(L.S_SPOT_SEAT, game.spot_seat)
    put(L.S_SQUARE_CUSTOMER, game.square_customer)
    put(L.S_DISTRICT_SCORED, game.district_scored)
    if game.line is not None:
        put(L.S_LINE, game.line)
    put(L.S_SCORED_LANES, game.scored_lanes)
    put(L.S_STATS, game.stats)
    return S
