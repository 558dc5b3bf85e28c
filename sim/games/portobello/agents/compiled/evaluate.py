"""The position evaluator of the greedy, heuristic and search agents, compiled (its weights:
`sim.games.portobello.agents.evaluate`).

The agents break ties (within 1e-9) with their generator, so the evaluator must give the
very same floats every time it prices the same thing, whether from a whole position or a
delta, or one tie would be broken otherwise and a game would not replay from its seeds. Its
float operations therefore keep one order and one int/float mix everywhere (`sum(list)` as
a left-to-right sum, `margin` as `v[seat] - rival * (sum - v[seat]) / (n - 1)`,
`potential` as `pot_w * sum(v * (c + extra))`, powers taken from tables built in Python,
...).

The evaluator is five modules: `sim.games.portobello.agents.compiled.params` (an agent's parameter
row `P`: weights, the evaluator mode, the planner switches and the power tables),
`sim.games.portobello.agents.compiled.eval_cache` (where each part of a position's evaluation cache
`(ef, ei)` lives), `sim.games.portobello.agents.compiled.eval_terms` (the terms a value is made of),
this module (whole positions: `state(B, S, P, ef, ei)` fills the cache for a position `S`,
`value_margins` reads it) and `sim.games.portobello.agents.compiled.eval_deltas` (the `*_delta`
functions, which price one action from the cache, writing every seat's value change into a float64
array of length n).

The caches skip entries that no delta reads (the spot values of a scored lane, the stall
counts of a scored district), and `lane_state` evaluates only what pricing a customer's
square reads. Functions are compiled without reference counts (`_nrt=False`, see
`sim.games.portobello.agents.compiled.plan_work`), the small and hot ones inlined into their
callers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.games.portobello.agents.compiled.eval_cache import F_E2
from sim.games.portobello.agents.compiled.eval_cache import F_POTW
from sim.games.portobello.agents.compiled.eval_cache import F_STALLW
from sim.games.portobello.agents.compiled.eval_cache import F_TURNS
from sim.games.portobello.agents.compiled.eval_cache import I_DCNT
from sim.games.portobello.agents.compiled.eval_cache import I_DTOK
from sim.games.portobello.agents.compiled.eval_cache import I_GEN
from sim.games.portobello.agents.compiled.eval_cache import I_HAND
from sim.games.portobello.agents.compiled.eval_cache import I_LEAD
from sim.games.portobello.agents.compiled.eval_cache import I_NDTOK
from sim.games.portobello.agents.compiled.eval_cache import I_NTOP
from sim.games.portobello.agents.compiled.eval_cache import I_OWN
from sim.games.portobello.agents.compiled.eval_cache import I_POT
from sim.games.portobello.agents.compiled.eval_cache import I_RANK
from sim.games.portobello.agents.compiled.eval_cache import I_TAU
from sim.games.portobello.agents.compiled.eval_cache import I_TERM
from sim.games.portobello.agents.compiled.eval_cache import I_TOP
from sim.games.portobello.agents.compiled.eval_cache import I_TOPC
from sim.games.portobello.agents.compiled.eval_cache import I_VAL
from sim.games.portobello.agents.compiled.eval_terms import lane_factor
from sim.games.portobello.agents.compiled.eval_terms import leader
from sim.games.portobello.agents.compiled.eval_terms import pool
from sim.games.portobello.agents.compiled.eval_terms import potential
from sim.games.portobello.agents.compiled.eval_terms import seat_tokens
from sim.games.portobello.agents.compiled.eval_terms import token_term
from sim.games.portobello.agents.compiled.params import P_IMMEDIATE
from sim.games.portobello.agents.compiled.params import P_STALLS_PER_TURN
from sim.games.portobello.agents.compiled.params import W_DISTRICT
from sim.games.portobello.agents.compiled.params import W_HORIZON
from sim.games.portobello.agents.compiled.params import W_LANE
from sim.games.portobello.agents.compiled.params import W_MAJORITY
from sim.games.portobello.agents.compiled.params import W_STALL
from sim.games.portobello.compiled import fields as F
from sim.games.portobello.compiled.engine import district_open
from sim.games.portobello.compiled.layout import BARON_SQUARE
from sim.games.portobello.compiled.layout import END_REASON
from sim.games.portobello.compiled.layout import N_DISTRICTS
from sim.games.portobello.compiled.layout import N_LANES
from sim.games.portobello.compiled.layout import N_PLAYERS
from sim.games.portobello.compiled.layout import N_TOKENS
from sim.games.portobello.compiled.layout import TOKEN_MAX


# -- whole positions ----------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def state(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray, ei: np.ndarray) -> None:
    """Evaluate the position S into the cache (ef, ei)."""
    _evaluate(B, S, P, ef, ei, np.bool_(False))


@njit(cache=True, _nrt=False)
def lane_state(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray,
               ei: np.ndarray) -> None:
    """The part of `state` that `customer_delta` reads (pool, stalls in hand, own spot
    values and terms of the lanes): enough to price the squares for a customer."""
    _evaluate(B, S, P, ef, ei, np.bool_(True))


@njit(cache=True, _nrt=False)
def _evaluate(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray, ei: np.ndarray,
              light: bool) -> None:
    """`state` (light=False) or `lane_state` (light=True) of the position S."""
    # The cache's own offsets are read once into locals: numba cannot tell that ef and ei
    # never overlap, so an offset read inside a loop would be reloaded after every store.
    n, nl, nd, t = B[N_PLAYERS], B[N_LANES], B[N_DISTRICTS], B[N_TOKENS]
    imm = P[P_IMMEDIATE] != 0.0
    pool(B, S, ef)
    ei[I_GEN] += 1  # invalidates the memos of the last position
    hand = 0
    for p in range(n):
        hand += F.stalls_left(B, S, p)
    ei[I_HAND] = hand
    val = ei[I_VAL]
    own_o = ei[I_OWN]
    term_o = ei[I_TERM]
    lead_o = ei[I_LEAD]
    for p in range(n):
        ef[val + p] = float(F.score(B, S, p))
    baron = S[BARON_SQUARE]
    majority = P[W_MAJORITY]
    w_lane = P[W_LANE]
    e2 = ef[F_E2]
    for lane in range(nl):
        own0 = own_o + lane * n
        c = F.lane_count(B, S, lane)
        scored = F.lane_scored(B, S, lane)
        # `own` of a scored lane is never read, so it is not computed.
        if not scored:
            for p in range(n):
                ei[own0 + p] = 0
        length = F.lane_len(B, lane)
        if c and not scored:
            off = F.lane_offset(B, lane)
            first = 0 if F.lane_dir(B, S, lane) == 0 else length - c
            for k in range(off + first, off + first + c):
                ei[own0 + F.spot_seat(B, S, k)] += F.spot_value(B, k)
        term0 = term_o + lane * n
        if c == 0 or imm or scored:
            for p in range(n):
                ef[term0 + p] = 0.0
        else:
            a = F.lane_end0(B, lane)
            z = F.lane_end1(B, lane)
            ca = F.square_customer(B, S, a)
            cb = F.square_customer(B, S, z)
            f = lane_factor(P, ef, F.multiplier(B, ca, cb), e2, w_lane, length - c, hand, ca,
                            cb, baron in (a, z))
            for p in range(n):
                x = ei[own0 + p] * f
                ef[term0 + p] = x
                ef[val + p] += x
        lead = -1
        if F.lane_inner(B, lane) and c and not imm and not light:
            lead = leader(B, S, lane, -1)
            if lead >= 0:
                ef[val + lead] += majority
        ei[lead_o + lane] = lead
    if light:
        return
    dcnt = ei[I_DCNT]
    for d in range(nd):
        if not district_open(B, S, d):
            continue  # the counts of a scored district are never read
        lo, hi = F.district_lanes_at(B, d), F.district_lanes_at(B, d + 1)
        for p in range(n):
            c = 0
            for i in range(lo, hi):
                c += F.lane_stalls(B, S, F.district_lane(B, i), p)
            ei[dcnt + d * n + p] = c
    if imm:
        ef[F_POTW] = 0.0
        ef[F_STALLW] = 0.0
        ef[F_TURNS] = 0.0
        pot_o, tau_o, ndtok, ntop = ei[I_POT], ei[I_TAU], ei[I_NDTOK], ei[I_NTOP]
        for p in range(n):
            ef[pot_o + p] = 0.0
            ef[tau_o + p] = 0.0
            ei[ndtok + p] = 0
            ei[ntop + p] = 0
        return
    if S[END_REASON] != 0:
        tl = 0.0
    else:
        low = F.stalls_left(B, S, 0)
        for p in range(1, n):
            if F.stalls_left(B, S, p) < low:
                low = F.stalls_left(B, S, p)
        tl = low / P[P_STALLS_PER_TURN]
    ef[F_TURNS] = tl
    h = P[W_HORIZON]
    fade = min(1.0, max(0.0, (tl - 2.0) / h)) if h > 0 else 1.0
    ef[F_POTW] = P[W_DISTRICT] * fade
    ef[F_STALLW] = P[W_STALL] * (min(1.0, max(0.0, (tl - 1.0) / h)) if h > 0 else 1.0)
    stall_w = ef[F_STALLW]
    dtok, ndtok, top, topc, ntop = ei[I_DTOK], ei[I_NDTOK], ei[I_TOP], ei[I_TOPC], ei[I_NTOP]
    rank = ei[I_RANK]
    pot_o, tau_o = ei[I_POT], ei[I_TAU]
    for p in range(n):
        # District tokens, largest first (insertion sort).
        k = 0
        for i in range(t):
            v = F.token_value(B, S, p, i)
            if v and not F.token_neutral(B, S, p, i) and v <= B[TOKEN_MAX] \
                    and F.is_district_token(B, v):
                j = k
                while j > 0 and ei[dtok + p * t + j - 1] < v:
                    ei[dtok + p * t + j] = ei[dtok + p * t + j - 1]
                    j -= 1
                ei[dtok + p * t + j] = v
                k += 1
        ei[ndtok + p] = k
        # Open districts by (count, district) descending: inserted from the highest
        # district down, so that equal counts never move past each other.
        m = 0
        row = p * nd
        for d in range(nd - 1, -1, -1):
            if not district_open(B, S, d):
                continue
            c = ei[dcnt + d * n + p]
            j = m
            while j > 0 and ei[topc + row + j - 1] < c:
                ei[topc + row + j] = ei[topc + row + j - 1]
                ei[top + row + j] = ei[top + row + j - 1]
                j -= 1
            ei[topc + row + j] = c
            ei[top + row + j] = d
            m += 1
        ei[ntop + p] = m
        for d in range(nd):
            ei[rank + row + d] = nd
        for j in range(m):
            ei[rank + row + ei[top + row + j]] = j
        sl = F.stalls_left(B, S, p)
        pot = potential(ef, P, ei, dtok + p * t, np.int64(k), np.int64(-1), ei, topc + row,
                        np.int64(m), np.int64(-1), sl)
        su, lu, sh, lh = seat_tokens(B, S, p)
        tau = token_term(P, su, lu, sh, lh, tl)
        ef[pot_o + p] = pot
        ef[tau_o + p] = tau
        ef[val + p] += pot + stall_w * sl + tau


@njit(cache=True, _nrt=False)
def value_margins(B: np.ndarray, ef: np.ndarray, ei: np.ndarray, out: np.ndarray) -> None:
    """The value margins of the evaluated position: each seat's value minus the best other
    seat's value."""
    n = B[N_PLAYERS]
    val = ei[I_VAL]
    for p in range(n):
        best = 0.0
        first = True
        for q in range(n):
            if q != p and (first or ef[val + q] > best):
                best = ef[val + q]
                first = False
        out[p] = ef[val + p] - best
