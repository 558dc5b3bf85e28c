"""Compiled information-set MCTS, the one implementation of the search (`fastmcts`, also
`mcts`; seated at a `Game` by `sim.games.portobello.agents.fast_mcts`): each iteration samples an
order of the customers left in the bag with the agent's own generator; edges are the planner's
options (Bobby path + step), the `width` best by the heuristic's price, with softmax priors
for PUCT; a new leaf is rolled out with the planner's fast policy to the searching seat's
next turn plus `horizon` rounds and scored by the evaluation margin squashed to [0, 1].

Where the time goes (the pieces timed apart on the positions of `portobello bench mcts`):
the rollout is about nine tenths of an iteration, some 3.5 planner steps a turn (about 20
at 2 players with 2 rounds of horizon). A step costs 4 to 6 microseconds at 3 players: a
turn's start, pricing tokens, 5.9; an action 4.1, of which the evaluation state 1.4; a
square 1.6. The one expansion per iteration (`options`, about 8 microseconds), the
descent and the backup are the rest. Playouts per second therefore follow the planner's
speed and the horizon; the numba reference counts of this module's own code cost nothing
measurable.

The tree lives in preallocated arrays (`new_tree`); the Python agent calls `begin` once per
decision (or `follow` and `resume` to start from a kept subtree), `iterate` in short chunks
until its budget is spent (the clock stays in Python), then `best`.

Keeping a subtree. Tree nodes stand for what every player observes (the options taken and
the customers revealed); the bag order is sampled afresh in every iteration, so a node's
statistics pool over the orders still possible there. After a decision, the chosen edge's
child stands for the position its steps lead to (`after`). At the next decision the agent
asks `follow` for the node below it that stands for the position now on the table, walking
the edges (the opponents' options) and chance children (the customers drawn) the tree
holds: the next decision of the same turn is that child itself or its chance child, a
decision at the start of a later turn is found when every option the opponents took and
every customer drawn in between is in the tree. The match is by equality of the whole
state array, so it needs no action log and cannot follow a wrong branch. `resume` copies
that subtree into the spare tree (`reroot`), compact, as the new root. Rollouts behind a
kept node stopped at the horizon of the search that made them, so across turns their
horizon is shorter by the turns played since (a bias; against the heuristic at 2,000
iterations, keeping trees won at least as often as searching afresh at 3 and 4 players).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from sim.core import rng as R
from sim.games.portobello.agents.compiled.evaluate import state
from sim.games.portobello.agents.compiled.evaluate import value_margins
from sim.games.portobello.agents.compiled.features import features
from sim.games.portobello.agents.compiled.features import option_inputs
from sim.games.portobello.agents.compiled.network import forward
from sim.games.portobello.agents.compiled.plan_bobby import option_steps
from sim.games.portobello.agents.compiled.plan_bobby import path_moves
from sim.games.portobello.agents.compiled.plan_step import options
from sim.games.portobello.agents.compiled.plan_step import step
from sim.games.portobello.agents.compiled.plan_work import Level
from sim.games.portobello.agents.compiled.plan_work import eval_f
from sim.games.portobello.agents.compiled.plan_work import eval_i
from sim.games.portobello.agents.compiled.plan_work import level
from sim.games.portobello.agents.compiled.plan_work import option_values
from sim.games.portobello.agents.compiled.plan_work import path_i
from sim.games.portobello.agents.compiled.random_agent import M_MOVES
from sim.games.portobello.agents.compiled.random_agent import M_TURN
from sim.games.portobello.agents.compiled.random_agent import choose_random
from sim.games.portobello.codes import ACTIONS
from sim.games.portobello.codes import CHANCE
from sim.games.portobello.codes import OVER
from sim.games.portobello.codes import TURN_START
from sim.games.portobello.compiled import actions as A
from sim.games.portobello.compiled import fields as F
from sim.games.portobello.compiled.engine import apply
from sim.games.portobello.compiled.layout import ACTION_ROOM
from sim.games.portobello.compiled.layout import BAG_ARISTOCRATS
from sim.games.portobello.compiled.layout import BAG_CITIZENS
from sim.games.portobello.compiled.layout import CUSTOMERS_LEFT
from sim.games.portobello.compiled.layout import KNOWN_ORDER
from sim.games.portobello.compiled.layout import MAX_STEPS
from sim.games.portobello.compiled.layout import N_PLAYERS
from sim.games.portobello.compiled.layout import PHASE
from sim.games.portobello.compiled.layout import SEAT
from sim.games.portobello.compiled.layout import TURN

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


@njit(cache=True, _nrt=False)
def ranked(values: np.ndarray, k: int, idx: np.ndarray) -> None:
    """Write the indices 0..k-1 into `idx` by `values`, best first, stable: the order in
    which options become the search's edges (the `width` first) and the learned agent's
    candidates."""
    for i in range(k):
        j = i
        while j > 0 and values[idx[j - 1]] < values[i]:
            idx[j] = idx[j - 1]
            j -= 1
        idx[j] = i


@njit(cache=True, _nrt=False)
def idle_end(action: int, phase: int, must_act: bool) -> bool:
    """Whether `action` would end a turn idle: the end of the turn in the actions phase
    before any stall or customer (`must_act`). Such an option is left out while another is
    open (as the planner's `turn_step` does)."""
    return must_act and phase == ACTIONS and A.kind(action) == A.END_TURN


@njit(cache=True)
def _expand(B: np.ndarray, S: np.ndarray, T: tuple, x: int, P: np.ndarray, Rs: np.ndarray,
            L0: Level, L1: Level, rng: np.ndarray, settings: np.ndarray) -> None:
    """Give node x the `width` best options of the seat to move, with softmax priors."""
    node, edge, prior, steps, counts = T[0], T[2], T[3], T[4], T[5]
    k = options(B, S, P, Rs, L0, L1, rng)
    values = option_values(L0)
    width = min(k, int(settings[WIDTH]))
    if counts[COUNT_EDGES] + width > edge.shape[0]:
        width = 0
    idx = np.empty(k, np.int64)
    ranked(values, k, idx)
    first = counts[COUNT_EDGES]
    top = values[idx[0]] if k else 0.0
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
        prior[e] = math.exp((values[i] - top) / settings[TEMP])
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
    another one is open (as the planner's `turn_step` does)."""
    T[5][:] = 0
    root = _new_node(T)
    L0 = level(B, WF, WI, 0)
    L1 = level(B, WF, WI, 1)
    _expand(B, S, T, root, P, Rs, L0, L1, rng, settings)
    if idle_end(A.END, S[PHASE], must_act):
        _drop_end_turn(T, root, S[PHASE], must_act)
    return T[0][root, NK]


@njit(cache=True)
def _drop_end_turn(T: tuple, root: int, phase: int, must_act: bool) -> None:
    """Leave the root's idle ends of the turn out while another option is open
    (`idle_end`); the priors of the others are renormalised."""
    node, edge, prior = T[0], T[2], T[3]
    first, k = node[root, NFIRST], node[root, NK]
    keep = 0
    for e in range(first, first + k):
        if not idle_end(edge[e, EA], phase, must_act):
            keep += 1
    if keep:
        j = first
        total = 0.0
        for e in range(first, first + k):
            if not idle_end(edge[e, EA], phase, must_act):
                edge[j] = edge[e]
                prior[j] = prior[e]
                total += prior[j]
                j += 1
        for e in range(first, first + keep):
            prior[e] = prior[e] / total if total > 0 else 1.0 / keep
        node[root, NK] = keep


@njit(cache=True)
def _values(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray, ei: np.ndarray,
            settings: np.ndarray, out: np.ndarray) -> None:
    """Every seat's value of a rollout's end in [0, 1]."""
    n = B[N_PLAYERS]
    if S[PHASE] == OVER:
        if settings[RANK]:
            best = F.score(B, S, 0)
            for p in range(n):
                best = max(best, F.score(B, S, p))
            winners = 0
            for p in range(n):
                if F.score(B, S, p) == best:
                    winners += 1
            for p in range(n):
                out[p] = 1.0 / winners if F.score(B, S, p) == best else 0.0
            return
        for p in range(n):
            other = -(1 << 30)
            for q in range(n):
                if q != p:
                    other = max(other, F.score(B, S, q))
            out[p] = float(F.score(B, S, p) - other)
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
            scratch: np.ndarray, net: tuple | None = None) -> int:
    """`count` iterations from the root S0 (path, order, values, scratch: buffers for the
    path of nodes, the bag order, the seats' values and a Bobby path); returns how many
    ran. With a network (`net`: `W, L, X, h, work, out`, the learned agent's model and its
    work space) a new leaf is valued by the network from each seat's chair instead of a
    rollout (`expert-search`)."""
    node, edge = T[0], T[2]
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
        if net is not None:  # pruned when None: the search with rollouts
            if S[PHASE] != OVER:
                _network_values(B, S, net, int(settings[WIDTH]), values)
            else:
                _values(B, S, P_roll, eval_f(L0), eval_i(L0), settings, values)
            _backup(T, path, depth, values)
            continue
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
                                  rng, np.bool_(True), np.bool_(False))
            if route >= 0:
                m = path_moves(B, path_i(L0), route, scratch, np.int64(0))
                for j in range(m):
                    apply(B, S, scratch[j], no_log)
            apply(B, S, last, no_log)
        _values(B, S, P_roll, eval_f(L0), eval_i(L0), settings, values)
        _backup(T, path, depth, values)
    return count


@njit(cache=True)
def _backup(T: tuple, path: np.ndarray, depth: int, values: np.ndarray) -> None:
    """One more visit on the iteration's path, each node's chooser credited its value."""
    node, nw = T[0], T[1]
    node[0, NV] += 1
    for k in range(1, depth + 1):
        child = path[k]
        node[child, NV] += 1
        chooser = node[path[k - 1], NSEAT]
        if chooser >= 0:
            nw[child] += values[chooser]


@njit(cache=True)
def _network_values(B: np.ndarray, S: np.ndarray, net: tuple, width: int,
                    out: np.ndarray) -> None:
    """Every seat's value of a position in [0, 1] by the learned agent's network (its
    value output, `sim.learning.fit.VALUE`), the position seen from each seat's chair as
    the network saw the positions after its options."""
    W, L, X, h, work, res = net
    for p in range(B[N_PLAYERS]):
        features(B, S, p, X)
        option_inputs(B, 0, width, 0.0, X)
        forward(W, L, X, h, work, res)
        out[p] = min(1.0, max(0.0, res[0]))


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


# -- keeping a subtree between decisions -----------------------------------------------------
@njit(cache=True)
def after(B: np.ndarray, S: np.ndarray, T: tuple, e: int) -> np.ndarray:
    """The state after edge `e`'s steps from S (the position its child node stands for)."""
    edge, steps = T[2], T[4]
    out = S.copy()
    no_log = np.zeros(0, np.int64)
    for j in range(edge[e, ESTEP0], edge[e, ESTEP0] + edge[e, ENSTEPS]):
        apply(B, out, steps[j], no_log)
    return out


@njit(cache=True)
def _same(S: np.ndarray, S_now: np.ndarray) -> bool:
    """Whether two states are equal, entry by entry (no temporary array)."""
    i, n = 0, S.shape[0]
    while i < n and S[i] == S_now[i]:
        i += 1
    return i == n


@njit(cache=True)
def _behind(B: np.ndarray, S: np.ndarray, S_now: np.ndarray) -> bool:
    """Whether S can still lead to S_now: never a later turn, never fewer stalls or
    customers left (both only fall)."""
    if S[PHASE] == OVER or S[TURN] > S_now[TURN] or S[CUSTOMERS_LEFT] < S_now[CUSTOMERS_LEFT]:
        return False
    p, n = 0, B[N_PLAYERS]
    while p < n and F.stalls_left(B, S, p) >= F.stalls_left(B, S_now, p):
        p += 1
    return p == n


@njit(cache=True)
def follow(B: np.ndarray, S_from: np.ndarray, x0: int, S_now: np.ndarray, T: tuple,
           states: np.ndarray, at_node: np.ndarray, at_next: np.ndarray) -> int:
    """The node of the tree below x0 (which stands for S_from) that stands for S_now, or
    -1 when play has left the tree. Depth first through the tree's edges and chance
    children, applying their steps and outcomes to copies of S_from, until a copy equals
    S_now; a branch is cut once it can no longer lead there (`_behind`) or is deeper than
    `states` has rows. Whatever moves and draws were seen in between, the first path found
    leads to the very position S_now (a state determines the rest of the game), so its
    statistics are those of the decision at hand."""
    node, edge, steps = T[0], T[2], T[4]
    no_log = np.zeros(0, np.int64)
    if _same(S_from, S_now):
        return x0
    if not _behind(B, S_from, S_now):
        return -1
    states[0, :] = S_from
    at_node[0] = x0
    at_next[0] = 0
    d = 0
    while d >= 0:
        x = at_node[d]
        j = at_next[d]
        at_next[d] = j + 1
        S = states[d]
        if S[PHASE] == CHANCE:
            if j >= 2:
                d -= 1
                continue
            child = node[x, NCC1 + j]
            if child < 0:
                continue
            states[d + 1, :] = S
            apply(B, states[d + 1], A.chance(j + 1), no_log)
        else:
            if node[x, NSEAT] == UNSET or j >= node[x, NK]:
                d -= 1
                continue
            e = node[x, NFIRST] + j
            child = edge[e, ECHILD]
            if child < 0:
                continue
            states[d + 1, :] = S
            for i in range(edge[e, ESTEP0], edge[e, ESTEP0] + edge[e, ENSTEPS]):
                apply(B, states[d + 1], steps[i], no_log)
        if _same(states[d + 1], S_now):
            return child
        if d + 2 < states.shape[0] and _behind(B, states[d + 1], S_now):
            d += 1
            at_node[d] = child
            at_next[d] = 0
    return -1


@njit(cache=True)
def reroot(Ts: tuple, x: int, Td: tuple, queue: np.ndarray) -> None:
    """Copy the subtree of Ts below node x into Td, x becoming Td's root (node 0), breadth
    first, so the kept part is compact and the rest of Td's room is free."""
    node_s, nw_s, edge_s, prior_s, steps_s = Ts[0], Ts[1], Ts[2], Ts[3], Ts[4]
    node_d, nw_d, edge_d, prior_d, steps_d, counts = Td[0], Td[1], Td[2], Td[3], Td[4], Td[5]
    queue[0] = x
    tail = 1
    n_edges = 0
    n_steps = 0
    head = 0
    while head < tail:
        o = queue[head]
        node_d[head] = node_s[o]
        nw_d[head] = nw_s[o]
        for col in (NCC1, NCC2):
            c = node_s[o, col]
            if c >= 0:
                queue[tail] = c
                node_d[head, col] = tail
                tail += 1
        first, k = node_s[o, NFIRST], node_s[o, NK]
        node_d[head, NFIRST] = n_edges
        for e in range(first, first + k):
            edge_d[n_edges] = edge_s[e]
            prior_d[n_edges] = prior_s[e]
            m = edge_s[e, ENSTEPS]
            s0 = edge_s[e, ESTEP0]
            steps_d[n_steps:n_steps + m] = steps_s[s0:s0 + m]
            edge_d[n_edges, ESTEP0] = n_steps
            n_steps += m
            c = edge_s[e, ECHILD]
            if c >= 0:
                queue[tail] = c
                edge_d[n_edges, ECHILD] = tail
                tail += 1
            n_edges += 1
        head += 1
    counts[COUNT_NODES] = tail
    counts[COUNT_EDGES] = n_edges
    counts[COUNT_STEPS] = n_steps


@njit(cache=True)
def resume(S: np.ndarray, Ts: tuple, x: int, Td: tuple, queue: np.ndarray,
           must_act: bool) -> int:
    """Td becomes the subtree of Ts below x (the node `follow` found for the position S,
    expanded) with its statistics; returns the root's edge count, like `begin`. The root's
    own value sum is cleared: at a root, untried edges start from 0 as in a fresh tree."""
    reroot(Ts, x, Td, queue)
    Td[1][0] = 0.0
    if idle_end(A.END, S[PHASE], must_act):
        _drop_end_turn(Td, 0, S[PHASE], must_act)
    return Td[0][0, NK]
