"""River Market's compiled agents, the only implementation of each:

- **random**: a legal action drawn uniformly (`choose_random`);
- **greedy**: every legal action tried on a copy of the position and the one whose result
  is worth most to the deciding player kept (`choose_greedy`), worth being the player's
  score if the game ended there (`final_score`: Events, Booths, Helpers, stores, leftovers)
  plus small values for what is not yet points (each Good and Coin held, each house still
  to place); ties broken by the agent's own generator.

The greedy agent looks one decision ahead only. It never sees the deck: its measure reads
no hand and no deck, so the generator kept in the copied state (which would reveal the next
shuffle) tells it nothing.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.compiled import rng as G
from sim.river import compiled as C
from sim.river import tables as T
from sim.river.game import RiverGame

# Agent kinds and the greedy agent's weights (one row a seat).
RANDOM, GREEDY = 0, 1
W_GOOD, W_COIN, W_HOUSE = range(3)
N_WEIGHTS = 3
GREEDY_WEIGHTS = (0.3, 0.2, 0.0)  # a Good is about a third of a leftover point


@njit(cache=True, _nrt=False)
def choose_random(gen: np.ndarray, legal: np.ndarray, n: int) -> int:
    return legal[G.below(gen, n)]


@njit(cache=True, _nrt=False)
def worth(CD: np.ndarray, CARD: np.ndarray, R: np.ndarray, S: np.ndarray, p: int,
          w: np.ndarray) -> float:
    """What the position is worth to `p` (the greedy agent's measure; writes the work
    space of S)."""
    value = float(C.final_score(CD, CARD, R, S, p))
    value += w[W_GOOD] * C.goods_total(R, S, p)
    value += w[W_COIN] * S[C.res_at(R, p, T.COIN)]
    value += w[W_HOUSE] * S[R[T.R_O_HOUSES] + p]
    return value


@njit(cache=True, _nrt=False)
def choose_greedy(CD: np.ndarray, PL: np.ndarray, CARD: np.ndarray, R: np.ndarray,
                  S: np.ndarray, gen: np.ndarray, w: np.ndarray, legal: np.ndarray, n: int,
                  work: np.ndarray) -> int:
    """The legal action whose result is worth most to the decider (ties at random)."""
    if n == 1:
        return legal[0]
    p = S[T.DECIDER]
    best = -1e18
    ties = 0
    choice = legal[0]
    for i in range(n):
        for j in range(S.shape[0]):  # a copy of the position (a slice copy would allocate)
            work[j] = S[j]
        C.apply(CD, PL, CARD, R, work, legal[i])
        v = worth(CD, CARD, R, work, p, w)
        if v > best + 1e-9:
            best, choice, ties = v, legal[i], 1
        elif v > best - 1e-9:
            ties += 1
            if G.below(gen, ties) == 0:  # each of the tied equally likely
                choice = legal[i]
    return choice


class GreedyAgent:
    """The greedy agent seated at a `RiverGame` (the same compiled decision as in the
    batches), with its own generator: seat `seat`'s of the game of `seed`."""

    def __init__(self, game_seed: int, seat: int,
                 weights: tuple[float, float, float] = GREEDY_WEIGHTS) -> None:
        self.gen = G.new(G.seat_seeds(game_seed, seat + 1)[seat])
        self.weights = np.array(weights, np.float64)
        self.legal = np.empty(1024, np.int64)

    def choose(self, game: RiverGame) -> int:
        t = game.tables
        n = C.legal_actions(t.CD, t.PL, t.CARD, t.R, game.S, self.legal)
        work = np.zeros_like(game.S)
        return int(choose_greedy(t.CD, t.PL, t.CARD, t.R, game.S, self.gen, self.weights,
                                 self.legal, n, work))


class RandomAgent:
    """The random agent seated at a `RiverGame`."""

    def __init__(self, game_seed: int, seat: int) -> None:
        self.gen = G.new(G.seat_seeds(game_seed, seat + 1)[seat])

    def choose(self, game: RiverGame) -> int:
        legal = np.array(game.legal_actions(), np.int64)
        return int(choose_random(self.gen, legal, len(legal)))
