"""The learned agent's decision (`expert`), compiled: among the planner's options (the same
candidates, in the same order, as the search's edges:
`sim.games.portobello.agents.compiled.mcts.ranked`), the one the network gives the largest advantage
for the seat to move (its second output; the first, the position's value, is for a search's leaves),
with one network evaluation per option and no search. `choose_expert` is the agent: the only
implementation, played in batches by `sim.games.portobello.agents.compiled.play` and seated at a
`Game` by `sim.games.portobello.agents.expert`, so both give the same game."""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.core import rng as R
from sim.games.portobello.agents.compiled.features import features
from sim.games.portobello.agents.compiled.features import option_inputs
from sim.games.portobello.agents.compiled.mcts import idle_end
from sim.games.portobello.agents.compiled.mcts import ranked
from sim.games.portobello.agents.compiled.network import ENTRY
from sim.games.portobello.agents.compiled.network import first_layer
from sim.games.portobello.agents.compiled.network import first_layer_moved
from sim.games.portobello.agents.compiled.network import rest
from sim.games.portobello.agents.compiled.plan_bobby import option_steps
from sim.games.portobello.agents.compiled.plan_step import options
from sim.games.portobello.agents.compiled.plan_work import max_options
from sim.games.portobello.agents.compiled.plan_work import option_values
from sim.games.portobello.agents.compiled.plan_work import uncounted_level
from sim.games.portobello.agents.compiled.planner import M_ACTED
from sim.games.portobello.agents.compiled.planner import M_Q
from sim.games.portobello.agents.compiled.planner import queued
from sim.games.portobello.agents.compiled.planner import start_queue
from sim.games.portobello.codes import SETUP
from sim.games.portobello.compiled.engine import apply
from sim.games.portobello.compiled.engine import legal_actions
from sim.games.portobello.compiled.layout import MAX_STEPS
from sim.games.portobello.compiled.layout import PHASE
from sim.games.portobello.compiled.layout import SEAT
from sim.games.portobello.compiled.layout import TURN


@njit(cache=True, _nrt=False)
def pick(B: np.ndarray, S: np.ndarray, P: np.ndarray, Rs: np.ndarray, WF: np.ndarray,
         WI: np.ndarray, rng: np.ndarray, width: int, must_act: bool, W: np.ndarray,
         L: np.ndarray, EW: tuple, best_steps: np.ndarray, margin: float) -> int:
    """Write the steps of the option the network values most into `best_steps`; return
    how many (0: no option). An idle end of the turn is taken only when nothing else is
    open (`idle_end`). The planner's best candidate is kept unless another's advantage is
    more than `margin` above its own (0: the network decides alone). `EW` is the work
    space (`expert_work`): nothing is allocated here, so batches can play it."""
    after, X, X0, h0, h, work, out, steps, first_steps, idx, keep, no_log = EW
    L0 = uncounted_level(B, WF, WI, np.int64(0))  # no reference counts here (`_nrt=False`)
    L1 = uncounted_level(B, WF, WI, np.int64(1))
    k = options(B, S, P, Rs, L0, L1, rng)
    if k == 0:
        return 0
    values = option_values(L0)
    ranked(values, k, idx)
    me, phase = S[SEAT], S[PHASE]
    n = min(k, width)
    # The candidates: the `width` best by price, an idle end of the turn left out while
    # another is open (as the search's root leaves it out); ranks and price gaps are
    # counted over those kept, as the search's edges count them.
    others = 0
    for r in range(n):
        m = option_steps(B, L0, idx[r], steps)
        keep[r] = not idle_end(steps[m - 1], phase, must_act)
        others += keep[r]
    if others == 1 or n == 1:  # one candidate: nothing for the network to weigh
        for r in range(n):
            if n == 1 or keep[r]:
                return option_steps(B, L0, idx[r], best_steps)
    # The first layer of the network for the position itself; each option's is moved from
    # it by the features the option changes (`sim.games.portobello.agents.compiled.network`).
    features(B, S, me, X0)
    option_inputs(B, 0, width, 0.0, X0)
    first_layer(W, L, X0, h0)
    best, best_m, rank, top = -np.inf, 0, 0, 0.0
    first_adv, first_m = 0.0, 0
    for r in range(n):
        if others and not keep[r]:
            continue
        m = option_steps(B, L0, idx[r], steps)
        if rank == 0:
            top = values[idx[r]]
        for j in range(S.shape[0]):
            after[j] = S[j]
        for j in range(m):
            apply(B, after, steps[j], no_log)
        features(B, after, me, X)
        option_inputs(B, rank, width, top - values[idx[r]], X)
        first_layer_moved(W, L, X, X0, h0, h)
        rest(W, L, h, work, out)
        if rank == 0:
            first_adv, first_m = out[1], m
            for j in range(m):
                first_steps[j] = steps[j]
        if out[1] > best:  # the advantage (`sim.learning.fit.ADVANTAGE`)
            best, best_m = out[1], m
            for j in range(m):
                best_steps[j] = steps[j]
        rank += 1
    if best - first_adv <= margin:
        for j in range(first_m):
            best_steps[j] = first_steps[j]
        return first_m
    return best_m


@njit(cache=True, _nrt=False)
def choose_expert(B: np.ndarray, S: np.ndarray, rng: np.ndarray, P: np.ndarray,
                  Rs: np.ndarray, memory: np.ndarray, buf: np.ndarray, WF: np.ndarray,
                  WI: np.ndarray, W: np.ndarray, L: np.ndarray, width: int, margin: float,
                  EW: tuple) -> int:
    """The learned agent's next action: the Bobby placed at random with its generator (as
    the search places it), then the queued steps of its last option while they stay legal
    in the same turn (as the planner plays them), otherwise the option `pick` chooses (its
    first step now, the rest queued). `EW` is the work space (`expert_work`)."""
    if S[PHASE] == SETUP:
        return buf[R.below(rng, legal_actions(B, S, buf))]
    action = queued(B, S, P, memory, buf)
    if action >= 0:
        return action
    turn = S[TURN]
    m = pick(B, S, P, Rs, WF, WI, rng, width, memory[M_ACTED] != turn, W, L, EW,
             memory[M_Q:], margin)
    return start_queue(memory, turn, m)


def expert_work(B: np.ndarray, S_size: int, inputs: int, widest: int, WF: np.ndarray,
                WI: np.ndarray) -> tuple[np.ndarray, ...]:
    """The work space `pick` needs for a network of `inputs` inputs and at most `widest`
    units a layer: the position after an option, the network's inputs for it and for the
    position itself, the first layer's sums for both, two rows of activations, its
    outputs, an option's steps and the first candidate's, the options' order and which are
    kept, an empty record."""
    options = int(max_options(B))
    room = int(B[MAX_STEPS]) + 1
    return (np.zeros(S_size, np.int64), np.zeros(inputs), np.zeros(inputs),
            np.zeros(widest), np.zeros(widest), np.zeros((2, widest)),
            np.zeros(2), np.zeros(room, np.int64), np.zeros(room, np.int64),
            np.zeros(options, np.int64), np.zeros(options, np.bool_), np.zeros(0, np.int64))


def pack_networks(entries: list[tuple[np.ndarray, np.ndarray, int, float] | None]
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The networks of an agent table, one entry per row (`(W, L, width, margin)`, None for
    an agent without one) as the batches read them: every `W` in one array (`NW`), each
    row's layer index with its blocks' starts moved there (`NL[a, 1:1 + NL[a, 0]]`), each
    row's width and margin (`NO`)."""
    longest = max((len(e[1]) for e in entries if e is not None), default=0)
    NL = np.zeros((len(entries), 1 + longest), np.int64)
    NO = np.zeros((len(entries), 2), np.float64)
    blocks, at = [], 0
    for a, e in enumerate(entries):
        if e is None:
            continue
        W, L, width, margin = e
        moved = np.array(L, np.int64)
        moved[2::ENTRY] += at
        NL[a, 0] = len(L)
        NL[a, 1:1 + len(L)] = moved
        NO[a] = (width, margin)
        blocks.append(np.asarray(W, np.float64))
        at += len(W)
    return (np.concatenate(blocks) if blocks else np.zeros(0)), NL, NO
