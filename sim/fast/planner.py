"""The turn planner and the greedy/heuristic agent of `sim.agents.planning`, compiled.

Same options, same prices (bit for bit, see `sim.fast.evaluate`), same order and the same
calls to the agent's generator as `Planner` and `PlannerAgent.choose`, so that a compiled
game is the very game the Python agents play, ~90 times faster (the mass simulation of
heuristic games needs ~1,700 games per second per core).

An option is (value, final action, route): `route` is the district whose cheapest Bobby
path (from the last `paths` call) precedes the final action, or -1 for none; `option_steps`
spells the path out. Options live in parallel arrays of a work level.

Work levels: a decision needs scratch space for one position (its evaluation cache, Bobby
paths, option list and small buffers); pricing a token by playing its turn out needs a
second one for the copy. `new_work(B)` allocates two levels as rows of two arrays (float64,
int64) and `level(B, WF, WI, k)` returns level k as a tuple of views

    L = (ef, ei, pf, pi, ov, oa, xf, xi)

ef/ei: the evaluation cache (`sim.fast.evaluate`); pf/pi: Bobby paths (cost; reached, prev,
steps, points lost, done, per-lane move cache, open list); ov/oa: option values / final
actions (oa[:MAXOPT]) and routes (oa[MAXOPT:]); xf: delta[n] first, then per-lane chances,
the token plan and gains, a sort buffer; xi: small int scratch first, then token lists,
index lists, the copy of S for planning and a steps buffer. Nothing is allocated while
playing.

Plan slots (speed, not behaviour): `plan_values` keeps every position its played-out turn
evaluates (the evaluation, paths and options, and the position itself) in slots at the end
of level 1's scratch. When the agent's real turn then reaches one of those positions (it
usually does: the plan is what the agent will play unless a tie, a customer or `must_act`
takes it elsewhere), `choose_planner` decides from the slot instead of evaluating again:
the same options and values, and the same draws from the generator. `find_slot` compares
everything but what no option value depends on (see there).

For a search (MCTS) the public pieces are `options` (every option of the seat to move, as
`sim.agents.mcts._options`), `option_steps`, `step`, `level`, and
`sim.fast.evaluate.state`/`value_margins`; a planner variant is just another parameter row
(`planner_params(leave=False, simulate=False)` for rollouts).

Compilation notes (the speed depends on them):
- Everything here except the allocators `new_work` and `level` is compiled without numba's
  reference counts (`_nrt=False`): every array lives in the caller for the whole run, and
  the atomic increments and decrements on every array argument cost a third of the time.
  So views made by a function without counts must not be returned into counted code:
  `_level` and `_slot` are for this module's uncounted code only (`level` is the counted
  twin), and a function that calls them must not be inlined into counted code.
- The per-option deltas and the thin dispatch layers are inlined (`inline='always'`): a
  call passes each array as seven words, and each extra layer between `play_batch` and the
  leaves makes numba optimise the whole linked code once more at compile time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.codes import ACTIONS, PLACE, SETUP, TURN_START
from sim.fast import actions as A
from sim.fast import rng as R
from sim.fast.engine import apply, legal_actions
from sim.fast.eval_cache import init_state, state_sizes
from sim.fast.eval_deltas import (
    customer_delta,
    district_delta,
    move_margin,
    stall_delta,
    token_delta,
)
from sim.fast.eval_terms import margin
from sim.fast.evaluate import lane_state, state
from sim.fast.layout import (
    ACTIONS_LEFT,
    BAG_ARISTOCRATS,
    BAG_CITIZENS,
    BOBBY,
    CUSTOMERS_LEFT,
    END_REASON,
    KNOWN_ORDER,
    LINE_POS,
    LOG_LEN,
    LOG_OVERFLOW,
    N_DISTRICTS,
    N_LANES,
    N_PLAYERS,
    N_SQUARES,
    N_TOKENS,
    NEGATIVE_SCORES,
    O_DISTRICT_LANES,
    O_DISTRICT_LANES_AT,
    O_IS_DISTRICT_TOKEN,
    O_LANE_DISTRICT0,
    O_LANE_DISTRICT1,
    O_LANE_LEN,
    O_NEIGHBOUR_DISTRICT,
    O_NEIGHBOUR_LANE,
    O_NEIGHBOURS_AT,
    PENDING,
    PHASE,
    S_DISTRICT_SCORED,
    S_LANE_COUNT,
    S_LANE_DIR,
    S_LINE,
    S_SCORES,
    S_SIZE,
    S_SQUARE_CUSTOMER,
    S_STALLS_LEFT,
    S_TOK_NEUTRAL,
    S_TOK_UP,
    S_TOK_VAL,
    SEAT,
    TOKEN_MAX,
    TURN,
)
from sim.fast.params import (
    MAX_LANE_LEN,
    P_IMMEDIATE,
    P_LEAVE,
    P_MIN_GAIN,
    P_SIMULATE,
    W_BOBBY,
    W_RIVAL,
)
from sim.fast.random_agent import R_BOBBY, R_CUSTOMERS, R_DISTRICT, R_FIRST_END

EPS = 1e-9
Level = tuple  # (ef, ei, pf, pi, ov, oa, xf, xi): see the module docstring
# Per-seat memory of the planner agent (int64): the queue of remaining steps of the last
# option (M_Q...), where it starts and ends, the turn it belongs to, and the last turn in
# which the agent placed something. Slots 1 and 2 start at -1 (see sim.fast.play).
M_QPOS, M_QTURN, M_ACTED, M_QLEN = 0, 1, 2, 3
M_Q = 4
SLOT_META = 4  # per plan slot: kind, number of options


# -- work space --------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def max_options(B: np.ndarray) -> int:
    """Room for any option list: stalls (2 per lane), a draw, the end, squares, tokens and
    district scorings."""
    return 2 * B[N_LANES] + B[N_SQUARES] + B[N_TOKENS] * (B[N_DISTRICTS] + 1) + 4


@njit(cache=True, _nrt=False)
def _tmp_size(B: np.ndarray) -> int:
    return B[N_TOKENS] + 8


@njit(cache=True, _nrt=False)
def _plan_size(B: np.ndarray) -> int:
    return B[TOKEN_MAX] + 2


@njit(cache=True, _nrt=False)
def n_slots(B: np.ndarray) -> int:
    """Plan slots: an actions position and a customer-placing position per planned action
    (a plan has at most `top` <= TOKEN_MAX actions)."""
    return 2 * B[TOKEN_MAX]


@njit(cache=True, _nrt=False)
def _sizes(B: np.ndarray) -> tuple[int, int, int, int, int, int, int, int]:
    """Lengths of a level's (ef, ei, pf, pi, ov, oa, xf, xi): xf and xi are the scratch
    parts followed by the plan slots (`_slot`)."""
    n, nl, nd = B[N_PLAYERS], B[N_LANES], B[N_DISTRICTS]
    fs, is_ = state_sizes(B)
    mo = max_options(B)
    pfs, pis = nd + nl + n, 5 * nd + 2 * nl + n + nd
    xfb, xib = _scratch_sizes(B)
    ns = n_slots(B)
    return (fs, is_, pfs, pis, mo, 2 * mo, xfb + ns * (fs + pfs + mo),
            xib + ns * (is_ + pis + 2 * mo + B[S_SIZE] + SLOT_META))


@njit(cache=True, _nrt=False)
def _scratch_sizes(B: np.ndarray) -> tuple[int, int]:
    """Lengths of the scratch parts of xf (delta, chances, plan, gains, sort buffer) and xi
    (small ints, token lists, two index lists, the planning copy of S, a steps buffer)."""
    n, nl, nd, t = B[N_PLAYERS], B[N_LANES], B[N_DISTRICTS], B[N_TOKENS]
    mo = max_options(B)
    return (n + nl + 2 * _plan_size(B) + mo,
            _tmp_size(B) + 2 * t + 2 * mo + B[S_SIZE] + nd + 1)


@njit(cache=True, _nrt=False)
def _slot_offsets(B: np.ndarray, j: int) -> tuple[int, int, int]:
    """Where plan slot j starts in a level's xf and xi, and where its record starts in xi."""
    fs, is_ = state_sizes(B)
    nd, nl, n = B[N_DISTRICTS], B[N_LANES], B[N_PLAYERS]
    mo = max_options(B)
    pfs, pis = nd + nl + n, 5 * nd + 2 * nl + n + nd
    xfb, xib = _scratch_sizes(B)
    f0 = xfb + j * (fs + pfs + mo)
    i0 = xib + j * (is_ + pis + 2 * mo + B[S_SIZE] + SLOT_META)
    return f0, i0, i0 + is_ + pis + 2 * mo


@njit(cache=True, _nrt=False)
def _slot(B: np.ndarray, L: Level, j: int) -> tuple[Level, np.ndarray]:
    """Plan slot j kept in level L's scratch tail: a level (its own evaluation, paths and
    options; L's scratch) and its record: the position it evaluated (S_SIZE values), then
    SLOT_META entries (kind: 0 empty, ACTIONS or PLACE; the number of options)."""
    fs, is_ = state_sizes(B)
    nd, nl, n = B[N_DISTRICTS], B[N_LANES], B[N_PLAYERS]
    mo = max_options(B)
    pfs, pis = nd + nl + n, 5 * nd + 2 * nl + n + nd
    f0, i0, r0 = _slot_offsets(B, j)
    xf, xi = L[6], L[7]
    lv = (xf[f0:f0 + fs], xi[i0:i0 + is_], xf[f0 + fs:f0 + fs + pfs],
          xi[i0 + is_:i0 + is_ + pis], xf[f0 + fs + pfs:f0 + fs + pfs + mo],
          xi[i0 + is_ + pis:i0 + is_ + pis + 2 * mo], xf, xi)
    return lv, xi[r0:r0 + B[S_SIZE] + SLOT_META]


@njit(cache=True)
def new_work(B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two work levels (see the module docstring) as rows of (WF float64, WI int64)."""
    fs, is_, pfs, pis, ovs, oas, xfs, xis = _sizes(B)
    WF = np.zeros((2, fs + pfs + ovs + xfs), np.float64)
    WI = np.zeros((2, is_ + pis + oas + xis), np.int64)
    _init_work(B, WF, WI)
    return WF, WI


@njit(cache=True, _nrt=False)
def _init_work(B: np.ndarray, WF: np.ndarray, WI: np.ndarray) -> None:
    """Table offsets of every evaluation cache in the work space (levels and slots)."""
    for k in range(2):
        L = _level(B, WF, WI, k)
        init_state(B, L[0], L[1])
        for j in range(n_slots(B)):
            lv, rec = _slot(B, L, j)
            init_state(B, lv[0], lv[1])
            rec[B[S_SIZE]] = 0


@njit(cache=True)
def level(B: np.ndarray, WF: np.ndarray, WI: np.ndarray, k: int) -> Level:
    """Work level k as (ef, ei, pf, pi, ov, oa, xf, xi) views (reference counted: safe to
    call from any compiled code)."""
    fs, is_, pfs, pis, ovs, oas, xfs, xis = _sizes(B)
    f = WF[k]
    i = WI[k]
    return (f[:fs], i[:is_], f[fs:fs + pfs], i[is_:is_ + pis], f[fs + pfs:fs + pfs + ovs],
            i[is_ + pis:is_ + pis + oas], f[fs + pfs + ovs:fs + pfs + ovs + xfs],
            i[is_ + pis + oas:is_ + pis + oas + xis])


@njit(cache=True, _nrt=False)
def _level(B: np.ndarray, WF: np.ndarray, WI: np.ndarray, k: int) -> Level:
    """`level` without reference counts, for code compiled without them (`_nrt=False`):
    the views must not outlive WF and WI, nor be handed to reference-counted code that
    keeps them."""
    fs, is_, pfs, pis, ovs, oas, xfs, xis = _sizes(B)
    f = WF[k]
    i = WI[k]
    return (f[:fs], i[:is_], f[fs:fs + pfs], i[is_:is_ + pis], f[fs + pfs:fs + pfs + ovs],
            i[is_ + pis:is_ + pis + oas], f[fs + pfs + ovs:fs + pfs + ovs + xfs],
            i[is_ + pis + oas:is_ + pis + oas + xis])


# -- the Bobby ---------------------------------------------------------------------------------
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
    """`Planner.paths`: Dijkstra on (margin cost, moves, points lost) from the Bobby to
    every district. pi[d]: reached; pf[d]: cost; pi[nd + d]: previous district;
    pi[2nd + d]: moves; pi[3nd + d]: points lost."""
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
    # (the reference scans all districts in index order: the smallest key wins, the lowest
    # district among equal keys).
    for d in range(nd):
        pi[4 * nd + d] = 0
    mflag = 5 * nd + nl
    for lane in range(nl):
        pi[mflag + lane] = 0
    ol = 5 * nd + 2 * nl
    pi[ol] = start
    m = 1
    neg = B[NEGATIVE_SCORES]
    score = S[B[S_SCORES] + seat]
    o_dns, o_dnd, o_dnl = B[O_NEIGHBOURS_AT], B[O_NEIGHBOUR_DISTRICT], B[O_NEIGHBOUR_LANE]
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
        for i in range(B[o_dns + cur], B[o_dns + cur + 1]):
            d = B[o_dnd + i]
            if pi[4 * nd + d]:
                continue
            lane = B[o_dnl + i]
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
    pi, oa = L[3], L[5]
    mo = oa.shape[0] // 2
    route = oa[mo + i]
    k = path_moves(B, pi, route, out, 0) if route >= 0 else 0
    out[k] = oa[i]
    return k + 1


# -- options during a turn ---------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def stall_options(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, seat: int,
                  L: Level, k: int) -> int:
    """`Planner.stall_options` appended at option k; returns the new count."""
    ef, ei, pf, pi, ov, oa, xf, xi = L
    n, nl, nd = B[N_PLAYERS], B[N_LANES], B[N_DISTRICTS]
    mo = oa.shape[0] // 2
    rival = P[W_RIVAL]
    first_end = Rs[R_FIRST_END]
    for lane in range(nl):
        count = S[B[S_LANE_COUNT] + lane]
        if count == B[B[O_LANE_LEN] + lane]:
            continue
        route = -1
        for x in range(2):
            d = B[B[O_LANE_DISTRICT0] + lane] if x == 0 else B[B[O_LANE_DISTRICT1] + lane]
            if d < 0 or not pi[d]:
                continue
            if route < 0 or pf[d] < pf[route] or (pf[d] == pf[route] and
                                                  pi[2 * nd + d] < pi[2 * nd + route]):
                route = d
        if route < 0:
            continue
        cost = pf[route]
        if count:
            e0 = S[B[S_LANE_DIR] + lane]
            e1 = e0
        else:
            e0 = 0
            e1 = 0 if first_end else 1
        for end in range(e0, e1 + 1):
            stall_delta(B, S, P, ef, ei, seat, lane, end, xf, xi)
            ov[k] = margin(xf, n, seat, rival) - cost
            oa[k] = A.place_stall(lane, end)
            oa[mo + k] = route
            k += 1
    return k


@njit(cache=True, _nrt=False)
def _best_square(B: np.ndarray, S: np.ndarray, P: np.ndarray, seat: int, customer: int,
                 last: bool, ef: np.ndarray, ei: np.ndarray, xf: np.ndarray) -> float:
    """max over empty squares of the margin change of placing `customer` there."""
    n = B[N_PLAYERS]
    sqc = B[S_SQUARE_CUSTOMER]
    rival = P[W_RIVAL]
    best = 0.0
    first = True
    for s in range(B[N_SQUARES]):
        if S[sqc + s] == 0:
            customer_delta(B, S, P, ef, ei, s, customer, last, xf)
            v = margin(xf, n, seat, rival)
            if first or v > best:
                best = v
                first = False
    return best


@njit(cache=True, _nrt=False)
def draw_value(B: np.ndarray, S: np.ndarray, P: np.ndarray, seat: int,
               L: Level) -> float:
    """`Planner.draw_value`: expected margin change of a draw placed on the best square."""
    ef, ei, xf = L[0], L[1], L[6]
    last = S[CUSTOMERS_LEFT] == 1
    total = 0.0
    if B[KNOWN_ORDER]:
        customer = S[B[S_LINE] + S[LINE_POS]] if S[CUSTOMERS_LEFT] > 0 else 0
        total += 1.0 * _best_square(B, S, P, seat, customer, last, ef, ei, xf)
        return total
    bag = S[BAG_CITIZENS] + S[BAG_ARISTOCRATS]
    for c in range(1, 3):
        k = S[BAG_CITIZENS + c - 1]
        if k:
            total += k / bag * _best_square(B, S, P, seat, c, last, ef, ei, xf)
    return total


@njit(cache=True, _nrt=False)
def action_options(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, seat: int,
                   L: Level, force: bool) -> int:
    """`Planner.action_options` (stalls with Bobby paths, a draw) into level L; `force`
    prices them as if actions were left. Returns the count; Bobby paths are computed into
    L when the seat has stalls."""
    if S[ACTIONS_LEFT] <= 0 and not force:
        return 0
    ov, oa = L[4], L[5]
    mo = oa.shape[0] // 2
    k = 0
    if S[B[S_STALLS_LEFT] + seat] > 0:
        paths(B, S, P, Rs, seat, L[2], L[3])
        k = stall_options(B, S, P, Rs, seat, L, 0)
    if S[CUSTOMERS_LEFT] > 0 and not Rs[R_CUSTOMERS]:
        ov[k] = draw_value(B, S, P, seat, L)
        oa[k] = A.DRAW
        oa[mo + k] = -1
        k += 1
    return k


@njit(cache=True, _nrt=False)
def leave_option(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, seat: int,
                 L: Level, have_paths: bool) -> tuple[float, int]:
    """`Planner.leave_option`: (value, route) of ending the turn, first moving the Bobby
    along the path to district `route` (-1: where it stands)."""
    if P[P_LEAVE] == 0.0 or Rs[R_BOBBY] or P[W_BOBBY] <= 0 or P[P_IMMEDIATE] != 0.0:
        return 0.0, -1
    n, nl, nd = B[N_PLAYERS], B[N_LANES], B[N_DISTRICTS]
    nxt = (seat + 1) % n
    if nxt == seat or S[B[S_STALLS_LEFT] + nxt] <= 0:
        return 0.0, -1
    ef, ei, pf, pi, xf, xi = L[0], L[1], L[2], L[3], L[6], L[7]
    rival = P[W_RIVAL]
    for lane in range(nl):
        xf[n + lane] = 0.0
        count = S[B[S_LANE_COUNT] + lane]
        if count == B[B[O_LANE_LEN] + lane]:
            continue
        if count:
            e0 = S[B[S_LANE_DIR] + lane]
            e1 = e0
        else:
            e0 = 0
            e1 = 1
        best = 0.0
        for end in range(e0, e1 + 1):
            stall_delta(B, S, P, ef, ei, nxt, lane, end, xf, xi)
            v = margin(xf, n, nxt, rival)
            if end == e0 or v > best:
                best = v
        xf[n + lane] = best if best > 0.0 else 0.0
    weight = P[W_BOBBY]
    bobby = S[BOBBY]
    here = weight * _max_chance(B, xf, n, bobby)
    if not have_paths:
        paths(B, S, P, Rs, seat, pf, pi)
    best_value = 0.0
    best_d = -1
    for d in range(nd):
        if not pi[d] or pi[2 * nd + d] == 0:
            continue
        value = here - pf[d] - weight * _max_chance(B, xf, n, d)
        if value > best_value + EPS:
            best_value = value
            best_d = d
    return best_value, best_d


@njit(cache=True, _nrt=False)
def _max_chance(B: np.ndarray, xf: np.ndarray, n: int, d: int) -> float:
    best = 0.0
    for i in range(B[B[O_DISTRICT_LANES_AT] + d], B[B[O_DISTRICT_LANES_AT] + d + 1]):
        v = xf[n + B[B[O_DISTRICT_LANES] + i]]
        if i == B[B[O_DISTRICT_LANES_AT] + d] or v > best:
            best = v
    return best


# -- picking -----------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def pick(ov: np.ndarray, idx: np.ndarray, m: int, tied: np.ndarray, rng: np.ndarray,
         use_rng: bool) -> int:
    """`pick` over the options idx[:m]: the best, ties (within EPS) broken by the generator
    (or the first tied without one). Returns an option index."""
    best = ov[idx[0]]
    for j in range(1, m):
        if ov[idx[j]] > best:
            best = ov[idx[j]]
    k = 0
    for j in range(m):
        if ov[idx[j]] >= best - EPS:
            tied[k] = idx[j]
            k += 1
    if not use_rng or k == 1:
        return tied[0]
    return tied[R.below(rng, k)]


@njit(cache=True, _nrt=False)
def _pick_all(ov: np.ndarray, m: int, xi: np.ndarray, B: np.ndarray, rng: np.ndarray,
              use_rng: bool) -> int:
    """`pick` over options 0..m-1 (index lists in xi)."""
    i0 = _tmp_size(B) + 2 * B[N_TOKENS]
    mo = max_options(B)
    idx = xi[i0:i0 + mo]
    for j in range(m):
        idx[j] = j
    return pick(ov, idx, m, xi[i0 + mo:i0 + 2 * mo], rng, use_rng)


# -- whole decisions ---------------------------------------------------------------------------
@njit(cache=True, _nrt=False, inline='always')
def turn_step(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, seat: int,
              L: Level, rng: np.ndarray, use_rng: bool,
              must_act: bool) -> tuple[float, int, int]:
    """`Planner.turn_step`: (value, final action, route) of the option to take now."""
    state(B, S, P, L[0], L[1])
    k = action_options(B, S, P, Rs, seat, L, False)
    have_paths = S[ACTIONS_LEFT] > 0 and S[B[S_STALLS_LEFT] + seat] > 0
    return _turn_decide(B, S, P, Rs, seat, L, k, have_paths, rng, use_rng, must_act)


@njit(cache=True, _nrt=False, inline='always')
def _turn_decide(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, seat: int,
                 L: Level, k: int, have_paths: bool, rng: np.ndarray, use_rng: bool,
                 must_act: bool) -> tuple[float, int, int]:
    """The end of `turn_step`, given the k action options evaluated in L."""
    ov, oa = L[4], L[5]
    if k:
        b = _pick_all(ov, k, L[7], B, rng, use_rng)
        if must_act or ov[b] >= P[P_MIN_GAIN] - EPS:
            return ov[b], oa[b], oa[oa.shape[0] // 2 + b]
    v, d = leave_option(B, S, P, Rs, seat, L, have_paths)
    return v, A.END, d


@njit(cache=True, _nrt=False)
def square_options(B: np.ndarray, S: np.ndarray, P: np.ndarray, seat: int,
                   L: Level) -> int:
    """`Planner.square_values` of the pending customer as options (evaluated cache in L)."""
    ef, ei, ov, oa, xf = L[0], L[1], L[4], L[5], L[6]
    n = B[N_PLAYERS]
    mo = oa.shape[0] // 2
    last = S[CUSTOMERS_LEFT] == 0
    customer = S[PENDING]
    sqc = B[S_SQUARE_CUSTOMER]
    rival = P[W_RIVAL]
    k = 0
    for s in range(B[N_SQUARES]):
        if S[sqc + s] == 0:
            customer_delta(B, S, P, ef, ei, s, customer, last, xf)
            ov[k] = margin(xf, n, seat, rival)
            oa[k] = A.place_customer(s)
            oa[mo + k] = -1
            k += 1
    return k


@njit(cache=True, _nrt=False, inline='always')
def place_step(B: np.ndarray, S: np.ndarray, P: np.ndarray, seat: int, L: Level,
               rng: np.ndarray, use_rng: bool) -> int:
    """`Planner.place_step`: the index (in L) of the option placing the pending customer."""
    lane_state(B, S, P, L[0], L[1])
    k = square_options(B, S, P, seat, L)
    return _pick_all(L[4], k, L[7], B, rng, use_rng)


@njit(cache=True, _nrt=False)
def token_actions(B: np.ndarray, S: np.ndarray, seat: int, xi: np.ndarray) -> int:
    """`Planner.token_actions`: one play_token action per face-up value (a neutral token
    before an own one), in first-seen order: values at xi[tmp_size:], actions at
    xi[tmp_size + N_TOKENS:]."""
    t = B[N_TOKENS]
    tv = _tmp_size(B)
    ta = tv + t
    k = 0
    for i in range(seat * t, seat * t + t):
        v = S[B[S_TOK_VAL] + i]
        if v and S[B[S_TOK_UP] + i]:
            neutral = S[B[S_TOK_NEUTRAL] + i]
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
def plan_values(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, seat: int,
                steps: int, L1: Level, plan: np.ndarray, rng: np.ndarray, ef0: np.ndarray,
                ei0: np.ndarray) -> None:
    """`Planner.plan_values` into plan[0..steps], played on a copy of S kept in level L1
    (`rng` is not drawn from: the plan takes the first of tied options). (ef0, ei0) is the
    evaluation of S itself. Every position the plan evaluates stays in a plan slot of L1
    (see `find_slot`)."""
    xf, xi = L1[6], L1[7]
    n, nl = B[N_PLAYERS], B[N_LANES]
    mo = max_options(B)
    tp = _tmp_size(B) + 2 * B[N_TOKENS] + 2 * mo
    size = B[S_SIZE]
    sim = xi[tp:tp + size]
    moves = xi[tp + size:tp + size + B[N_DISTRICTS] + 1]
    no_log = xi[0:0]
    clear_slots(B, L1)
    for i in range(size):
        sim[i] = S[i]
    sim[PHASE] = ACTIONS
    sim[ACTIONS_LEFT] = steps
    g0 = n + nl + _plan_size(B)
    gains = xf[g0:g0 + _plan_size(B)]
    gains[0] = 0.0
    ng = 1
    it = 0
    while sim[ACTIONS_LEFT] > 0 and sim[PHASE] == ACTIONS:
        Ls, rec = _slot(B, L1, 2 * it)
        if it == 0:  # the position is S's (actions left and phase are not evaluated)
            for i in range(ef0.shape[0]):
                Ls[0][i] = ef0[i]
            for i in range(ei0.shape[0]):
                Ls[1][i] = ei0[i]
        else:
            state(B, sim, P, Ls[0], Ls[1])
        k = action_options(B, sim, P, Rs, seat, Ls, False)
        _record(B, sim, rec, ACTIONS, k)
        if k == 0:
            break
        ov, oa, pi = Ls[4], Ls[5], Ls[3]
        b = _pick_all(ov, k, xi, B, rng, False)
        value = ov[b]
        if value <= 0:
            break
        last = oa[b]
        route = oa[mo + b]
        if route >= 0:
            m = path_moves(B, pi, route, moves, 0)
            for j in range(m):
                apply(B, sim, moves[j], no_log)
        if last == A.DRAW:
            if B[KNOWN_ORDER]:
                apply(B, sim, A.DRAW, no_log)
            else:
                b1 = sim[BAG_CITIZENS]
                b2 = sim[BAG_ARISTOCRATS]
                customer = 2
                if b1:
                    customer = 1
                    if b2 and b2 / (b1 + b2) > b1 / (b1 + b2):
                        customer = 2
                apply(B, sim, A.draw_customer(customer), no_log)
            Lp, recp = _slot(B, L1, 2 * it + 1)
            lane_state(B, sim, P, Lp[0], Lp[1])
            kp = square_options(B, sim, P, seat, Lp)
            _record(B, sim, recp, PLACE, kp)
            c = _pick_all(Lp[4], kp, xi, B, rng, False)
            apply(B, sim, Lp[5][c], no_log)
        else:
            apply(B, sim, last, no_log)
        gains[ng] = gains[ng - 1] + value
        ng += 1
        it += 1
    plan[0] = 0.0
    for k in range(1, steps + 1):
        g = gains[min(k, ng - 1)]
        plan[k] = g if g > plan[k - 1] else plan[k - 1]


@njit(cache=True, _nrt=False)
def _record(B: np.ndarray, S: np.ndarray, rec: np.ndarray, kind: int, k: int) -> None:
    size = B[S_SIZE]
    for i in range(size):
        rec[i] = S[i]
    rec[size] = kind
    rec[size + 1] = k


@njit(cache=True, _nrt=False)
def clear_slots(B: np.ndarray, L1: Level) -> None:
    """Forget every plan slot of L1."""
    xi = L1[7]
    for j in range(n_slots(B)):
        xi[_slot_offsets(B, j)[2] + B[S_SIZE]] = 0


@njit(cache=True, _nrt=False)
def find_slot(B: np.ndarray, S: np.ndarray, L1: Level, kind: int) -> int:
    """The plan slot of L1 that evaluated the position S (phase `kind`), or -1. Positions
    are compared on everything but the actions left, the phase, the log counters and which
    tokens are face up: nothing an option's value depends on, except the token term in the
    values of a seat whose last stall would end the game; so there is no match then."""
    size = B[S_SIZE]
    if kind == ACTIONS and S[END_REASON] == 0:
        for p in range(B[N_PLAYERS]):
            if S[B[S_STALLS_LEFT] + p] == 1:
                return -1
    xi = L1[7]
    tu0 = B[S_TOK_UP]
    tu1 = tu0 + B[N_PLAYERS] * B[N_TOKENS]
    r0 = _slot_offsets(B, 0)[2]
    stride = _slot_offsets(B, 1)[2] - r0
    for j in range(n_slots(B)):
        r = r0 + j * stride
        if xi[r + size] != kind:
            continue
        same = True
        for i in range(size):
            if xi[r + i] != S[i]:
                if i in (ACTIONS_LEFT, PHASE, LOG_LEN, LOG_OVERFLOW) or tu0 <= i < tu1:
                    continue
                same = False
                break
        if same:
            return j
    return -1


@njit(cache=True, _nrt=False)
def start_options(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, seat: int,
                  L0: Level, L1: Level, rng: np.ndarray) -> int:
    """`Planner.start_options` into level L0 (evaluated there): token plays priced by the
    turn they give (played out in L1 with `simulate`) and district scorings."""
    ef, ei, ov, oa, xf, xi = L0[0], L0[1], L0[4], L0[5], L0[6], L0[7]
    n, nl, nd, t = B[N_PLAYERS], B[N_LANES], B[N_DISTRICTS], B[N_TOKENS]
    mo = oa.shape[0] // 2
    state(B, S, P, ef, ei)
    m = token_actions(B, S, seat, xi)
    tv = _tmp_size(B)
    k = 0
    if m:
        top = xi[tv]
        for j in range(1, m):
            if xi[tv + j] > top:
                top = xi[tv + j]
        p0 = n + nl
        plan = xf[p0:p0 + _plan_size(B)]
        if P[P_SIMULATE] != 0.0:
            plan_values(B, S, P, Rs, seat, top, L1, plan, rng, ef, ei)
        else:
            # The options open now, priced with this position's cache (Planner: on a copy
            # with `top` actions left), best first.
            mixed = (ef, ei, L1[2], L1[3], L1[4], L1[5], L1[6], L1[7])
            kk = action_options(B, S, P, Rs, seat, mixed, True)
            s0 = n + nl + 2 * _plan_size(B)
            gains = xf[s0:s0 + mo]
            for j in range(kk):  # insertion sort, descending
                v = L1[4][j]
                i = j
                while i > 0 and gains[i - 1] < v:
                    gains[i] = gains[i - 1]
                    i -= 1
                gains[i] = v
            plan[0] = 0.0
            for j in range(1, top + 1):
                g = gains[j - 1] if j <= kk else 0.0
                plan[j] = plan[j - 1] + (g if g > 0.0 else 0.0)
        for j in range(m):
            value = xi[tv + j]
            ov[k] = plan[value] + token_delta(B, S, P, ef, ei, seat, value)
            oa[k] = xi[tv + t + j]
            oa[mo + k] = -1
            k += 1
    if not Rs[R_DISTRICT]:
        rival = P[W_RIVAL]
        s_tv, s_tn, s_tu = B[S_TOK_VAL], B[S_TOK_NEUTRAL], B[S_TOK_UP]
        for i in range(seat * t, seat * t + t):
            v = S[s_tv + i]
            if not v or not S[s_tu + i]:
                continue
            neutral = S[s_tn + i]
            seen = False  # dict.fromkeys: each (value, neutral) once, first seen first
            for j in range(seat * t, i):
                if S[s_tv + j] == v and S[s_tu + j] and S[s_tn + j] == neutral:
                    seen = True
            if seen or neutral or v > B[TOKEN_MAX] or not B[B[O_IS_DISTRICT_TOKEN] + v]:
                continue
            for d in range(nd):
                if S[B[S_DISTRICT_SCORED] + d] < 0:
                    district_delta(B, S, P, ef, ei, seat, v, d, xf)
                    ov[k] = margin(xf, n, seat, rival)
                    oa[k] = A.score_district(v, d)
                    oa[mo + k] = -1
                    k += 1
    return k


@njit(cache=True, _nrt=False, inline='always')
def start_step(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, seat: int,
               L0: Level, L1: Level, rng: np.ndarray,
               use_rng: bool) -> tuple[float, int]:
    """`Planner.start_step`: (value, action); a token play before a tied district scoring."""
    k = start_options(B, S, P, Rs, seat, L0, L1, rng)
    if k == 0:
        return 0.0, A.END
    ov, oa, xi = L0[4], L0[5], L0[7]
    best = ov[0]
    for j in range(1, k):
        if ov[j] > best:
            best = ov[j]
    i0 = _tmp_size(B) + 2 * B[N_TOKENS]
    mo = max_options(B)
    idx = xi[i0:i0 + mo]
    m = 0
    for j in range(k):  # tied plays first, to see whether there are any
        if ov[j] >= best - EPS and A.kind(oa[j]) == A.PLAY_TOKEN:
            idx[m] = j
            m += 1
    if m == 0:
        for j in range(k):
            if ov[j] >= best - EPS:
                idx[m] = j
                m += 1
    b = pick(ov, idx, m, xi[i0 + mo:i0 + 2 * mo], rng, use_rng)
    return ov[b], oa[b]


@njit(cache=True, _nrt=False, inline='always')
def step(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, L0: Level,
         L1: Level, rng: np.ndarray, use_rng: bool,
         must_act: bool) -> tuple[float, int, int]:
    """`Planner.step`: (value, final action, route in L0) for the seat to move."""
    seat = S[SEAT]
    phase = S[PHASE]
    if phase == ACTIONS:
        return turn_step(B, S, P, Rs, seat, L0, rng, use_rng, must_act)
    if phase == PLACE:
        b = place_step(B, S, P, seat, L0, rng, use_rng)
        return L0[4][b], L0[5][b], -1
    if phase == TURN_START:
        v, a = start_step(B, S, P, Rs, seat, L0, L1, rng, use_rng)
        return v, a, -1
    if phase == SETUP:
        d = R.below(rng, B[N_DISTRICTS]) if use_rng else 0
        return 0.0, A.place_bobby(d), -1
    raise ValueError("no decision to take in this phase")


@njit(cache=True, _nrt=False)
def options(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, L0: Level,
            L1: Level, rng: np.ndarray) -> int:
    """`sim.agents.mcts._options`: every option of the seat to move (deduplicated by final
    action) into level L0; returns the count."""
    ef, ei, ov, oa = L0[0], L0[1], L0[4], L0[5]
    mo = oa.shape[0] // 2
    seat = S[SEAT]
    phase = S[PHASE]
    if phase == ACTIONS:
        state(B, S, P, ef, ei)
        k = action_options(B, S, P, Rs, seat, L0, False)
        have_paths = S[ACTIONS_LEFT] > 0 and S[B[S_STALLS_LEFT] + seat] > 0
        v, d = leave_option(B, S, P, Rs, seat, L0, have_paths)
        ov[k] = v
        oa[k] = A.END
        oa[mo + k] = d
        return _dedupe(ov, oa, k + 1)
    if phase == PLACE:
        lane_state(B, S, P, ef, ei)
        return square_options(B, S, P, seat, L0)
    if phase == TURN_START:
        k = _dedupe(ov, oa, start_options(B, S, P, Rs, seat, L0, L1, rng))
        if k == 0:
            ov[0] = 0.0
            oa[0] = A.END
            oa[mo] = -1
            k = 1
        return k
    raise ValueError("no options in this phase")


@njit(cache=True, _nrt=False)
def _dedupe(ov: np.ndarray, oa: np.ndarray, k: int) -> int:
    """`sim.agents.mcts._dedupe`: one option per final action, at its first position, with
    the (first) best value."""
    mo = oa.shape[0] // 2
    m = 0
    for i in range(k):
        j = 0
        while j < m and oa[j] != oa[i]:
            j += 1
        if j == m:
            ov[m] = ov[i]
            oa[m] = oa[i]
            oa[mo + m] = oa[mo + i]
            m += 1
        elif ov[i] > ov[j]:
            ov[j] = ov[i]
            oa[mo + j] = oa[mo + i]
    return m


# -- the agent ---------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _queued_legal(B: np.ndarray, S: np.ndarray, P: np.ndarray, action: int,
                  buf: np.ndarray) -> bool:
    """`action in game.legal_actions()` in the actions phase, for the kinds a queue holds
    (Bobby moves, then a stall or the end of the turn) without listing them all."""
    kind = A.kind(action)
    bobby = S[BOBBY]
    seat = S[SEAT]
    if kind == A.END_TURN:
        return True
    if kind == A.MOVE_BOBBY:
        d = A.arg(action)
        for i in range(B[B[O_NEIGHBOURS_AT] + bobby], B[B[O_NEIGHBOURS_AT] + bobby + 1]):
            if B[B[O_NEIGHBOUR_DISTRICT] + i] == d:
                lane = B[B[O_NEIGHBOUR_LANE] + i]
                return bool(B[NEGATIVE_SCORES]) or \
                    move_margin(B, S, P, seat, lane)[1] <= S[B[S_SCORES] + seat]
        return False
    if kind == A.PLACE_STALL:
        lane = A.stall_lane(action)
        if S[ACTIONS_LEFT] <= 0 or S[B[S_STALLS_LEFT] + seat] <= 0:
            return False
        c = S[B[S_LANE_COUNT] + lane]
        if c >= B[B[O_LANE_LEN] + lane] or (c and S[B[S_LANE_DIR] + lane] != A.stall_end(action)):
            return False
        for i in range(B[B[O_DISTRICT_LANES_AT] + bobby], B[B[O_DISTRICT_LANES_AT] + bobby + 1]):
            if B[B[O_DISTRICT_LANES] + i] == lane:
                return True
        return False
    m = legal_actions(B, S, buf)
    found = False
    for i in range(m):
        found = found or buf[i] == action
    return found


@njit(cache=True, _nrt=False)
def choose_planner(B: np.ndarray, S: np.ndarray, rng: np.ndarray, P: np.ndarray,
                   Rs: np.ndarray, memory: np.ndarray, buf: np.ndarray, WF: np.ndarray,
                   WI: np.ndarray) -> int:
    """`PlannerAgent.choose`: the next queued Bobby move of the last option while it is
    still legal in the same turn, otherwise the planner's option (its first step now, the
    rest queued)."""
    turn = S[TURN]
    if memory[M_QLEN] > memory[M_QPOS] and memory[M_QTURN] == turn and S[PHASE] == ACTIONS:
        action = memory[M_Q + memory[M_QPOS]]
        memory[M_QPOS] += 1
        if _queued_legal(B, S, P, action, buf):
            return action
    memory[M_QLEN] = 0
    memory[M_QPOS] = 0
    L0 = _level(B, WF, WI, 0)
    L1 = _level(B, WF, WI, 1)
    phase = S[PHASE]
    must_act = memory[M_ACTED] != turn
    # The turn's plan (made at its start) evaluated the positions the turn is likely to
    # pass through: a position it has seen is decided from its plan slot, with the same
    # options, values and draws from the generator as a fresh evaluation.
    j = find_slot(B, S, L1, phase) if phase in (ACTIONS, PLACE) else -1
    if j >= 0:
        Ld, rec = _slot(B, L1, j)
        k = rec[B[S_SIZE] + 1]
        seat = S[SEAT]
        if phase == ACTIONS:
            _, last, route = _turn_decide(B, S, P, Rs, seat, Ld, k if S[ACTIONS_LEFT] > 0 else 0,
                                          S[B[S_STALLS_LEFT] + seat] > 0, rng, True, must_act)
        else:
            last = Ld[5][_pick_all(Ld[4], k, L1[7], B, rng, True)]
            route = -1
    else:
        if phase == TURN_START:
            clear_slots(B, L1)
        Ld = L0
        _, last, route = step(B, S, P, Rs, L0, L1, rng, True, must_act)
    if A.kind(last) in (A.PLACE_STALL, A.DRAW_CUSTOMER):
        memory[M_ACTED] = turn
    k = path_moves(B, Ld[3], route, memory, M_Q) if route >= 0 else 0
    memory[M_Q + k] = last
    memory[M_QLEN] = k + 1
    memory[M_QPOS] = 1
    memory[M_QTURN] = turn
    return memory[M_Q]


@njit(cache=True, _nrt=False)
def board_fits(B: np.ndarray) -> bool:
    """Whether the parameter row's power table covers every lane of the board."""
    longest = 0
    for lane in range(B[N_LANES]):
        longest = max(longest, B[B[O_LANE_LEN] + lane])
    return longest <= MAX_LANE_LEN


@njit(cache=True, _nrt=False)
def memory_size(n_districts: int) -> int:
    """Memory slots the planner agent needs per seat (the longest path + its last step)."""
    return M_Q + n_districts + 1
