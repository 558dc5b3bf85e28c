"""River Market games in compiled batches, and its random agent: the legal action drawn
uniformly by the deciding seat's own generator (stream 0 of its seat's seed, as every
Portobello Market agent's), so a game replays from its seed whatever plays beside it."""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.compiled import rng as G
from sim.river import compiled as C
from sim.river import tables as T
from sim.river.tables import Tables

# Result columns: end reason, turns, actions, then each seat's score.
RES_END, RES_TURNS, RES_ACTIONS, RES_SCORES = range(4)


@njit(cache=True)
def random_games(CD: np.ndarray, PL: np.ndarray, CARD: np.ndarray, R: np.ndarray,
                 seeds: np.ndarray) -> np.ndarray:
    """Play one game of random agents per seed; a row of results per game (RES_*)."""
    players = R[T.R_PLAYERS]
    out = np.zeros((seeds.shape[0], RES_SCORES + players), np.int64)
    legal = np.empty(1024, np.int64)
    gens = np.zeros((players, G.WORDS), np.uint64)
    for g in range(seeds.shape[0]):
        seed = np.uint64(seeds[g])
        for p in range(players):
            G.start(gens[p], np.uint64(G.seat_seed(seed, p)), G.AGENT_STREAM)
        S = C.new_game(CD, CARD, R, seed)
        while S[T.PHASE] != C.PH_OVER:
            n = C.legal_actions(CD, PL, CARD, R, S, legal)
            C.apply(CD, PL, CARD, R, S, legal[G.below(gens[S[T.DECIDER]], n)])
        out[g, RES_END] = S[T.END_REASON]
        out[g, RES_TURNS] = S[T.TURN]
        out[g, RES_ACTIONS] = S[T.ACTIONS_DONE]
        for p in range(players):
            out[g, RES_SCORES + p] = S[R[T.R_O_SCORE] + p]
    return out


def play_random(tables: Tables, seeds: np.ndarray) -> np.ndarray:
    """`random_games` on a card set's tables; `seeds` as unsigned 64-bit words."""
    return random_games(tables.CD, tables.PL, tables.CARD, tables.R,
                        np.asarray(seeds, np.uint64))
