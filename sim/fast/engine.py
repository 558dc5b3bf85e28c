"""The compiled engine: the rules of `sim.engine.game` over flat int64 arrays, for mass play.

`sim.engine.game.Game` stays the reference; this module repeats its rules step for step (same
legal-action order, same state changes, same log), and the differential tests require both to
give identical games. A state is one array `S` laid out by `sim.fast.layout` (scalars first,
then tables at offsets kept in `B`); copying a state is `S.copy()`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Phases, customers, statistics and end reasons: sim.engine.codes, the one source both
# engines share. Actions are encoded and decoded by sim.engine.actions' own functions (`A`).
from sim.engine.codes import (
    ACTIONS,
    BARON,
    BARON_POINTS,
    BOBBY_PAID,
    BOBBY_RECEIVED,
    CHANCE,
    CUSTOMERS_PLACED,
    DISTRICT_POINTS,
    DISTRICTS_SCORED,
    END_BOARD_EXHAUSTED,
    END_LAST_STALL,
    END_ROUND_LIMIT,
    LANE_POINTS,
    N_STATS,
    OVER,
    PLACE,
    SETUP,
    STALLS_PLACED,
    TURN_START,
)
from sim.fast import actions as A
from sim.fast import rng as R
from sim.fast.layout import (
    ACT,
    ARI,
    BAG1,
    BAG2,
    BAG_SIZE,
    BARON_ON,
    BOBBY,
    BSQ,
    CIT,
    CLEFT,
    DTOK_MAX,
    ENDR,
    HAS_SEQ,
    KNOWN,
    LOG_OVERFLOW,
    LOGN,
    LPOS,
    MAX_ROUNDS,
    ND,
    NEG,
    NFULL,
    NL,
    NS,
    NSCL,
    NSPOT,
    NSTACK,
    NTOP,
    O_DL,
    O_DLS,
    O_DND,
    O_DNL,
    O_DNS,
    O_DTOK,
    O_EA,
    O_EB,
    O_LEN,
    O_LOFF,
    O_MULT,
    O_SEQ,
    O_SPOTS,
    O_SQL,
    O_SQS,
    O_STACK,
    O_TOK,
    PAY_BANK,
    PEND,
    PHASE,
    PLACER,
    ROUND,
    S_DSC,
    S_LC,
    S_LDIR,
    S_LINE,
    S_LSC,
    S_LSEAT,
    S_SCL,
    S_SCORES,
    S_SIZE,
    S_SPOT,
    S_SQC,
    S_STALLS,
    S_STATS,
    S_TN,
    S_TU,
    S_TV,
    SEAT,
    STALLS,
    START,
    TURN,
    N,
    T,
)


@njit(cache=True)
def new_game(B: np.ndarray, chance_rng: np.ndarray) -> np.ndarray:
    """A game at its start (the known line, if any, shuffled with the game's generator)."""
    S = np.zeros(B[S_SIZE], np.int64)
    n = B[N]
    S[SEAT] = B[PLACER]
    S[ROUND] = 1
    S[PHASE] = SETUP
    t = B[T]
    for p in range(n):
        S[B[S_SCORES] + p] = B[START]
        S[B[S_STALLS] + p] = B[STALLS]
        for k in range(t):
            S[B[S_TV] + p * t + k] = B[B[O_TOK] + k]
            S[B[S_TU] + p * t + k] = 1
    for lane in range(B[NL]):
        S[B[S_LDIR] + lane] = -1
    for i in range(B[NSPOT]):
        S[B[S_SPOT] + i] = -1
    for d in range(B[ND]):
        S[B[S_DSC] + d] = -1
    S[BOBBY] = -1
    S[BAG1] = B[CIT]
    S[BAG2] = B[ARI]
    S[CLEFT] = B[BAG_SIZE]
    S[BSQ] = -1
    if B[KNOWN]:
        line = B[S_LINE]
        size = B[BAG_SIZE]
        if B[HAS_SEQ]:
            for i in range(size):
                S[line + i] = B[B[O_SEQ] + i]
        else:
            for i in range(size):
                S[line + i] = 1 if i < B[CIT] else 2
            R.shuffle(chance_rng, S[line:line + size], size)
    return S


# -- queries ------------------------------------------------------------------------------
@njit(cache=True, inline="always", _nrt=False)
def move_cost(B: np.ndarray, S: np.ndarray, lane: int, mover: int) -> tuple[int, int, int]:
    """`Game.move_cost`: (points the mover loses crossing `lane`, how many seats gain 1 point
    each, the lane's largest stall count: the gainers are the other seats with that many)."""
    n = B[N]
    base = B[S_LSEAT] + lane * n
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
        if B[PAY_BANK]:
            return 1, 0, most
        return leaders - 1, leaders - 1, most
    return leaders, leaders, most


@njit(cache=True, inline="always", _nrt=False)
def legal_actions(B: np.ndarray, S: np.ndarray, out: np.ndarray) -> int:
    """Write the legal actions into `out` in `Game.legal_actions` order; return how many."""
    phase = S[PHASE]
    k = 0
    if phase == ACTIONS:
        seat = S[SEAT]
        bobby = S[BOBBY]
        if S[ACT] > 0:
            if S[B[S_STALLS] + seat] > 0:
                for i in range(B[B[O_DLS] + bobby], B[B[O_DLS] + bobby + 1]):
                    lane = B[B[O_DL] + i]
                    c = S[B[S_LC] + lane]
                    if c < B[B[O_LEN] + lane]:
                        if c == 0:
                            out[k] = A.place_stall(lane, 0)
                            out[k + 1] = A.place_stall(lane, 1)
                            k += 2
                        else:
                            out[k] = A.place_stall(lane, S[B[S_LDIR] + lane])
                            k += 1
            if S[CLEFT] > 0:
                out[k] = A.DRAW
                k += 1
        neg = B[NEG]
        score = S[B[S_SCORES] + seat]
        for i in range(B[B[O_DNS] + bobby], B[B[O_DNS] + bobby + 1]):
            if neg or move_cost(B, S, B[B[O_DNL] + i], seat)[0] <= score:
                out[k] = A.move_bobby(B[B[O_DND] + i])
                k += 1
        out[k] = A.END
        return k + 1
    if phase == PLACE:
        sqc = B[S_SQC]
        for s in range(B[NS]):
            if S[sqc + s] == 0:
                out[k] = A.place_customer(s)
                k += 1
        return k
    if phase == TURN_START:
        seat = S[SEAT]
        t = B[T]
        lo = seat * t
        for i in range(lo, lo + t):
            v = S[B[S_TV] + i]
            if v and S[B[S_TU] + i]:
                a = A.play_token(v, S[B[S_TN] + i])
                seen = False
                for j in range(k):
                    if out[j] == a:
                        seen = True
                if not seen:
                    out[k] = a
                    k += 1
        for i in range(lo, lo + t):
            v = S[B[S_TV] + i]
            if v and S[B[S_TU] + i] and not S[B[S_TN] + i] and v <= B[DTOK_MAX] \
                    and B[B[O_DTOK] + v]:
                for d in range(B[ND]):
                    if S[B[S_DSC] + d] < 0:
                        out[k] = A.score_district(v, d)
                        k += 1
        if k == 0:
            out[0] = A.END
            return 1
        return k
    if phase == CHANCE:
        if S[BAG1]:
            out[k] = A.chance(1)
            k += 1
        if S[BAG2]:
            out[k] = A.chance(2)
            k += 1
        return k
    if phase == SETUP:
        for d in range(B[ND]):
            out[d] = A.place_bobby(d)
        return B[ND]
    return 0


@njit(cache=True, _nrt=False)
def sample_chance(S: np.ndarray, chance_rng: np.ndarray) -> int:
    """`Game.sample_chance`: a customer drawn from the bag with the game's generator."""
    c = S[BAG1]
    a = S[BAG2]
    return A.chance(1 if R.below(chance_rng, c + a) < c else 2)


# -- the trusted door ----------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _log(S: np.ndarray, log: np.ndarray, action: int) -> None:
    if S[LOGN] < log.shape[0]:
        log[S[LOGN]] = action
        S[LOGN] += 1
    else:
        S[LOG_OVERFLOW] = 1


@njit(cache=True, _nrt=False)
def apply(B: np.ndarray, S: np.ndarray, action: int, log: np.ndarray) -> None:
    """`Game.apply`: a legal action, unchecked; logged into `log` (a record's actions) when
    `log` has room (an empty log array keeps none)."""
    k = A.kind(action)
    a = A.arg(action)
    if log.shape[0]:
        if k == A.CHANCE_DRAW:
            if S[LOGN] > 0:
                log[S[LOGN] - 1] = A.draw_customer(a)  # the draw and its outcome: one action
        else:
            _log(S, log, action)
    if k == A.PLACE_STALL:
        _place_stall(B, S, A.stall_lane(action), A.stall_end(action))
    elif k == A.MOVE_BOBBY:
        _move_bobby(B, S, a)
    elif k == A.END_TURN:
        _end_turn(B, S)
    elif k == A.DRAW_CUSTOMER:
        _draw(B, S, a, log)
    elif k == A.PLACE_CUSTOMER:
        _place_customer(B, S, a)
    elif k == A.CHANCE_DRAW:
        _reveal(S, a)
    elif k == A.PLAY_TOKEN:
        _play_token(B, S, A.token_value(action), A.token_neutral(action))
    elif k == A.SCORE_DISTRICT:
        _score_district(B, S, A.district_value(action), A.district_of(action))
    elif k == A.PLACE_BOBBY:
        S[BOBBY] = a
        S[SEAT] = 0
        S[ROUND] = 1
        S[TURN] = 1
        S[PHASE] = TURN_START


@njit(cache=True, _nrt=False)
def _play_token(B: np.ndarray, S: np.ndarray, value: int, neutral: int) -> None:
    t = B[T]
    lo = S[SEAT] * t
    for i in range(lo, lo + t):
        if S[B[S_TV] + i] == value and S[B[S_TN] + i] == neutral and S[B[S_TU] + i]:
            S[B[S_TU] + i] = 0
            break
    S[ACT] = value
    S[PHASE] = ACTIONS


@njit(cache=True, _nrt=False)
def _score_district(B: np.ndarray, S: np.ndarray, value: int, district: int) -> None:
    seat = S[SEAT]
    n = B[N]
    t = B[T]
    stalls = 0
    for i in range(B[B[O_DLS] + district], B[B[O_DLS] + district + 1]):
        stalls += S[B[S_LSEAT] + B[B[O_DL] + i] * n + seat]
    points = value * stalls
    S[B[S_SCORES] + seat] += points
    S[B[S_STATS] + seat * N_STATS + DISTRICT_POINTS] += points
    S[B[S_STATS] + seat * N_STATS + DISTRICTS_SCORED] += 1
    S[B[S_DSC] + district] = seat
    lo = seat * t
    for i in range(lo, lo + t):
        tv = B[S_TV] + i
        if S[tv] == value and not S[B[S_TN] + i] and S[B[S_TU] + i]:
            if S[NTOP] < B[NSTACK]:
                S[tv] = B[B[O_STACK] + S[NTOP]]
                S[B[S_TN] + i] = 1
                S[B[S_TU] + i] = 1
                S[NTOP] += 1
            else:
                S[tv] = 0
                S[B[S_TN] + i] = 0
                S[B[S_TU] + i] = 0
            break
    _end_turn(B, S)


@njit(cache=True, _nrt=False)
def _place_stall(B: np.ndarray, S: np.ndarray, lane: int, end: int) -> None:
    seat = S[SEAT]
    c = S[B[S_LC] + lane]
    length = B[B[O_LEN] + lane]
    if c == 0:
        S[B[S_LDIR] + lane] = end
    spot = c if end == 0 else length - 1 - c
    S[B[S_SPOT] + B[B[O_LOFF] + lane] + spot] = seat
    S[B[S_LC] + lane] = c + 1
    S[B[S_LSEAT] + lane * B[N] + seat] += 1
    S[B[S_STALLS] + seat] -= 1
    S[B[S_STATS] + seat * N_STATS + STALLS_PLACED] += 1
    S[ACT] -= 1
    if c + 1 == length:
        S[NFULL] += 1
        if S[B[S_SQC] + B[B[O_EA] + lane]] and S[B[S_SQC] + B[B[O_EB] + lane]]:
            _score_lane(B, S, lane, LANE_POINTS)
    if S[B[S_STALLS] + seat] == 0 and S[ENDR] == 0:
        S[ENDR] = END_LAST_STALL


@njit(cache=True, _nrt=False)
def _draw(B: np.ndarray, S: np.ndarray, forced: int, log: np.ndarray) -> None:
    S[ACT] -= 1
    if B[KNOWN]:
        S[PEND] = S[B[S_LINE] + S[LPOS]]
        S[LPOS] += 1
        S[CLEFT] -= 1
        if log.shape[0] and S[LOGN] > 0:
            log[S[LOGN] - 1] = A.draw_customer(S[PEND])
        S[PHASE] = PLACE
    elif forced:
        _reveal(S, forced)
    else:
        S[PHASE] = CHANCE


@njit(cache=True, _nrt=False)
def _reveal(S: np.ndarray, customer: int) -> None:
    S[BAG1 + customer - 1] -= 1
    S[CLEFT] -= 1
    S[PEND] = customer
    S[PHASE] = PLACE


@njit(cache=True, _nrt=False)
def _place_customer(B: np.ndarray, S: np.ndarray, square: int) -> None:
    seat = S[SEAT]
    customer = S[PEND]
    S[PEND] = 0
    S[PHASE] = ACTIONS
    sqc = B[S_SQC]
    S[sqc + square] = customer
    S[B[S_STATS] + seat * N_STATS + CUSTOMERS_PLACED] += 1
    _score_lanes_at(B, S, square)
    if S[CLEFT] == 0 and B[BARON_ON] and S[BSQ] < 0:
        baron_square = 0
        while S[sqc + baron_square] != 0:
            baron_square += 1
        S[sqc + baron_square] = BARON
        S[BSQ] = baron_square
        _score_lanes_at(B, S, baron_square)


@njit(cache=True, _nrt=False)
def _score_lanes_at(B: np.ndarray, S: np.ndarray, square: int) -> None:
    sqc = B[S_SQC]
    for i in range(B[B[O_SQS] + square], B[B[O_SQS] + square + 1]):
        lane = B[B[O_SQL] + i]
        if S[B[S_LSC] + lane] or S[B[S_LC] + lane] != B[B[O_LEN] + lane]:
            continue
        if S[sqc + B[B[O_EA] + lane]] and S[sqc + B[B[O_EB] + lane]]:
            _score_lane(B, S, lane, LANE_POINTS)


@njit(cache=True, _nrt=False)
def _score_lane(B: np.ndarray, S: np.ndarray, lane: int, stat: int) -> None:
    sqc = B[S_SQC]
    mult = B[B[O_MULT] + S[sqc + B[B[O_EA] + lane]] * 4 + S[sqc + B[B[O_EB] + lane]]]
    n = B[N]
    off = B[S_SPOT] + B[B[O_LOFF] + lane]
    spots = B[O_SPOTS] + B[B[O_LOFF] + lane]
    scores = B[S_SCORES]
    stats = B[S_STATS]
    # Sum each seat's spot values in one pass over the seats (n is at most a handful).
    for p in range(n):
        pts = 0
        for k in range(B[B[O_LEN] + lane]):
            if S[off + k] == p:
                pts += B[spots + k]
        if pts:
            gained = pts * mult
            S[scores + p] += gained
            S[stats + p * N_STATS + stat] += gained
    S[B[S_LSC] + lane] = 1
    S[B[S_SCL] + S[NSCL]] = lane
    S[NSCL] += 1


@njit(cache=True, _nrt=False)
def _move_bobby(B: np.ndarray, S: np.ndarray, district: int) -> None:
    seat = S[SEAT]
    bobby = S[BOBBY]
    lane = -1
    for i in range(B[B[O_DNS] + bobby], B[B[O_DNS] + bobby + 1]):
        if B[B[O_DND] + i] == district:
            lane = B[B[O_DNL] + i]
            break
    n = B[N]
    base = B[S_LSEAT] + lane * n
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
def _end_turn(B: np.ndarray, S: np.ndarray) -> None:
    seat = S[SEAT]
    t = B[T]
    lo = seat * t
    any_up = False
    for i in range(lo, lo + t):
        if S[B[S_TV] + i] and S[B[S_TU] + i]:
            any_up = True
    if not any_up:
        for i in range(lo, lo + t):
            if S[B[S_TV] + i]:
                S[B[S_TU] + i] = 1
    S[ACT] = 0
    if S[ENDR] == 0 and S[CLEFT] == 0 and S[NFULL] == B[NL]:
        S[ENDR] = END_BOARD_EXHAUSTED
    if seat == B[N] - 1:
        if S[ENDR] == 0 and S[ROUND] >= B[MAX_ROUNDS]:
            S[ENDR] = END_ROUND_LIMIT
        if S[ENDR] != 0:
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
    baron = S[BSQ]
    if baron >= 0:
        for i in range(B[B[O_SQS] + baron], B[B[O_SQS] + baron + 1]):
            lane = B[B[O_SQL] + i]
            if not S[B[S_LSC] + lane]:
                _score_lane(B, S, lane, BARON_POINTS)
    S[PHASE] = OVER
