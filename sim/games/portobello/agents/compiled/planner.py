"""The greedy and heuristic agents' decision, compiled: the only implementation of both,
played in batches by `sim.games.portobello.agents.compiled.play` and seated at a `Game` by
`sim.games.portobello.agents.compiled_agent.PlannerAgent`; the
same options, prices, order and generator
calls either way, so both give the same game.

The planner is seven modules of this package, each with one job, from the bottom up:

    plan_work      the work space: two levels of scratch arrays, plan slots
    plan_pick      the best option, ties broken by the generator
    plan_bobby     the Bobby's cheapest paths and the steps of an option's route
    plan_options   the options of each kind, priced by their margin change
    plan_turn      token plays priced by playing the turn out; plan slots
    plan_step      the decision of the seat to move in each phase; every option of a position
                   (for the search)
    planner        the agent: its queue of steps, its memory, the plan slots used

An option is (value, final action, route): `route` is the district whose cheapest Bobby
path precedes the final action, or -1 for none. The agent plays the route's moves one
decision at a time from its queue (while they stay legal in the same turn), then the final
action. For a search (MCTS) the public pieces are `plan_step.options`, `plan_step.step`,
`plan_bobby.option_steps`, `plan_work.level` and `evaluate.state`/`value_margins`; a planner
variant is just another parameter row (`sim.games.portobello.agents.compiled.params`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.games.portobello.agents.compiled.eval_deltas import move_margin
from sim.games.portobello.agents.compiled.params import MAX_LANE_LEN
from sim.games.portobello.agents.compiled.plan_bobby import path_moves
from sim.games.portobello.agents.compiled.plan_pick import pick_all
from sim.games.portobello.agents.compiled.plan_step import step
from sim.games.portobello.agents.compiled.plan_step import turn_decide
from sim.games.portobello.agents.compiled.plan_turn import clear_slots
from sim.games.portobello.agents.compiled.plan_turn import find_slot
from sim.games.portobello.agents.compiled.plan_work import option_actions
from sim.games.portobello.agents.compiled.plan_work import option_values
from sim.games.portobello.agents.compiled.plan_work import path_i
from sim.games.portobello.agents.compiled.plan_work import scratch_i
from sim.games.portobello.agents.compiled.plan_work import slot
from sim.games.portobello.agents.compiled.plan_work import uncounted_level
from sim.games.portobello.codes import ACTIONS
from sim.games.portobello.codes import PLACE
from sim.games.portobello.codes import TURN_START
from sim.games.portobello.compiled import actions as A
from sim.games.portobello.compiled import fields as F
from sim.games.portobello.compiled.engine import legal_actions
from sim.games.portobello.compiled.inlining import into
from sim.games.portobello.compiled.layout import ACTIONS_LEFT
from sim.games.portobello.compiled.layout import BOBBY
from sim.games.portobello.compiled.layout import N_LANES
from sim.games.portobello.compiled.layout import NEGATIVE_SCORES
from sim.games.portobello.compiled.layout import PHASE
from sim.games.portobello.compiled.layout import S_SIZE
from sim.games.portobello.compiled.layout import SEAT
from sim.games.portobello.compiled.layout import TURN

# Per-seat memory of the planner agent (int64): the queue of remaining steps of the last
# option (M_Q...), where it starts and ends, the turn it belongs to, and the last turn in
# which the agent placed something. Slots 1 and 2 start at -1 (see
# sim.games.portobello.agents.compiled.play).
M_QPOS, M_QTURN, M_ACTED, M_QLEN = 0, 1, 2, 3
M_Q = 4


@njit(cache=True, _nrt=False)
def _queued_legal(B: np.ndarray, S: np.ndarray, P: np.ndarray, action: int,
                  buf: np.ndarray) -> bool:
    """`action in game.legal_actions()` in the actions phase, for the kinds a queue holds
    (Bobby moves, then a stall or the end of the turn) without listing them all."""
    kind = A.kind(action)
    bobby = S[BOBBY]
    seat = S[SEAT]
    if kind == A.END_TURN:
        return True
    if kind == A.MOVE_BOBBY:
        d = A.arg(action)
        for i in range(F.neighbours_at(B, bobby), F.neighbours_at(B, bobby + 1)):
            if F.neighbour_district(B, i) == d:
                lane = F.neighbour_lane(B, i)
                return bool(B[NEGATIVE_SCORES]) or \
                    move_margin(B, S, P, seat, lane)[1] <= F.score(B, S, seat)
        return False
    if kind == A.PLACE_STALL:
        lane = A.stall_lane(action)
        if S[ACTIONS_LEFT] <= 0 or F.stalls_left(B, S, seat) <= 0:
            return False
        c = F.lane_count(B, S, lane)
        if c >= F.lane_len(B, lane) or (c and F.lane_dir(B, S, lane) != A.stall_end(action)):
            return False
        for i in range(F.district_lanes_at(B, bobby), F.district_lanes_at(B, bobby + 1)):
            if F.district_lane(B, i) == lane:
                return True
        return False
    m = legal_actions(B, S, buf)
    found = False
    for i in range(m):
        found = found or buf[i] == action
    return found


@njit(cache=True, _nrt=False, inline=into("_play"))
def choose_planner(B: np.ndarray, S: np.ndarray, rng: np.ndarray, P: np.ndarray,
                   Rs: np.ndarray, memory: np.ndarray, buf: np.ndarray, WF: np.ndarray,
                   WI: np.ndarray) -> int:
    """The planner agent's next action: the next queued Bobby move of the last option while
    it is still legal in the same turn, otherwise the planner's option (its first step now, the
    rest queued)."""
    turn = S[TURN]
    action = queued(B, S, P, memory, buf)
    if action >= 0:
        return action
    L0 = uncounted_level(B, WF, WI, np.int64(0))
    L1 = uncounted_level(B, WF, WI, np.int64(1))
    phase = S[PHASE]
    must_act = memory[M_ACTED] != turn
    # The turn's plan (made at its start) evaluated the positions the turn is likely to
    # pass through: a position it has seen is decided from its plan slot, with the same
    # options, values and draws from the generator as a fresh evaluation.
    j = find_slot(B, S, L1, phase) if phase in (ACTIONS, PLACE) else -1
    if j >= 0:
        decided, record = slot(B, L1, j)
        k = record[B[S_SIZE] + 1]
        seat = S[SEAT]
        if phase == ACTIONS:
            k_now = k if S[ACTIONS_LEFT] > 0 else 0
            _, last, route = turn_decide(B, S, P, Rs, seat, decided, k_now,
                                         F.stalls_left(B, S, seat) > 0, rng, np.bool_(True),
                                         must_act)
        else:
            last = option_actions(decided)[pick_all(option_values(decided), k, scratch_i(L1),
                                                    B, rng, np.bool_(True))]
            route = -1
    else:
        if phase == TURN_START:
            clear_slots(B, L1)
        decided = L0
        _, last, route = step(B, S, P, Rs, L0, L1, rng, np.bool_(True), must_act)
    k = path_moves(B, path_i(decided), route, memory, np.int64(M_Q)) if route >= 0 else 0
    memory[M_Q + k] = last
    return start_queue(memory, turn, k + 1)


@njit(cache=True, _nrt=False)
def queued(B: np.ndarray, S: np.ndarray, P: np.ndarray, memory: np.ndarray,
           buf: np.ndarray) -> int:
    """The next queued step of the seat's last option while it is still legal in the same
    turn's actions phase, or -1 (the queue then emptied): a planning agent plays an option's
    Bobby moves one decision at a time, and a step the position no longer allows ends the
    option."""
    if memory[M_QLEN] > memory[M_QPOS] and memory[M_QTURN] == S[TURN] \
            and S[PHASE] == ACTIONS:
        action = memory[M_Q + memory[M_QPOS]]
        memory[M_QPOS] += 1
        if _queued_legal(B, S, P, action, buf):
            return action
    memory[M_QLEN] = 0
    memory[M_QPOS] = 0
    return -1


@njit(cache=True, _nrt=False)
def start_queue(memory: np.ndarray, turn: int, m: int) -> int:
    """Queue the `m` steps an option wrote at `memory[M_Q:]` (its Bobby moves, then its final
    action) and return the first; an option that places a stall or draws a customer is the
    turn's action (`M_ACTED`: after it the seat may end its turn)."""
    if A.kind(memory[M_Q + m - 1]) in (A.PLACE_STALL, A.DRAW_CUSTOMER):
        memory[M_ACTED] = turn
    memory[M_QLEN] = m
    memory[M_QPOS] = 1
    memory[M_QTURN] = turn
    return memory[M_Q]


@njit(cache=True, _nrt=False)
def board_fits(B: np.ndarray) -> bool:
    """Whether the parameter row's power table covers every lane of the board."""
    longest = 0
    for lane in range(B[N_LANES]):
        longest = max(longest, F.lane_len(B, lane))
    return longest <= MAX_LANE_LEN


@njit(cache=True, _nrt=False)
def memory_size(n_districts: int) -> int:
    """Memory slots the planner agent needs per seat (the longest path + its last step)."""
    return M_Q + n_districts + 1
