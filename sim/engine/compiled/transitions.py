"""What each action does to a state: the state changes of `sim.engine.game.Game`, compiled.

`Game.apply` hands each action kind to a private method (`_place_stall`, `_draw`, ...); the
functions here are those methods over the arrays of `sim.engine.compiled.layout`, step for step and
with the same names, and `sim.engine.compiled.engine.apply` dispatches to them as the reference
does.
They trust their caller: the action must be legal. `move_cost` (the points a Bobby move
costs) lives here with the move that pays it; the legal-action list and the evaluator read
it too.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Phases, customers, statistics and end reasons: sim.engine.codes, the one source both
# engines share.
from sim.engine.codes import ACTIONS
from sim.engine.codes import BARON
from sim.engine.codes import BARON_POINTS
from sim.engine.codes import BOBBY_PAID
from sim.engine.codes import BOBBY_RECEIVED
from sim.engine.codes import CHANCE
from sim.engine.codes import CUSTOMERS_PLACED
from sim.engine.codes import DISTRICT_POINTS
from sim.engine.codes import DISTRICTS_SCORED
from sim.engine.codes import END_BOARD_EXHAUSTED
from sim.engine.codes import END_LAST_STALL
from sim.engine.codes import END_ROUND_LIMIT
from sim.engine.codes import LANE_POINTS
from sim.engine.codes import N_STATS
from sim.engine.codes import OVER
from sim.engine.codes import PLACE
from sim.engine.codes import STALLS_PLACED
from sim.engine.codes import TURN_START
from sim.engine.compiled import actions as A
from sim.engine.compiled.layout import ACTIONS_LEFT
from sim.engine.compiled.layout import BAG_CITIZENS
from sim.engine.compiled.layout import BARON_SQUARE
from sim.engine.compiled.layout import BOBBY
from sim.engine.compiled.layout import CUSTOMERS_LEFT
from sim.engine.compiled.layout import END_REASON
from sim.engine.compiled.layout import KNOWN_ORDER
from sim.engine.compiled.layout import LINE_POS
from sim.engine.compiled.layout import LOG_LEN
from sim.engine.compiled.layout import MAX_ROUNDS
from sim.engine.compiled.layout import N_FULL_LANES
from sim.engine.compiled.layout import N_LANES
from sim.engine.compiled.layout import N_NEUTRAL
from sim.engine.compiled.layout import N_PLAYERS
from sim.engine.compiled.layout import N_SCORED_LANES
from sim.engine.compiled.layout import N_TOKENS
from sim.engine.compiled.layout import NEUTRAL_TOP
from sim.engine.compiled.layout import O_DISTRICT_LANES
from sim.engine.compiled.layout import O_DISTRICT_LANES_AT
from sim.engine.compiled.layout import O_LANE_END0
from sim.engine.compiled.layout import O_LANE_END1
from sim.engine.compiled.layout import O_LANE_LEN
from sim.engine.compiled.layout import O_LANE_OFFSET
from sim.engine.compiled.layout import O_MULTIPLIER
from sim.engine.compiled.layout import O_NEIGHBOUR_DISTRICT
from sim.engine.compiled.layout import O_NEIGHBOUR_LANE
from sim.engine.compiled.layout import O_NEIGHBOURS_AT
from sim.engine.compiled.layout import O_NEUTRAL_STACK
from sim.engine.compiled.layout import O_SPOT_VALUE
from sim.engine.compiled.layout import O_SQUARE_LANES
from sim.engine.compiled.layout import O_SQUARE_LANES_AT
from sim.engine.compiled.layout import PENDING
from sim.engine.compiled.layout import PHASE
from sim.engine.compiled.layout import ROUND
from sim.engine.compiled.layout import S_DISTRICT_SCORED
from sim.engine.compiled.layout import S_LANE_COUNT
from sim.engine.compiled.layout import S_LANE_DIR
from sim.engine.compiled.layout import S_LANE_SCORED
from sim.engine.compiled.layout import S_LANE_SEAT
from sim.engine.compiled.layout import S_LINE
from sim.engine.compiled.layout import S_SCORED_LANES
from sim.engine.compiled.layout import S_SCORES
from sim.engine.compiled.layout import S_SPOT_SEAT
from sim.engine.compiled.layout import S_SQUARE_CUSTOMER
from sim.engine.compiled.layout import S_STALLS_LEFT
from sim.engine.compiled.layout import S_STATS
from sim.engine.compiled.layout import S_TOK_NEUTRAL
from sim.engine.compiled.layout import S_TOK_UP
from sim.engine.compiled.layout import S_TOK_VAL
from sim.engine.compiled.layout import SEAT
from sim.engine.compiled.layout import TIE_PAYS_BANK
from sim.engine.compiled.layout import TURN
from sim.engine.compiled.layout import WITH_BARON


@njit(cache=True, inline="always", _nrt=False)
def move_cost(B: np.ndarray, S: np.ndarray, lane: int, mover: int) -> tuple[int, int, int]:
    """`Game.move_cost`: (points the mover loses crossing `lane`, how many seats gain 1 point
    each, the lane's largest stall count: the gainers are the other seats with that many)."""
    n = B[N_PLAYERS]
    base = B[S_LANE_SEAT] + lane * n
    most = 0
    for p in range(n):
        if S[base + p] > most:
            most = S[base + p]
    if most == 0:
        return 1, 0, 0
    leaders = 0
    for p in range(n):
        if S[base + p] == most:
            leaders += 1
    if S[base + mover] == most:
        if leaders == 1:
            return 0, 0, most
        if B[TIE_PAYS_BANK]:
            return 1, 0, most
        return leaders - 1, leaders - 1, most
    return leaders, leaders, most


@njit(cache=True, _nrt=False)
def play_token(B: np.ndarray, S: np.ndarray, value: int, neutral: int) -> None:
    """`Game._play_token`: flip a face-up token; its value is the number of actions this turn."""
    t = B[N_TOKENS]
    lo = S[SEAT] * t
    tv, tn, tu = B[S_TOK_VAL], B[S_TOK_NEUTRAL], B[S_TOK_UP]
    for i in range(lo, lo + t):
        if S[tv + i] == value and S[tn + i] == neutral and S[tu + i]:
            S[tu + i] = 0
            break
    S[ACTIONS_LEFT] = value
    S[PHASE] = ACTIONS


@njit(cache=True, _nrt=False)
def score_district(B: np.ndarray, S: np.ndarray, value: int, district: int) -> None:
    """`Game._score_district`: the whole turn: the token into the district, value x own
    stalls bordering it; the token is replaced from the neutral stack (or gone)."""
    seat = S[SEAT]
    n = B[N_PLAYERS]
    t = B[N_TOKENS]
    stalls = 0
    for i in range(B[B[O_DISTRICT_LANES_AT] + district], B[B[O_DISTRICT_LANES_AT] + district + 1]):
        stalls += S[B[S_LANE_SEAT] + B[B[O_DISTRICT_LANES] + i] * n + seat]
    points = value * stalls
    S[B[S_SCORES] + seat] += points
    S[B[S_STATS] + seat * N_STATS + DISTRICT_POINTS] += points
    S[B[S_STATS] + seat * N_STATS + DISTRICTS_SCORED] += 1
    S[B[S_DISTRICT_SCORED] + district] = seat
    lo = seat * t
    for i in range(lo, lo + t):
        tv = B[S_TOK_VAL] + i
        if S[tv] == value and not S[B[S_TOK_NEUTRAL] + i] and S[B[S_TOK_UP] + i]:
            if S[NEUTRAL_TOP] < B[N_NEUTRAL]:
                S[tv] = B[B[O_NEUTRAL_STACK] + S[NEUTRAL_TOP]]
                S[B[S_TOK_NEUTRAL] + i] = 1
                S[B[S_TOK_UP] + i] = 1
                S[NEUTRAL_TOP] += 1
            else:
                S[tv] = 0
                S[B[S_TOK_NEUTRAL] + i] = 0
                S[B[S_TOK_UP] + i] = 0
            break
    end_turn(B, S)


@njit(cache=True, _nrt=False)
def place_stall(B: np.ndarray, S: np.ndarray, lane: int, end: int) -> None:
    """`Game._place_stall`: a stall on the lane's next spot from `end` (which fixes the
    lane's direction when it is the first); a full lane with customers at both ends scores."""
    seat = S[SEAT]
    c = S[B[S_LANE_COUNT] + lane]
    length = B[B[O_LANE_LEN] + lane]
    if c == 0:
        S[B[S_LANE_DIR] + lane] = end
    spot = c if end == 0 else length - 1 - c
    S[B[S_SPOT_SEAT] + B[B[O_LANE_OFFSET] + lane] + spot] = seat
    S[B[S_LANE_COUNT] + lane] = c + 1
    S[B[S_LANE_SEAT] + lane * B[N_PLAYERS] + seat] += 1
    S[B[S_STALLS_LEFT] + seat] -= 1
    S[B[S_STATS] + seat * N_STATS + STALLS_PLACED] += 1
    S[ACTIONS_LEFT] -= 1
    if c + 1 == length:
        S[N_FULL_LANES] += 1
        sqc = B[S_SQUARE_CUSTOMER]
        if S[sqc + B[B[O_LANE_END0] + lane]] and S[sqc + B[B[O_LANE_END1] + lane]]:
            _score_lane(B, S, lane, LANE_POINTS)
    if S[B[S_STALLS_LEFT] + seat] == 0 and S[END_REASON] == 0:
        S[END_REASON] = END_LAST_STALL


@njit(cache=True, _nrt=False)
def draw(B: np.ndarray, S: np.ndarray, forced: int, log: np.ndarray) -> None:
    """`Game._draw`: spend an action on a customer: the known line's next, the customer a
    draw is forced to (`forced` > 0), or a draw from the bag left to chance."""
    S[ACTIONS_LEFT] -= 1
    if B[KNOWN_ORDER]:
        S[PENDING] = S[B[S_LINE] + S[LINE_POS]]
        S[LINE_POS] += 1
        S[CUSTOMERS_LEFT] -= 1
        if log.shape[0] and S[LOG_LEN] > 0:
            log[S[LOG_LEN] - 1] = A.draw_customer(S[PENDING])
        S[PHASE] = PLACE
    elif forced:
        reveal(S, forced)
    else:
        S[PHASE] = CHANCE


@njit(cache=True, _nrt=False)
def reveal(S: np.ndarray, customer: int) -> None:
    """`Game._reveal`: the customer chance drew leaves the bag and waits for its square."""
    S[BAG_CITIZENS + customer - 1] -= 1
    S[CUSTOMERS_LEFT] -= 1
    S[PENDING] = customer
    S[PHASE] = PLACE


@njit(cache=True, _nrt=False)
def place_customer(B: np.ndarray, S: np.ndarray, square: int) -> None:
    """`Game._place_customer`: the pending customer on `square`, the lanes it completes
    scored; the last customer brings the baron (if in play) to the first empty square."""
    seat = S[SEAT]
    customer = S[PENDING]
    S[PENDING] = 0
    S[PHASE] = ACTIONS
    sqc = B[S_SQUARE_CUSTOMER]
    S[sqc + square] = customer
    S[B[S_STATS] + seat * N_STATS + CUSTOMERS_PLACED] += 1
    _score_lanes_at(B, S, square)
    if S[CUSTOMERS_LEFT] == 0 and B[WITH_BARON] and S[BARON_SQUARE] < 0:
        baron_square = 0
        while S[sqc + baron_square] != 0:
            baron_square += 1
        S[sqc + baron_square] = BARON
        S[BARON_SQUARE] = baron_square
        _score_lanes_at(B, S, baron_square)


@njit(cache=True, _nrt=False)
def _score_lanes_at(B: np.ndarray, S: np.ndarray, square: int) -> None:
    """`Game._score_lanes_at`: score every full, unscored lane at `square` with customers
    at both ends."""
    sqc = B[S_SQUARE_CUSTOMER]
    for i in range(B[B[O_SQUARE_LANES_AT] + square], B[B[O_SQUARE_LANES_AT] + square + 1]):
        lane = B[B[O_SQUARE_LANES] + i]
        if S[B[S_LANE_SCORED] + lane] or S[B[S_LANE_COUNT] + lane] != B[B[O_LANE_LEN] + lane]:
            continue
        if S[sqc + B[B[O_LANE_END0] + lane]] and S[sqc + B[B[O_LANE_END1] + lane]]:
            _score_lane(B, S, lane, LANE_POINTS)


@njit(cache=True, inline="always", _nrt=False)
def lane_points(B: np.ndarray, S: np.ndarray, lane: int, seat: int) -> int:
    """What `seat` gains when `lane` scores now: the sum of its spots' values times the
    multiplier of the customers at the lane's two ends."""
    sqc = B[S_SQUARE_CUSTOMER]
    ca = S[sqc + B[B[O_LANE_END0] + lane]]
    cb = S[sqc + B[B[O_LANE_END1] + lane]]
    off = B[S_SPOT_SEAT] + B[B[O_LANE_OFFSET] + lane]
    spots = B[O_SPOT_VALUE] + B[B[O_LANE_OFFSET] + lane]
    pts = 0
    for k in range(B[B[O_LANE_LEN] + lane]):
        if S[off + k] == seat:
            pts += B[spots + k]
    return pts * B[B[O_MULTIPLIER] + ca * 4 + cb]


@njit(cache=True, _nrt=False)
def _score_lane(B: np.ndarray, S: np.ndarray, lane: int, stat: int) -> None:
    """`Game._score_lane`: each seat scores its `lane_points`, counted in statistic
    `stat`."""
    scores = B[S_SCORES]
    stats = B[S_STATS]
    for p in range(B[N_PLAYERS]):
        gained = lane_points(B, S, lane, p)
        if gained:
            S[scores + p] += gained
            S[stats + p * N_STATS + stat] += gained
    S[B[S_LANE_SCORED] + lane] = 1
    S[B[S_SCORED_LANES] + S[N_SCORED_LANES]] = lane
    S[N_SCORED_LANES] += 1


@njit(cache=True, _nrt=False)
def move_bobby(B: np.ndarray, S: np.ndarray, district: int) -> None:
    """`Game._move_bobby`: cross the one lane shared with the adjacent `district`, paying
    for it (`move_cost`)."""
    seat = S[SEAT]
    bobby = S[BOBBY]
    lane = -1
    for i in range(B[B[O_NEIGHBOURS_AT] + bobby], B[B[O_NEIGHBOURS_AT] + bobby + 1]):
        if B[B[O_NEIGHBOUR_DISTRICT] + i] == district:
            lane = B[B[O_NEIGHBOUR_LANE] + i]
            break
    n = B[N_PLAYERS]
    base = B[S_LANE_SEAT] + lane * n
    loss, gainers, most = move_cost(B, S, lane, seat)
    if loss:
        S[B[S_SCORES] + seat] -= loss
        S[B[S_STATS] + seat * N_STATS + BOBBY_PAID] += loss
    if gainers:
        for p in range(n):
            if p != seat and S[base + p] == most:
                S[B[S_SCORES] + p] += 1
                S[B[S_STATS] + p * N_STATS + BOBBY_RECEIVED] += 1
    S[BOBBY] = district


@njit(cache=True, _nrt=False)
def end_turn(B: np.ndarray, S: np.ndarray) -> None:
    """`Game._end_turn`: refresh tokens, check the end triggers, pass the turn (or finish)."""
    seat = S[SEAT]
    t = B[N_TOKENS]
    lo = seat * t
    any_up = False
    for i in range(lo, lo + t):
        if S[B[S_TOK_VAL] + i] and S[B[S_TOK_UP] + i]:
            any_up = True
    if not any_up:
        for i in range(lo, lo + t):
            if S[B[S_TOK_VAL] + i]:
                S[B[S_TOK_UP] + i] = 1
    S[ACTIONS_LEFT] = 0
    if S[END_REASON] == 0 and S[CUSTOMERS_LEFT] == 0 and S[N_FULL_LANES] == B[N_LANES]:
        S[END_REASON] = END_BOARD_EXHAUSTED
    if seat == B[N_PLAYERS] - 1:
        if S[END_REASON] == 0 and S[ROUND] >= B[MAX_ROUNDS]:
            S[END_REASON] = END_ROUND_LIMIT
        if S[END_REASON] != 0:
            _finish(B, S)
            return
        S[ROUND] += 1
        S[SEAT] = 0
    else:
        S[SEAT] = seat + 1
    S[TURN] += 1
    S[PHASE] = TURN_START


@njit(cache=True, _nrt=False)
def _finish(B: np.ndarray, S: np.ndarray) -> None:
    """`Game._finish`: baron scoring, then the game is over."""
    baron = S[BARON_SQUARE]
    if baron >= 0:
        for i in range(B[B[O_SQUARE_LANES_AT] + baron], B[B[O_SQUARE_LANES_AT] + baron + 1]):
            lane = B[B[O_SQUARE_LANES] + i]
            if not S[B[S_LANE_SCORED] + lane]:
                _score_lane(B, S, lane, BARON_POINTS)
    S[PHASE] = OVER
