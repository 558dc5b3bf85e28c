"""A position as the learned agent's network sees it: a vector of floats from one seat's
chair (`me`), compiled.

Seats are listed from `me` onwards (me, the next seat to play, ...), so one network serves
every seat; a table of fewer than four players leaves the later seat blocks at zero. The
rules switches that vary between the studies are part of the vector (customer order, the
neutral stack, stalls per player, start scores, multipliers, the Bobby tie rule, the baron,
negative scores, the round limit), so that one model per board and player count can serve
every variant. Values are scaled to about [0, 1] (counts over their largest value, scores
over 50 points) so that no input dominates the first layer by its unit alone.

The layout, in order (`feature_count` gives the length; `FEATURES_VERSION` changes with it):

- the game (20): round over the round limit; whether `me` is to move; the seat to move
  (4, from `me`); the phase (6: setup, turn start, actions, a customer to place, chance,
  over); actions left over 4; citizens, aristocrats and customers left over the bag; the
  neutral tokens handed out over the stack; the baron placed; full lanes over the lanes;
- the rules (27): known order, baron, negative scores, the tie paying the bank, stalls over
  20, the round limit over 200, the 16 lane multipliers over 10, the neutral stack's size
  and sum over 10 and 30, the Bobby placed by `me`;
- each of 4 seats from `me` (6 + 2 x TOKEN_MAX each): in the game; score over 50; score
  minus `me`'s over 20; start score over 20; stalls left over the stalls; neutral tokens
  held over the tokens; then for each token value 1..TOKEN_MAX the seat's own face-up and
  face-down tokens of that value over the tokens;
- each lane (13): stalls in it over its spots; each of the 4 seats' stalls over its spots;
  scored; the customer at each end (3 each: citizen, aristocrat, baron); the multiplier its
  two ends give now over 10 (0 while an end is empty);
- each district (3): scored; scored by `me`; the Bobby there;
- the known line's next 4 customers (2 each: citizen, aristocrat; 0 when the order is
  drawn or the line is done).

The network's input is this vector and two numbers about the option that led to the
position (`option_inputs`): its rank among the planner's candidates over the width, and
how far the planner's price of it is below the best candidate's, over 10; so the network
starts from the heuristic's judgement and learns where the search departs from it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.games.portobello.codes import ACTIONS
from sim.games.portobello.codes import CHANCE
from sim.games.portobello.codes import N_CUSTOMER_CODES
from sim.games.portobello.codes import OVER
from sim.games.portobello.codes import PLACE
from sim.games.portobello.codes import SETUP
from sim.games.portobello.codes import TURN_START
from sim.games.portobello.compiled import fields as F
from sim.games.portobello.compiled.layout import ACTIONS_LEFT
from sim.games.portobello.compiled.layout import BAG_ARISTOCRATS
from sim.games.portobello.compiled.layout import BAG_CITIZENS
from sim.games.portobello.compiled.layout import BAG_SIZE
from sim.games.portobello.compiled.layout import BARON_SQUARE
from sim.games.portobello.compiled.layout import BOBBY
from sim.games.portobello.compiled.layout import BOBBY_PLACER
from sim.games.portobello.compiled.layout import CUSTOMERS_LEFT
from sim.games.portobello.compiled.layout import KNOWN_ORDER
from sim.games.portobello.compiled.layout import LINE_POS
from sim.games.portobello.compiled.layout import MAX_ROUNDS
from sim.games.portobello.compiled.layout import N_DISTRICTS
from sim.games.portobello.compiled.layout import N_FULL_LANES
from sim.games.portobello.compiled.layout import N_LANES
from sim.games.portobello.compiled.layout import N_NEUTRAL
from sim.games.portobello.compiled.layout import N_PLAYERS
from sim.games.portobello.compiled.layout import N_TOKENS
from sim.games.portobello.compiled.layout import NEGATIVE_SCORES
from sim.games.portobello.compiled.layout import NEUTRAL_TOP
from sim.games.portobello.compiled.layout import PHASE
from sim.games.portobello.compiled.layout import ROUND
from sim.games.portobello.compiled.layout import SEAT
from sim.games.portobello.compiled.layout import START_STALLS
from sim.games.portobello.compiled.layout import TIE_PAYS_BANK
from sim.games.portobello.compiled.layout import TOKEN_MAX
from sim.games.portobello.compiled.layout import WITH_BARON
from sim.games.portobello.compiled.transitions import lane_multiplier

FEATURES_VERSION = 1
SEATS = 4  # seat blocks (the most players a table has)
GAME, RULES, LANE, DISTRICT, LINE_AHEAD = 20, 27, 13, 3, 4
PHASES = (SETUP, TURN_START, ACTIONS, PLACE, CHANCE, OVER)


@njit(cache=True, _nrt=False)
def seat_block(B: np.ndarray) -> int:
    """The length of one seat's block."""
    return 6 + 2 * B[TOKEN_MAX]


@njit(cache=True, _nrt=False)
def feature_count(B: np.ndarray) -> int:
    """The length of the vector `features` writes, for this board and rules."""
    return (GAME + RULES + SEATS * seat_block(B) + LANE * B[N_LANES]
            + DISTRICT * B[N_DISTRICTS] + 2 * LINE_AHEAD)


OPTION_INPUTS = 2


@njit(cache=True, _nrt=False)
def input_count(B: np.ndarray) -> int:
    """The network's inputs: the position's features and the option's two numbers."""
    return feature_count(B) + OPTION_INPUTS


@njit(cache=True, _nrt=False)
def option_inputs(B: np.ndarray, rank: int, width: int, gap: float, out: np.ndarray) -> None:
    """The option's numbers after the features in `out`: rank over width, price gap over
    10 (the gap is the best candidate's price minus this one's, at least 0, at most 100)."""
    at = feature_count(B)
    out[at] = rank / max(1, width)
    out[at + 1] = min(max(gap, 0.0), 100.0) / 10.0


@njit(cache=True, _nrt=False)
def features(B: np.ndarray, S: np.ndarray, me: int, out: np.ndarray) -> None:
    """Write the position `S` as seen from seat `me` into `out` (`feature_count(B)` long)."""
    out[:] = 0.0
    n = B[N_PLAYERS]
    bag = max(1, B[BAG_SIZE])
    tokens = max(1, B[N_TOKENS])
    # The game.
    out[0] = S[ROUND] / max(1, B[MAX_ROUNDS])
    out[1] = 1.0 if S[SEAT] == me else 0.0
    if S[PHASE] != SETUP and S[PHASE] != OVER:
        out[2 + (S[SEAT] - me) % n] = 1.0
    for i in range(len(PHASES)):
        if S[PHASE] == PHASES[i]:
            out[6 + i] = 1.0
    out[12] = S[ACTIONS_LEFT] / 4.0
    out[13] = S[BAG_CITIZENS] / bag
    out[14] = S[BAG_ARISTOCRATS] / bag
    out[15] = S[CUSTOMERS_LEFT] / bag
    out[16] = S[NEUTRAL_TOP] / max(1, B[N_NEUTRAL])
    out[17] = 1.0 if S[BARON_SQUARE] >= 0 else 0.0
    out[18] = S[N_FULL_LANES] / max(1, B[N_LANES])
    # out[19]: kept at zero (room for a game feature without moving the others)
    # The rules.
    k = GAME
    out[k] = B[KNOWN_ORDER]
    out[k + 1] = B[WITH_BARON]
    out[k + 2] = B[NEGATIVE_SCORES]
    out[k + 3] = B[TIE_PAYS_BANK]
    out[k + 4] = B[START_STALLS] / 20.0
    out[k + 5] = B[MAX_ROUNDS] / 200.0
    for a in range(N_CUSTOMER_CODES):
        for b in range(N_CUSTOMER_CODES):
            out[k + 6 + a * N_CUSTOMER_CODES + b] = F.multiplier(B, a, b) / 10.0
    stack = 0
    for i in range(B[N_NEUTRAL]):
        stack += F.neutral_token(B, i)
    out[k + 22] = B[N_NEUTRAL] / 10.0
    out[k + 23] = stack / 30.0
    out[k + 24] = 1.0 if B[BOBBY_PLACER] == me else 0.0
    # The seats, from me.
    k = GAME + RULES
    block = seat_block(B)
    vmax = B[TOKEN_MAX]
    mine = F.score(B, S, me)
    for r in range(min(n, SEATS)):
        p = (me + r) % n
        at = k + r * block
        out[at] = 1.0
        out[at + 1] = F.score(B, S, p) / 50.0
        out[at + 2] = (F.score(B, S, p) - mine) / 20.0
        out[at + 3] = F.start_score(B, p) / 20.0
        out[at + 4] = F.stalls_left(B, S, p) / max(1, B[START_STALLS])
        for t in range(B[N_TOKENS]):
            v = F.token_value(B, S, p, t)
            if v == 0:
                continue
            if F.token_neutral(B, S, p, t):
                out[at + 5] += 1.0 / tokens
            elif 1 <= v <= vmax:
                up = F.token_up(B, S, p, t)
                out[at + 6 + 2 * (v - 1) + (0 if up else 1)] += 1.0 / tokens
    # The lanes.
    k = GAME + RULES + SEATS * block
    for lane in range(B[N_LANES]):
        at = k + lane * LANE
        spots = max(1, F.lane_len(B, lane))
        out[at] = F.lane_count(B, S, lane) / spots
        for r in range(min(n, SEATS)):
            out[at + 1 + r] = F.lane_stalls(B, S, lane, (me + r) % n) / spots
        out[at + 5] = F.lane_scored(B, S, lane)
        c0 = F.square_customer(B, S, F.lane_end0(B, lane))
        c1 = F.square_customer(B, S, F.lane_end1(B, lane))
        if 1 <= c0 <= 3:
            out[at + 5 + c0] = 1.0
        if 1 <= c1 <= 3:
            out[at + 8 + c1] = 1.0
        if c0 and c1:
            out[at + 12] = lane_multiplier(B, S, lane) / 10.0
    # The districts.
    k += LANE * B[N_LANES]
    for d in range(B[N_DISTRICTS]):
        at = k + d * DISTRICT
        by = F.district_scored(B, S, d)
        out[at] = 1.0 if by >= 0 else 0.0
        out[at + 1] = 1.0 if by == me else 0.0
        out[at + 2] = 1.0 if S[BOBBY] == d else 0.0
    # The known line ahead.
    k += DISTRICT * B[N_DISTRICTS]
    if B[KNOWN_ORDER]:
        for i in range(LINE_AHEAD):
            pos = S[LINE_POS] + i
            if pos < B[BAG_SIZE]:
                c = F.line(B, S, pos)
                if c == 1 or c == 2:
                    out[k + 2 * i + c - 1] = 1.0
