"""River Market's final scoring, compiled (the rulebook's "Scoring", in its order), on a
work space inside the state so that it allocates nothing (`sim.games.river.compiled` ends the
game with it; the agents value positions with it)."""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.games.river.state import KD_BOOTH
from sim.games.river.state import KD_EVENT
from sim.games.river.state import KD_HELPER
from sim.games.river.state import LOC_RIVER
from sim.games.river.state import PH_OVER
from sim.games.river.state import kind_of
from sim.games.river.state import res_at
from sim.games.river.tables import COIN
from sim.games.river.tables import DECIDER
from sim.games.river.tables import K_ATT_PTS
from sim.games.river.tables import K_BON_PTS
from sim.games.river.tables import K_KIND
from sim.games.river.tables import K_POINTS
from sim.games.river.tables import K_STORE_LIMIT
from sim.games.river.tables import K_STORE_PTS
from sim.games.river.tables import K_STORE_RES
from sim.games.river.tables import NRES
from sim.games.river.tables import PHASE
from sim.games.river.tables import R_NDECK
from sim.games.river.tables import R_O_ATTEND
from sim.games.river.tables import R_O_LOC
from sim.games.river.tables import R_O_OWNER
from sim.games.river.tables import R_O_PAWN
from sim.games.river.tables import R_O_SCORE
from sim.games.river.tables import R_O_WORK
from sim.games.river.tables import R_PLAYERS
from sim.games.river.tables import W_HELD
from sim.games.river.tables import W_LEFT
from sim.games.river.tables import W_PARTS
from sim.games.river.tables import W_SCRATCH


@njit(cache=True, _nrt=False)
def batches(S: np.ndarray, at: int, n: int, size: int, scratch: int) -> int:
    """How many disjoint batches of `size` different kinds the piles S[at:at + n] make: one
    from each of the `size` largest piles at a time, which no other way of batching beats
    (`scratch`: n free slots of S)."""
    for i in range(n):
        S[scratch + i] = S[at + i]
    made = 0
    while size <= n:
        taken = 0  # a bit per pile taken from this time
        for _ in range(size):
            best = -1
            for i in range(n):
                if not (taken >> i) & 1 and (best < 0 or S[scratch + i] > S[scratch + best]):
                    best = i
            if S[scratch + best] == 0:
                return made
            taken |= 1 << best
        for i in range(n):
            if (taken >> i) & 1:
                S[scratch + i] -= 1
        made += 1
    return made


@njit(cache=True, _nrt=False)
def owned(CD: np.ndarray, CARD: np.ndarray, R: np.ndarray, S: np.ndarray, p: int,
          kind: int) -> int:
    """Cards of `kind` `p` owns (Booths count Events: Events are Booths)."""
    n = 0
    for c in range(R[R_NDECK]):
        if S[R[R_O_OWNER] + c] != p:
            continue
        k = kind_of(CD, CARD, c)
        if k == kind or (kind == KD_BOOTH and k == KD_EVENT):
            n += 1
    return n


@njit(cache=True, _nrt=False)
def score_of(CD: np.ndarray, CARD: np.ndarray, R: np.ndarray, S: np.ndarray, p: int,
             d: int, col: int) -> int:
    """A score's points (columns from `col`: points, resource, per, per different, per
    owned) for `p`, on the holdings in the work space."""
    pts, r, per, diff, kind = CD[d, col], CD[d, col + 1], CD[d, col + 2], CD[d, col + 3], \
        CD[d, col + 4]
    work = R[R_O_WORK]
    if pts == 0:
        return 0
    if r >= 0:
        return pts * (S[work + W_HELD + r] // per)
    if diff > 0:
        return pts * batches(S, work + W_HELD + 1, NRES - 1, diff, work + W_SCRATCH)
    if kind >= 0:
        return pts * owned(CD, CARD, R, S, p, kind)
    return pts


@njit(cache=True, _nrt=False)
def final_score(CD: np.ndarray, CARD: np.ndarray, R: np.ndarray, S: np.ndarray, p: int) -> int:
    """`p`'s final score, in the rulebook's order (Scoring 1-5), each part left in the work
    space (`score_part`): Events attended (a house in a star space, or the pawn there),
    Booths built (printed value, bonus, stored resources), Helpers hired (the same),
    leftover Coins (1 per two), leftover Goods (1 per batch of three different). Stored
    resources: every card that stores is filled as far as the holdings allow, the highest
    points a resource first; storing scores at least 1 a resource, and a resource leaving the
    leftovers costs at most that, so no other arrangement scores more."""
    work = R[R_O_WORK]
    held, left, parts = work + W_HELD, work + W_LEFT, work + W_PARTS
    for r in range(NRES):
        S[held + r] = S[res_at(R, p, r)]
        S[left + r] = S[held + r]
    for i in range(5):
        S[parts + i] = 0
    for c in range(R[R_NDECK]):
        d = CARD[c]
        if CD[d, K_KIND] == KD_EVENT and S[R[R_O_LOC] + c] == LOC_RIVER and (
                (S[R[R_O_ATTEND] + c] >> p) & 1 or S[R[R_O_PAWN] + p] == c):
            S[parts] += score_of(CD, CARD, R, S, p, d, K_ATT_PTS)
    for level in range(10, 0, -1):  # the stores paying most a resource first
        for c in range(R[R_NDECK]):
            d = CARD[c]
            if S[R[R_O_OWNER] + c] != p or CD[d, K_STORE_PTS] != level:
                continue
            r = CD[d, K_STORE_RES]
            n = min(CD[d, K_STORE_LIMIT], S[left + r])
            S[left + r] -= n
            S[parts + (2 if CD[d, K_KIND] == KD_HELPER else 1)] += n * level
    for c in range(R[R_NDECK]):
        d = CARD[c]
        if S[R[R_O_OWNER] + c] != p:
            continue
        S[parts + (2 if CD[d, K_KIND] == KD_HELPER else 1)] += CD[d, K_POINTS] + score_of(
            CD, CARD, R, S, p, d, K_BON_PTS)
    S[parts + 3] = S[left + COIN] // 2
    S[parts + 4] = batches(S, left + 1, NRES - 1, 3, work + W_SCRATCH)
    return S[parts] + S[parts + 1] + S[parts + 2] + S[parts + 3] + S[parts + 4]


@njit(cache=True, inline="always", _nrt=False)
def score_part(R: np.ndarray, S: np.ndarray, i: int) -> int:
    """Part `i` of the score `final_score` worked out last."""
    return S[R[R_O_WORK] + W_PARTS + i]


@njit(cache=True, _nrt=False)
def finish(CD: np.ndarray, CARD: np.ndarray, R: np.ndarray, S: np.ndarray) -> None:
    for p in range(R[R_PLAYERS]):
        S[R[R_O_SCORE] + p] = final_score(CD, CARD, R, S, p)
    S[PHASE] = PH_OVER
    S[DECIDER] = -1
