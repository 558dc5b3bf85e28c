"""The random agent (`sim.games.portobello.agents.random_agent`) and agent restrictions, compiled.

One implementation, played in batches and at a `Game` alike: the filtering of restricted
actions, its lists in engine order and its calls to the generator are the same either way.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.core import rng as R
from sim.games.portobello.codes import ACTIONS
from sim.games.portobello.codes import N_KINDS
from sim.games.portobello.codes import TURN_START
from sim.games.portobello.compiled import actions as A
from sim.games.portobello.compiled import fields as F
from sim.games.portobello.compiled.engine import bobby_moves
from sim.games.portobello.compiled.engine import every_move_affordable
from sim.games.portobello.compiled.engine import legal_actions
from sim.games.portobello.compiled.engine import neighbour_count
from sim.games.portobello.compiled.engine import neighbour_move
from sim.games.portobello.compiled.engine import stall_and_draw_actions
from sim.games.portobello.compiled.engine import turn_start_action
from sim.games.portobello.compiled.engine import turn_start_counts
from sim.games.portobello.compiled.layout import PHASE
from sim.games.portobello.compiled.layout import TURN

# Restriction flags (sim.games.portobello.agents.base.Restrictions), one int64 each.
R_DISTRICT, R_CUSTOMERS, R_BOBBY, R_FIRST_END = range(4)
# Random agent parameters (float64) and per-game memory (int64).
P_MOVE_CHANCE, P_MAX_MOVES = 0, 1
M_MOVES, M_TURN = 0, 1


@njit(cache=True, inline="always", _nrt=False)
def restricted(restrict: np.ndarray) -> bool:
    """Whether any restriction flag is set (an unrestricted agent takes the engine's lists
    as they are)."""
    return bool(restrict[R_DISTRICT] or restrict[R_CUSTOMERS] or restrict[R_BOBBY]
                or restrict[R_FIRST_END])


@njit(cache=True, _nrt=False, forceinline=False)
def allows(B: np.ndarray, S: np.ndarray, restrict: np.ndarray, action: int) -> bool:
    """`Restrictions.allows`."""
    k = A.kind(action)
    if k == A.SCORE_DISTRICT:
        return not restrict[R_DISTRICT]
    if k == A.DRAW_CUSTOMER:
        return not restrict[R_CUSTOMERS]
    if k == A.MOVE_BOBBY:
        return not restrict[R_BOBBY]
    if k == A.PLACE_STALL and restrict[R_FIRST_END] and A.stall_end(action):
        return F.lane_count(B, S, A.stall_lane(action)) > 0
    return True


@njit(cache=True, _nrt=False, forceinline=False)
def agent_legal(B: np.ndarray, S: np.ndarray, restrict: np.ndarray, out: np.ndarray) -> int:
    """`BaseAgent.legal_actions`: the legal actions minus the restricted ones."""
    m = legal_actions(B, S, out)
    if not restricted(restrict):
        return m
    k = 0
    for i in range(m):
        if allows(B, S, restrict, out[i]):
            out[k] = out[i]
            k += 1
    if k == 0:
        if S[PHASE] == ACTIONS:
            out[0] = A.END
            return 1
        return legal_actions(B, S, out)
    return k


# Inlined by LLVM into its callers, the game loop above all: a call passes each of its eight
# arrays as seven machine words, and those calls took about a fifth of a random game. numba
# passes `forceinline` on to the functions it compiles for this one, so the larger ones it
# calls say `forceinline=False` (`sim.games.portobello.compiled`).
@njit(cache=True, _nrt=False, forceinline=True)
def choose_random(B: np.ndarray, S: np.ndarray, rng: np.ndarray, params: np.ndarray,
                  restrict: np.ndarray, memory: np.ndarray, buf: np.ndarray,
                  buf2: np.ndarray) -> int:
    """The random agent's choice for the seat to move (what `RandomAgent.choose` returns at
    a `Game`)."""
    phase = S[PHASE]
    if phase == ACTIONS:
        listed = True
        if S[TURN] != memory[M_TURN]:
            memory[M_TURN] = S[TURN]
            memory[M_MOVES] = 0
        if restricted(restrict):
            m = agent_legal(B, S, restrict, buf)
            n_useful = 0
            for i in range(m):
                k = A.kind(buf[i])
                if k in (A.PLACE_STALL, A.DRAW_CUSTOMER):
                    buf2[n_useful] = buf[i]
                    n_useful += 1
            n_moves = 0
            for i in range(m):
                if A.kind(buf[i]) == A.MOVE_BOBBY:
                    buf[n_moves] = buf[i]  # compacts in place: n_moves <= i
                    n_moves += 1
        else:
            # Unrestricted: the two lists straight from the engine, in the same order, and
            # the moves only while the agent may still move.
            # When every move is affordable the moves are the Bobby's neighbours, counted
            # without listing them (`neighbour_move` names the one drawn).
            n_useful = stall_and_draw_actions(B, S, buf2, 0)
            n_moves = 0
            if memory[M_MOVES] < params[P_MAX_MOVES]:
                if every_move_affordable(B, S):
                    n_moves = neighbour_count(B, S)
                    listed = False
                else:
                    n_moves = bobby_moves(B, S, buf, np.int64(0))
        if n_moves and memory[M_MOVES] < params[P_MAX_MOVES] and (
                n_useful == 0 or R.random(rng) < params[P_MOVE_CHANCE]):
            memory[M_MOVES] += 1
            i = R.below(rng, n_moves)
            return buf[i] if listed else neighbour_move(B, S, i)
        if n_useful:
            return buf2[R.below(rng, n_useful)]
        return A.END
    if phase == TURN_START and not restricted(restrict):
        # Unrestricted: the same choice, from the engine's counts of the two kinds (token
        # plays, then district scorings, as in the legal list) without listing them.
        plays, scorings = turn_start_counts(B, S)
        if plays + scorings > 1:
            kinds = (plays > 0) + (scorings > 0)
            scoring = R.below(rng, kinds) == 1 or plays == 0
            return turn_start_action(B, S, scoring, R.below(rng, scorings if scoring
                                                                else plays))
        R.below(rng, 1)  # the one legal action is drawn from a list of one, as below
        return turn_start_action(B, S, scorings > 0, np.int64(0))
    m = agent_legal(B, S, restrict, buf)
    if phase == TURN_START and m > 1:
        # The kinds present, ascending (sorted set): a bit set of kinds, bit k for kind k.
        # Then one action of the chosen kind.
        present = 0
        for i in range(m):
            present |= 1 << A.kind(buf[i])
        n_kinds = 0
        for k in range(N_KINDS):
            if present & (1 << k):
                buf2[n_kinds] = k
                n_kinds += 1
        chosen = buf2[R.below(rng, n_kinds)]
        n_of = 0
        for i in range(m):
            if A.kind(buf[i]) == chosen:
                buf2[n_of] = buf[i]
                n_of += 1
        return buf2[R.below(rng, n_of)]
    return buf[R.below(rng, m)]
