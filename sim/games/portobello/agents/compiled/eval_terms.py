"""The building blocks of a value, shared by whole evaluations and single-action deltas.

Each term is computed with the same float operations in the same order wherever it is used
(see `sim.games.portobello.agents.compiled.evaluate`): the margin of a seat, the token term, a
lane's factor, the district potential and the expected multipliers of open lane ends. The small ones
are inlined into their callers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.games.portobello.agents.compiled.eval_cache import F_E1
from sim.games.portobello.agents.compiled.eval_cache import F_E2
from sim.games.portobello.agents.compiled.eval_cache import F_POTW
from sim.games.portobello.agents.compiled.params import P_END_POW
from sim.games.portobello.agents.compiled.params import P_FILL_POW
from sim.games.portobello.agents.compiled.params import P_IMMEDIATE
from sim.games.portobello.agents.compiled.params import W_GROWTH
from sim.games.portobello.agents.compiled.params import W_TEMPO
from sim.games.portobello.codes import ARISTOCRAT
from sim.games.portobello.codes import BARON
from sim.games.portobello.codes import CITIZEN
from sim.games.portobello.compiled import fields as F
from sim.games.portobello.compiled.layout import BAG_ARISTOCRATS
from sim.games.portobello.compiled.layout import BAG_CITIZENS
from sim.games.portobello.compiled.layout import BAG_SIZE
from sim.games.portobello.compiled.layout import BARON_SQUARE
from sim.games.portobello.compiled.layout import KNOWN_ORDER
from sim.games.portobello.compiled.layout import LINE_POS
from sim.games.portobello.compiled.layout import N_PLAYERS
from sim.games.portobello.compiled.layout import N_TOKENS
from sim.games.portobello.compiled.layout import WITH_BARON


@njit(cache=True, _nrt=False, inline='always')
def margin(values: np.ndarray, n: int, seat: int, rival: float) -> float:
    """The seat's margin: its value minus rival x the mean of the others'."""
    if n == 1:
        return values[0]
    s = 0.0
    for p in range(n):
        s += values[p]
    return values[seat] - rival * (s - values[seat]) / (n - 1)


@njit(cache=True, _nrt=False, inline='always')
def token_term(P: np.ndarray, sum_up: int, len_up: int, sum_held: int, len_held: int,
               turns: float) -> float:
    """The token term from the sums and counts of the face-up and held values."""
    if P[P_IMMEDIATE] != 0.0 or len_held == 0:
        return 0.0
    mean = sum_held / len_held
    return P[W_TEMPO] * (sum_up - len_up * mean + turns * mean)


@njit(cache=True, _nrt=False, inline='always')
def seat_tokens(B: np.ndarray, S: np.ndarray, seat: int) -> tuple[int, int, int, int]:
    """(sum of face-up values, their count, sum of held values, their count)."""
    su = lu = sh = lh = 0
    for i in range(B[N_TOKENS]):
        v = F.token_value(B, S, seat, i)
        if v:
            sh += v
            lh += 1
            if F.token_up(B, S, seat, i):
                su += v
                lu += 1
    return su, lu, sh, lh


@njit(cache=True, _nrt=False, inline='always')
def leader(B: np.ndarray, S: np.ndarray, lane: int, bump: int) -> int:
    """The seat with the most stalls in `lane`, seat `bump` counted once more (-1: none, or
    a tie)."""
    most = 0
    n = B[N_PLAYERS]
    for p in range(n):
        c = F.lane_stalls(B, S, lane, p) + (1 if p == bump else 0)
        if c > most:
            most = c
    if most == 0:
        return -1
    lead = -1
    for p in range(n):
        if F.lane_stalls(B, S, lane, p) + (1 if p == bump else 0) == most:
            if lead >= 0:
                return -1
            lead = p
    return lead


@njit(cache=True, _nrt=False, inline='always')
def lane_factor(P: np.ndarray, ef: np.ndarray, mult: int, e2: float, w_lane: float,
                missing: int, hand: int, ca: int, cb: int, baron_end: bool) -> float:
    """A lane's factor, its table reads done by the caller (they are hoisted out of the
    callers' loops): `mult` is the multiplier of (ca, cb), `missing` the lane's empty
    spots after the count considered."""
    if ca and cb:
        m = float(mult)
    elif ca or cb:
        m = ef[F_E1 + (ca if ca else cb)]
    else:
        m = e2
    if baron_end:
        return m * w_lane
    if missing > hand:
        return 0.0
    ends = (1 if ca == 0 else 0) + (1 if cb == 0 else 0)
    return m * w_lane * P[P_FILL_POW + missing] * P[P_END_POW + ends]


@njit(cache=True, _nrt=False)
def potential(ef: np.ndarray, P: np.ndarray, tok: np.ndarray, t0: int, ntok: int, tskip: int,
              cnt: np.ndarray, c0: int, ncnt: int, cskip: int, left: int) -> float:
    """The district potential of tok[t0:t0 + ntok] (largest first) paired with
    cnt[c0:c0 + ncnt] (largest first), leaving out the items at `tskip` / `cskip` (-1:
    none), so that a list minus one item needs no copy."""
    if ntok - (1 if tskip >= 0 else 0) <= 0 or ef[F_POTW] == 0.0:
        return 0.0
    extra = P[W_GROWTH] * left
    s = 0.0
    i = 0
    j = 0
    while i < ntok and j < ncnt:
        if i == tskip:
            i += 1
            continue
        if j == cskip:
            j += 1
            continue
        s += tok[t0 + i] * (cnt[c0 + j] + extra)
        i += 1
        j += 1
    return ef[F_POTW] * s


@njit(cache=True, _nrt=False)
def pool(B: np.ndarray, S: np.ndarray, ef: np.ndarray) -> None:
    """Expected multipliers of an empty lane end into ef[F_E1..F_E2]."""
    if B[KNOWN_ORDER]:
        cit = 0
        ari = 0
        for i in range(S[LINE_POS], B[BAG_SIZE]):
            c = F.line(B, S, i)
            if c == 1:
                cit += 1
            elif c == 2:
                ari += 1
    else:
        cit = S[BAG_CITIZENS]
        ari = S[BAG_ARISTOCRATS]
    bar = 1 if B[WITH_BARON] and S[BARON_SQUARE] < 0 else 0
    total = cit + ari + bar
    if total == 0:
        for c in range(4):
            ef[F_E1 + c] = 0.0
        ef[F_E2] = 0.0
        return
    p1 = cit / total
    p2 = ari / total
    p3 = bar / total
    for c in range(4):
        ef[F_E1 + c] = p1 * F.multiplier(B, c, CITIZEN) + p2 * F.multiplier(B, c, ARISTOCRAT) \
            + p3 * F.multiplier(B, c, BARON)
    ef[F_E2] = p1 * ef[F_E1 + 1] + p2 * ef[F_E1 + 2] + p3 * ef[F_E1 + 3]
