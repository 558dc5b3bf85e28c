"""The planner's work space: two levels of scratch arrays, allocated once per run.

A decision needs scratch space for one position (its evaluation cache, Bobby paths, option
list and small buffers); pricing a token by playing its turn out
(`sim.games.portobello.agents.compiled.plan_turn`)
needs a second one for the copy. `new_work(B)` allocates two levels as rows of two arrays
(WF float64, WI int64) and `level(B, WF, WI, k)` returns level k, a `Level`: a tuple of
eight views, each read through its accessor below (a plain tuple rather than a NamedTuple:
numba's name of a NamedTuple type does not read back from `compile_order.txt`, the plan of
a first compile's helper process):

    eval_f, eval_i   the evaluation cache (`eval_cache`: its ef and ei)
    path_f, path_i   Bobby paths (`plan_bobby`: costs; reached, previous district, moves,
                     points lost, done, per-lane move cache, open list)
    option_values    the options' values [max_options]
    option_actions   the options' final actions [max_options], then their routes
                     (`option_routes`, [max_options])
    scratch_f        float scratch: delta[n] first, then per-lane chances [nl]
                     (`scratch_f[n + lane]`), the token plan at `xf_plan`, the plan's gains at
                     `xf_gains`, a sort buffer at `xf_sort`, the other seats' potential
                     changes of district scorings at `xf_others`, a second delta [n] for a
                     draw's other customer at `xf_draw`; then the plan slots
    scratch_i        int scratch: the token values and actions first (`xi_tokens`), two
                     index lists at `xi_index`, the planning copy of S and a steps buffer at
                     `xi_copy`; then the plan slots

Nothing is allocated while playing. Plan slots (`slot(B, L, j)`) are levels of their own
kept in level 1's scratch tail: see `sim.games.portobello.agents.compiled.plan_turn`.

Compilation notes (the speed depends on them): everything of the planner except the
allocators `new_work` and `level` is compiled without numba's reference counts
(`_nrt=False`): every array lives in the caller for the whole run, and the atomic increments
and decrements on every array argument cost a third of the time. So views made by a
function without counts must not be returned into counted code: `uncounted_level` and
`slot` are for the planner's uncounted code only (`level` is the counted counterpart), and a
function that calls them must not be inlined into counted code. A level's accessors are
inlined in numba's own IR (`inline='always'`), so each is compiled as part of its caller,
counted or not.
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

# A work level: (eval_f, eval_i, path_f, path_i, option_values, option_actions, scratch_f,
# scratch_i), float64 and int64 views of the work arrays, made by `new_level` and read
# through the accessors below (numba types it as a tuple of eight arrays).
Level = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
              np.ndarray, np.ndarray]
SLOT_META = 4  # per plan slot, after its position: kind, number of options (2 spare)


# -- a level's parts (inlined: a level is a tuple of views, taken apart where it is read) ----
@njit(cache=True, _nrt=False, inline='always')
def new_level(eval_f: np.ndarray, eval_i: np.ndarray, path_f: np.ndarray, path_i: np.ndarray,
              option_values: np.ndarray, option_actions: np.ndarray, scratch_f: np.ndarray,
              scratch_i: np.ndarray) -> Level:
    """A level of these parts (see the module docstring)."""
    return (eval_f, eval_i, path_f, path_i, option_values, option_actions, scratch_f,
            scratch_i)


@njit(cache=True, _nrt=False, inline='always')
def eval_f(L: Level) -> np.ndarray:
    """The level's evaluation cache, its floats (`eval_cache`'s ef)."""
    return L[0]


@njit(cache=True, _nrt=False, inline='always')
def eval_i(L: Level) -> np.ndarray:
    """The level's evaluation cache, its ints (`eval_cache`'s ei)."""
    return L[1]


@njit(cache=True, _nrt=False, inline='always')
def path_f(L: Level) -> np.ndarray:
    """The level's Bobby paths, their floats (`plan_bobby`'s pf)."""
    return L[2]


@njit(cache=True, _nrt=False, inline='always')
def path_i(L: Level) -> np.ndarray:
    """The level's Bobby paths, their ints (`plan_bobby`'s pi)."""
    return L[3]


@njit(cache=True, _nrt=False, inline='always')
def option_values(L: Level) -> np.ndarray:
    """The level's option values."""
    return L[4]


@njit(cache=True, _nrt=False, inline='always')
def option_actions(L: Level) -> np.ndarray:
    """The level's options' final actions (their routes follow: `option_routes`)."""
    return L[5]


@njit(cache=True, _nrt=False, inline='always')
def option_routes(L: Level) -> np.ndarray:
    """The level's options' routes: the district whose Bobby path precedes the final action
    (-1: none)."""
    actions = L[5]
    return actions[actions.shape[0] // 2:]


@njit(cache=True, _nrt=False, inline='always')
def scratch_f(L: Level) -> np.ndarray:
    """The level's float scratch (see the module docstring)."""
    return L[6]


@njit(cache=True, _nrt=False, inline='always')
def scratch_i(L: Level) -> np.ndarray:
    """The level's int scratch (see the module docstring)."""
    return L[7]


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
def _path_sizes(B: np.ndarray) -> tuple[int, int]:
    """Lengths of a level's Bobby paths (path_f, path_i: `plan_bobby`)."""
    n, nl, nd = B[N_PLAYERS], B[N_LANES], B[N_DISTRICTS]
    return nd + nl + n, 5 * nd + 2 * nl + n + nd


@njit(cache=True, _nrt=False)
def _sizes(B: np.ndarray) -> tuple[int, int, int, int, int, int, int, int]:
    """Lengths of a level's parts, in their order: the scratch parts are followed by the
    plan slots (`slot`)."""
    eval_fs, eval_is = state_sizes(B)
    options = max_options(B)
    path_fs, path_is = _path_sizes(B)
    scratch_fs, scratch_is = _scratch_sizes(B)
    slots = n_slots(B)
    return (eval_fs, eval_is, path_fs, path_is, options, 2 * options,
            scratch_fs + slots * (eval_fs + path_fs + options),
            scratch_is + slots * (eval_is + path_is + 2 * options + B[S_SIZE] + SLOT_META))


@njit(cache=True, _nrt=False)
def _scratch_sizes(B: np.ndarray) -> tuple[int, int]:
    """Lengths of the scratch parts of xf (delta, chances, plan, gains, sort buffer, the
    others' district potentials, a second delta) and xi (token lists, two index lists, the
    planning copy of S, a steps buffer)."""
    return (xf_draw(B) + B[N_PLAYERS],
            xi_copy(B) + B[S_SIZE] + B[N_DISTRICTS] + 1)


@njit(cache=True, _nrt=False)
def slot_offsets(B: np.ndarray, j: int) -> tuple[int, int, int]:
    """Where plan slot j starts in a level's scratch_f and scratch_i, and where its record
    starts in scratch_i."""
    eval_fs, eval_is = state_sizes(B)
    options = max_options(B)
    path_fs, path_is = _path_sizes(B)
    scratch_fs, scratch_is = _scratch_sizes(B)
    f0 = scratch_fs + j * (eval_fs + path_fs + options)
    i0 = scratch_is + j * (eval_is + path_is + 2 * options + B[S_SIZE] + SLOT_META)
    return f0, i0, i0 + eval_is + path_is + 2 * options


@njit(cache=True, _nrt=False)
def slot(B: np.ndarray, L: Level, j: int) -> tuple[Level, np.ndarray]:
    """Plan slot j kept in level L's scratch tail: a level (its own evaluation, paths and
    options; L's scratch) and its record: the position it evaluated (S_SIZE values), then
    SLOT_META entries (kind: 0 empty, ACTIONS or PLACE; the number of options)."""
    eval_fs, eval_is = state_sizes(B)
    options = max_options(B)
    path_fs, path_is = _path_sizes(B)
    f0, i0, r0 = slot_offsets(B, j)
    floats, ints = scratch_f(L), scratch_i(L)
    paths = i0 + eval_is
    listed = paths + path_is
    part = new_level(floats[f0:f0 + eval_fs], ints[i0:paths],
                     floats[f0 + eval_fs:f0 + eval_fs + path_fs], ints[paths:listed],
                     floats[f0 + eval_fs + path_fs:f0 + eval_fs + path_fs + options],
                     ints[listed:listed + 2 * options], floats, ints)
    return part, ints[r0:r0 + B[S_SIZE] + SLOT_META]


@njit(cache=True)
def new_work(B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two work levels (see the module docstring) as rows of (WF float64, WI int64)."""
    eval_fs, eval_is, path_fs, path_is, values, actions, scratch_fs, scratch_is = _sizes(B)
    WF = np.zeros((2, eval_fs + path_fs + values + scratch_fs), np.float64)
    WI = np.zeros((2, eval_is + path_is + actions + scratch_is), np.int64)
    _init_work(B, WF, WI)
    return WF, WI


@njit(cache=True, _nrt=False)
def _init_work(B: np.ndarray, WF: np.ndarray, WI: np.ndarray) -> None:
    """Table offsets of every evaluation cache in the work space (levels and slots)."""
    for k in range(2):
        L = uncounted_level(B, WF, WI, k)
        init_state(B, eval_f(L), eval_i(L))
        for j in range(n_slots(B)):
            part, record = slot(B, L, j)
            init_state(B, eval_f(part), eval_i(part))
            record[B[S_SIZE]] = 0


@njit(cache=True, _nrt=False, inline='always')
def _level_of(B: np.ndarray, f: np.ndarray, i: np.ndarray) -> Level:
    """The level laid out in the rows `f` (floats) and `i` (ints) of the work space."""
    eval_fs, eval_is, path_fs, path_is, values, actions, scratch_fs, scratch_is = _sizes(B)
    f_paths, f_values, f_scratch = eval_fs, eval_fs + path_fs, eval_fs + path_fs + values
    i_paths, i_actions, i_scratch = eval_is, eval_is + path_is, eval_is + path_is + actions
    return new_level(f[:eval_fs], i[:eval_is], f[f_paths:f_values], i[i_paths:i_actions],
                     f[f_values:f_scratch], i[i_actions:i_scratch],
                     f[f_scratch:f_scratch + scratch_fs], i[i_scratch:i_scratch + scratch_is])


@njit(cache=True)
def level(B: np.ndarray, WF: np.ndarray, WI: np.ndarray, k: int) -> Level:
    """Work level k (reference counted: safe to call from any compiled code)."""
    return _level_of(B, WF[k], WI[k])


@njit(cache=True, _nrt=False)
def uncounted_level(B: np.ndarray, WF: np.ndarray, WI: np.ndarray, k: int) -> Level:
    """`level` without reference counts, for code compiled without them (`_nrt=False`):
    the views must not outlive WF and WI, nor be handed to reference-counted code that
    keeps them."""
    return _level_of(B, WF[k], WI[k])
