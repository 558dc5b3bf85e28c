"""Setting up River Market positions for tests: cards moved between the deck, the discard
pile, hands, the river's rows and the Helpers in play, and resources set, through the state
layout of `sim.games.river.tables` (so each worked example of the rulebook can be laid out as the
rulebook draws it)."""

from __future__ import annotations

from sim.games.river import compiled as C
from sim.games.river import tables as T
from sim.games.river.game import RiverGame
from sim.games.river.rules import RiverRules


def new(players: int = 3, seed: int = 0, **rules: object) -> RiverGame:
    return RiverGame.new(RiverRules(players=players, **rules), seed=seed)  # type: ignore[arg-type]


def card(g: RiverGame, design: str, copy: int = 0) -> int:
    """The physical card of design `design` (its `copy`-th copy)."""
    ids = [c for c in range(g.tables.n_cards)
           if g.tables.designs[int(g.tables.CARD[c])].id == design]
    return ids[copy]


def _remove(g: RiverGame, at: int, length_index: int | None, length_at: int | None,
            c: int) -> bool:
    """Remove `c` from the list S[at:at+len] (its length in the header or at `length_at`)."""
    S = g.S
    n = int(S[length_index]) if length_index is not None else int(S[length_at])
    items = [int(x) for x in S[at:at + n]]
    if c not in items:
        return False
    items.remove(c)
    S[at:at + n - 1] = items
    if length_index is not None:
        S[length_index] = n - 1
    else:
        S[length_at] = n - 1
    return True


def _from_river(g: RiverGame, c: int) -> bool:
    river = g.river()
    if c not in river:
        return False
    if river.index(c) < g.S[T.TOP_LEN]:
        g.S[T.TOP_LEN] -= 1
    return _remove(g, int(g.tables.R[T.R_O_RIVER]), T.RIVER_LEN, None, c)


def take(g: RiverGame, c: int) -> None:
    """Take card `c` out of wherever it is (deck, discard, a hand, the river, a Helper)."""
    R, S = g.tables.R, g.S
    hmax = int(R[T.R_HMAX])
    done = (_remove(g, int(R[T.R_O_DECK]), T.DECK_LEN, None, c)
            or _remove(g, int(R[T.R_O_DISC]), T.DISC_LEN, None, c)
            or _from_river(g, c)
            or any(_remove(g, int(R[T.R_O_HAND]) + p * hmax, None,
                           int(R[T.R_O_HAND_LEN]) + p, c) for p in range(g.players)))
    assert done or S[R[T.R_O_LOC] + c] == C.LOC_HIRED, c
    S[R[T.R_O_OWNER] + c] = -1


def to_hand(g: RiverGame, p: int, c: int) -> None:
    R, S = g.tables.R, g.S
    take(g, c)
    n = int(S[R[T.R_O_HAND_LEN] + p])
    S[R[T.R_O_HAND] + p * R[T.R_HMAX] + n] = c
    S[R[T.R_O_HAND_LEN] + p] = n + 1
    S[R[T.R_O_LOC] + c] = C.LOC_HAND


def hand_of(g: RiverGame, p: int, cards: list[int]) -> None:
    """`p`'s hand is exactly `cards` (the old hand goes to the discard pile)."""
    for c in g.hand(p):
        take(g, c)
        discard(g, c)
    for c in cards:
        to_hand(g, p, c)


def discard(g: RiverGame, c: int) -> None:
    R, S = g.tables.R, g.S
    S[R[T.R_O_DISC] + S[T.DISC_LEN]] = c
    S[T.DISC_LEN] += 1
    S[R[T.R_O_LOC] + c] = C.LOC_DISC


def set_river(g: RiverGame, top: list[int], bottom: list[int],
              owners: dict[int, int] | None = None) -> None:
    """The river's rows, each left to right (clockwise: the top row left to right, then the
    bottom row right to left); Booths left out go to the discard pile (Starting Booths
    nowhere)."""
    R, S = g.tables.R, g.S
    for c in [*g.river()]:
        take(g, c)
        if c < R[T.R_NDECK]:
            discard(g, c)
    for c in top + bottom:
        if S[R[T.R_O_LOC] + c] != C.LOC_RIVER or c in g.river():
            take(g, c)
    for i, c in enumerate(top + bottom[::-1]):  # clockwise
        S[R[T.R_O_RIVER] + i] = c
        S[R[T.R_O_LOC] + c] = C.LOC_RIVER
    S[T.TOP_LEN], S[T.RIVER_LEN] = len(top), len(top) + len(bottom)
    for c, p in (owners or {}).items():
        S[R[T.R_O_OWNER] + c] = p


def hire(g: RiverGame, p: int, c: int) -> None:
    """Helper `c` in play for `p`."""
    take(g, c)
    R, S = g.tables.R, g.S
    S[R[T.R_O_LOC] + c] = C.LOC_HIRED
    S[R[T.R_O_OWNER] + c] = p
    n = int(S[R[T.R_O_NHIRED] + p])
    S[R[T.R_O_HIRED] + p * R[T.R_NH] + n] = c
    S[R[T.R_O_NHIRED] + p] = n + 1
    d = g.tables.CD[int(g.tables.CARD[c])]
    ab = int(R[T.R_O_AB]) + p * T.N_AB
    S[ab + T.AB_STEPS] += d[T.K_AB_STEPS]
    S[ab + T.AB_HAND] += d[T.K_AB_HAND]
    S[ab + T.AB_DISC] += d[T.K_AB_DISC]


def set_resources(g: RiverGame, p: int, **amounts: int) -> None:
    """`p`'s resources: those named, zero for the rest."""
    at = int(g.tables.R[T.R_O_RES]) + p * T.NRES
    for i, r in enumerate(("coin", "veggie", "fish", "cloth", "tool", "lily")):
        g.S[at + i] = amounts.get(r, 0)


def set_pawn(g: RiverGame, p: int, c: int) -> None:
    g.S[g.tables.R[T.R_O_PAWN] + p] = c


def set_houses(g: RiverGame, p: int, n: int) -> None:
    g.S[g.tables.R[T.R_O_HOUSES] + p] = n


def play(kind: int, arg: int = 0) -> int:
    return kind * 1000 + arg


def use(slot: int, how: int) -> int:
    """PLAY the card in hand slot `slot` as `how` (C.U_MOVE, C.U_ZOOM, C.U_BUILD + end,
    C.U_HIRE)."""
    return play(C.A_PLAY, slot * 8 + how)


def kinds(actions: list[int]) -> list[int]:
    return [a // 1000 for a in actions]
