"""The planner's work space: two levels of scratch arrays, allocated once per run.

A decision needs scratch space for one position (its evaluation cache, Bobby paths, option
list and small buffers); pricing a token by playing its turn out
(`sim.games.portobello.agents.compiled.plan_turn`)
needs a second one for the copy. `new_work(B)` allocates two levels as rows of two arrays
(WF float64, WI int64) and `level(B, WF, WI, k)` returns level k as a tuple of views

    L = (ef, ei, pf, pi, ov, oa, xf, xi)

    ef, ei   the evaluation cache (`eval_cache`)
    pf, pi   Bobby paths (`plan_bobby`: costs; reached, previous
             district, moves, points lost, done, per-lane move cache, open list)
    ov       option values [max_options]
    oa       final actions oa[:max_options] and routes oa[max_options:] of the options
    xf       float scratch: delta[n] first, then per-lane chances [nl] (`xf[n + lane]`),
             the token plan at `xf_plan`, the plan's gains at `xf_gains`, a sort buffer at
             `xf_sort`, the other seats' potential changes of district scorings at
             `xf_others`, a second delta [n] for a draw's other customer at `xf_draw`;
             then the plan slots
    xi       int scratch: the token values and actions first (`xi_tokens`), two index lists
             at `xi_index`, the planning copy of S and a steps buffer at `xi_copy`; then
             the plan slots

Nothing is allocated while playing. Plan slots (`slot(B, L, j)`) are levels of their own
kept in level 1's scratch tail: see `sim.games.portobello.agents.compiled.plan_turn`.

Compilation notes (the speed depends on them): everything of the planner except the
allocators `new_work` and `level` is compiled without numba's reference counts
(`_nrt=False`): every array lives in the caller for the whole run, and the atomic increments
and decrements on every array argument cost a third of the time. So views made by a
function without counts must not be returned into counted code: `uncounted_level` and
`slot` are for the planner's uncounted code only (`level` is the counted counterpart), and a
function that calls them must not be inlined into counted code.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.games.portobello.agents.compiled.eval_cache import init_state
from sim.games.portobello.agents.compiled.eval_cache import state_sizes
from sim.games.portobello.compiled.layout import N_DISTRICTS
from sim.games.portobello.compiled.layout import N_LANES
from sim.games.portobello.compiled.layout import N_PLAYERS
from sim.games.portobello.compiled.layout import N_SQUARES
from sim.games.portobello.compiled.layout import N_TOKENS
from sim.games.portobello.compiled.layout import S_SIZE
from sim.games.portobello.compiled.layout import TOKEN_MAX

Level = tuple  # (ef, ei, pf, pi, ov, oa, xf, xi): see the module docstring
SLOT_META = 4  # per plan slot, after its position: kind, number of options (2 spare)


@njit(cache=True, _nrt=False)
def max_options(B: np.ndarray) -> int:
    """Room for any option list: stalls (2 per lane), a draw, the end, squares, tokens and
    district scorings."""
    return 2 * B[N_LANES] + B[N_SQUARES] + B[N_TOKENS] * (B[N_DISTRICTS] + 1) + 4


@njit(cache=True, _nrt=False)
def plan_size(B: np.ndarray) -> int:
    """Length of a token plan (gains after 0..TOKEN_MAX actions, one spare)."""
    return B[TOKEN_MAX] + 2


# -- where the scratch parts start (see the module docstring) --------------------------------
@njit(cache=True, _nrt=False, inline='always')
def xf_plan(B: np.ndarray) -> int:
    """The token plan in xf [plan_size], after delta[n] and the per-lane chances [nl]."""
    return B[N_PLAYERS] + B[N_LANES]


@njit(cache=True, _nrt=False, inline='always')
def xf_gains(B: np.ndarray) -> int:
    """The running gains of a played-out turn in xf [plan_size]."""
    return xf_plan(B) + plan_size(B)


@njit(cache=True, _nrt=False, inline='always')
def xf_sort(B: np.ndarray) -> int:
    """A sort buffer in xf [max_options]."""
    return xf_gains(B) + plan_size(B)


@njit(cache=True, _nrt=False, inline='always')
def xf_others(B: np.ndarray) -> int:
    """Each other seat's potential change when a district is scored, in xf
    [N_PLAYERS * N_DISTRICTS] (`plan_options.district_options`)."""
    return xf_sort(B) + max_options(B)


@njit(cache=True, _nrt=False, inline='always')
def xf_draw(B: np.ndarray) -> int:
    """The value change of a draw's other customer in xf [N_PLAYERS]
    (`sim.games.portobello.agents.compiled.plan_options.draw_value`)."""
    return xf_others(B) + B[N_PLAYERS] * B[N_DISTRICTS]


@njit(cache=True, _nrt=False, inline='always')
def xi_tokens(B: np.ndarray) -> int:
    """Token values [N_TOKENS], then their play_token actions [N_TOKENS], first in xi."""
    return 0


@njit(cache=True, _nrt=False, inline='always')
def xi_index(B: np.ndarray) -> int:
    """Two index lists in xi: option indices [max_options], then the tied ones
    [max_options]."""
    return xi_tokens(B) + 2 * B[N_TOKENS]


@njit(cache=True, _nrt=False, inline='always')
def xi_copy(B: np.ndarray) -> int:
    """The planning copy of S [S_SIZE], then a steps buffer [N_DISTRICTS + 1], in xi."""
    return xi_index(B) + 2 * max_options(B)


@njit(cache=True, _nrt=False)
def n_slots(B: np.ndarray) -> int:
    """Plan slots: an actions position and a customer-placing position per planned action
    (a plan has at most `top` <= TOKEN_MAX actions)."""
    return 2 * B[TOKEN_MAX]


@njit(cache=True, _nrt=False)
def _sizes(B: np.ndarray) -> tuple[int, int, int, int, int, int, int, int]:
    """Lengths of a level's (ef, ei, pf, pi, ov, oa, xf, xi): xf and xi are the scratch
    parts followed by the plan slots (`slot`)."""
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
    """Lengths of the scratch parts of xf (delta, chances, plan, gains, sort buffer, the
    others' district potentials, a second delta) and xi (token lists, two index lists, the
    planning copy of S, a steps buffer)."""
    return (xf_draw(B) + B[N_PLAYERS],
            xi_copy(B) + B[S_SIZE] + B[N_DISTRICTS] + 1)


@njit(cache=True, _nrt=False)
def slot_offsets(B: np.ndarray, j: int) -> tuple[int, int, int]:
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
def slot(B: np.ndarray, L: Level, j: int) -> tuple[Level, np.ndarray]:
    """Plan slot j kept in level L's scratch tail: a level (its own evaluation, paths and
    options; L's scratch) and its record: the position it evaluated (S_SIZE values), then
    SLOT_META entries (kind: 0 empty, ACTIONS or PLACE; the number of options)."""
    fs, is_ = state_sizes(B)
    nd, nl, n = B[N_DISTRICTS], B[N_LANES], B[N_PLAYERS]
    mo = max_options(B)
    pfs, pis = nd + nl + n, 5 * nd + 2 * nl + n + nd
    f0, i0, r0 = slot_offsets(B, j)
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
        L = uncounted_level(B, WF, WI, k)
        init_state(B, L[0], L[1])
        for j in range(n_slots(B)):
            lv, rec = slot(B, L, j)
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
def uncounted_level(B: np.ndarray, WF: np.ndarray, WI: np.ndarray, k: int) -> Level:
    """`level` without reference counts, for code compiled without them (`_nrt=False`):
    the views must not outlive WF and WI, nor be handed to reference-counted code that
    keeps them."""
    fs, is_, pfs, pis, ovs, oas, xfs, xis = _sizes(B)
    f = WF[k]
    i = WI[k]
    return (f[:fs], i[:is_], f[fs:fs + pfs], i[is_:is_ + pis], f[fs + pfs:fs + pfs + ovs],
            i[is_ + pis:is_ + pis + oas], f[fs + pfs + ovs:fs + pfs + ovs + xfs],
            i[is_ + pis + oas:is_ + pis + oas + xis])
