"""Compiled information-set MCTS: the search of `sim.agents.mcts`, in numba.

The same design as the reference agent (see its docstring): each iteration samples an
order of the customers left in the bag with the agent's own generator; edges are the
planner's options (Bobby path + step), the `width` best by the heuristic's price, with
softmax priors for PUCT; a new leaf is rolled out with the planner's fast policy to the
searching seat's next turn plus `horizon` rounds and scored by the evaluation margin
squashed to [0, 1]. It runs about a hundred times more iterations in the same time, which
is what makes it stronger at the same wall-clock budget. It does not keep subtrees between
decisions (a fresh tree costs little at this speed).

The tree lives in preallocated arrays (`new_tree`); the Python agent calls `begin` once per
decision, `iterate` in short chunks until its budget is spent (the clock stays in Python),
then `best`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from sim.engine.codes import ACTIONS
from sim.engine.codes import CHANCE
from sim.engine.codes import OVER
from sim.engine.codes import TURN_START
from sim.fast import actions as A
from sim.fast import rng as R
from sim.fast.engine import apply
from sim.fast.evaluate import state
from sim.fast.evaluate import value_margins
from sim.fast.layout import ACTION_ROOM
from sim.fast.layout import BAG_ARISTOCRATS
from sim.fast.layout import BAG_CITIZENS
from sim.fast.layout import KNOWN_ORDER
from sim.fast.layout import MAX_STEPS
from sim.fast.layout import N_PLAYERS
from sim.fast.layout import PHASE
from sim.fast.layout import S_SCORES
from sim.fast.layout import SEAT
from sim.fast.layout import TURN
from sim.fast.plan_bobby import option_steps
from sim.fast.plan_bobby import path_moves
from sim.fast.plan_step import options
from sim.fast.plan_step import step
from sim.fast.plan_work import Level
from sim.fast.plan_work import level
from sim.fast.random_agent import M_MOVES
from sim.fast.random_agent import M_TURN
from sim.fast.random_agent import choose_random

# Search settings, one float64 row.
C, TEMP, WIDTH, HORIZON, SCALE, RANK, RANDOM_ROLLOUT, EXPAND = range(8)
N_SETTINGS = 8
UNSET = -2  # a node whose options are not known yet


def new_tree(nodes: int, width: int) -> tuple[np.ndarray, ...]:
    """Arrays for a tree of up to `nodes` nodes with up to `width` edges each: node (visits,
    first edge, edge count, chooser seat, chance children x2) int64, node value float64,
    edge (final action, child, step count, first step) int64, edge prior float64, the
    steps of all edges int64, and the counts of nodes, edges and steps in use."""
    edges = nodes * width
    return (np.zeros((nodes, 6), np.int64), np.zeros(nodes, np.float64),
            np.zeros((edges, 4), np.int64), np.zeros(edges, np.float64),
            np.zeros(edges * 3, np.int64), np.zeros(3, np.int64))


RANDOM_PARAMS = np.array([0.25, 2.0])  # the random agent's defaults (move_chance, max_moves)
# Node columns, edge columns, counts.
NV, NFIRST, NK, NSEAT, NCC1, NCC2 = range(6)
EA, ECHILD, ENSTEPS, ESTEP0 = range(4)
COUNT_NODES, COUNT_EDGES, COUNT_STEPS = range(3)


@njit(cache=True)
def _new_node(T: tuple) -> int:
    node, nw, counts = T[0], T[1], T[5]
    i = counts[COUNT_NODES]
    if i >= node.shape[0]:
        return -1
    counts[COUNT_NODES] = i + 1
    node[i, NV] = 0
    node[i, NFIRST] = 0
    node[i, NK] = 0
    node[i, NSEAT] = UNSET
    node[i, NCC1] = -1
    node[i, NCC2] = -1
    nw[i] = 0.0
    return i


@njit(cache=True)
def _expand(B: np.ndarray, S: np.ndarray, T: tuple, x: int, P: np.ndarray, Rs: np.ndarray,
            L0: Level, L1: Level, rng: np.ndarray, settings: np.ndarray) -> None:
    """Give node x the `width` best options of the seat to move, with softmax priors."""
    node, edge, prior, steps, counts = T[0], T[2], T[3], T[4], T[5]
    k = options(B, S, P, Rs, L0, L1, rng)
    ov = L0[4]
    width = min(k, int(settings[WIDTH]))
    if counts[COUNT_EDGES] + width > edge.shape[0]:
        width = 0
    # Indices by value, best first, stable (the reference sorts by -value).
    idx = np.empty(k, np.int64)
    for i in range(k):
        j = i
        while j > 0 and ov[idx[j - 1]] < ov[i]:
            idx[j] = idx[j - 1]
            j -= 1
        idx[j] = i
    first = counts[COUNT_EDGES]
    top = ov[idx[0]] if k else 0.0
    total = 0.0
    for r in range(width):
        e = first + r
        i = idx[r]
        at = counts[COUNT_STEPS]
        if at + B[MAX_STEPS] > steps.shape[0]:  # no room left for steps: stop growing
            width = r
            break
        m = option_steps(B, L0, i, steps[at:at + B[MAX_STEPS]])
        counts[COUNT_STEPS] = at + m
        edge[e, EA] = steps[at + m - 1]
        edge[e, ECHILD] = -1
        edge[e, ENSTEPS] = m
        edge[e, ESTEP0] = at
        prior[e] = math.exp((ov[i] - top) / settings[TEMP])
        total += prior[e]
    for r in range(width):
        prior[first + r] /= total
    counts[COUNT_EDGES] = first + width
    node[x, NFIRST] = first
    node[x, NK] = width
    node[x, NSEAT] = S[SEAT]


@njit(cache=True)
def _select(T: tuple, x: int, c: float) -> int:
    """PUCT: mean value + c x prior x sqrt(visits) / (1 + child visits)."""
    node, nw, edge, prior = T[0], T[1], T[2], T[3]
    sqrt_n = math.sqrt(node[x, NV] + 1)
    fpu = nw[x] / node[x, NV] if node[x, NV] else 0.5
    best = node[x, NFIRST]
    best_score = -math.inf
    for e in range(node[x, NFIRST], node[x, NFIRST] + node[x, NK]):
        child = edge[e, ECHILD]
        if child < 0 or node[child, NV] == 0:
            q = fpu
            visits = 0
        else:
            q = nw[child] / node[child, NV]
            visits = node[child, NV]
        score = q + c * prior[e] * sqrt_n / (1 + visits)
        if score > best_score:
            best = e
            best_score = score
    return best


@njit(cache=True)
def begin(B: np.ndarray, S: np.ndarray, T: tuple, P: np.ndarray, Rs: np.ndarray,
          WF: np.ndarray, WI: np.ndarray, rng: np.ndarray, settings: np.ndarray,
          must_act: bool) -> int:
    """A fresh tree whose root has the options of the seat to move; returns their count.
    `must_act`: no stall or customer yet this turn, so ending it is not an option while
    another one is open (as `Planner.turn_step`)."""
    T[5][:] = 0
    root = _new_node(T)
    L0 = level(B, WF, WI, 0)
    L1 = level(B, WF, WI, 1)
    _expand(B, S, T, root, P, Rs, L0, L1, rng, settings)
    node, edge, prior = T[0], T[2], T[3]
    if S[PHASE] == ACTIONS and must_act:
        first, k = node[root, NFIRST], node[root, NK]
        keep = 0
        for e in range(first, first + k):
            if A.kind(edge[e, EA]) != A.END_TURN:
                keep += 1
        if keep:
            j = first
            total = 0.0
            for e in range(first, first + k):
                if A.kind(edge[e, EA]) != A.END_TURN:
                    edge[j] = edge[e]
                    prior[j] = prior[e]
                    total += prior[j]
                    j += 1
            for e in range(first, first + keep):
                prior[e] = prior[e] / total if total > 0 else 1.0 / keep
            node[root, NK] = keep
    return node[root, NK]


@njit(cache=True)
def _values(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray, ei: np.ndarray,
            settings: np.ndarray, out: np.ndarray) -> None:
    """Every seat's value of a rollout's end in [0, 1] (as `MCTSAgent._values`)."""
    n = B[N_PLAYERS]
    if S[PHASE] == OVER:
        sc = B[S_SCORES]
        if settings[RANK]:
            best = S[sc]
            for p in range(n):
                best = max(best, S[sc + p])
            winners = 0
            for p in range(n):
                if S[sc + p] == best:
                    winners += 1
            for p in range(n):
                out[p] = 1.0 / winners if S[sc + p] == best else 0.0
            return
        for p in range(n):
            other = -(1 << 30)
            for q in range(n):
                if q != p:
                    other = max(other, S[sc + q])
            out[p] = float(S[sc + p] - other)
    else:
        state(B, S, P, ef, ei)
        value_margins(B, ef, ei, out)
    scale = settings[SCALE]
    for p in range(n):
        m = max(-50.0, min(50.0, out[p] / scale))
        out[p] = 1.0 / (1.0 + math.exp(-m))


@njit(cache=True)
def iterate(B: np.ndarray, S0: np.ndarray, T: tuple, P_tree: np.ndarray,
            P_roll: np.ndarray, Rs_me: np.ndarray, Rs_free: np.ndarray, me: int,
            WF: np.ndarray, WI: np.ndarray, rng: np.ndarray, settings: np.ndarray,
            count: int, path: np.ndarray, order: np.ndarray, values: np.ndarray,
            scratch: np.ndarray) -> int:
    """`count` iterations from the root S0 (path, order, values, scratch: buffers for the
    path of nodes, the bag order, the seats' values and a Bobby path); returns how many
    ran."""
    node, nw, edge = T[0], T[1], T[2]
    no_log = np.zeros(0, np.int64)
    L0 = level(B, WF, WI, 0)
    L1 = level(B, WF, WI, 1)
    n = B[N_PLAYERS]
    memory = np.zeros((n, 2), np.int64)
    buf = np.zeros(B[ACTION_ROOM], np.int64)
    buf2 = np.zeros(B[ACTION_ROOM], np.int64)
    horizon = int(settings[HORIZON])
    stop_turn = S0[TURN] + n * (1 + max(horizon, 0))
    c = settings[C]
    for _ in range(count):
        S = S0.copy()
        # One order of the customers left in the bag (popped from the end).
        n_order = 0
        if not B[KNOWN_ORDER]:
            for _k in range(S[BAG_CITIZENS]):
                order[n_order] = 1
                n_order += 1
            for _k in range(S[BAG_ARISTOCRATS]):
                order[n_order] = 2
                n_order += 1
            R.shuffle(rng, order, n_order)
        x = 0
        depth = 0
        path[0] = 0
        while S[PHASE] != OVER:
            if S[PHASE] == CHANCE:
                n_order -= 1
                cust = order[n_order]
                apply(B, S, A.chance(cust), no_log)
                col = NCC1 if cust == 1 else NCC2
                child = node[x, col]
                if child < 0:
                    child = _new_node(T)
                    if child < 0:
                        break
                    node[x, col] = child
            else:
                if node[x, NSEAT] == UNSET:
                    if node[x, NV] < settings[EXPAND]:
                        break  # a leaf until it has been rolled out from `expand` times
                    _expand(B, S, T, x, P_tree, Rs_me if S[SEAT] == me else Rs_free,
                            L0, L1, rng, settings)
                    if node[x, NK] == 0:
                        break
                e = _select(T, x, c)
                for j in range(edge[e, ESTEP0], edge[e, ESTEP0] + edge[e, ENSTEPS]):
                    apply(B, S, T[4][j], no_log)
                child = edge[e, ECHILD]
                if child < 0:
                    child = _new_node(T)
                    if child < 0:
                        break
                    edge[e, ECHILD] = child
            x = child
            depth += 1
            path[depth] = x
        # Rollout with the planner's fast policy, or the random agent's.
        for p in range(n):
            memory[p, M_MOVES] = 0
            memory[p, M_TURN] = -1
        while S[PHASE] != OVER:
            if S[PHASE] == CHANCE:
                n_order -= 1
                apply(B, S, A.chance(order[n_order]), no_log)
                continue
            if horizon >= 0 and S[PHASE] == TURN_START and S[TURN] >= stop_turn:
                break
            seat = S[SEAT]
            if settings[RANDOM_ROLLOUT]:
                apply(B, S, choose_random(B, S, rng, RANDOM_PARAMS,
                                          Rs_me if seat == me else Rs_free, memory[seat],
                                          buf, buf2), no_log)
                continue
            _, last, route = step(B, S, P_roll, Rs_me if seat == me else Rs_free, L0, L1,
                                  rng, True, False)
            if route >= 0:
                m = path_moves(B, L0[3], route, scratch, 0)
                for j in range(m):
                    apply(B, S, scratch[j], no_log)
            apply(B, S, last, no_log)
        _values(B, S, P_roll, L0[0], L0[1], settings, values)
        node[0, NV] += 1
        for k in range(1, depth + 1):
            child = path[k]
            node[child, NV] += 1
            chooser = node[path[k - 1], NSEAT]
            if chooser >= 0:
                nw[child] += values[chooser]
    return count


@njit(cache=True)
def best(T: tuple) -> int:
    """The root edge with most visits, then best mean value, then best prior."""
    node, nw, edge, prior = T[0], T[1], T[2], T[3]
    first, k = node[0, NFIRST], node[0, NK]
    pick = first
    key_v, key_q, key_p = -1, -math.inf, -math.inf
    for e in range(first, first + k):
        child = edge[e, ECHILD]
        if child < 0 or node[child, NV] == 0:
            v, q = 0, 0.0
        else:
            v, q = node[child, NV], nw[child] / node[child, NV]
        if (v, q, prior[e]) > (key_v, key_q, key_p):
            pick = e
            key_v, key_q, key_p = v, q, prior[e]
    return pick
