"""River Market's compiled vocabulary: the codes of phases, card kinds, places,
actions and their arguments; the game's own generator kept in the state; the small
accessors every part of the rules reads the state through (`sim.games.river.compiled` plays the
rules with them, `sim.games.river.scoring` scores)."""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.core.rng import mix
from sim.games.river.tables import K_KIND
from sim.games.river.tables import N_AB
from sim.games.river.tables import NRES
from sim.games.river.tables import R_NH
from sim.games.river.tables import R_O_AB
from sim.games.river.tables import R_O_HIRED
from sim.games.river.tables import R_O_RES
from sim.games.river.tables import R_O_RIVER
from sim.games.river.tables import RNG_CTR
from sim.games.river.tables import RNG_KEY

# Phases.
PH_TURN, PH_MOVE, PH_ACT, PH_PAY, PH_GAIN, PH_DISCOUNT, PH_OVER = range(7)
# Card kinds (tables.KIND_CODES) and where a card is.
KD_ACTION, KD_BOOTH, KD_EVENT, KD_HELPER, KD_START = range(5)
LOC_DECK, LOC_HAND, LOC_DISC, LOC_RIVER, LOC_HIRED = range(5)
# Actions: kind * 1000 + argument.
A_PLAY, A_MOVE, A_PLANK, A_FX, A_ATTEND, A_PAY, A_GAIN, A_DISCOUNT, A_END, A_PASS = range(1, 11)
# Uses of a played card (PLAY's argument: slot * 8 + use).
U_MOVE, U_ZOOM, U_BUILD, U_HIRE = 0, 1, 2, 6  # U_BUILD + end spot (0-3)
# What follows when the pending effects are done; how a plank is paid for or gained.
AFTER_ACT, AFTER_END = 0, 1
PAY_ANY, PAY_MATCH, PAY_DIFF = 1, 2, 3
GAIN_ANY, GAIN_DIFF = 1, 2
# Why the game ended.
END_HOUSES, END_TURNS = 1, 2
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, inline="always", _nrt=False)
def action(kind: int, arg: int) -> int:
    return kind * 1000 + arg


# -- the generator, kept in the state ---------------------------------------------------------
@njit(cache=True, _nrt=False)
def below(S: np.ndarray, n: int) -> int:
    """A whole number in [0, n) from the game's generator (Lemire's method, upper 32 bits)."""
    bound = np.uint64(n)
    while True:
        S[RNG_CTR] += 1
        z = mix(np.uint64(S[RNG_KEY]) + np.uint64(S[RNG_CTR]) * GOLDEN)
        m = (z >> np.uint64(32)) * bound
        low = m & np.uint64(0xFFFFFFFF)
        if low >= bound or low >= (np.uint64(0x100000000) - bound) % bound:
            return np.int64(m >> np.uint64(32))


@njit(cache=True, _nrt=False)
def shuffle(S: np.ndarray, at: int, n: int) -> None:
    """Shuffle S[at:at + n] (Fisher-Yates from the back)."""
    for i in range(n - 1, 0, -1):
        j = below(S, i + 1)
        S[at + i], S[at + j] = S[at + j], S[at + i]


# -- accessors --------------------------------------------------------------------------------
@njit(cache=True, inline="always", _nrt=False)
def res_at(R: np.ndarray, p: int, r: int) -> int:
    return R[R_O_RES] + p * NRES + r


@njit(cache=True, inline="always", _nrt=False)
def kind_of(CD: np.ndarray, CARD: np.ndarray, c: int) -> int:
    return CD[CARD[c], K_KIND]


@njit(cache=True, inline="always", _nrt=False)
def ability(R: np.ndarray, S: np.ndarray, p: int, which: int) -> int:
    """The sum of one ability (AB_STEPS, AB_HAND, AB_DISC) over `p`'s Helpers."""
    return S[R[R_O_AB] + p * N_AB + which]


@njit(cache=True, inline="always", _nrt=False)
def hired_at(R: np.ndarray, p: int) -> int:
    """Where `p`'s hired Helpers are listed (`S[R[R_O_NHIRED] + p]` of them)."""
    return R[R_O_HIRED] + p * R[R_NH]


@njit(cache=True, _nrt=False)
def goods_total(R: np.ndarray, S: np.ndarray, p: int) -> int:
    total = 0
    for r in range(1, NRES):
        total += S[res_at(R, p, r)]
    return total


@njit(cache=True, inline="always", _nrt=False)
def river_at(R: np.ndarray, S: np.ndarray, i: int) -> int:
    """The river's `i`-th Booth clockwise (the top row left to right, then the bottom row
    right to left)."""
    return S[R[R_O_RIVER] + i]
