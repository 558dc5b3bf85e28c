"""Token plays priced by the turn they give: the turn played out on a copy, and plan slots.

At a turn's start the planner prices each token by the actions it buys: `plan_values`
plays the rest of the turn out on a copy of the position (the best option, then the next,
..., the first of tied options, no draw from the generator) and records the running gain
after each action; `start_options` adds each token's gain to its token-term change and
lists the district scorings beside them.

Plan slots (speed, not behaviour): `plan_values` keeps every position its played-out turn
evaluates (the evaluation, paths and options, and the position itself) in slots at the end
of level 1's scratch (`sim.games.portobello.agents.compiled.plan_work.slot`). When the agent's real
turn then reaches one of those positions (it usually does: the plan is what the agent will play
unless a tie, a customer or `must_act` takes it elsewhere),
`sim.games.portobello.agents.compiled.planner.choose_planner` decides from the slot instead of
evaluating again: the same options and values, and the same draws from the generator. `find_slot`
compares everything but what no option value depends on (see there).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.games.portobello.agents.compiled.eval_deltas import token_delta
from sim.games.portobello.agents.compiled.evaluate import lane_state
from sim.games.portobello.agents.compiled.evaluate import state
from sim.games.portobello.agents.compiled.params import P_SIMULATE
from sim.games.portobello.agents.compiled.plan_bobby import path_moves
from sim.games.portobello.agents.compiled.plan_options import action_options
from sim.games.portobello.agents.compiled.plan_options import district_options
from sim.games.portobello.agents.compiled.plan_options import square_options
from sim.games.portobello.agents.compiled.plan_options import token_actions
from sim.games.portobello.agents.compiled.plan_pick import pick_all
from sim.games.portobello.agents.compiled.plan_work import Level
from sim.games.portobello.agents.compiled.plan_work import eval_f
from sim.games.portobello.agents.compiled.plan_work import eval_i
from sim.games.portobello.agents.compiled.plan_work import max_options
from sim.games.portobello.agents.compiled.plan_work import n_slots
from sim.games.portobello.agents.compiled.plan_work import new_level
from sim.games.portobello.agents.compiled.plan_work import option_actions
from sim.games.portobello.agents.compiled.plan_work import option_routes
from sim.games.portobello.agents.compiled.plan_work import option_values
from sim.games.portobello.agents.compiled.plan_work import path_f
from sim.games.portobello.agents.compiled.plan_work import path_i
from sim.games.portobello.agents.compiled.plan_work import plan_size
from sim.games.portobello.agents.compiled.plan_work import scratch_f
from sim.games.portobello.agents.compiled.plan_work import scratch_i
from sim.games.portobello.agents.compiled.plan_work import slot
from sim.games.portobello.agents.compiled.plan_work import slot_offsets
from sim.games.portobello.agents.compiled.plan_work import xf_gains
from sim.games.portobello.agents.compiled.plan_work import xf_plan
from sim.games.portobello.agents.compiled.plan_work import xf_sort
from sim.games.portobello.agents.compiled.plan_work import xi_copy
from sim.games.portobello.agents.compiled.plan_work import xi_tokens
from sim.games.portobello.agents.compiled.random_agent import R_DISTRICT
from sim.games.portobello.codes import ACTIONS
from sim.games.portobello.codes import PLACE
from sim.games.portobello.compiled import actions as A
from sim.games.portobello.compiled import fields as F
from sim.games.portobello.compiled.engine import apply
from sim.games.portobello.compiled.layout import ACTIONS_LEFT
from sim.games.portobello.compiled.layout import BAG_ARISTOCRATS
from sim.games.portobello.compiled.layout import BAG_CITIZENS
from sim.games.portobello.compiled.layout import END_REASON
from sim.games.portobello.compiled.layout import KNOWN_ORDER
from sim.games.portobello.compiled.layout import LOG_LEN
from sim.games.portobello.compiled.layout import LOG_OVERFLOW
from sim.games.portobello.compiled.layout import N_DISTRICTS
from sim.games.portobello.compiled.layout import N_PLAYERS
from sim.games.portobello.compiled.layout import N_TOKENS
from sim.games.portobello.compiled.layout import PHASE
from sim.games.portobello.compiled.layout import S_SIZE
from sim.games.portobello.compiled.layout import S_TOK_UP


@njit(cache=True, _nrt=False)
def plan_values(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, seat: int,
                steps: int, L1: Level, plan: np.ndarray, rng: np.ndarray, ef0: np.ndarray,
                ei0: np.ndarray) -> None:
    """The plan's running gains into plan[0..steps], played on a copy of S kept in level L1
    (`rng` is not drawn from: the plan takes the first of tied options). (ef0, ei0) is the
    evaluation of S itself. Every position the plan evaluates stays in a plan slot of L1
    (see `find_slot`)."""
    xf, xi = scratch_f(L1), scratch_i(L1)
    tp = xi_copy(B)
    size = B[S_SIZE]
    sim = xi[tp:tp + size]
    moves = xi[tp + size:tp + size + B[N_DISTRICTS] + 1]
    no_log = xi[0:0]
    clear_slots(B, L1)
    for i in range(size):
        sim[i] = S[i]
    sim[PHASE] = ACTIONS
    sim[ACTIONS_LEFT] = steps
    g0 = xf_gains(B)
    gains = xf[g0:g0 + plan_size(B)]
    gains[0] = 0.0
    ng = 1
    it = 0
    while sim[ACTIONS_LEFT] > 0 and sim[PHASE] == ACTIONS:
        here, record = slot(B, L1, 2 * it)
        if it == 0:  # the position is S's (actions left and phase are not evaluated)
            ef, ei = eval_f(here), eval_i(here)
            for i in range(ef0.shape[0]):
                ef[i] = ef0[i]
            for i in range(ei0.shape[0]):
                ei[i] = ei0[i]
        else:
            state(B, sim, P, eval_f(here), eval_i(here))
        k = action_options(B, sim, P, Rs, seat, here, np.bool_(False))
        _record(B, sim, record, np.int64(ACTIONS), k)
        if k == 0:
            break
        values = option_values(here)
        b = pick_all(values, k, xi, B, rng, np.bool_(False))
        value = values[b]
        if value <= 0:
            break
        last = option_actions(here)[b]
        route = option_routes(here)[b]
        if route >= 0:
            m = path_moves(B, path_i(here), route, moves, np.int64(0))
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
            placing, placed = slot(B, L1, 2 * it + 1)
            lane_state(B, sim, P, eval_f(placing), eval_i(placing))
            kp = square_options(B, sim, P, seat, placing)
            _record(B, sim, placed, np.int64(PLACE), kp)
            c = pick_all(option_values(placing), kp, xi, B, rng, np.bool_(False))
            apply(B, sim, option_actions(placing)[c], no_log)
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
    """A plan slot's record: the position S, the phase `kind` it was evaluated in and its
    number of options `k`."""
    size = B[S_SIZE]
    for i in range(size):
        rec[i] = S[i]
    rec[size] = kind
    rec[size + 1] = k


@njit(cache=True, _nrt=False)
def clear_slots(B: np.ndarray, L1: Level) -> None:
    """Forget every plan slot of L1."""
    xi = scratch_i(L1)
    for j in range(n_slots(B)):
        xi[slot_offsets(B, j)[2] + B[S_SIZE]] = 0


@njit(cache=True, _nrt=False)
def find_slot(B: np.ndarray, S: np.ndarray, L1: Level, kind: int) -> int:
    """The plan slot of L1 that evaluated the position S (phase `kind`), or -1. Positions
    are compared on everything but the actions left, the phase, the log counters and which
    tokens are face up: nothing an option's value depends on, except the token term in the
    values of a seat whose last stall would end the game; so there is no match then."""
    size = B[S_SIZE]
    if kind == ACTIONS and S[END_REASON] == 0:
        for p in range(B[N_PLAYERS]):
            if F.stalls_left(B, S, p) == 1:
                return -1
    xi = scratch_i(L1)
    tu0 = B[S_TOK_UP]
    tu1 = tu0 + B[N_PLAYERS] * B[N_TOKENS]
    r0 = slot_offsets(B, np.int64(0))[2]
    stride = slot_offsets(B, np.int64(1))[2] - r0
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
    """A turn start's options into level L0 (evaluated there): token plays priced by the
    turn they give (played out in L1 with `simulate`) and district scorings."""
    ef, ei, xf, xi = eval_f(L0), eval_i(L0), scratch_f(L0), scratch_i(L0)
    values, actions, routes = option_values(L0), option_actions(L0), option_routes(L0)
    t = B[N_TOKENS]
    mo = max_options(B)
    state(B, S, P, ef, ei)
    m = token_actions(B, S, seat, xi)
    tv = xi_tokens(B)
    k = 0
    if m:
        top = xi[tv]
        for j in range(1, m):
            if xi[tv + j] > top:
                top = xi[tv + j]
        p0 = xf_plan(B)
        plan = xf[p0:p0 + plan_size(B)]
        if P[P_SIMULATE] != 0.0:
            plan_values(B, S, P, Rs, seat, top, L1, plan, rng, ef, ei)
        else:
            # The options open now, priced with this position's cache (Planner: on a copy
            # with `top` actions left), best first.
            mixed = new_level(ef, ei, path_f(L1), path_i(L1), option_values(L1),
                              option_actions(L1), scratch_f(L1), scratch_i(L1))
            kk = action_options(B, S, P, Rs, seat, mixed, np.bool_(True))
            s0 = xf_sort(B)
            gains = xf[s0:s0 + mo]
            opened = option_values(L1)
            for j in range(kk):  # insertion sort, descending
                v = opened[j]
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
            values[k] = plan[value] + token_delta(B, S, P, ef, ei, seat, value)
            actions[k] = xi[tv + t + j]
            routes[k] = -1
            k += 1
    if not Rs[R_DISTRICT]:
        k = district_options(B, S, P, seat, L0, np.int64(k))
    return k
