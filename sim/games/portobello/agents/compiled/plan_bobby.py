"""The Bobby's cheapest paths, and the steps an option's route spells out.

`paths`: Dijkstra from the Bobby's district to every district, on the key (margin cost,
moves, points lost) compared as Python compares tuples, the lowest district first among
equal keys (as if the districts were scanned in index order). It writes
into a level's `pf` (float64) and `pi` (int64), nd = districts, nl = lanes:

    pf[d]            cost of the cheapest path to d
    pf[nd + lane]    margin change of a move across the lane (per-lane cache)
    pi[d]            d is reached
    pi[nd + d]       the district before d on its path (-1 at the start)
    pi[2 * nd + d]   moves of the path to d
    pi[3 * nd + d]   points lost on the path to d
    pi[4 * nd + d]   d is done
    pi[5 * nd + lane]        points a move across the lane costs (per-lane cache) ...
    pi[5 * nd + nl + lane]   ... and whether both caches hold the lane
    pi[5 * nd + 2 * nl:]     the open list (reached, not done)

An option's route is a district whose path precedes the option's final action;
`option_steps` spells the option out as actions (`path_moves`, then the final action).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.games.portobello.agents.compiled.eval_deltas import move_margin
from sim.games.portobello.agents.compiled.plan_work import Level
from sim.games.portobello.agents.compiled.plan_work import option_actions
from sim.games.portobello.agents.compiled.plan_work import option_routes
from sim.games.portobello.agents.compiled.plan_work import path_i
from sim.games.portobello.agents.compiled.random_agent import R_BOBBY
from sim.games.portobello.compiled import actions as A
from sim.games.portobello.compiled import fields as F
from sim.games.portobello.compiled.layout import BOBBY
from sim.games.portobello.compiled.layout import N_DISTRICTS
from sim.games.portobello.compiled.layout import N_LANES
from sim.games.portobello.compiled.layout import NEGATIVE_SCORES


@njit(cache=True, _nrt=False)
def _key_less(c1: float, s1: int, l1: int, c2: float, s2: int, l2: int) -> bool:
    """(c1, s1, l1) < (c2, s2, l2) as Python compares tuples."""
    if c1 != c2:
        return c1 < c2
    if s1 != s2:
        return s1 < s2
    return l1 < l2


@njit(cache=True, _nrt=False)
def paths(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, seat: int,
          pf: np.ndarray, pi: np.ndarray) -> None:
    """Dijkstra on (margin cost, moves, points lost) from the Bobby to every district.
    pi[d]: reached; pf[d]: cost; pi[nd + d]: previous district; pi[2nd + d]: moves;
    pi[3nd + d]: points lost."""
    nd, nl = B[N_DISTRICTS], B[N_LANES]
    start = S[BOBBY]
    for d in range(nd):
        pi[d] = 0
    pi[start] = 1
    pf[start] = 0.0
    pi[nd + start] = -1
    pi[2 * nd + start] = 0
    pi[3 * nd + start] = 0
    if Rs[R_BOBBY]:
        return
    # pi[4nd + d]: done; the reached, not yet done districts are listed in pi[5nd + 2nl:]
    # (each pick is the one a scan of all districts in index order would make: the smallest
    # key wins, the lowest district among equal keys).
    for d in range(nd):
        pi[4 * nd + d] = 0
    mflag = 5 * nd + nl
    for lane in range(nl):
        pi[mflag + lane] = 0
    ol = 5 * nd + 2 * nl
    pi[ol] = start
    m = 1
    neg = B[NEGATIVE_SCORES]
    score = F.score(B, S, seat)
    while m > 0:
        at = 0
        cur = pi[ol]
        for x in range(1, m):
            d = pi[ol + x]
            if pf[d] != pf[cur]:
                better = pf[d] < pf[cur]
            elif pi[2 * nd + d] != pi[2 * nd + cur]:
                better = pi[2 * nd + d] < pi[2 * nd + cur]
            elif pi[3 * nd + d] != pi[3 * nd + cur]:
                better = pi[3 * nd + d] < pi[3 * nd + cur]
            else:
                better = d < cur
            if better:
                at = x
                cur = d
        m -= 1
        pi[ol + at] = pi[ol + m]
        pi[4 * nd + cur] = 1
        cost = pf[cur]
        steps = pi[2 * nd + cur]
        lost = pi[3 * nd + cur]
        for i in range(F.neighbours_at(B, cur), F.neighbours_at(B, cur + 1)):
            d = F.neighbour_district(B, i)
            if pi[4 * nd + d]:
                continue
            lane = F.neighbour_lane(B, i)
            if not pi[mflag + lane]:
                mm, loss = move_margin(B, S, P, seat, lane)
                pf[nd + lane] = mm
                pi[5 * nd + lane] = loss
                pi[mflag + lane] = 1
            loss = pi[5 * nd + lane]
            if not neg and lost + loss > score:
                continue
            kc = cost - pf[nd + lane]
            if not pi[d]:
                pi[ol + m] = d
                m += 1
            elif not _key_less(kc, steps + 1, lost + loss, pf[d], pi[2 * nd + d],
                               pi[3 * nd + d]):
                continue
            pi[d] = 1
            pf[d] = kc
            pi[2 * nd + d] = steps + 1
            pi[3 * nd + d] = lost + loss
            pi[nd + d] = cur


@njit(cache=True, _nrt=False)
def path_moves(B: np.ndarray, pi: np.ndarray, d: int, out: np.ndarray, o0: int) -> int:
    """Write the move_bobby actions of the path to `d` into out[o0:]; return how many."""
    nd = B[N_DISTRICTS]
    k = pi[2 * nd + d]
    x = d
    for j in range(k - 1, -1, -1):
        out[o0 + j] = A.move_bobby(x)
        x = pi[nd + x]
    return k


@njit(cache=True, _nrt=False)
def option_steps(B: np.ndarray, L: Level, i: int, out: np.ndarray) -> int:
    """The actions of option i of level L (Bobby moves, then the final action) into out;
    returns how many."""
    route = option_routes(L)[i]
    k = path_moves(B, path_i(L), route, out, np.int64(0)) if route >= 0 else 0
    out[k] = option_actions(L)[i]
    return k + 1
