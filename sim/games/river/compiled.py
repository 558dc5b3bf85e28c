"""River Market's rules, compiled: the only implementation of the game. Every function reads
the card tables and the rules (`sim.games.river.tables`: CD, PL, CARD, R) and one flat int64 state
`S` (its header fields and blocks laid out by `R`), so a game is copied, stored or searched as
one array; the same source runs as plain Python with numba's JIT disabled.

A turn, as the rulebook's "Gameplay" reads (docs/river-market.md, "Rules"):
- `TURN`: play a card from the hand (`PLAY`: to move, to move with the Zoom token, to build
  it at one of the four end spots, to hire it), or pass with an empty hand;
- `MOVE`: the Booth to stop at (1 to the card's Step value clockwise, or anywhere when
  zooming; never the Booth where the pawn began);
- `ACT`: activate the Booth (a plank at a time, each as often as its times allow; an Event:
  attend), an Action card's own effect (before, after or either side of activating, as the
  card says), or `END` the turn;
- `PAY` / `GAIN`: one Good at a time where a plank lets the player choose which;
- `DISCOUNT`: which resource a Helper's building discount leaves unpaid.
Effects wait on a small stack, so that an owner's bonus, a Helper's ability and the plank
that caused them resolve in order, each decided by its own player.

This module sets a game up and does its actions; what is legal is `sim.games.river.legal`, the
scoring `sim.games.river.scoring`, the codes, the generator and the accessors
`sim.games.river.state`.

Chance: the deck's shuffles (setup and each reshuffle of the discard pile) draw from the
game's counter-based generator, kept in the state, so a game replays from its seed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.core.rng import key_of
from sim.games.river.legal import legal_actions
from sim.games.river.scoring import final_score
from sim.games.river.scoring import finish
from sim.games.river.scoring import score_part
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
from sim.games.river.state import AFTER_ACT
from sim.games.river.state import AFTER_END
from sim.games.river.state import END_HOUSES
from sim.games.river.state import END_TURNS
from sim.games.river.state import GAIN_ANY
from sim.games.river.state import GAIN_DIFF
from sim.games.river.state import KD_BOOTH
from sim.games.river.state import KD_EVENT
from sim.games.river.state import LOC_DECK
from sim.games.river.state import LOC_DISC
from sim.games.river.state import LOC_HAND
from sim.games.river.state import LOC_HIRED
from sim.games.river.state import LOC_RIVER
from sim.games.river.state import PAY_ANY
from sim.games.river.state import PAY_DIFF
from sim.games.river.state import PAY_MATCH
from sim.games.river.state import PH_ACT
from sim.games.river.state import PH_DISCOUNT
from sim.games.river.state import PH_GAIN
from sim.games.river.state import PH_MOVE
from sim.games.river.state import PH_OVER
from sim.games.river.state import PH_PAY
from sim.games.river.state import PH_TURN
from sim.games.river.state import U_BUILD
from sim.games.river.state import U_HIRE
from sim.games.river.state import U_MOVE
from sim.games.river.state import U_ZOOM
from sim.games.river.state import ability
from sim.games.river.state import below
from sim.games.river.state import goods_total
from sim.games.river.state import hired_at
from sim.games.river.state import kind_of
from sim.games.river.state import res_at
from sim.games.river.state import shuffle
from sim.games.river.tables import AB_DISC
from sim.games.river.tables import AB_HAND
from sim.games.river.tables import AB_STEPS
from sim.games.river.tables import ACTED
from sim.games.river.tables import ACTIONS_DONE
from sim.games.river.tables import AFTER
from sim.games.river.tables import BOOTH
from sim.games.river.tables import BOOTH_CLOSED
from sim.games.river.tables import BUILD_END
from sim.games.river.tables import COIN
from sim.games.river.tables import DECIDER
from sim.games.river.tables import DECK_LEN
from sim.games.river.tables import DISC_LEFT
from sim.games.river.tables import DISC_LEN
from sim.games.river.tables import END_REASON
from sim.games.river.tables import FINAL_LEFT
from sim.games.river.tables import GAIN_KIND
from sim.games.river.tables import GAIN_LEFT
from sim.games.river.tables import GAIN_MASK
from sim.games.river.tables import JOB_PLANK
from sim.games.river.tables import JOB_WHO
from sim.games.river.tables import K_AB_ACT
from sim.games.river.tables import K_AB_ATTEND
from sim.games.river.tables import K_AB_BUILD
from sim.games.river.tables import K_AB_DISC
from sim.games.river.tables import K_AB_HAND
from sim.games.river.tables import K_AB_STEPS
from sim.games.river.tables import K_COST
from sim.games.river.tables import K_OWNER
from sim.games.river.tables import K_PLANK_AT
from sim.games.river.tables import K_WHEN
from sim.games.river.tables import N_AB
from sim.games.river.tables import NRES
from sim.games.river.tables import OWNER_PAID
from sim.games.river.tables import P_GAIN
from sim.games.river.tables import P_GAIN_ANY
from sim.games.river.tables import P_GAIN_DIFF
from sim.games.river.tables import P_SPEND
from sim.games.river.tables import P_SPEND_ANY
from sim.games.river.tables import P_SPEND_DIFF
from sim.games.river.tables import P_SPEND_MATCH
from sim.games.river.tables import PAY_GOOD
from sim.games.river.tables import PAY_KIND
from sim.games.river.tables import PAY_LEFT
from sim.games.river.tables import PAY_MASK
from sim.games.river.tables import PHASE
from sim.games.river.tables import PLAYED
from sim.games.river.tables import R_FINAL
from sim.games.river.tables import R_HAND
from sim.games.river.tables import R_HMAX
from sim.games.river.tables import R_HOUSES
from sim.games.river.tables import R_MAX_TURNS
from sim.games.river.tables import R_MULLIGAN
from sim.games.river.tables import R_N
from sim.games.river.tables import R_NDECK
from sim.games.river.tables import R_O_AB
from sim.games.river.tables import R_O_ATTEND
from sim.games.river.tables import R_O_COST
from sim.games.river.tables import R_O_DECK
from sim.games.river.tables import R_O_DISC
from sim.games.river.tables import R_O_FXUSED
from sim.games.river.tables import R_O_HAND
from sim.games.river.tables import R_O_HAND_LEN
from sim.games.river.tables import R_O_HOUSES
from sim.games.river.tables import R_O_LOC
from sim.games.river.tables import R_O_NHIRED
from sim.games.river.tables import R_O_OWNER
from sim.games.river.tables import R_O_PAWN
from sim.games.river.tables import R_O_RIVER
from sim.games.river.tables import R_O_STACK
from sim.games.river.tables import R_O_USED
from sim.games.river.tables import R_O_ZOOM
from sim.games.river.tables import R_PLAYERS
from sim.games.river.tables import R_SEAT_COINS
from sim.games.river.tables import R_SIZE
from sim.games.river.tables import R_SWAP
from sim.games.river.tables import R_ZOOM
from sim.games.river.tables import RIVER_LEN
from sim.games.river.tables import RNG_KEY
from sim.games.river.tables import SEAT
from sim.games.river.tables import STACK_LEN
from sim.games.river.tables import TOP_LEN
from sim.games.river.tables import TRIGGER_NOW
from sim.games.river.tables import TRIGGERED
from sim.games.river.tables import TURN
from sim.games.river.tables import ZOOMING

# The rules' public face: what the front, the agents, the batches and the tests read here,
# wherever it is defined (codes and accessors in `sim.games.river.state`, the legal actions in
# `sim.games.river.legal`, the scoring in `sim.games.river.scoring`).
__all__ = [
    "A_ATTEND",
    "A_DISCOUNT",
    "A_END",
    "A_FX",
    "A_GAIN",
    "A_MOVE",
    "A_PASS",
    "A_PAY",
    "A_PLANK",
    "A_PLAY",
    "END_HOUSES",
    "END_TURNS",
    "LOC_DECK",
    "LOC_DISC",
    "LOC_HAND",
    "LOC_HIRED",
    "LOC_RIVER",
    "PH_OVER",
    "R_O_ATTEND",
    "R_O_ZOOM",
    "U_BUILD",
    "U_HIRE",
    "U_MOVE",
    "U_ZOOM",
    "apply",
    "final_score",
    "goods_total",
    "legal_actions",
    "new_game",
    "res_at",
    "score_part",
]


@njit(cache=True)
def new_game(CD: np.ndarray, CARD: np.ndarray, R: np.ndarray, seed: np.uint64) -> np.ndarray:
    """A game at its first decision (Setup 1-6): the Starting Booths in two rows in a random
    order, the deck shuffled, each player's Coins, houses, pawn on the Swap Meet, and a hand
    redrawn until it holds a Booth (the mulligan)."""
    S = np.zeros(R[R_SIZE], np.int64)
    S[RNG_KEY] = np.int64(key_of(seed, 0) >> np.uint64(1))  # 63 bits: an int64 as it is
    n, nd, players = R[R_N], R[R_NDECK], R[R_PLAYERS]
    for c in range(n):
        S[R[R_O_OWNER] + c] = -1
    starts = np.arange(nd, n)
    for i in range(starts.shape[0] - 1, 0, -1):
        j = below(S, i + 1)
        starts[i], starts[j] = starts[j], starts[i]
    for i in range(4):  # two rows of two: clockwise, the top row then the bottom row
        S[R[R_O_RIVER] + i] = starts[i]
    S[TOP_LEN] = 2
    S[RIVER_LEN] = 4
    for c in range(nd, n):
        S[R[R_O_LOC] + c] = LOC_RIVER
    for c in range(nd):
        S[R[R_O_DECK] + c] = c
        S[R[R_O_LOC] + c] = LOC_DECK
    S[DECK_LEN] = nd
    shuffle(S, R[R_O_DECK], nd)
    for p in range(players):
        S[res_at(R, p, COIN)] = R[R_SEAT_COINS + p]
        S[R[R_O_HOUSES] + p] = R[R_HOUSES]
        S[R[R_O_PAWN] + p] = R[R_SWAP]
        for _ in range(100):  # the mulligan; a deck without enough Booths stops trying
            for _ in range(R[R_HAND]):
                draw(CD, CARD, R, S, p)
            if not R[R_MULLIGAN] or hand_has_booth(CD, CARD, R, S, p):
                break
            discard_hand(R, S, p)
    S[PHASE] = PH_TURN
    S[TURN] = 1
    S[PLAYED] = -1
    S[BOOTH] = -1
    return S


@njit(cache=True, _nrt=False)
def hand_has_booth(CD: np.ndarray, CARD: np.ndarray, R: np.ndarray, S: np.ndarray,
                   p: int) -> bool:
    at = R[R_O_HAND] + p * R[R_HMAX]
    for i in range(S[R[R_O_HAND_LEN] + p]):
        k = kind_of(CD, CARD, S[at + i])
        if k in (KD_BOOTH, KD_EVENT):
            return True
    return False


@njit(cache=True, _nrt=False)
def discard(R: np.ndarray, S: np.ndarray, c: int) -> None:
    S[R[R_O_DISC] + S[DISC_LEN]] = c
    S[DISC_LEN] += 1
    S[R[R_O_LOC] + c] = LOC_DISC


@njit(cache=True, _nrt=False)
def discard_hand(R: np.ndarray, S: np.ndarray, p: int) -> None:
    at = R[R_O_HAND] + p * R[R_HMAX]
    for i in range(S[R[R_O_HAND_LEN] + p]):
        discard(R, S, S[at + i])
    S[R[R_O_HAND_LEN] + p] = 0


@njit(cache=True, _nrt=False)
def draw(CD: np.ndarray, CARD: np.ndarray, R: np.ndarray, S: np.ndarray, p: int) -> bool:
    """Draw the deck's top card into `p`'s hand, shuffling the discard pile into a new deck
    when the deck is out (Refilling Your Hand); False when both are empty."""
    if S[DECK_LEN] == 0:
        if S[DISC_LEN] == 0:
            return False
        for i in range(S[DISC_LEN]):
            c = S[R[R_O_DISC] + i]
            S[R[R_O_DECK] + i] = c
            S[R[R_O_LOC] + c] = LOC_DECK
        S[DECK_LEN] = S[DISC_LEN]
        S[DISC_LEN] = 0
        shuffle(S, R[R_O_DECK], S[DECK_LEN])
    S[DECK_LEN] -= 1
    c = S[R[R_O_DECK] + S[DECK_LEN]]
    n = S[R[R_O_HAND_LEN] + p]
    S[R[R_O_HAND] + p * R[R_HMAX] + n] = c
    S[R[R_O_HAND_LEN] + p] = n + 1
    S[R[R_O_LOC] + c] = LOC_HAND
    return True


@njit(cache=True, _nrt=False)
def hand_limit(CD: np.ndarray, CARD: np.ndarray, R: np.ndarray, S: np.ndarray, p: int) -> int:
    return min(R[R_HMAX], R[R_HAND] + ability(R, S, p, AB_HAND))


# -- what may be done -------------------------------------------------------------------------
# -- doing it ---------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def push(R: np.ndarray, S: np.ndarray, plank: int, who: int) -> None:
    at = R[R_O_STACK] + 2 * S[STACK_LEN]
    S[at] = plank
    S[at + 1] = who
    S[STACK_LEN] += 1


@njit(cache=True, _nrt=False)
def run_effects(CD: np.ndarray, PL: np.ndarray, CARD: np.ndarray, R: np.ndarray,
                S: np.ndarray) -> None:
    """Resolve pending effects until one needs a choice (PAY or GAIN, decided by its
    player) or none is left (then back to the activation, or the turn ends)."""
    while S[STACK_LEN] > 0:
        S[STACK_LEN] -= 1
        at = R[R_O_STACK] + 2 * S[STACK_LEN]
        pl, who = S[at], S[at + 1]
        S[JOB_PLANK] = pl
        S[JOB_WHO] = who
        for r in range(NRES):
            S[res_at(R, who, r)] -= PL[pl, P_SPEND + r]
        if PL[pl, P_SPEND_ANY] or PL[pl, P_SPEND_MATCH] or PL[pl, P_SPEND_DIFF]:
            S[PAY_KIND] = PAY_ANY if PL[pl, P_SPEND_ANY] else \
                PAY_MATCH if PL[pl, P_SPEND_MATCH] else PAY_DIFF
            S[PAY_LEFT] = PL[pl, P_SPEND_ANY] + PL[pl, P_SPEND_MATCH] + PL[pl, P_SPEND_DIFF]
            S[PAY_GOOD] = -1
            S[PAY_MASK] = 0
            S[PHASE] = PH_PAY
            S[DECIDER] = who
            return
        if gains(PL, R, S, pl, who):
            return
    S[JOB_PLANK] = -1
    if S[AFTER] == AFTER_END:
        end_turn(CD, CARD, R, S)
    else:
        S[PHASE] = PH_ACT
        S[DECIDER] = S[SEAT]


@njit(cache=True, _nrt=False)
def gains(PL: np.ndarray, R: np.ndarray, S: np.ndarray, pl: int, who: int) -> bool:
    """A plank's gains: the fixed ones at once; True when Goods are to be chosen (GAIN)."""
    for r in range(NRES):
        S[res_at(R, who, r)] += PL[pl, P_GAIN + r]
    n = PL[pl, P_GAIN_ANY] + PL[pl, P_GAIN_DIFF]
    if n == 0:
        return False
    S[GAIN_KIND] = GAIN_ANY if PL[pl, P_GAIN_ANY] else GAIN_DIFF
    S[GAIN_LEFT] = n
    S[GAIN_MASK] = 0
    S[PHASE] = PH_GAIN
    S[DECIDER] = who
    return True


@njit(cache=True, _nrt=False)
def activated(CD: np.ndarray, CARD: np.ndarray, R: np.ndarray, S: np.ndarray) -> None:
    """The first thing done at a Booth this visit: the seat's Helpers' on-activate effects,
    then (resolved first) the owner's bonus when the Booth is another player's."""
    p = S[SEAT]
    b = S[BOOTH]
    S[ACTED] = 1
    if S[OWNER_PAID]:
        return
    S[OWNER_PAID] = 1
    helper_effects(CD, CARD, R, S, p, K_AB_ACT)
    owner = S[R[R_O_OWNER] + b]
    if owner >= 0 and owner != p and CD[CARD[b], K_OWNER] >= 0:
        push(R, S, CD[CARD[b], K_OWNER], owner)


@njit(cache=True, _nrt=False)
def helper_effects(CD: np.ndarray, CARD: np.ndarray, R: np.ndarray, S: np.ndarray, p: int,
                   col: int) -> None:
    """Push the effect in column `col` (on activate, build, attend) of each of `p`'s
    Helpers that has one."""
    at = hired_at(R, p)
    for i in range(S[R[R_O_NHIRED] + p]):
        d = CARD[S[at + i]]
        if CD[d, col] >= 0:
            push(R, S, CD[d, col], p)


@njit(cache=True, _nrt=False)
def spend_house(R: np.ndarray, S: np.ndarray, p: int) -> None:
    """A house leaves the mat; the first player out of houses triggers the end (Game End)."""
    S[R[R_O_HOUSES] + p] -= 1
    if S[R[R_O_HOUSES] + p] == 0 and not S[TRIGGERED]:
        S[TRIGGERED] = 1
        S[TRIGGER_NOW] = 1


@njit(cache=True, _nrt=False)
def apply(CD: np.ndarray, PL: np.ndarray, CARD: np.ndarray, R: np.ndarray, S: np.ndarray,
          a: int) -> None:
    """Do a legal action (unchecked: `legal_actions` lists them)."""
    kind, arg = a // 1000, a % 1000
    p = S[SEAT]
    S[ACTIONS_DONE] += 1
    if kind == A_PLAY:
        play(CD, PL, CARD, R, S, arg // 8, arg % 8)
    elif kind == A_MOVE:
        S[BOOTH] = arg
        S[R[R_O_PAWN] + p] = arg
        for j in range(8):
            S[R[R_O_USED] + j] = 0
            S[R[R_O_FXUSED] + j] = 0
        S[BOOTH_CLOSED] = 0
        S[OWNER_PAID] = 0
        S[ACTED] = 0
        S[ZOOMING] = 0
        S[PHASE] = PH_ACT
    elif kind == A_PLANK:
        d = CARD[S[BOOTH]]
        S[R[R_O_USED] + arg] += 1
        S[AFTER] = AFTER_ACT
        push(R, S, CD[d, K_PLANK_AT] + arg, p)
        activated(CD, CARD, R, S)
        run_effects(CD, PL, CARD, R, S)
    elif kind == A_FX:
        d = CARD[S[PLAYED]]
        S[R[R_O_FXUSED] + arg] += 1
        if CD[d, K_WHEN] == 2:  # "after": the Booth is done with
            S[BOOTH_CLOSED] = 1
        S[AFTER] = AFTER_ACT
        push(R, S, CD[d, K_PLANK_AT] + arg, p)
        run_effects(CD, PL, CARD, R, S)
    elif kind == A_ATTEND:
        b = S[BOOTH]
        S[R[R_O_ATTEND] + b] |= 1 << p
        spend_house(R, S, p)
        S[AFTER] = AFTER_ACT
        helper_effects(CD, CARD, R, S, p, K_AB_ATTEND)
        activated(CD, CARD, R, S)
        run_effects(CD, PL, CARD, R, S)
    elif kind == A_PAY:
        who = S[JOB_WHO]
        S[res_at(R, who, arg)] -= 1
        S[PAY_LEFT] -= 1
        S[PAY_GOOD] = arg
        S[PAY_MASK] |= 1 << arg
        if S[PAY_LEFT] == 0 and not gains(PL, R, S, S[JOB_PLANK], who):
            run_effects(CD, PL, CARD, R, S)
    elif kind == A_GAIN:
        who = S[JOB_WHO]
        S[res_at(R, who, arg)] += 1
        S[GAIN_LEFT] -= 1
        S[GAIN_MASK] |= 1 << arg
        if S[GAIN_LEFT] == 0:
            run_effects(CD, PL, CARD, R, S)
    elif kind == A_DISCOUNT:
        S[R[R_O_COST] + arg] -= 1
        S[DISC_LEFT] -= 1
        remaining = 0
        for r in range(NRES):
            remaining += S[R[R_O_COST] + r]
        if S[DISC_LEFT] == 0 or remaining == 0:
            build(CD, PL, CARD, R, S)
    else:  # A_END, A_PASS
        end_turn(CD, CARD, R, S)


@njit(cache=True, _nrt=False)
def play(CD: np.ndarray, PL: np.ndarray, CARD: np.ndarray, R: np.ndarray, S: np.ndarray,
         slot: int, use: int) -> None:
    """Play the card in hand slot `slot`: discard it to move (with the Zoom token: zooming),
    build it at an end spot, or hire it."""
    p = S[SEAT]
    at = R[R_O_HAND] + p * R[R_HMAX]
    n = S[R[R_O_HAND_LEN] + p]
    c = S[at + slot]
    for i in range(slot, n - 1):
        S[at + i] = S[at + i + 1]
    S[R[R_O_HAND_LEN] + p] = n - 1
    S[PLAYED] = c
    if use in (U_MOVE, U_ZOOM):
        discard(R, S, c)
        S[PHASE] = PH_MOVE
        if use == U_ZOOM:
            S[R[R_O_ZOOM] + p] = 0
            S[ZOOMING] = 1  # read by `destinations`
        return
    d = CARD[c]
    if use == U_HIRE:
        for r in range(NRES):
            S[res_at(R, p, r)] -= CD[d, K_COST + r]
        S[R[R_O_LOC] + c] = LOC_HIRED
        S[R[R_O_OWNER] + c] = p
        n_hired = S[R[R_O_NHIRED] + p]
        S[hired_at(R, p) + n_hired] = c
        S[R[R_O_NHIRED] + p] = n_hired + 1
        ab = R[R_O_AB] + p * N_AB
        S[ab + AB_STEPS] += CD[d, K_AB_STEPS]
        S[ab + AB_HAND] += CD[d, K_AB_HAND]
        S[ab + AB_DISC] += CD[d, K_AB_DISC]
        end_turn(CD, CARD, R, S)
        return
    S[BUILD_END] = use - U_BUILD
    for r in range(NRES):
        S[R[R_O_COST] + r] = CD[d, K_COST + r]
    total = 0
    for r in range(NRES):
        total += CD[d, K_COST + r]
    S[DISC_LEFT] = min(ability(R, S, p, AB_DISC), total)
    if S[DISC_LEFT] > 0:
        S[PHASE] = PH_DISCOUNT
        return
    build(CD, PL, CARD, R, S)


@njit(cache=True, _nrt=False)
def build(CD: np.ndarray, PL: np.ndarray, CARD: np.ndarray, R: np.ndarray,
          S: np.ndarray) -> None:
    """Pay what is left of the cost, place the Booth at the chosen end spot with a house on
    it; the builder's Helpers' on-build effects; then the turn ends."""
    p = S[SEAT]
    c = S[PLAYED]
    for r in range(NRES):
        S[res_at(R, p, r)] -= S[R[R_O_COST] + r]
    end = S[BUILD_END]
    # Where the end spot is clockwise: the top row's left end first of all, its right end
    # and the bottom row's right end both just after the top row, the bottom row's left
    # end last of all.
    at = 0 if end == 0 else S[TOP_LEN] if end in (1, 2) else S[RIVER_LEN]
    river = R[R_O_RIVER]
    for i in range(S[RIVER_LEN], at, -1):
        S[river + i] = S[river + i - 1]
    S[river + at] = c
    S[RIVER_LEN] += 1
    if end in (0, 1):
        S[TOP_LEN] += 1
    S[R[R_O_LOC] + c] = LOC_RIVER
    S[R[R_O_OWNER] + c] = p
    spend_house(R, S, p)
    S[AFTER] = AFTER_END
    helper_effects(CD, CARD, R, S, p, K_AB_BUILD)
    run_effects(CD, PL, CARD, R, S)


@njit(cache=True, _nrt=False)
def end_turn(CD: np.ndarray, CARD: np.ndarray, R: np.ndarray, S: np.ndarray) -> None:
    """Refill the hand; the end trigger gives everyone a Zoom token and the final turns;
    the game ends after the last of them (or at the turn limit)."""
    p = S[SEAT]
    limit = hand_limit(CD, CARD, R, S, p)
    while S[R[R_O_HAND_LEN] + p] < limit:
        if not draw(CD, CARD, R, S, p):
            break
    players = R[R_PLAYERS]
    if S[TRIGGER_NOW]:
        S[TRIGGER_NOW] = 0
        S[FINAL_LEFT] = R[R_FINAL] * players
        if R[R_ZOOM]:
            for q in range(players):
                S[R[R_O_ZOOM] + q] = 1
    elif S[TRIGGERED]:
        S[FINAL_LEFT] -= 1
        if S[FINAL_LEFT] == 0:
            S[END_REASON] = END_HOUSES
            finish(CD, CARD, R, S)
            return
    if S[TURN] >= R[R_MAX_TURNS]:
        S[END_REASON] = END_TURNS
        finish(CD, CARD, R, S)
        return
    S[SEAT] = (p + 1) % players
    S[DECIDER] = S[SEAT]
    S[TURN] += 1
    S[PLAYED] = -1
    S[BOOTH] = -1
    S[PHASE] = PH_TURN
