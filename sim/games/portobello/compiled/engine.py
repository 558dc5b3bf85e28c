"""The engine: the rules of the game over flat int64 arrays, the one implementation the
runner, the agents and `sim.games.portobello.game.Game` (its readable front) all play.

A state is one array `S` laid out by `sim.games.portobello.compiled.layout` (scalars first, then
tables at offsets kept in `B`); copying a state is `S.copy()`. The tests check it against
an independent reading of the rules (`tests/oracle`), state by state.

This module is the engine's face: a new game, the legal actions, the chance player's draw
and `apply`, the one door through which every action enters (it logs the action and hands
it to its state change). What each action does to the state is
`sim.games.portobello.compiled.transitions`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.core import rng as R

# Phases: sim.games.portobello.codes, the one source of the game's codes. Actions are encoded and
# decoded by sim.games.portobello.actions' own functions, compiled (`A`).
from sim.games.portobello.codes import ACTIONS
from sim.games.portobello.codes import CHANCE
from sim.games.portobello.codes import PLACE
from sim.games.portobello.codes import SETUP
from sim.games.portobello.codes import TURN_START
from sim.games.portobello.compiled import actions as A
from sim.games.portobello.compiled import fields as F
from sim.games.portobello.compiled.layout import ACTIONS_LEFT
from sim.games.portobello.compiled.layout import BAG_ARISTOCRATS
from sim.games.portobello.compiled.layout import BAG_CITIZENS
from sim.games.portobello.compiled.layout import BAG_SIZE
from sim.games.portobello.compiled.layout import BARON_SQUARE
from sim.games.portobello.compiled.layout import BOBBY
from sim.games.portobello.compiled.layout import BOBBY_PLACER
from sim.games.portobello.compiled.layout import CUSTOMERS_LEFT
from sim.games.portobello.compiled.layout import HAS_SEQUENCE
from sim.games.portobello.compiled.layout import KNOWN_ORDER
from sim.games.portobello.compiled.layout import LOG_LEN
from sim.games.portobello.compiled.layout import LOG_OVERFLOW
from sim.games.portobello.compiled.layout import N_ARISTOCRATS
from sim.games.portobello.compiled.layout import N_CITIZENS
from sim.games.portobello.compiled.layout import N_DISTRICTS
from sim.games.portobello.compiled.layout import N_LANES
from sim.games.portobello.compiled.layout import N_PLAYERS
from sim.games.portobello.compiled.layout import N_SPOTS
from sim.games.portobello.compiled.layout import N_SQUARES
from sim.games.portobello.compiled.layout import N_TOKENS
from sim.games.portobello.compiled.layout import NEGATIVE_SCORES
from sim.games.portobello.compiled.layout import PHASE
from sim.games.portobello.compiled.layout import ROUND
from sim.games.portobello.compiled.layout import S_LINE
from sim.games.portobello.compiled.layout import S_SIZE
from sim.games.portobello.compiled.layout import SEAT
from sim.games.portobello.compiled.layout import START_STALLS
from sim.games.portobello.compiled.layout import TOKEN_MAX
from sim.games.portobello.compiled.transitions import draw
from sim.games.portobello.compiled.transitions import end_turn
from sim.games.portobello.compiled.transitions import move_bobby
from sim.games.portobello.compiled.transitions import move_cost
from sim.games.portobello.compiled.transitions import place_bobby
from sim.games.portobello.compiled.transitions import place_customer
from sim.games.portobello.compiled.transitions import place_stall
from sim.games.portobello.compiled.transitions import play_token
from sim.games.portobello.compiled.transitions import reveal
from sim.games.portobello.compiled.transitions import score_district


@njit(cache=True)
def new_game(B: np.ndarray, chance_rng: np.ndarray) -> np.ndarray:
    """A game at its start (the known line, if any, shuffled with the game's generator)."""
    S = np.empty(B[S_SIZE], np.int64)
    start_game(B, S, chance_rng)
    return S


@njit(cache=True, _nrt=False)
def start_game(B: np.ndarray, S: np.ndarray, chance_rng: np.ndarray) -> None:
    """Set `S` (of size `B[S_SIZE]`) to a game at its start, as `new_game`: a batch of games
    reuses one state array."""
    S[:] = 0
    S[SEAT] = B[BOBBY_PLACER]
    S[ROUND] = 1
    S[PHASE] = SETUP
    for p in range(B[N_PLAYERS]):
        F.set_score(B, S, p, F.start_score(B, p))
        F.set_stalls_left(B, S, p, B[START_STALLS])
        for k in range(B[N_TOKENS]):
            F.set_token_value(B, S, p, k, F.player_token(B, k))
            F.set_token_up(B, S, p, k, 1)
    for lane in range(B[N_LANES]):
        F.set_lane_dir(B, S, lane, -1)
    for spot in range(B[N_SPOTS]):
        F.set_spot_seat(B, S, spot, -1)
    for d in range(B[N_DISTRICTS]):
        F.set_district_scored(B, S, d, -1)
    S[BOBBY] = -1
    S[BAG_CITIZENS] = B[N_CITIZENS]
    S[BAG_ARISTOCRATS] = B[N_ARISTOCRATS]
    S[CUSTOMERS_LEFT] = B[BAG_SIZE]
    S[BARON_SQUARE] = -1
    if B[KNOWN_ORDER]:  # the whole bag drawn into a visible line before play
        size = B[BAG_SIZE]
        for i in range(size):
            if B[HAS_SEQUENCE]:
                F.set_line(B, S, i, F.sequence(B, i))
            else:
                F.set_line(B, S, i, 1 if i < B[N_CITIZENS] else 2)
        if not B[HAS_SEQUENCE]:
            line = B[S_LINE]
            R.shuffle(chance_rng, S[line:line + size], size)


# -- queries ------------------------------------------------------------------------------
@njit(cache=True, inline="always", _nrt=False)
def stall_and_draw_actions(B: np.ndarray, S: np.ndarray, out: np.ndarray, k: int) -> int:
    """The actions phase's stall placements and customer draw, in legal-action order (what
    `Game.legal_actions` returns), written into `out` from `k`; returns the new count."""
    if S[ACTIONS_LEFT] > 0:
        if F.stalls_left(B, S, S[SEAT]) > 0:
            bobby = S[BOBBY]
            for i in range(F.district_lanes_at(B, bobby), F.district_lanes_at(B, bobby + 1)):
                lane = F.district_lane(B, i)
                c = F.lane_count(B, S, lane)
                if c < F.lane_len(B, lane):
                    if c == 0:
                        out[k] = A.place_stall(lane, 0)
                        out[k + 1] = A.place_stall(lane, 1)
                        k += 2
                    else:
                        out[k] = A.place_stall(lane, F.lane_dir(B, S, lane))
                        k += 1
        if S[CUSTOMERS_LEFT] > 0:
            out[k] = A.DRAW
            k += 1
    return k


@njit(cache=True, inline="always", _nrt=False)
def every_move_affordable(B: np.ndarray, S: np.ndarray) -> bool:
    """Whether the mover can pay for any Bobby move: a move costs at most max(1, players - 1)
    points (`move_cost`), so with that many (or negative scores allowed) the costs need not
    be worked out."""
    return B[NEGATIVE_SCORES] or F.score(B, S, S[SEAT]) >= max(1, B[N_PLAYERS] - 1)


@njit(cache=True, inline="always", _nrt=False)
def neighbour_count(B: np.ndarray, S: np.ndarray) -> int:
    """How many districts the Bobby can move to (affordable or not)."""
    bobby = S[BOBBY]
    return F.neighbours_at(B, bobby + 1) - F.neighbours_at(B, bobby)


@njit(cache=True, inline="always", _nrt=False)
def neighbour_move(B: np.ndarray, S: np.ndarray, i: int) -> int:
    """The Bobby's move to its `i`-th neighbour, in legal-action order: when every move is
    affordable, the i-th of `bobby_moves`."""
    return A.move_bobby(F.neighbour_district(B, F.neighbours_at(B, S[BOBBY]) + i))


@njit(cache=True, _nrt=False, forceinline=False)
def bobby_moves(B: np.ndarray, S: np.ndarray, out: np.ndarray, k: int) -> int:
    """The actions phase's affordable Bobby moves, in legal-action order (what
    `Game.legal_actions` returns), written into `out` from `k`; returns the new count."""
    seat = S[SEAT]
    score = F.score(B, S, seat)
    rich = every_move_affordable(B, S)
    bobby = S[BOBBY]
    for i in range(F.neighbours_at(B, bobby), F.neighbours_at(B, bobby + 1)):
        if rich or move_cost(B, S, F.neighbour_lane(B, i), seat)[0] <= score:
            out[k] = A.move_bobby(F.neighbour_district(B, i))
            k += 1
    return k


@njit(cache=True, inline="always", _nrt=False)
def district_open(B: np.ndarray, S: np.ndarray, d: int) -> bool:
    """Whether district `d` is still unscored, so a 2 or 4 may score it."""
    return F.district_scored(B, S, d) < 0


@njit(cache=True, inline="always", _nrt=False)
def plays_for_actions(B: np.ndarray, S: np.ndarray, seat: int, i: int) -> bool:
    """Whether `seat`'s token `i` is a token play of the turn's start of its own: face up,
    and no face-up token before it of the same value and neutrality (playing either is one
    action)."""
    v = F.token_value(B, S, seat, i)
    if not (v and F.token_up(B, S, seat, i)):
        return False
    neutral = F.token_neutral(B, S, seat, i)
    for j in range(i):
        if F.token_value(B, S, seat, j) == v and F.token_up(B, S, seat, j) \
                and F.token_neutral(B, S, seat, j) == neutral:
            return False
    return True


@njit(cache=True, inline="always", _nrt=False)
def scores_districts(B: np.ndarray, S: np.ndarray, seat: int, i: int) -> bool:
    """Whether `seat`'s token `i` may score a district at the turn's start: a face-up 2 or
    4 of the seat's own (not a neutral token)."""
    v = F.token_value(B, S, seat, i)
    return bool(v and F.token_up(B, S, seat, i) and not F.token_neutral(B, S, seat, i)
                and v <= B[TOKEN_MAX] and F.is_district_token(B, v))


@njit(cache=True, _nrt=False, forceinline=False)
def turn_start_options(B: np.ndarray, S: np.ndarray, out: np.ndarray, scoring: bool,
                       j: int) -> tuple[int, int]:
    """The turn start's options of the seat to move, in legal-action order; the one place
    they are listed: the token plays (each token that `plays_for_actions`), then the
    district scorings (each token that `scores_districts`, on every open district in turn).

    Two uses of the one walk: every option written into `out` when it has room
    (`legal_actions`), or, with `out` empty, the `j`-th token play (`scoring` False) or the
    `j`-th district scoring picked (`turn_start_action`), the walk stopping there. Returns
    (the options walked, the one picked or END)."""
    seat = S[SEAT]
    write = out.shape[0] > 0
    k = 0
    for i in range(B[N_TOKENS]):
        if plays_for_actions(B, S, seat, i):
            if write or (not scoring and k == j):
                action = A.play_token(F.token_value(B, S, seat, i),
                                      F.token_neutral(B, S, seat, i))
                if not write:
                    return k + 1, action
                out[k] = action
            k += 1
    plays = k
    for i in range(B[N_TOKENS]):
        if scores_districts(B, S, seat, i):
            v = F.token_value(B, S, seat, i)
            for d in range(B[N_DISTRICTS]):
                if district_open(B, S, d):
                    if write:
                        out[k] = A.score_district(v, d)
                    elif scoring and k - plays == j:
                        return k + 1, A.score_district(v, d)
                    k += 1
    return k, A.END


@njit(cache=True, _nrt=False, forceinline=False)
def turn_start_action(B: np.ndarray, S: np.ndarray, scoring: bool, j: int) -> int:
    """The `j`-th token play (or district scoring) of the turn's start, in `legal_actions`'
    order (`turn_start_options`)."""
    return turn_start_options(B, S, S[:0], scoring, j)[1]


@njit(cache=True, _nrt=False, forceinline=False)
def turn_start_counts(B: np.ndarray, S: np.ndarray) -> tuple[int, int]:
    """How many token plays and district scorings `turn_start_options` lists for the seat
    to move, counted in one pass without listing them: the random agent counts them at
    every turn start, and counting them by a walk of the list made its games 4% slower
    (the tests hold the counts to the list)."""
    seat = S[SEAT]
    open_districts = 0
    for d in range(B[N_DISTRICTS]):
        if district_open(B, S, d):
            open_districts += 1
    plays = scorings = 0
    for i in range(B[N_TOKENS]):
        if plays_for_actions(B, S, seat, i):
            plays += 1
        if scores_districts(B, S, seat, i):
            scorings += open_districts
    return plays, scorings


@njit(cache=True, _nrt=False, forceinline=False)
def legal_actions(B: np.ndarray, S: np.ndarray, out: np.ndarray) -> int:
    """Write the legal actions into `out` (what `Game.legal_actions` returns); return how
    many."""
    phase = S[PHASE]
    k = 0
    if phase == ACTIONS:
        k = bobby_moves(B, S, out, stall_and_draw_actions(B, S, out, 0))
        out[k] = A.END
        return k + 1
    if phase == PLACE:  # any empty square
        for square in range(B[N_SQUARES]):
            if F.square_customer(B, S, square) == 0:
                out[k] = A.place_customer(square)
                k += 1
        return k
    if phase == TURN_START:  # a face-up token for actions, or a 2 or 4 on a district
        k, _ = turn_start_options(B, S, out, np.bool_(False), np.int64(-1))
        if k == 0:
            out[0] = A.END
            return 1
        return k
    if phase == CHANCE:
        if S[BAG_CITIZENS]:
            out[k] = A.chance(1)
            k += 1
        if S[BAG_ARISTOCRATS]:
            out[k] = A.chance(2)
            k += 1
        return k
    if phase == SETUP:
        for d in range(B[N_DISTRICTS]):
            out[d] = A.place_bobby(d)
        return B[N_DISTRICTS]
    return 0


@njit(cache=True, _nrt=False)
def sample_chance(S: np.ndarray, chance_rng: np.ndarray) -> int:
    """A customer drawn from the bag with the game's generator (`Game.sample_chance` calls
    it)."""
    c = S[BAG_CITIZENS]
    a = S[BAG_ARISTOCRATS]
    return A.chance(1 if R.below(chance_rng, c + a) < c else 2)


# -- the trusted door ----------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _log(S: np.ndarray, log: np.ndarray, action: int) -> None:
    """Append `action` to the record log, or mark the log as overflowed when it is full."""
    if S[LOG_LEN] < log.shape[0]:
        log[S[LOG_LEN]] = action
        S[LOG_LEN] += 1
    else:
        S[LOG_OVERFLOW] = 1


@njit(cache=True, _nrt=False)
def apply(B: np.ndarray, S: np.ndarray, action: int, log: np.ndarray) -> None:
    """A legal action, unchecked (`Game.apply` calls it); logged into `log` (a record's
    actions) when `log` has room (an empty log array keeps none)."""
    k = A.kind(action)
    a = A.arg(action)
    if log.shape[0]:
        if k == A.CHANCE_DRAW:
            if S[LOG_LEN] > 0:
                log[S[LOG_LEN] - 1] = A.draw_customer(a)  # the draw and its outcome: one action
        else:
            _log(S, log, action)
    if k == A.PLACE_STALL:
        place_stall(B, S, A.stall_lane(action), A.stall_end(action))
    elif k == A.MOVE_BOBBY:
        move_bobby(B, S, a)
    elif k == A.END_TURN:
        end_turn(B, S)
    elif k == A.DRAW_CUSTOMER:
        draw(B, S, a, log)
    elif k == A.PLACE_CUSTOMER:
        place_customer(B, S, a)
    elif k == A.CHANCE_DRAW:
        reveal(S, a)
    elif k == A.PLAY_TOKEN:
        play_token(B, S, A.token_value(action), A.token_neutral(action))
    elif k == A.SCORE_DISTRICT:
        score_district(B, S, A.district_value(action), A.district_of(action))
    elif k == A.PLACE_BOBBY:
        place_bobby(S, a)
