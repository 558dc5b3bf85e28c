"""Picking the best option: ties within EPS broken by the agent's generator.

Values within a tolerance of 1e-9 are tied; one draw of the agent's own generator picks
among the tied options, listed in option order, so a game replays from its seeds.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.core import rng as R
from sim.games.portobello.agents.compiled.plan_work import max_options
from sim.games.portobello.agents.compiled.plan_work import xi_index

EPS = 1e-9  # options within EPS of the best are tied


@njit(cache=True, _nrt=False)
def pick(values: np.ndarray, idx: np.ndarray, m: int, tied: np.ndarray, rng: np.ndarray,
         use_rng: bool) -> int:
    """`pick` over the options idx[:m]: the best, ties (within EPS) broken by the generator
    (or the first tied without one). Returns an option index."""
    best = values[idx[0]]
    for j in range(1, m):
        if values[idx[j]] > best:
            best = values[idx[j]]
    k = 0
    for j in range(m):
        if values[idx[j]] >= best - EPS:
            tied[k] = idx[j]
            k += 1
    if not use_rng or k == 1:
        return tied[0]
    return tied[R.below(rng, k)]


@njit(cache=True, _nrt=False)
def pick_all(values: np.ndarray, m: int, scratch_i: np.ndarray, B: np.ndarray, rng: np.ndarray,
             use_rng: bool) -> int:
    """`pick` over options 0..m-1 (index lists in a level's `scratch_i`)."""
    i0 = xi_index(B)
    mo = max_options(B)
    idx = scratch_i[i0:i0 + mo]
    for j in range(m):
        idx[j] = j
    return pick(values, idx, m, scratch_i[i0 + mo:i0 + 2 * mo], rng, use_rng)
