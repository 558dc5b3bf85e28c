"""The value change of a single action, priced from a position's evaluation cache.

The evaluator's deltas (see `sim.games.portobello.agents.compiled.evaluate`): each reads the cache
`(ef, ei)` that `sim.games.portobello.agents.compiled.evaluate.state` filled for the position and
writes every seat's value change into `delta[:n]` (or returns one number), without copying or
changing the position. The planner calls them once per option, so the hot ones are inlined
into their callers. A district scoring's change is priced where its options are listed
(`sim.games.portobello.agents.compiled.plan_options.district_options`), which shares what the
scorings of a turn's start have in common.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.games.portobello.agents.compiled.eval_cache import F_E2
from sim.games.portobello.agents.compiled.eval_cache import F_POTW
from sim.games.portobello.agents.compiled.eval_cache import F_STALLW
from sim.games.portobello.agents.compiled.eval_cache import F_TURNS
from sim.games.portobello.agents.compiled.eval_cache import I_BUMP
from sim.games.portobello.agents.compiled.eval_cache import I_DTOK
from sim.games.portobello.agents.compiled.eval_cache import I_GEN
from sim.games.portobello.agents.compiled.eval_cache import I_HAND
from sim.games.portobello.agents.compiled.eval_cache import I_LEAD
from sim.games.portobello.agents.compiled.eval_cache import I_NDTOK
from sim.games.portobello.agents.compiled.eval_cache import I_NTOP
from sim.games.portobello.agents.compiled.eval_cache import I_OWN
from sim.games.portobello.agents.compiled.eval_cache import I_POT
from sim.games.portobello.agents.compiled.eval_cache import I_RANK
from sim.games.portobello.agents.compiled.eval_cache import I_STAMP
from sim.games.portobello.agents.compiled.eval_cache import I_TAU
from sim.games.portobello.agents.compiled.eval_cache import I_TERM
from sim.games.portobello.agents.compiled.eval_cache import I_TOPC
from sim.games.portobello.agents.compiled.eval_cache import I_VAL
from sim.games.portobello.agents.compiled.eval_terms import lane_factor
from sim.games.portobello.agents.compiled.eval_terms import leader
from sim.games.portobello.agents.compiled.eval_terms import seat_tokens
from sim.games.portobello.agents.compiled.eval_terms import token_term
from sim.games.portobello.agents.compiled.params import P_IMMEDIATE
from sim.games.portobello.agents.compiled.params import W_GROWTH
from sim.games.portobello.agents.compiled.params import W_LANE
from sim.games.portobello.agents.compiled.params import W_MAJORITY
from sim.games.portobello.agents.compiled.params import W_RIVAL
from sim.games.portobello.codes import BARON
from sim.games.portobello.compiled import fields as F
from sim.games.portobello.compiled.engine import district_open
from sim.games.portobello.compiled.layout import BARON_SQUARE
from sim.games.portobello.compiled.layout import END_REASON
from sim.games.portobello.compiled.layout import N_DISTRICTS
from sim.games.portobello.compiled.layout import N_LANES
from sim.games.portobello.compiled.layout import N_PLAYERS
from sim.games.portobello.compiled.layout import N_SQUARES
from sim.games.portobello.compiled.layout import N_TOKENS
from sim.games.portobello.compiled.layout import WITH_BARON
from sim.games.portobello.compiled.transitions import lane_multiplier
from sim.games.portobello.compiled.transitions import move_cost
from sim.games.portobello.compiled.transitions import next_spot


@njit(cache=True, _nrt=False)
def _bumped_potential(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray,
                      ei: np.ndarray, seat: int, lane: int) -> float:
    """The seat's potential with one more stall in `lane` (memoised per position).

    Sorting the bumped counts of the seat's top districts is avoided: the sorted prefix its
    tokens pair with is found directly (the same counts, so the very same sum):
    raising one count c of a descending list changes only the first entry equal to c (to
    c + 1), and raising two equal counts changes the first two. (A lane borders two
    different districts, one or none: a board lists a lane once per district.) The sum is
    `potential`'s, written out: `potential` with a check for raised counts at every term
    made stall options and plans about 3% slower (`benchmarks/profile_fast_positions.py`)."""
    ntok = ei[ei[I_NDTOK] + seat]
    if ntok == 0:
        return 0.0
    nl, nd, t = B[N_LANES], B[N_DISTRICTS], B[N_TOKENS]
    key = seat * nl + lane
    gen = ei[I_GEN]
    if ei[ei[I_STAMP] + key] == gen:
        return ef[ei[I_BUMP] + key]
    d0 = F.lane_district0(B, lane)
    d1 = F.lane_district1(B, lane)
    row = seat * nd
    topc, rank = ei[I_TOPC] + row, ei[I_RANK] + row
    q = min(ntok, ei[ei[I_NTOP] + seat])  # the counts the tokens pair with
    g0 = _group_start(ei, topc, ei[rank + d0] if d0 >= 0 and district_open(B, S, d0) else -1)
    g1 = _group_start(ei, topc, ei[rank + d1] if d1 >= 0 and district_open(B, S, d1) else -1)
    if g0 >= 0 and g0 == g1:
        g1 = g0 + 1  # two equal counts raised: the first two of them
    value = 0.0
    pot_w = ef[F_POTW]
    if pot_w != 0.0:
        extra = P[W_GROWTH] * (F.stalls_left(B, S, seat) - 1)
        dtok = ei[I_DTOK] + seat * t
        s = 0.0
        for i in range(q):
            c = ei[topc + i] + (1 if i in (g0, g1) else 0)
            s += ei[dtok + i] * (c + extra)
        value = pot_w * s
    ef[ei[I_BUMP] + key] = value
    ei[ei[I_STAMP] + key] = gen
    return value


@njit(cache=True, _nrt=False, inline='always')
def _group_start(ei: np.ndarray, topc: int, r: int) -> int:
    """The first place of a descending count list (at ei[topc:]) holding the count at place
    r (-1 for r = -1)."""
    if r < 0:
        return -1
    c = ei[topc + r]
    j = r
    while j > 0 and ei[topc + j - 1] == c:
        j -= 1
    return j


@njit(cache=True, _nrt=False)
def _ending_delta(B: np.ndarray, S: np.ndarray, ef: np.ndarray, ei: np.ndarray, seat: int,
                  lane: int, value: int, scored_now: bool, delta: np.ndarray) -> None:
    """The seat's last stall ends the game."""
    n = B[N_PLAYERS]
    own_o = ei[I_OWN]
    for p in range(n):
        delta[p] = float(F.score(B, S, p))
    if scored_now:
        m = lane_multiplier(B, S, lane)
        for p in range(n):
            delta[p] += (ei[own_o + lane * n + p] + (value if p == seat else 0)) * m
    baron = S[BARON_SQUARE]
    if baron >= 0:
        for i in range(F.square_lanes_at(B, baron), F.square_lanes_at(B, baron + 1)):
            bl = F.square_lane(B, i)
            if F.lane_scored(B, S, bl) or (bl == lane and scored_now):
                continue
            a = F.lane_end0(B, bl)
            z = F.lane_end1(B, bl)
            m = F.multiplier(B, BARON, F.square_customer(B, S, z if a == baron else a))
            for p in range(n):
                o = ei[own_o + bl * n + p] + (value if (bl == lane and p == seat) else 0)
                delta[p] += o * m
    val = ei[I_VAL]
    for p in range(n):
        delta[p] = delta[p] - ef[val + p]


@njit(cache=True, _nrt=False)
def stall_delta(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray, ei: np.ndarray,
                seat: int, lane: int, end: int, delta: np.ndarray) -> None:
    """Into delta[:n]: `seat` places a stall in `lane` from `end`."""
    n = B[N_PLAYERS]
    c = F.lane_count(B, S, lane)
    length = F.lane_len(B, lane)
    v = F.spot_value(B, F.lane_offset(B, lane) + next_spot(B, S, lane, end))
    own0 = ei[I_OWN] + lane * n
    term0 = ei[I_TERM] + lane * n
    a = F.lane_end0(B, lane)
    z = F.lane_end1(B, lane)
    ca = F.square_customer(B, S, a)
    cb = F.square_customer(B, S, z)
    imm = P[P_IMMEDIATE] != 0.0
    scored_now = c + 1 == length and ca != 0 and cb != 0
    mult = F.multiplier(B, ca, cb)
    if scored_now:
        f = float(mult)
    elif imm:
        for p in range(n):
            delta[p] = 0.0
        return
    else:
        f = lane_factor(P, ef, mult, ef[F_E2], P[W_LANE], length - c - 1, ei[I_HAND], ca,
                        cb, S[BARON_SQUARE] in (a, z))
    for p in range(n):
        o = ei[own0 + p] + (v if p == seat else 0)
        delta[p] = o * f - ef[term0 + p]
    if imm:
        return
    if F.stalls_left(B, S, seat) == 1 and S[END_REASON] == 0:
        _ending_delta(B, S, ef, ei, seat, lane, v, scored_now, delta)
        return
    if F.lane_inner(B, lane):
        lead = leader(B, S, lane, seat)
        old = ei[ei[I_LEAD] + lane]
        if lead != old:
            mj = P[W_MAJORITY]
            if old >= 0:
                delta[old] -= mj
            if lead >= 0:
                delta[lead] += mj
    if ef[F_POTW] != 0.0:
        delta[seat] += _bumped_potential(B, S, P, ef, ei, seat, lane) \
            - ef[ei[I_POT] + seat]
    delta[seat] -= ef[F_STALLW]


@njit(cache=True, _nrt=False)
def customer_delta(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray,
                   ei: np.ndarray, square: int, customer: int, last: bool,
                   delta: np.ndarray) -> None:
    """Into delta[:n]: `customer` placed on `square` (`last`: the baron follows on the first
    other empty square)."""
    customer_deltas(B, S, P, ef, ei, square, customer, last, delta, np.int64(0), delta)


@njit(cache=True, _nrt=False)
def customer_deltas(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray,
                    ei: np.ndarray, square: int, customer: int, last: bool,
                    delta: np.ndarray, other: int, delta2: np.ndarray) -> None:
    """`customer_delta` of `customer` into delta[:n] and, unless `other` is 0, of the
    customer `other` on the same square into delta2[:n]: one walk over the square's lanes
    for both (each delta summed in the same order as the whole evaluation sums it)."""
    n = B[N_PLAYERS]
    two = other != 0
    for p in range(n):
        delta[p] = 0.0
        if two:
            delta2[p] = 0.0
    baron = S[BARON_SQUARE]
    extra = -1
    if last and B[WITH_BARON] and baron < 0:
        for s in range(B[N_SQUARES]):
            if F.square_customer(B, S, s) == 0 and s != square:
                extra = s
                baron = s
                break
    imm = P[P_IMMEDIATE] != 0.0
    own_o = ei[I_OWN]
    term_o = ei[I_TERM]
    e2 = ef[F_E2]
    w_lane = P[W_LANE]
    hand = ei[I_HAND]
    for x in range(2):
        s = square if x == 0 else extra
        if s < 0:
            break
        for i in range(F.square_lanes_at(B, s), F.square_lanes_at(B, s + 1)):
            lane = F.square_lane(B, i)
            if F.lane_scored(B, S, lane):
                continue
            a = F.lane_end0(B, lane)
            z = F.lane_end1(B, lane)
            if x == 1 and (a == square or z == square):
                continue  # seen from the first square
            own0 = own_o + lane * n
            anyone = False
            for p in range(n):
                if ei[own0 + p]:
                    anyone = True
            if not anyone:
                continue
            count = F.lane_count(B, S, lane)
            term0 = term_o + lane * n
            length = F.lane_len(B, lane)
            for y in range(2 if two else 1):
                c = customer if y == 0 else other
                out = delta if y == 0 else delta2
                ca = c if a == square else (BARON if a == extra else F.square_customer(B, S, a))
                cb = c if z == square else (BARON if z == extra else F.square_customer(B, S, z))
                if ca and cb and count == length:
                    m = F.multiplier(B, ca, cb)
                    for p in range(n):
                        out[p] += ei[own0 + p] * m - ef[term0 + p]
                elif not imm:
                    f = lane_factor(P, ef, F.multiplier(B, ca, cb), e2, w_lane,
                                    length - count, hand, ca, cb, baron in (a, z))
                    for p in range(n):
                        out[p] += ei[own0 + p] * f - ef[term0 + p]


@njit(cache=True, _nrt=False, inline='always')
def token_delta(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray, ei: np.ndarray,
                seat: int, value: int) -> float:
    """Change of the seat's token term when it plays `value`."""
    su, lu, sh, lh = seat_tokens(B, S, seat)
    before = ef[ei[I_TAU] + seat]
    su -= value
    lu -= 1
    if lu == 0:
        su, lu = sh, lh
    return token_term(P, su, lu, sh, lh, ef[F_TURNS]) - before


@njit(cache=True, _nrt=False, inline='always')
def move_margin(B: np.ndarray, S: np.ndarray, P: np.ndarray, seat: int,
                lane: int) -> tuple[float, int]:
    """A Bobby move priced as the mover's margin: (margin change, points lost).

    The delta is -loss for the mover and +1.0 for each of k gainers: small integers, so the
    left-to-right `sum(delta) - delta[seat]` is exactly k and its margin is exactly
    `(0.0 - loss) - rival * k / (n - 1)`, computed here without the list."""
    n = B[N_PLAYERS]
    loss, k, _ = move_cost(B, S, lane, seat)
    mover = 0.0 - loss
    if n == 1:
        return mover, loss
    return mover - P[W_RIVAL] * k / (n - 1), loss
