"""What River Market's rules allow now, compiled: the decider's legal actions in each phase
(`legal_actions`), in the order the front and the records list them, and the checks they
rest on (what a player can pay, where a card moves). `sim.games.river.compiled` does them."""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.games.river.state import A_ATTEND
from sim.games.river.state import A_DISCOUNT
from sim.games.river.state import A_END
from sim.games.river.state import A_FX
from sim.games.river.state import A_GAIN
from sim.games.river.state import A_MOVE
from sim.games.river.state import A_PASS
from sim.games.river.state import A_PAY
from sim.games.river.state import A_PLANK
from sim.games.river.state import A_PLAY
from sim.games.river.state import GAIN_ANY
from sim.games.river.state import K_KIND
from sim.games.river.state import KD_ACTION
from sim.games.river.state import KD_BOOTH
from sim.games.river.state import KD_EVENT
from sim.games.river.state import KD_HELPER
from sim.games.river.state import NRES
from sim.games.river.state import PAY_ANY
from sim.games.river.state import PAY_MATCH
from sim.games.river.state import PH_ACT
from sim.games.river.state import PH_DISCOUNT
from sim.games.river.state import PH_GAIN
from sim.games.river.state import PH_MOVE
from sim.games.river.state import PH_PAY
from sim.games.river.state import PH_TURN
from sim.games.river.state import U_BUILD
from sim.games.river.state import U_HIRE
from sim.games.river.state import U_MOVE
from sim.games.river.state import U_ZOOM
from sim.games.river.state import ability
from sim.games.river.state import action
from sim.games.river.state import goods_total
from sim.games.river.state import kind_of
from sim.games.river.state import res_at
from sim.games.river.state import river_at
from sim.games.river.tables import AB_DISC
from sim.games.river.tables import AB_STEPS
from sim.games.river.tables import ACTED
from sim.games.river.tables import BOOTH
from sim.games.river.tables import BOOTH_CLOSED
from sim.games.river.tables import DISC_LEFT
from sim.games.river.tables import GAIN_KIND
from sim.games.river.tables import GAIN_MASK
from sim.games.river.tables import JOB_WHO
from sim.games.river.tables import K_CHOOSE
from sim.games.river.tables import K_COST
from sim.games.river.tables import K_PLANK_AT
from sim.games.river.tables import K_PLANK_N
from sim.games.river.tables import K_STEPS
from sim.games.river.tables import K_WHEN
from sim.games.river.tables import P_SPEND
from sim.games.river.tables import P_SPEND_ANY
from sim.games.river.tables import P_SPEND_DIFF
from sim.games.river.tables import P_SPEND_MATCH
from sim.games.river.tables import P_TIMES
from sim.games.river.tables import PAY_GOOD
from sim.games.river.tables import PAY_KIND
from sim.games.river.tables import PAY_LEFT
from sim.games.river.tables import PAY_MASK
from sim.games.river.tables import PHASE
from sim.games.river.tables import PLAYED
from sim.games.river.tables import R_HMAX
from sim.games.river.tables import R_O_ATTEND
from sim.games.river.tables import R_O_COST
from sim.games.river.tables import R_O_FXUSED
from sim.games.river.tables import R_O_HAND
from sim.games.river.tables import R_O_HAND_LEN
from sim.games.river.tables import R_O_HOUSES
from sim.games.river.tables import R_O_PAWN
from sim.games.river.tables import R_O_USED
from sim.games.river.tables import R_O_ZOOM
from sim.games.river.tables import RIVER_LEN
from sim.games.river.tables import SEAT
from sim.games.river.tables import ZOOM_STEPS
from sim.games.river.tables import ZOOMING


@njit(cache=True, _nrt=False)
def can_do(PL: np.ndarray, R: np.ndarray, S: np.ndarray, pl: int, p: int) -> bool:
    """Whether `p` can pay for one use of plank `pl`."""
    for r in range(NRES):
        if S[res_at(R, p, r)] < PL[pl, P_SPEND + r]:
            return False
    if PL[pl, P_SPEND_ANY] and goods_total(R, S, p) < PL[pl, P_SPEND_ANY]:
        return False
    if PL[pl, P_SPEND_MATCH]:
        ok = False
        for r in range(1, NRES):
            if S[res_at(R, p, r)] >= PL[pl, P_SPEND_MATCH]:
                ok = True
        if not ok:
            return False
    if PL[pl, P_SPEND_DIFF]:
        kinds = 0
        for r in range(1, NRES):
            if S[res_at(R, p, r)] > 0:
                kinds += 1
        if kinds < PL[pl, P_SPEND_DIFF]:
            return False
    return True


@njit(cache=True, _nrt=False)
def shortfall(R: np.ndarray, S: np.ndarray, p: int, cost_at: int) -> int:
    """Resources missing to pay the cost stored at S[cost_at:cost_at + NRES]."""
    short = 0
    for r in range(NRES):
        short += max(0, S[cost_at + r] - S[res_at(R, p, r)])
    return short


@njit(cache=True, _nrt=False)
def can_pay_card(CD: np.ndarray, CARD: np.ndarray, R: np.ndarray, S: np.ndarray, p: int,
                 c: int, discount: int) -> bool:
    """Whether `p` can pay card `c`'s cost, leaving up to `discount` resources unpaid."""
    short = 0
    for r in range(NRES):
        short += max(0, CD[CARD[c], K_COST + r] - S[res_at(R, p, r)])
    return short <= discount


# -- setup ------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def destinations(CD: np.ndarray, CARD: np.ndarray, R: np.ndarray, S: np.ndarray,
                 out: np.ndarray, k: int) -> int:
    """The MOVE actions of the card being played (`S[PLAYED]`): the Booths 1 to its Step value
    (plus the mover's extra steps) clockwise, or every Booth when zooming; never the Booth the
    pawn began on."""
    p = S[SEAT]
    m = S[RIVER_LEN]
    pawn = S[R[R_O_PAWN] + p]
    here = 0
    for i in range(m):
        if river_at(R, S, i) == pawn:
            here = i
    steps = CD[CARD[S[PLAYED]], K_STEPS]
    zoom = steps == ZOOM_STEPS or S[ZOOMING] == 1
    reach = m - 1 if zoom else min(m - 1, steps + ability(R, S, p, AB_STEPS))
    for s in range(1, reach + 1):
        out[k] = action(A_MOVE, river_at(R, S, (here + s) % m))
        k += 1
    return k


@njit(cache=True, _nrt=False)
def legal_actions(CD: np.ndarray, PL: np.ndarray, CARD: np.ndarray, R: np.ndarray,
                  S: np.ndarray, out: np.ndarray) -> int:
    """Write the decider's legal actions into `out`; return how many."""
    phase = S[PHASE]
    k = 0
    if phase == PH_TURN:
        p = S[SEAT]
        at = R[R_O_HAND] + p * R[R_HMAX]
        n = S[R[R_O_HAND_LEN] + p]
        discount = ability(R, S, p, AB_DISC)
        for i in range(n):
            c = S[at + i]
            kind = kind_of(CD, CARD, c)
            out[k] = action(A_PLAY, i * 8 + U_MOVE)
            k += 1
            if S[R[R_O_ZOOM] + p] and CD[CARD[c], K_STEPS] != ZOOM_STEPS:
                out[k] = action(A_PLAY, i * 8 + U_ZOOM)
                k += 1
            if kind in (KD_BOOTH, KD_EVENT) and S[R[R_O_HOUSES] + p] > 0 \
                    and can_pay_card(CD, CARD, R, S, p, c, discount):
                for e in range(4):
                    out[k] = action(A_PLAY, i * 8 + U_BUILD + e)
                    k += 1
            if kind == KD_HELPER and can_pay_card(CD, CARD, R, S, p, c, 0):
                out[k] = action(A_PLAY, i * 8 + U_HIRE)
                k += 1
        if n == 0:
            out[0] = action(A_PASS, 0)
            k = 1
        return k
    if phase == PH_MOVE:
        return destinations(CD, CARD, R, S, out, 0)
    if phase == PH_ACT:
        p = S[SEAT]
        b = S[BOOTH]
        d = CARD[b]
        kind = CD[d, K_KIND]
        if not S[BOOTH_CLOSED]:
            if kind == KD_EVENT:
                if S[R[R_O_HOUSES] + p] > 0 and not (S[R[R_O_ATTEND] + b] >> p) & 1:
                    out[k] = action(A_ATTEND, 0)
                    k += 1
            else:
                k = plank_choices(CD, PL, R, S, d, R[R_O_USED], A_PLANK, out, k)
        played = CARD[S[PLAYED]]
        if CD[played, K_KIND] == KD_ACTION:
            when = CD[played, K_WHEN]
            if not (when == 1 and S[ACTED]):  # "before": not once the Booth is activated
                k = plank_choices(CD, PL, R, S, played, R[R_O_FXUSED], A_FX, out, k)
        out[k] = action(A_END, 0)
        return k + 1
    if phase == PH_PAY:
        who = S[JOB_WHO]
        left = S[PAY_LEFT]
        for r in range(1, NRES):
            have = S[res_at(R, who, r)]
            if S[PAY_KIND] == PAY_ANY:
                ok = have > 0
            elif S[PAY_KIND] == PAY_MATCH:
                ok = have >= left if S[PAY_GOOD] < 0 else r == S[PAY_GOOD]
            else:
                ok = have > 0 and not (S[PAY_MASK] >> r) & 1
            if ok:
                out[k] = action(A_PAY, r)
                k += 1
        return k
    if phase == PH_GAIN:
        for r in range(1, NRES):
            if S[GAIN_KIND] == GAIN_ANY or not (S[GAIN_MASK] >> r) & 1:
                out[k] = action(A_GAIN, r)
                k += 1
        return k
    if phase == PH_DISCOUNT:
        # Leaving one of resource r unpaid cuts the shortfall by one where the cost of r is
        # more than the player holds; the rest of the discount must cover what is left.
        p = S[SEAT]
        at = R[R_O_COST]
        short = shortfall(R, S, p, at)
        for r in range(NRES):
            if S[at + r] > 0:
                cut = 1 if S[at + r] > S[res_at(R, p, r)] else 0
                if short - cut <= S[DISC_LEFT] - 1:
                    out[k] = action(A_DISCOUNT, r)
                    k += 1
        return k
    return 0


@njit(cache=True, _nrt=False)
def plank_choices(CD: np.ndarray, PL: np.ndarray, R: np.ndarray, S: np.ndarray, d: int,
                  used_at: int, kind: int, out: np.ndarray, k: int) -> int:
    """The planks of card design `d` the seat may use now: each as often as its times allow,
    one of them only when the card says choose, and only what the seat can pay for."""
    p = S[SEAT]
    first = CD[d, K_PLANK_AT]
    n = CD[d, K_PLANK_N]
    taken = -1
    for j in range(n):
        if S[used_at + j] > 0:
            taken = j
    for j in range(n):
        if CD[d, K_CHOOSE] and taken >= 0 and taken != j:
            continue
        if S[used_at + j] < PL[first + j, P_TIMES] and can_do(PL, R, S, first + j, p):
            out[k] = action(kind, j)
            k += 1
    return k
