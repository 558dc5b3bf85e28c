"""The evaluation cache of a position: where each part of it lives in its two arrays.

`sim.games.portobello.agents.compiled.evaluate.state` evaluates a position once into a cache; the
`*_delta` functions of `sim.games.portobello.agents.compiled.eval_deltas` then price single actions
from it without touching the position again. The cache is two arrays, `ef` (float64) and `ei`
(int64), made by `new_state(B)` or carved out of the planner's work space
(`sim.games.portobello.agents.compiled.plan_work`);
`init_state` writes into `ei`'s header where each table of both arrays starts, since their
lengths depend on the board and the player count.

Scalars of ef (the header is FH = 8 long):

    F_E1 + c    (c = 0..3)  expected multiplier of a lane with customer c at one end and
                            the other end still empty (`pool`; c = 0: none)
    F_E2        expected multiplier of a lane with both ends empty
    F_POTW      weight of the district potential (district weight x horizon fade)
    F_STALLW    weight of a stall in hand (stall weight x horizon fade)
    F_TURNS     estimated turns left

Scalars of ei (the header is IH = 20 long): I_HAND (stalls in all hands together) and I_GEN
(the position's generation, advanced by every evaluation: it invalidates the memo below).
The other I_ slots hold where a table starts (`ei[I_X]`), in ei or in ef:

    in ei   I_OWN    own[lane * n + p]     sum of seat p's spot values in the lane
            I_LEAD   lead[lane]            the lane's majority leader (-1: none)
            I_DCNT   dcnt[d * n + p]       seat p's stalls bordering district d
            I_DTOK   dtok[p * t + i]       seat p's district tokens, largest first ...
            I_NDTOK  ndtok[p]              ... and how many
            I_TOP    top[p * nd + j]       open districts by (count, d) descending ...
            I_TOPC   topc[p * nd + j]      ... their counts ...
            I_NTOP   ntop[p]               ... and how many
            I_RANK   rank[p * nd + d]      d's place in top (nd if scored)
            I_STAMP  stamp[p * nl + lane]  generation the memo entry was computed at
    in ef   I_VAL    values[p]             each seat's value
            I_POT    pot[p]                each seat's district potential
            I_TAU    tau[p]                each seat's token term
            I_TERM   term[lane * n + p]    each seat's term of each lane
            I_BUMP   bump[p * nl + lane]   memo of the potential with one more stall in the
                                           lane (valid where stamp equals I_GEN)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.games.portobello.compiled.layout import N_DISTRICTS
from sim.games.portobello.compiled.layout import N_LANES
from sim.games.portobello.compiled.layout import N_PLAYERS
from sim.games.portobello.compiled.layout import N_TOKENS

# Float scalars of `ef`, and the length of its header.
F_E1, F_E2, F_POTW, F_STALLW, F_TURNS = 0, 4, 5, 6, 7
FH = 8
# Int scalars of `ei` and the offsets of the tables (see the module docstring), and the
# length of its header.
I_HAND, I_OWN, I_LEAD, I_DCNT, I_DTOK, I_NDTOK, I_TOP, I_TOPC, I_NTOP, I_VAL, I_POT, I_TAU, \
    I_TERM, I_GEN, I_RANK, I_STAMP, I_BUMP = range(17)
IH = 20


@njit(cache=True, _nrt=False)
def state_sizes(B: np.ndarray) -> tuple[int, int]:
    """Lengths of `ef` and `ei` for a board and rules."""
    n, nl, nd, t = B[N_PLAYERS], B[N_LANES], B[N_DISTRICTS], B[N_TOKENS]
    return (FH + 3 * n + nl * n + n * nl,
            IH + nl * n + nl + nd * n + n * t + n + 2 * n * nd + n + n * nd + n * nl)


@njit(cache=True, _nrt=False)
def init_state(B: np.ndarray, ef: np.ndarray, ei: np.ndarray) -> None:
    """Write the table offsets into a fresh `ei` (buffers of `state_sizes(B)` or longer)."""
    n, nl, nd, t = B[N_PLAYERS], B[N_LANES], B[N_DISTRICTS], B[N_TOKENS]
    ei[I_OWN] = IH
    ei[I_LEAD] = ei[I_OWN] + nl * n
    ei[I_DCNT] = ei[I_LEAD] + nl
    ei[I_DTOK] = ei[I_DCNT] + nd * n
    ei[I_NDTOK] = ei[I_DTOK] + n * t
    ei[I_TOP] = ei[I_NDTOK] + n
    ei[I_TOPC] = ei[I_TOP] + n * nd
    ei[I_NTOP] = ei[I_TOPC] + n * nd
    ei[I_RANK] = ei[I_NTOP] + n
    ei[I_STAMP] = ei[I_RANK] + n * nd
    ei[I_VAL] = FH
    ei[I_POT] = FH + n
    ei[I_TAU] = FH + 2 * n
    ei[I_TERM] = FH + 3 * n
    ei[I_BUMP] = ei[I_TERM] + nl * n
    ei[I_GEN] = 1
    for i in range(n * nl):
        ei[ei[I_STAMP] + i] = 0
    ef[0] = 0.0


@njit(cache=True)
def new_state(B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Empty evaluation buffers (ef, ei) for a board and rules."""
    fs, is_ = state_sizes(B)
    ef = np.zeros(fs, np.float64)
    ei = np.zeros(is_, np.int64)
    init_state(B, ef, ei)
    return ef, ei
