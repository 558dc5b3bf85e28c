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
from sim.games.portobello.agents.compiled.plan_work import level
from sim.games.portobello.agents.compiled.plan_work import max_options
from sim.games.portobello.agents.compiled.plan_work import xi_index
from sim.games.portobello.codes import ACTIONS
from sim.games.portobello.codes import PLACE
from sim.games.portobello.codes import SETUP
from sim.games.portobello.codes import TURN_START
from sim.games.portobello.compiled import actions as A
from sim.games.portobello.compiled.inlining import into
from sim.games.portobello.compiled.layout import ACTIONS_LEFT
from sim.games.portobello.compiled.layout import N_DISTRICTS
from sim.games.portobello.compiled.layout import PHASE
from sim.games.portobello.compiled.layout import S_STALLS_LEFT
from sim.games.portobello.compiled.layout import SEAT


@njit(cache=True, _nrt=False, inline='always')
def turn_step(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, seat: int,
              L: Level, rng: np.ndarray, use_rng: bool,
              must_act: bool) -> tuple[float, int, int]:
    """(value, final action, route) of the option to take now."""
    state(B, S, P, L[0], L[1])
    k = action_options(B, S, P, Rs, seat, L, np.bool_(False))
    have_paths = S[ACTIONS_LEFT] > 0 and S[B[S_STALLS_LEFT] + seat] > 0
    return turn_decide(B, S, P, Rs, seat, L, k, have_paths, rng, use_rng, must_act)


@njit(cache=True, _nrt=False, inline='always')
def turn_decide(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, seat: int,
                L: Level, k: int, have_paths: bool, rng: np.ndarray, use_rng: bool,
                must_act: bool) -> tuple[float, int, int]:
    """The end of `turn_step`, given the k action options evaluated in L."""
    ov, oa = L[4], L[5]
    if k:
        b = pick_all(ov, k, L[7], B, rng, use_rng)
        if must_act or ov[b] >= P[P_MIN_GAIN] - EPS:
            return ov[b], oa[b], oa[oa.shape[0] // 2 + b]
    v, d = leave_option(B, S, P, Rs, seat, L, have_paths)
    return v, A.END, d


@njit(cache=True, _nrt=False, inline='always')
def place_step(B: np.ndarray, S: np.ndarray, P: np.ndarray, seat: int, L: Level,
               rng: np.ndarray, use_rng: bool) -> int:
    """The index (in L) of the option placing the pending customer."""
    lane_state(B, S, P, L[0], L[1])
    k = square_options(B, S, P, seat, L)
    return pick_all(L[4], k, L[7], B, rng, use_rng)


@njit(cache=True, _nrt=False, inline='always')
def start_step(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, seat: int,
               L0: Level, L1: Level, rng: np.ndarray,
               use_rng: bool) -> tuple[float, int]:
    """(value, action); a token play before a tied district scoring."""
    k = start_options(B, S, P, Rs, seat, L0, L1, rng)
    if k == 0:
        return 0.0, A.END
    ov, oa, xi = L0[4], L0[5], L0[7]
    best = ov[0]
    for j in range(1, k):
        if ov[j] > best:
            best = ov[j]
    i0 = xi_index(B)
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
    b = pick(ov, idx, np.int64(m), xi[i0 + mo:i0 + 2 * mo], rng, use_rng)
    return ov[b], oa[b]


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
    """Every option of the seat to move (deduplicated by final action) into level L0;
    returns the count."""
    ef, ei, ov, oa = L0[0], L0[1], L0[4], L0[5]
    mo = oa.shape[0] // 2
    seat = S[SEAT]
    phase = S[PHASE]
    if phase == ACTIONS:
        state(B, S, P, ef, ei)
        k = action_options(B, S, P, Rs, seat, L0, np.bool_(False))
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
    """One option per final action, at its first position, with the (first) best value."""
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
        values[i] = L0[4][i]
        lengths[i] = option_steps(B, L0, i, steps[i])
    return k
