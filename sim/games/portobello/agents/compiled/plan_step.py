"""The planner's decision in each phase (`step`), and every option for a search.

`step` picks the option of the seat to move (a turn's start: a token or a district; during
the turn: a stall, a draw or the end; a pending customer: its square; the setup: the
Bobby's district) and returns (value, final action, route). `options` lists every option of
the seat to move, one per final action, for the compiled search
(`sim.games.portobello.agents.compiled.mcts`). The thin layers here are inlined (`inline='always'`):
a call passes each array as seven words, and each extra layer between `play_batch` and the leaves
makes numba optimise the whole linked code once more at compile time. `step` itself is
inlined into the planner's decision only, not into the search's playouts, where that made
them slower (`sim.games.portobello.compiled.inlining`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.core import rng as R
from sim.games.portobello.agents.compiled.evaluate import lane_state
from sim.games.portobello.agents.compiled.evaluate import state
from sim.games.portobello.agents.compiled.params import P_MIN_GAIN
from sim.games.portobello.agents.compiled.plan_bobby import option_steps
from sim.games.portobello.agents.compiled.plan_options import action_options
from sim.games.portobello.agents.compiled.plan_options import leave_option
from sim.games.portobello.agents.compiled.plan_options import square_options
from sim.games.portobello.agents.compiled.plan_pick import EPS
from sim.games.portobello.agents.compiled.plan_pick import pick
from sim.games.portobello.agents.compiled.plan_pick import pick_all
from sim.games.portobello.agents.compiled.plan_turn import start_options
from sim.games.portobello.agents.compiled.plan_work import Level
from sim.games.portobello.agents.compiled.plan_work import eval_f
from sim.games.portobello.agents.compiled.plan_work import eval_i
from sim.games.portobello.agents.compiled.plan_work import level
from sim.games.portobello.agents.compiled.plan_work import max_options
from sim.games.portobello.agents.compiled.plan_work import option_actions
from sim.games.portobello.agents.compiled.plan_work import option_routes
from sim.games.portobello.agents.compiled.plan_work import option_values
from sim.games.portobello.agents.compiled.plan_work import scratch_i
from sim.games.portobello.agents.compiled.plan_work import xi_index
from sim.games.portobello.codes import ACTIONS
from sim.games.portobello.codes import PLACE
from sim.games.portobello.codes import SETUP
from sim.games.portobello.codes import TURN_START
from sim.games.portobello.compiled import actions as A
from sim.games.portobello.compiled import fields as F
from sim.games.portobello.compiled.inlining import into
from sim.games.portobello.compiled.layout import ACTIONS_LEFT
from sim.games.portobello.compiled.layout import N_DISTRICTS
from sim.games.portobello.compiled.layout import PHASE
from sim.games.portobello.compiled.layout import SEAT


@njit(cache=True, _nrt=False, inline='always')
def turn_step(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, seat: int,
              L: Level, rng: np.ndarray, use_rng: bool,
              must_act: bool) -> tuple[float, int, int]:
    """(value, final action, route) of the option to take now."""
    state(B, S, P, eval_f(L), eval_i(L))
    k = action_options(B, S, P, Rs, seat, L, np.bool_(False))
    have_paths = S[ACTIONS_LEFT] > 0 and F.stalls_left(B, S, seat) > 0
    return turn_decide(B, S, P, Rs, seat, L, k, have_paths, rng, use_rng, must_act)


@njit(cache=True, _nrt=False, inline='always')
def turn_decide(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, seat: int,
                L: Level, k: int, have_paths: bool, rng: np.ndarray, use_rng: bool,
                must_act: bool) -> tuple[float, int, int]:
    """The end of `turn_step`, given the k action options evaluated in L."""
    values = option_values(L)
    if k:
        b = pick_all(values, k, scratch_i(L), B, rng, use_rng)
        if must_act or values[b] >= P[P_MIN_GAIN] - EPS:
            return values[b], option_actions(L)[b], option_routes(L)[b]
    v, d = leave_option(B, S, P, Rs, seat, L, have_paths)
    return v, A.END, d


@njit(cache=True, _nrt=False, inline='always')
def place_step(B: np.ndarray, S: np.ndarray, P: np.ndarray, seat: int, L: Level,
               rng: np.ndarray, use_rng: bool) -> int:
    """The index (in L) of the option placing the pending customer."""
    lane_state(B, S, P, eval_f(L), eval_i(L))
    k = square_options(B, S, P, seat, L)
    return pick_all(option_values(L), k, scratch_i(L), B, rng, use_rng)


@njit(cache=True, _nrt=False, inline='always')
def start_step(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, seat: int,
               L0: Level, L1: Level, rng: np.ndarray,
               use_rng: bool) -> tuple[float, int]:
    """(value, action); a token play before a tied district scoring."""
    k = start_options(B, S, P, Rs, seat, L0, L1, rng)
    if k == 0:
        return 0.0, A.END
    values, actions, scratch = option_values(L0), option_actions(L0), scratch_i(L0)
    best = values[0]
    for j in range(1, k):
        if values[j] > best:
            best = values[j]
    i0 = xi_index(B)
    mo = max_options(B)
    idx = scratch[i0:i0 + mo]
    m = 0
    for j in range(k):  # tied plays first, to see whether there are any
        if values[j] >= best - EPS and A.kind(actions[j]) == A.PLAY_TOKEN:
            idx[m] = j
            m += 1
    if m == 0:
        for j in range(k):
            if values[j] >= best - EPS:
                idx[m] = j
                m += 1
    b = pick(values, idx, np.int64(m), scratch[i0 + mo:i0 + 2 * mo], rng, use_rng)
    return values[b], actions[b]


@njit(cache=True, _nrt=False, inline=into("choose_planner"))
def step(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, L0: Level,
         L1: Level, rng: np.ndarray, use_rng: bool,
         must_act: bool) -> tuple[float, int, int]:
    """(value, final action, route in L0) for the seat to move."""
    seat = S[SEAT]
    phase = S[PHASE]
    if phase == ACTIONS:
        return turn_step(B, S, P, Rs, seat, L0, rng, use_rng, must_act)
    if phase == PLACE:
        b = place_step(B, S, P, seat, L0, rng, use_rng)
        return option_values(L0)[b], option_actions(L0)[b], -1
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
    """Every option of the seat to move (deduplicated by final action) into level L0;
    returns the count."""
    ef, ei = eval_f(L0), eval_i(L0)
    values, actions, routes = option_values(L0), option_actions(L0), option_routes(L0)
    seat = S[SEAT]
    phase = S[PHASE]
    if phase == ACTIONS:
        state(B, S, P, ef, ei)
        k = action_options(B, S, P, Rs, seat, L0, np.bool_(False))
        have_paths = S[ACTIONS_LEFT] > 0 and F.stalls_left(B, S, seat) > 0
        v, d = leave_option(B, S, P, Rs, seat, L0, have_paths)
        values[k] = v
        actions[k] = A.END
        routes[k] = d
        return _dedupe(values, actions, routes, k + 1)
    if phase == PLACE:
        lane_state(B, S, P, ef, ei)
        return square_options(B, S, P, seat, L0)
    if phase == TURN_START:
        k = _dedupe(values, actions, routes, start_options(B, S, P, Rs, seat, L0, L1, rng))
        if k == 0:
            values[0] = 0.0
            actions[0] = A.END
            routes[0] = -1
            k = 1
        return k
    raise ValueError("no options in this phase")


@njit(cache=True, _nrt=False)
def _dedupe(values: np.ndarray, actions: np.ndarray, routes: np.ndarray, k: int) -> int:
    """One option per final action, at its first position, with the (first) best value."""
    m = 0
    for i in range(k):
        j = 0
        while j < m and actions[j] != actions[i]:
            j += 1
        if j == m:
            values[m] = values[i]
            actions[m] = actions[i]
            routes[m] = routes[i]
            m += 1
        elif values[i] > values[j]:
            values[j] = values[i]
            routes[j] = routes[i]
    return m


@njit(cache=True)
def every_option(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray,
                 WF: np.ndarray, WI: np.ndarray, rng: np.ndarray, values: np.ndarray,
                 steps: np.ndarray, lengths: np.ndarray) -> int:
    """Every option the planner weighs for the seat to move (`options`, one per final
    action), for people: option i's value into values[i], its steps into row i of `steps`
    (`lengths[i]` of them). Returns the count (at most `values.shape[0]`)."""
    L0 = level(B, WF, WI, 0)
    L1 = level(B, WF, WI, 1)
    k = min(options(B, S, P, Rs, L0, L1, rng), values.shape[0])
    for i in range(k):
        values[i] = option_values(L0)[i]
        lengths[i] = option_steps(B, L0, i, steps[i])
    return k
