"""The planner's options by kind, each priced by its margin change.

An option is (value, final action, route) in the parallel arrays of a work level
(`sim.games.portobello.agents.compiled.plan_work`): `route` is the district whose cheapest Bobby
path (the last `paths` into the level) precedes the final action, or -1 for none. Options are listed
in a fixed order (stalls, draw, squares, leave, tokens), priced by the deltas of
`sim.games.portobello.agents.compiled.eval_deltas` from the level's evaluation cache: stalls (with
the path to reach the lane), a draw (the expected value of its customer on the best square), the
squares for a pending customer, ending the turn with a last Bobby move (`leave_option`),
and the token plays of a turn's start (`token_actions`, priced in
`sim.games.portobello.agents.compiled.plan_turn`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.games.portobello.agents.compiled.eval_cache import F_POTW
from sim.games.portobello.agents.compiled.eval_cache import F_TURNS
from sim.games.portobello.agents.compiled.eval_cache import I_DCNT
from sim.games.portobello.agents.compiled.eval_cache import I_DTOK
from sim.games.portobello.agents.compiled.eval_cache import I_NDTOK
from sim.games.portobello.agents.compiled.eval_cache import I_NTOP
from sim.games.portobello.agents.compiled.eval_cache import I_POT
from sim.games.portobello.agents.compiled.eval_cache import I_RANK
from sim.games.portobello.agents.compiled.eval_cache import I_TAU
from sim.games.portobello.agents.compiled.eval_cache import I_TOPC
from sim.games.portobello.agents.compiled.eval_deltas import customer_delta
from sim.games.portobello.agents.compiled.eval_deltas import customer_deltas
from sim.games.portobello.agents.compiled.eval_deltas import stall_delta
from sim.games.portobello.agents.compiled.eval_terms import margin
from sim.games.portobello.agents.compiled.eval_terms import potential
from sim.games.portobello.agents.compiled.eval_terms import seat_tokens
from sim.games.portobello.agents.compiled.eval_terms import token_term
from sim.games.portobello.agents.compiled.params import P_IMMEDIATE
from sim.games.portobello.agents.compiled.params import P_LEAVE
from sim.games.portobello.agents.compiled.params import W_BOBBY
from sim.games.portobello.agents.compiled.params import W_RIVAL
from sim.games.portobello.agents.compiled.plan_bobby import paths
from sim.games.portobello.agents.compiled.plan_pick import EPS
from sim.games.portobello.agents.compiled.plan_work import Level
from sim.games.portobello.agents.compiled.plan_work import eval_f
from sim.games.portobello.agents.compiled.plan_work import eval_i
from sim.games.portobello.agents.compiled.plan_work import option_actions
from sim.games.portobello.agents.compiled.plan_work import option_routes
from sim.games.portobello.agents.compiled.plan_work import option_values
from sim.games.portobello.agents.compiled.plan_work import path_f
from sim.games.portobello.agents.compiled.plan_work import path_i
from sim.games.portobello.agents.compiled.plan_work import scratch_f
from sim.games.portobello.agents.compiled.plan_work import xf_draw
from sim.games.portobello.agents.compiled.plan_work import xf_others
from sim.games.portobello.agents.compiled.plan_work import xi_tokens
from sim.games.portobello.agents.compiled.random_agent import R_BOBBY
from sim.games.portobello.agents.compiled.random_agent import R_CUSTOMERS
from sim.games.portobello.agents.compiled.random_agent import R_FIRST_END
from sim.games.portobello.compiled import actions as A
from sim.games.portobello.compiled import fields as F
from sim.games.portobello.compiled.engine import district_open
from sim.games.portobello.compiled.engine import plays_for_actions
from sim.games.portobello.compiled.engine import scores_districts
from sim.games.portobello.compiled.layout import ACTIONS_LEFT
from sim.games.portobello.compiled.layout import BAG_ARISTOCRATS
from sim.games.portobello.compiled.layout import BAG_CITIZENS
from sim.games.portobello.compiled.layout import BOBBY
from sim.games.portobello.compiled.layout import CUSTOMERS_LEFT
from sim.games.portobello.compiled.layout import KNOWN_ORDER
from sim.games.portobello.compiled.layout import LINE_POS
from sim.games.portobello.compiled.layout import N_DISTRICTS
from sim.games.portobello.compiled.layout import N_LANES
from sim.games.portobello.compiled.layout import N_NEUTRAL
from sim.games.portobello.compiled.layout import N_PLAYERS
from sim.games.portobello.compiled.layout import N_SQUARES
from sim.games.portobello.compiled.layout import N_TOKENS
from sim.games.portobello.compiled.layout import NEUTRAL_TOP
from sim.games.portobello.compiled.layout import PENDING


# -- during a turn ------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def stall_options(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, seat: int,
                  L: Level, k: int) -> int:
    """The stall options appended at option k; returns the new count."""
    ef, ei, delta = eval_f(L), eval_i(L), scratch_f(L)
    costs, reached = path_f(L), path_i(L)
    values, actions, routes = option_values(L), option_actions(L), option_routes(L)
    n, nl, nd = B[N_PLAYERS], B[N_LANES], B[N_DISTRICTS]
    rival = P[W_RIVAL]
    first_end = Rs[R_FIRST_END]
    for lane in range(nl):
        count = F.lane_count(B, S, lane)
        if count == F.lane_len(B, lane):
            continue
        route = -1
        for x in range(2):
            d = F.lane_district0(B, lane) if x == 0 else F.lane_district1(B, lane)
            if d < 0 or not reached[d]:
                continue
            if route < 0 or costs[d] < costs[route] or (
                    costs[d] == costs[route] and reached[2 * nd + d] < reached[2 * nd + route]):
                route = d
        if route < 0:
            continue
        cost = costs[route]
        if count:
            e0 = F.lane_dir(B, S, lane)
            e1 = e0
        else:
            e0 = 0
            e1 = 0 if first_end else 1
        for end in range(e0, e1 + 1):
            stall_delta(B, S, P, ef, ei, seat, lane, end, delta)
            values[k] = margin(delta, n, seat, rival) - cost
            actions[k] = A.place_stall(lane, end)
            routes[k] = route
            k += 1
    return k


@njit(cache=True, _nrt=False)
def _best_squares(B: np.ndarray, S: np.ndarray, P: np.ndarray, seat: int, customer: int,
                  other: int, last: bool, ef: np.ndarray, ei: np.ndarray,
                  xf: np.ndarray) -> tuple[float, float]:
    """max over empty squares of the margin change of placing `customer` there, and the
    same for `other` unless it is 0 (both in one walk over the squares)."""
    n = B[N_PLAYERS]
    rival = P[W_RIVAL]
    o2 = xf_draw(B)
    delta2 = xf[o2:o2 + n]
    best = 0.0
    best2 = 0.0
    first = True
    for s in range(B[N_SQUARES]):
        if F.square_customer(B, S, s) == 0:
            customer_deltas(B, S, P, ef, ei, s, customer, last, xf, other, delta2)
            v = margin(xf, n, seat, rival)
            v2 = margin(delta2, n, seat, rival) if other else 0.0
            if first or v > best:
                best = v
            if first or v2 > best2:
                best2 = v2
            first = False
    return best, best2


@njit(cache=True, _nrt=False)
def draw_value(B: np.ndarray, S: np.ndarray, P: np.ndarray, seat: int,
               L: Level) -> float:
    """Expected margin change of a draw placed on the best square."""
    ef, ei, xf = eval_f(L), eval_i(L), scratch_f(L)
    last = S[CUSTOMERS_LEFT] == 1
    total = 0.0
    if B[KNOWN_ORDER]:
        customer = F.line(B, S, S[LINE_POS]) if S[CUSTOMERS_LEFT] > 0 else 0
        total += 1.0 * _best_squares(B, S, P, seat, customer, np.int64(0), last, ef, ei, xf)[0]
        return total
    b1, b2 = S[BAG_CITIZENS], S[BAG_ARISTOCRATS]
    bag = b1 + b2
    if b1 and b2:
        v1, v2 = _best_squares(B, S, P, seat, np.int64(1), np.int64(2), last, ef, ei,
                               xf)
    else:
        v1, v2 = _best_squares(B, S, P, seat, 1 if b1 else 2, np.int64(0), last, ef,
                               ei, xf)
        if not b1:
            v1, v2 = 0.0, v1
    if b1:
        total += b1 / bag * v1
    if b2:
        total += b2 / bag * v2
    return total


@njit(cache=True, _nrt=False)
def action_options(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, seat: int,
                   L: Level, force: bool) -> int:
    """The actions phase's options (stalls with Bobby paths, a draw) into level L; `force`
    prices them as if actions were left. Returns the count; Bobby paths are computed into
    L when the seat has stalls."""
    if S[ACTIONS_LEFT] <= 0 and not force:
        return 0
    k = 0
    if F.stalls_left(B, S, seat) > 0:
        paths(B, S, P, Rs, seat, path_f(L), path_i(L))
        k = stall_options(B, S, P, Rs, seat, L, np.int64(0))
    if S[CUSTOMERS_LEFT] > 0 and not Rs[R_CUSTOMERS]:
        option_values(L)[k] = draw_value(B, S, P, seat, L)
        option_actions(L)[k] = A.DRAW
        option_routes(L)[k] = -1
        k += 1
    return k


@njit(cache=True, _nrt=False)
def leave_option(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, seat: int,
                 L: Level, have_paths: bool) -> tuple[float, int]:
    """(value, route) of ending the turn, first moving the Bobby along the path to district
    `route` (-1: where it stands).

    A lane's chance (the next seat's best stall gain there) is priced when a district
    bordering it is first looked at. A move's value is `here` less the path's cost less a
    chance (a chance is at least 0, and so is a cost when `rival` >= 0: a move never raises
    the mover's margin). So a district whose `here` less cost cannot beat the best so far
    is passed by unpriced, and when `here` is within EPS of 0 no move can win and the
    paths are not even found: the same answer, found sooner."""
    if P[P_LEAVE] == 0.0 or Rs[R_BOBBY] or P[W_BOBBY] <= 0 or P[P_IMMEDIATE] != 0.0:
        return 0.0, -1
    n, nl, nd = B[N_PLAYERS], B[N_LANES], B[N_DISTRICTS]
    nxt = (seat + 1) % n
    if nxt == seat or F.stalls_left(B, S, nxt) <= 0:
        return 0.0, -1
    ef, ei, xf = eval_f(L), eval_i(L), scratch_f(L)
    costs, reached = path_f(L), path_i(L)
    for lane in range(nl):
        xf[n + lane] = -1.0  # not priced yet (a chance is at least 0)
    weight = P[W_BOBBY]
    bobby = S[BOBBY]
    here = weight * _max_chance(B, S, P, ef, ei, nxt, xf, bobby)
    if here <= EPS and P[W_RIVAL] >= 0.0:
        return 0.0, -1
    if not have_paths:
        paths(B, S, P, Rs, seat, costs, reached)
    best_value = 0.0
    best_d = -1
    for d in range(nd):
        if not reached[d] or reached[2 * nd + d] == 0:
            continue
        upper = here - costs[d]  # the value less the chance there: at least the value
        if upper <= best_value + EPS:
            continue
        value = upper - weight * _max_chance(B, S, P, ef, ei, nxt, xf, d)
        if value > best_value + EPS:
            best_value = value
            best_d = d
    return best_value, best_d


@njit(cache=True, _nrt=False)
def _chance(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray, ei: np.ndarray,
            nxt: int, lane: int, xf: np.ndarray) -> float:
    """The next seat's best stall gain in `lane` (0 when full or negative)."""
    count = F.lane_count(B, S, lane)
    if count == F.lane_len(B, lane):
        return 0.0
    if count:
        e0 = F.lane_dir(B, S, lane)
        e1 = e0
    else:
        e0 = 0
        e1 = 1
    n = B[N_PLAYERS]
    rival = P[W_RIVAL]
    best = 0.0
    for end in range(e0, e1 + 1):
        stall_delta(B, S, P, ef, ei, nxt, lane, end, xf)
        v = margin(xf, n, nxt, rival)
        if end == e0 or v > best:
            best = v
    return best if best > 0.0 else 0.0


@njit(cache=True, _nrt=False)
def _max_chance(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray, ei: np.ndarray,
                nxt: int, xf: np.ndarray, d: int) -> float:
    """The best chance over the lanes bordering district d (priced into xf[n + lane] the
    first time a lane is seen)."""
    n = B[N_PLAYERS]
    lo, hi = F.district_lanes_at(B, d), F.district_lanes_at(B, d + 1)
    best = 0.0
    for i in range(lo, hi):
        lane = F.district_lane(B, i)
        v = xf[n + lane]
        if v < 0.0:
            v = _chance(B, S, P, ef, ei, nxt, lane, xf)
            xf[n + lane] = v
        if i == lo or v > best:
            best = v
    return best


# -- placing a customer -------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def square_options(B: np.ndarray, S: np.ndarray, P: np.ndarray, seat: int,
                   L: Level) -> int:
    """The squares of the pending customer as options (evaluated cache in L)."""
    ef, ei, delta = eval_f(L), eval_i(L), scratch_f(L)
    values, actions, routes = option_values(L), option_actions(L), option_routes(L)
    n = B[N_PLAYERS]
    last = S[CUSTOMERS_LEFT] == 0
    customer = S[PENDING]
    rival = P[W_RIVAL]
    k = 0
    for s in range(B[N_SQUARES]):
        if F.square_customer(B, S, s) == 0:
            customer_delta(B, S, P, ef, ei, s, customer, last, delta)
            values[k] = margin(delta, n, seat, rival)
            actions[k] = A.place_customer(s)
            routes[k] = -1
            k += 1
    return k


# -- a turn's start -----------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def token_actions(B: np.ndarray, S: np.ndarray, seat: int, xi: np.ndarray) -> int:
    """One play_token action per face-up value (a neutral token before an own one), in
    first-seen order: values at xi[xi_tokens:], actions at xi[xi_tokens + N_TOKENS:]."""
    t = B[N_TOKENS]
    tv = xi_tokens(B)
    ta = tv + t
    k = 0
    for i in range(t):
        v = F.token_value(B, S, seat, i)
        if v and F.token_up(B, S, seat, i):
            neutral = F.token_neutral(B, S, seat, i)
            action = A.play_token(v, neutral)
            j = 0
            while j < k and xi[tv + j] != v:
                j += 1
            if j == k:
                xi[tv + k] = v
                xi[ta + k] = action
                k += 1
            elif neutral:
                xi[ta + j] = action
    return k


@njit(cache=True, _nrt=False)
def district_options(B: np.ndarray, S: np.ndarray, P: np.ndarray, seat: int, L: Level,
                     k: int) -> int:
    """A turn start's district scorings appended at option k (evaluated cache in L); returns
    the new count.

    Each is priced as a district scoring's delta would price it on its own, float for float,
    but what scorings share is priced once: an other seat's potential change depends on the
    district alone (once per district, not per token), the seat's token-term change on the
    token alone. And an other seat's potential without a district outside the part of its
    list its tokens pair with is its potential itself (the very same sum), so its change is
    0.0 without summing."""
    ef, ei, xf = eval_f(L), eval_i(L), scratch_f(L)
    values, actions, routes = option_values(L), option_actions(L), option_routes(L)
    n, nd, t = B[N_PLAYERS], B[N_DISTRICTS], B[N_TOKENS]
    rival = P[W_RIVAL]
    imm = P[P_IMMEDIATE] != 0.0
    pot_w = ef[F_POTW]
    dcnt, dtok, ndtok, topc, ntop = ei[I_DCNT], ei[I_DTOK], ei[I_NDTOK], ei[I_TOPC], ei[I_NTOP]
    rank, pot_o = ei[I_RANK], ei[I_POT]
    others = xf_others(B)
    priced = False
    for i in range(t):
        # an own face-up district token, the first of its value (each value once, first
        # seen first, as dict.fromkeys)
        if not (plays_for_actions(B, S, seat, i) and scores_districts(B, S, seat, i)):
            continue
        v = F.token_value(B, S, seat, i)
        tt = 0.0
        if not imm:
            su, lu, sh, lh = seat_tokens(B, S, seat)
            su -= v
            lu -= 1
            sh -= v
            lh -= 1
            if S[NEUTRAL_TOP] < B[N_NEUTRAL]:
                x = F.neutral_token(B, S[NEUTRAL_TOP])
                su += x
                lu += 1
                sh += x
                lh += 1
            if lu == 0:
                su, lu = sh, lh
            tt = token_term(P, su, lu, sh, lh, ef[F_TURNS]) - ef[ei[I_TAU] + seat]
        own_n = ei[ndtok + seat]
        tskip = -1
        for j in range(own_n):
            if ei[dtok + seat * t + j] == v:
                tskip = j
                break
        for d in range(nd):
            if not district_open(B, S, d):
                continue
            if pot_w != 0.0 and not priced:
                for p in range(n):
                    if p == seat:
                        continue
                    cskip = ei[rank + p * nd + d]
                    ntok = ei[ndtok + p]
                    if cskip >= ntok:
                        xf[others + p * nd + d] = 0.0
                    else:
                        xf[others + p * nd + d] = potential(
                            ef, P, ei, dtok + p * t, ntok, np.int64(-1), ei, topc + p * nd,
                            ei[ntop + p], cskip, F.stalls_left(B, S, p)) - ef[pot_o + p]
            for p in range(n):
                xf[p] = 0.0
            xf[seat] = float(v * ei[dcnt + d * n + seat])
            if not imm:
                xf[seat] += tt
            if pot_w != 0.0:
                for p in range(n):
                    if p == seat:
                        xf[p] += potential(ef, P, ei, dtok + p * t, own_n, tskip, ei,
                                           topc + p * nd, ei[ntop + p],
                                           ei[rank + p * nd + d], F.stalls_left(B, S, p)) \
                            - ef[pot_o + p]
                    else:
                        xf[p] += xf[others + p * nd + d]
            values[k] = margin(xf, n, seat, rival)
            actions[k] = A.score_district(v, d)
            routes[k] = -1
            k += 1
        priced = True
    return k
