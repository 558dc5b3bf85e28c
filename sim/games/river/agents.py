"""River Market's compiled agents, the only implementation of each:

- **random**: a legal action drawn uniformly (`choose_random`);
- **heuristic** (`choose_heuristic`): every legal action tried on a copy of the position and
  the one whose result is worth most to the deciding player kept, ties broken by the
  agent's own generator. Worth (`worth`) is the player's score if the game ended there
  (`final_score`: Events, Booths, Helpers, stores, leftovers) plus weighted values of what
  is not yet points (`WEIGHTS`): each Good and Coin held, each house still to place, each
  kind of Good held (a batch of three different Goods is a leftover point, and costs ask
  for several kinds), each Booth owned (its owner bonuses to come) and each Helper hired
  (its ability to come); less `rival` times the best other player's worth measured the
  same way (so that feeding the leader an owner bonus costs something). Its weights come
  from a weight set (`sim.games.river.weight_sets`: its `DEFAULT` unless the spec names others);
- **greedy**: the heuristic with `GREEDY_WEIGHTS` (a Good 0.3, a Coin 0.2, nothing else),
  the one-step agent the heuristic's weights are tuned against;
- **search** (`search:iterations=N`, 200 by default): flat Monte Carlo over the legal
  actions, each tried in turn on a copy of the position with what the player cannot see
  (the other hands and the deck) dealt afresh, the game played out by random agents, the
  outcome (the share of the win, plus a hundredth a point of margin) averaged
  (`choose_search`).

The heuristic looks one decision ahead only. It never sees the deck: its measure reads no
hand and no deck, so the generator kept in the copied state (which would reveal the next
shuffle) tells it nothing.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.core import rng as G
from sim.games.river import compiled as C
from sim.games.river import tables as T
from sim.games.river.game import RiverGame
from sim.games.river.scoring import owned
from sim.games.river.state import KD_BOOTH

# Agent kinds; the greedy agent is the heuristic with the greedy weights.
RANDOM, HEURISTIC = 0, 1
# The heuristic's weights (one row a seat in the batches), in this order.
WEIGHTS = ("good", "coin", "house", "kinds", "booth", "helper", "rival")
W_GOOD, W_COIN, W_HOUSE, W_KINDS, W_BOOTH, W_HELPER, W_RIVAL = range(len(WEIGHTS))
N_WEIGHTS = len(WEIGHTS)
GREEDY_WEIGHTS = (0.3, 0.2, 0.0, 0.0, 0.0, 0.0, 0.0)  # a Good: about a third of a point


@njit(cache=True, _nrt=False)
def choose_random(gen: np.ndarray, legal: np.ndarray, n: int) -> int:
    return legal[G.below(gen, n)]


@njit(cache=True, _nrt=False)
def own_worth(CD: np.ndarray, CARD: np.ndarray, R: np.ndarray, S: np.ndarray, p: int,
              w: np.ndarray) -> float:
    """`p`'s score if the game ended now plus the weighted values of what is not yet points
    (every weight but `rival`; writes the work space of S). A term whose weight is 0 is
    not worked out (the greedy agent pays only for what it weighs)."""
    value = float(C.final_score(CD, CARD, R, S, p))
    value += w[W_GOOD] * C.goods_total(R, S, p)
    value += w[W_COIN] * S[C.res_at(R, p, T.COIN)]
    value += w[W_HOUSE] * S[R[T.R_O_HOUSES] + p]
    if w[W_KINDS] != 0.0:
        kinds = 0
        for r in range(1, T.NRES):
            if S[C.res_at(R, p, r)] > 0:
                kinds += 1
        value += w[W_KINDS] * kinds
    if w[W_BOOTH] != 0.0:
        value += w[W_BOOTH] * owned(CD, CARD, R, S, p, KD_BOOTH)
    if w[W_HELPER] != 0.0:
        value += w[W_HELPER] * S[R[T.R_O_NHIRED] + p]
    return value


@njit(cache=True, _nrt=False)
def worth(CD: np.ndarray, CARD: np.ndarray, R: np.ndarray, S: np.ndarray, p: int,
          w: np.ndarray) -> float:
    """What the position is worth to `p` (the heuristic's measure): its own worth, less
    `rival` times the best other player's own worth (writes the work space of S)."""
    value = own_worth(CD, CARD, R, S, p, w)
    if w[W_RIVAL] != 0.0:
        best = -1e18
        for q in range(R[T.R_PLAYERS]):
            if q != p:
                best = max(best, own_worth(CD, CARD, R, S, q, w))
        value -= w[W_RIVAL] * best
    return value


@njit(cache=True, _nrt=False)
def choose_heuristic(CD: np.ndarray, PL: np.ndarray, CARD: np.ndarray, R: np.ndarray,
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


class SeatedAgent:
    """A compiled agent seated at a `RiverGame` (the same decision as in the batches), with
    its own generator: stream 0 of its seat's seed of the game's seed, as in the batches."""

    def __init__(self, game_seed: int, seat: int) -> None:
        self.gen = G.new(int(G.seat_seed(np.uint64(G.word(game_seed)), seat)))
        self.legal = np.empty(1024, np.int64)

    def choose(self, game: RiverGame) -> int:
        t = game.tables
        n = C.legal_actions(t.CD, t.PL, t.CARD, t.R, game.S, self.legal)
        return int(self.decide(game, n, np.zeros_like(game.S)))

    def decide(self, game: RiverGame, n: int, work: np.ndarray) -> int:
        """The compiled decision among the `n` legal actions in `self.legal`."""
        return choose_random(self.gen, self.legal, n)


class RandomAgent(SeatedAgent):
    """The random agent seated at a `RiverGame`."""


class HeuristicAgent(SeatedAgent):
    """The heuristic seated at a `RiverGame` (with `GREEDY_WEIGHTS`: the greedy agent)."""

    def __init__(self, game_seed: int, seat: int,
                 weights: tuple[float, ...] = GREEDY_WEIGHTS) -> None:
        super().__init__(game_seed, seat)
        if len(weights) != N_WEIGHTS:
            raise ValueError(f"{len(weights)} weights given, {N_WEIGHTS} expected "
                             f"({', '.join(WEIGHTS)})")
        self.weights = np.array(weights, np.float64)

    def decide(self, game: RiverGame, n: int, work: np.ndarray) -> int:
        t = game.tables
        return choose_heuristic(t.CD, t.PL, t.CARD, t.R, game.S, self.gen, self.weights,
                                self.legal, n, work)


# -- the search ---------------------------------------------------------------------------------
SEARCH = 2
DEFAULT_ITERATIONS = 200


@njit(cache=True, _nrt=False)
def determinize(R: np.ndarray, S: np.ndarray, p: int, gen: np.ndarray) -> None:
    """What `p` cannot see, dealt afresh: the other players' hands and the deck shuffled
    together and dealt back in the same sizes, and the game's generator re-keyed (so that
    later reshuffles are not the real ones either)."""
    players = R[T.R_PLAYERS]
    hmax = R[T.R_HMAX]
    deck = R[T.R_O_DECK]
    n = S[T.DECK_LEN]
    # The other hands go on top of the deck's block (it has room for every card), and the
    # whole pool is shuffled.
    for q in range(players):
        if q == p:
            continue
        at = R[T.R_O_HAND] + q * hmax
        for i in range(S[R[T.R_O_HAND_LEN] + q]):
            S[deck + n] = S[at + i]
            n += 1
    for i in range(n - 1, 0, -1):
        j = G.below(gen, i + 1)
        S[deck + i], S[deck + j] = S[deck + j], S[deck + i]
    k = 0
    for q in range(players):
        if q == p:
            continue
        at = R[T.R_O_HAND] + q * hmax
        for i in range(S[R[T.R_O_HAND_LEN] + q]):
            c = S[deck + k]
            S[at + i] = c
            S[R[T.R_O_LOC] + c] = C.LOC_HAND
            k += 1
    for i in range(S[T.DECK_LEN]):
        c = S[deck + k + i]
        S[deck + i] = c
        S[R[T.R_O_LOC] + c] = C.LOC_DECK
    S[T.RNG_KEY] = np.int64(G.next_u64(gen) >> np.uint64(1))
    S[T.RNG_CTR] = 0


@njit(cache=True, _nrt=False)
def outcome(R: np.ndarray, S: np.ndarray, p: int) -> float:
    """A finished game's worth to `p`: its share of the win (ties shared), plus a hundredth
    of a point a point of margin over the best other score (so that among wins and among
    losses, bigger margins count)."""
    players = R[T.R_PLAYERS]
    mine = S[R[T.R_O_SCORE] + p]
    best_other = -1_000_000
    top = mine
    for q in range(players):
        s = S[R[T.R_O_SCORE] + q]
        if q != p and s > best_other:
            best_other = s
        top = max(top, s)
    tied = 0
    for q in range(players):
        if S[R[T.R_O_SCORE] + q] == top:
            tied += 1
    win = 1.0 / tied if mine == top else 0.0
    return win + 0.01 * (mine - best_other)


@njit(cache=True, _nrt=False)
def choose_search(CD: np.ndarray, PL: np.ndarray, CARD: np.ndarray, R: np.ndarray,
                  S: np.ndarray, gen: np.ndarray, iterations: int, legal: np.ndarray,
                  n: int, work: np.ndarray, inner: np.ndarray, totals: np.ndarray) -> int:
    """Flat Monte Carlo over the decider's legal actions: each tried in turn on a copy of
    the position with the hidden cards dealt afresh (`determinize`), the game played out by
    random agents, the outcome (`outcome`) averaged; the best average chosen."""
    if n == 1:
        return legal[0]
    p = S[T.DECIDER]
    for i in range(n):
        totals[i] = 0.0
    for it in range(max(iterations, n)):
        i = it % n
        for j in range(S.shape[0]):
            work[j] = S[j]
        determinize(R, work, p, gen)
        C.apply(CD, PL, CARD, R, work, legal[i])
        while work[T.PHASE] != C.PH_OVER:
            m = C.legal_actions(CD, PL, CARD, R, work, inner)
            C.apply(CD, PL, CARD, R, work, inner[G.below(gen, m)])
        totals[i] += outcome(R, work, p)
    best = 0
    for i in range(1, n):
        if totals[i] > totals[best]:
            best = i
    return legal[best]


class SearchAgent(SeatedAgent):
    """The search seated at a `RiverGame`."""

    def __init__(self, game_seed: int, seat: int,
                 iterations: int = DEFAULT_ITERATIONS) -> None:
        super().__init__(game_seed, seat)
        self.iterations = iterations
        self.inner = np.empty(1024, np.int64)
        self.totals = np.zeros(1024, np.float64)

    def decide(self, game: RiverGame, n: int, work: np.ndarray) -> int:
        t = game.tables
        return choose_search(t.CD, t.PL, t.CARD, t.R, game.S, self.gen, self.iterations,
                             self.legal, n, work, self.inner, self.totals)
