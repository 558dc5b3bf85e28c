"""What each action does to a state: the rules of docs/rules.md, one function per rule and
named as the rulebook names it (`place_bobby`, `play_token`, `score_district`, `place_stall`,
`draw`, `place_customer`, `place_baron`, `score_lane`, `move_bobby`, `end_turn`,
`score_baron`, `end_game`), reading and writing the state through the named accessors of
`sim.games.portobello.compiled.fields` (`F.lane_stalls(B, S, lane, seat)`).

`sim.games.portobello.compiled.engine.apply` hands each action to its rule; the rules trust their
caller: the action must be legal. What the rules work out that others read too lives here,
once: `move_cost` (the points a Bobby move costs; the legal-action list and the evaluator
read it), `next_spot` (the spot a stall takes) and `lane_multiplier` (what a lane's customers
multiply it by; the readable front, its events and the agents read them).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Phases, customers, statistics and end reasons: sim.games.portobello.codes, the one source both
# engines share.
from sim.games.portobello.codes import ACTIONS
from sim.games.portobello.codes import BARON
from sim.games.portobello.codes import BARON_POINTS
from sim.games.portobello.codes import BOBBY_PAID
from sim.games.portobello.codes import BOBBY_RECEIVED
from sim.games.portobello.codes import CHANCE
from sim.games.portobello.codes import CUSTOMERS_PLACED
from sim.games.portobello.codes import DISTRICT_POINTS
from sim.games.portobello.codes import DISTRICTS_SCORED
from sim.games.portobello.codes import END_BOARD_EXHAUSTED
from sim.games.portobello.codes import END_LAST_STALL
from sim.games.portobello.codes import END_ROUND_LIMIT
from sim.games.portobello.codes import LANE_POINTS
from sim.games.portobello.codes import OVER
from sim.games.portobello.codes import PLACE
from sim.games.portobello.codes import STALLS_PLACED
from sim.games.portobello.codes import TURN_START
from sim.games.portobello.compiled import actions as A
from sim.games.portobello.compiled import fields as F
from sim.games.portobello.compiled.layout import ACTIONS_LEFT
from sim.games.portobello.compiled.layout import BAG_CITIZENS
from sim.games.portobello.compiled.layout import BARON_SQUARE
from sim.games.portobello.compiled.layout import BOBBY
from sim.games.portobello.compiled.layout import CUSTOMERS_LEFT
from sim.games.portobello.compiled.layout import END_REASON
from sim.games.portobello.compiled.layout import KNOWN_ORDER
from sim.games.portobello.compiled.layout import LINE_POS
from sim.games.portobello.compiled.layout import LOG_LEN
from sim.games.portobello.compiled.layout import MAX_ROUNDS
from sim.games.portobello.compiled.layout import N_FULL_LANES
from sim.games.portobello.compiled.layout import N_LANES
from sim.games.portobello.compiled.layout import N_NEUTRAL
from sim.games.portobello.compiled.layout import N_PLAYERS
from sim.games.portobello.compiled.layout import N_SCORED_LANES
from sim.games.portobello.compiled.layout import N_TOKENS
from sim.games.portobello.compiled.layout import NEUTRAL_TOP
from sim.games.portobello.compiled.layout import PENDING
from sim.games.portobello.compiled.layout import PHASE
from sim.games.portobello.compiled.layout import ROUND
from sim.games.portobello.compiled.layout import SEAT
from sim.games.portobello.compiled.layout import TIE_PAYS_BANK
from sim.games.portobello.compiled.layout import TURN
from sim.games.portobello.compiled.layout import WITH_BARON


@njit(cache=True, inline="always", _nrt=False)
def move_cost(B: np.ndarray, S: np.ndarray, lane: int, mover: int) -> tuple[int, int, int]:
    """What moving the Bobby across `lane` costs (rules: moving the Bobby): (points the mover
    loses, how many seats gain 1 point each, the lane's largest stall count: the gainers are
    the other seats with that many). An empty lane costs 1 to the bank; a lone leader moves
    free; a tied leader pays each other leader, or 1 to the bank (`bobby_tie`); anyone else
    pays each leader."""
    n = B[N_PLAYERS]
    most = 0
    for p in range(n):
        most = max(most, F.lane_stalls(B, S, lane, p))
    if most == 0:
        return 1, 0, 0
    leaders = 0
    for p in range(n):
        if F.lane_stalls(B, S, lane, p) == most:
            leaders += 1
    if F.lane_stalls(B, S, lane, mover) == most:
        if leaders == 1:
            return 0, 0, most
        if B[TIE_PAYS_BANK]:
            return 1, 0, most
        return leaders - 1, leaders - 1, most
    return leaders, leaders, most


@njit(cache=True, _nrt=False)
def next_spot(B: np.ndarray, S: np.ndarray, lane: int, end: int) -> int:
    """The spot of `lane` (counted from its first end) that a stall built from `end` takes
    now: the next free one from that end."""
    count = F.lane_count(B, S, lane)
    return count if end == 0 else F.lane_len(B, lane) - 1 - count


@njit(cache=True, _nrt=False)
def lane_multiplier(B: np.ndarray, S: np.ndarray, lane: int) -> int:
    """What `lane`'s points are multiplied by when it scores now: the multiplier of the
    customers (or the baron) at its two ends."""
    return F.multiplier(B, F.square_customer(B, S, F.lane_end0(B, lane)),
                        F.square_customer(B, S, F.lane_end1(B, lane)))


@njit(cache=True, _nrt=False)
def place_bobby(S: np.ndarray, district: int) -> None:
    """Place the Bobby on `district` before the first turn; the first round begins with
    seat 0's turn."""
    S[BOBBY] = district
    S[SEAT] = 0
    S[ROUND] = 1
    S[TURN] = 1
    S[PHASE] = TURN_START


@njit(cache=True, _nrt=False)
def play_token(B: np.ndarray, S: np.ndarray, value: int, neutral: int) -> None:
    """Play a token for actions: flip a face-up token of this value; its value is the
    number of actions this turn."""
    seat = S[SEAT]
    for k in range(B[N_TOKENS]):
        if (F.token_value(B, S, seat, k) == value and F.token_neutral(B, S, seat, k) == neutral
                and F.token_up(B, S, seat, k)):
            F.set_token_up(B, S, seat, k, 0)
            break
    S[ACTIONS_LEFT] = value
    S[PHASE] = ACTIONS


@njit(cache=True, _nrt=False)
def score_district(B: np.ndarray, S: np.ndarray, value: int, district: int) -> None:
    """Score a district with a 2 or 4 (the whole turn): value x the seat's stalls on the
    lanes bordering it; the token stays in the district and the seat takes the top
    neutral token in its place (none once the stack is empty)."""
    seat = S[SEAT]
    stalls = 0
    for i in range(F.district_lanes_at(B, district), F.district_lanes_at(B, district + 1)):
        stalls += F.lane_stalls(B, S, F.district_lane(B, i), seat)
    points = value * stalls
    F.add_score(B, S, seat, points)
    F.add_stat(B, S, seat, DISTRICT_POINTS, points)
    F.add_stat(B, S, seat, DISTRICTS_SCORED, 1)
    F.set_district_scored(B, S, district, seat)
    for k in range(B[N_TOKENS]):
        if (F.token_value(B, S, seat, k) == value and not F.token_neutral(B, S, seat, k)
                and F.token_up(B, S, seat, k)):
            if S[NEUTRAL_TOP] < B[N_NEUTRAL]:
                F.set_token_value(B, S, seat, k, F.neutral_token(B, S[NEUTRAL_TOP]))
                F.set_token_neutral(B, S, seat, k, 1)
                F.set_token_up(B, S, seat, k, 1)
                S[NEUTRAL_TOP] += 1
            else:
                F.set_token_value(B, S, seat, k, 0)
                F.set_token_neutral(B, S, seat, k, 0)
                F.set_token_up(B, S, seat, k, 0)
            break
    end_turn(B, S)


@njit(cache=True, _nrt=False)
def place_stall(B: np.ndarray, S: np.ndarray, lane: int, end: int) -> None:
    """Place a stall on a lane bordering the Bobby's district, on the next free spot from
    `end` (the first stall fixes the lane's direction); the seat's last stall ends the
    game after this round, and a full lane with customers at both ends scores."""
    seat = S[SEAT]
    count = F.lane_count(B, S, lane)
    length = F.lane_len(B, lane)
    if count == 0:
        F.set_lane_dir(B, S, lane, end)
    F.set_spot_seat(B, S, F.lane_offset(B, lane) + next_spot(B, S, lane, end), seat)
    F.set_lane_count(B, S, lane, count + 1)
    F.add_lane_stalls(B, S, lane, seat, 1)
    F.add_stalls_left(B, S, seat, -1)
    F.add_stat(B, S, seat, STALLS_PLACED, 1)
    S[ACTIONS_LEFT] -= 1
    if count + 1 == length:
        S[N_FULL_LANES] += 1
        if lane_has_both_customers(B, S, lane):
            score_lane(B, S, lane, np.int64(LANE_POINTS))
    if F.stalls_left(B, S, seat) == 0 and S[END_REASON] == 0:
        S[END_REASON] = END_LAST_STALL


@njit(cache=True, _nrt=False)
def draw(B: np.ndarray, S: np.ndarray, forced: int, log: np.ndarray) -> None:
    """Draw a customer for an action: the known line's next, the customer a draw is
    forced to (`forced` > 0), or a draw from the bag left to chance."""
    S[ACTIONS_LEFT] -= 1
    if B[KNOWN_ORDER]:
        S[PENDING] = F.line(B, S, S[LINE_POS])
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
    """The customer chance drew leaves the bag and waits for its square."""
    S[BAG_CITIZENS + customer - 1] -= 1
    S[CUSTOMERS_LEFT] -= 1
    S[PENDING] = customer
    S[PHASE] = PLACE


@njit(cache=True, _nrt=False)
def place_customer(B: np.ndarray, S: np.ndarray, square: int) -> None:
    """Place the drawn customer on an empty square; the lanes it completes score, and the
    last customer brings the baron (if in play)."""
    seat = S[SEAT]
    customer = S[PENDING]
    S[PENDING] = 0
    S[PHASE] = ACTIONS
    F.set_square_customer(B, S, square, customer)
    F.add_stat(B, S, seat, CUSTOMERS_PLACED, 1)
    score_lanes_at(B, S, square)
    if S[CUSTOMERS_LEFT] == 0 and B[WITH_BARON] and S[BARON_SQUARE] < 0:
        place_baron(B, S)


@njit(cache=True, _nrt=False)
def place_baron(B: np.ndarray, S: np.ndarray) -> None:
    """The baron arrives with the last customer, on the first empty square, and completes
    the lanes there as a customer would."""
    square = 0
    while F.square_customer(B, S, square) != 0:
        square += 1
    F.set_square_customer(B, S, square, BARON)
    S[BARON_SQUARE] = square
    score_lanes_at(B, S, square)


@njit(cache=True, inline="always", _nrt=False)
def lane_has_both_customers(B: np.ndarray, S: np.ndarray, lane: int) -> bool:
    """Whether both end squares of `lane` hold a customer (or the baron)."""
    return (F.square_customer(B, S, F.lane_end0(B, lane)) != 0
            and F.square_customer(B, S, F.lane_end1(B, lane)) != 0)


@njit(cache=True, _nrt=False)
def score_lanes_at(B: np.ndarray, S: np.ndarray, square: int) -> None:
    """Score every full, unscored lane ending at `square` with customers at both ends."""
    for i in range(F.square_lanes_at(B, square), F.square_lanes_at(B, square + 1)):
        lane = F.square_lane(B, i)
        if F.lane_scored(B, S, lane) or F.lane_count(B, S, lane) != F.lane_len(B, lane):
            continue
        if lane_has_both_customers(B, S, lane):
            score_lane(B, S, lane, np.int64(LANE_POINTS))


@njit(cache=True, inline="always", _nrt=False)
def lane_points(B: np.ndarray, S: np.ndarray, lane: int, seat: int) -> int:
    """What `seat` gains when `lane` scores now: the sum of its spots' values times the
    lane's multiplier."""
    first = F.lane_offset(B, lane)
    points = 0
    for spot in range(first, first + F.lane_len(B, lane)):
        if F.spot_seat(B, S, spot) == seat:
            points += F.spot_value(B, spot)
    return points * lane_multiplier(B, S, lane)


@njit(cache=True, _nrt=False)
def score_lane(B: np.ndarray, S: np.ndarray, lane: int, stat: int) -> None:
    """Score a lane: each seat gains its `lane_points`, counted in statistic `stat`; the
    lane is scored once."""
    for p in range(B[N_PLAYERS]):
        gained = lane_points(B, S, lane, p)
        if gained:
            F.add_score(B, S, p, gained)
            F.add_stat(B, S, p, stat, gained)
    F.set_lane_scored(B, S, lane, 1)
    F.set_scored_lane(B, S, S[N_SCORED_LANES], lane)
    S[N_SCORED_LANES] += 1


@njit(cache=True, _nrt=False)
def move_bobby(B: np.ndarray, S: np.ndarray, district: int) -> None:
    """Move the Bobby to the adjacent `district` across the one lane they share, paying
    for it (`move_cost`)."""
    seat = S[SEAT]
    bobby = S[BOBBY]
    lane = -1
    for i in range(F.neighbours_at(B, bobby), F.neighbours_at(B, bobby + 1)):
        if F.neighbour_district(B, i) == district:
            lane = F.neighbour_lane(B, i)
            break
    loss, gainers, most = move_cost(B, S, lane, seat)
    if loss:
        F.add_score(B, S, seat, -loss)
        F.add_stat(B, S, seat, BOBBY_PAID, loss)
    if gainers:
        for p in range(B[N_PLAYERS]):
            if p != seat and F.lane_stalls(B, S, lane, p) == most:
                F.add_score(B, S, p, 1)
                F.add_stat(B, S, p, BOBBY_RECEIVED, 1)
    S[BOBBY] = district


@njit(cache=True, _nrt=False)
def end_turn(B: np.ndarray, S: np.ndarray) -> None:
    """End the turn: a seat with no face-up token turns its tokens up again; the end
    triggers are checked (the board exhausted now, the round limit after the last seat);
    the turn passes, or the game ends after the round's last seat."""
    seat = S[SEAT]
    any_up = False
    for k in range(B[N_TOKENS]):
        if F.token_value(B, S, seat, k) and F.token_up(B, S, seat, k):
            any_up = True
    if not any_up:
        for k in range(B[N_TOKENS]):
            if F.token_value(B, S, seat, k):
                F.set_token_up(B, S, seat, k, 1)
    S[ACTIONS_LEFT] = 0
    if S[END_REASON] == 0 and S[CUSTOMERS_LEFT] == 0 and S[N_FULL_LANES] == B[N_LANES]:
        S[END_REASON] = END_BOARD_EXHAUSTED
    if seat == B[N_PLAYERS] - 1:
        if S[END_REASON] == 0 and S[ROUND] >= B[MAX_ROUNDS]:
            S[END_REASON] = END_ROUND_LIMIT
        if S[END_REASON] != 0:
            end_game(B, S)
            return
        S[ROUND] += 1
        S[SEAT] = 0
    else:
        S[SEAT] = seat + 1
    S[TURN] += 1
    S[PHASE] = TURN_START


@njit(cache=True, _nrt=False)
def score_baron(B: np.ndarray, S: np.ndarray) -> None:
    """The baron's scoring at the end of the game: every unscored lane at the baron's
    square scores as if full, counted as baron points."""
    baron = S[BARON_SQUARE]
    if baron < 0:
        return
    for i in range(F.square_lanes_at(B, baron), F.square_lanes_at(B, baron + 1)):
        lane = F.square_lane(B, i)
        if not F.lane_scored(B, S, lane):
            score_lane(B, S, lane, np.int64(BARON_POINTS))


@njit(cache=True, _nrt=False)
def end_game(B: np.ndarray, S: np.ndarray) -> None:
    """The end of the game: the baron scores, then the game is over."""
    score_baron(B, S)
    S[PHASE] = OVER
