"""The learned agent's decision (`expert`), compiled: among the planner's options (the same
candidates, in the same order, as the search's edges: `sim.agents.compiled.mcts.ranked`),
the one the network gives the largest advantage for the seat to move (its second output;
the first, the position's value, is for a search's leaves), with one network evaluation
per option and no search."""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.agents.compiled.features import features
from sim.agents.compiled.features import option_inputs
from sim.agents.compiled.mcts import idle_end
from sim.agents.compiled.mcts import ranked
from sim.agents.compiled.network import forward
from sim.agents.compiled.plan_bobby import option_steps
from sim.agents.compiled.plan_step import options
from sim.agents.compiled.plan_work import level
from sim.engine.compiled.engine import apply
from sim.engine.compiled.layout import PHASE
from sim.engine.compiled.layout import SEAT


@njit(cache=True)
def pick(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, WF: np.ndarray,
         WI: np.ndarray, rng: np.ndarray, width: int, must_act: bool, W: np.ndarray,
         L: np.ndarray, after: np.ndarray, X: np.ndarray, work: np.ndarray,
         out: np.ndarray, steps: np.ndarray, best_steps: np.ndarray, margin: float) -> int:
    """Write the steps of the option the network values most into `best_steps`; return
    how many (0: no option). An idle end of the turn is taken only when nothing else is
    open (`idle_end`). The planner's best candidate is kept unless another's advantage is
    more than `margin` above its own (0: the network decides alone)."""
    L0 = level(B, WF, WI, 0)
    L1 = level(B, WF, WI, 1)
    k = options(B, S, P, Rs, L0, L1, rng)
    if k == 0:
        return 0
    idx = np.empty(k, np.int64)
    ranked(L0[4], k, idx)
    me, phase = S[SEAT], S[PHASE]
    ov = L0[4]
    n = min(k, width)
    # The candidates: the `width` best by price, an idle end of the turn left out while
    # another is open (as the search's root leaves it out); ranks and price gaps are
    # counted over those kept, as the search's edges count them.
    keep = np.zeros(n, np.bool_)
    others = 0
    for r in range(n):
        m = option_steps(B, L0, idx[r], steps)
        keep[r] = not idle_end(steps[m - 1], phase, must_act)
        others += keep[r]
    no_log = np.zeros(0, np.int64)
    first_steps = np.empty_like(best_steps)
    best, best_m, rank, top = -np.inf, 0, 0, 0.0
    first_adv, first_m = 0.0, 0
    for r in range(n):
        if others and not keep[r]:
            continue
        m = option_steps(B, L0, idx[r], steps)
        if rank == 0:
            top = ov[idx[r]]
        after[:] = S
        for j in range(m):
            apply(B, after, steps[j], no_log)
        features(B, after, me, X)
        option_inputs(B, rank, width, top - ov[idx[r]], X)
        forward(W, L, X, work, out)
        if rank == 0:
            first_adv, first_m = out[1], m
            first_steps[:m] = steps[:m]
        if out[1] > best:  # the advantage (`sim.learning.fit.ADVANTAGE`)
            best, best_m = out[1], m
            best_steps[:m] = steps[:m]
        rank += 1
    if best - first_adv <= margin:
        best_steps[:first_m] = first_steps[:first_m]
        return first_m
    return best_m
