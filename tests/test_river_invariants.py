"""River Market invariants after every action of random games at 2 to 5 players: resources
never negative, houses conserved (on mats, on built Booths, in star spaces), every one of the
69 cards (65 and the 4 Starting Booths) in exactly one place that agrees with its recorded
location, hands within their limit, and the final score equal to its parts."""

from __future__ import annotations

import random

import pytest
from river_scenes import new

from sim.games.river import compiled as C
from sim.games.river import tables as T
from sim.games.river.game import RiverGame


def check(g: RiverGame, houses: int) -> None:
    R, S = g.tables.R, g.S
    n = g.tables.n_cards
    for p in range(g.players):
        assert min(g.resources(p).values()) >= 0, (p, g.resources(p))
    deck = [int(x) for x in S[R[T.R_O_DECK]:R[T.R_O_DECK] + S[T.DECK_LEN]]]
    disc = [int(x) for x in S[R[T.R_O_DISC]:R[T.R_O_DISC] + S[T.DISC_LEN]]]
    hands = [c for p in range(g.players) for c in g.hand(p)]
    river = g.river()
    hired = [c for c in range(n) if g.location(c) == C.LOC_HIRED]
    # A Booth being built, while its builder chooses what a discount leaves unpaid.
    building = [int(S[T.PLAYED])] if g.phase == "discount" else []
    everywhere = deck + disc + hands + river + hired + building
    assert sorted(everywhere) == list(range(n)), "a card lost or in two places"
    for where, cards in ((C.LOC_DECK, deck), (C.LOC_DISC, disc), (C.LOC_HAND, hands),
                         (C.LOC_RIVER, river)):
        assert all(g.location(c) == where for c in cards)
    for c in range(n):
        owned = g.owner(c) >= 0
        assert owned == (g.location(c) in (C.LOC_RIVER, C.LOC_HIRED) and c < R[T.R_NDECK]
                         and c not in building)
    built = sum(1 for c in river if g.owner(c) >= 0)
    stars = sum(bin(int(S[R[T.R_O_ATTEND] + c])).count("1") for c in range(n))
    assert sum(g.houses(p) for p in range(g.players)) + built + stars == houses
    for p in range(g.players):
        assert len(g.hand(p)) <= R[T.R_HMAX]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_invariants_hold_after_every_action(players: int) -> None:
    rnd = random.Random(players)
    ended = 0
    for seed in range(12):
        g = new(players=players, seed=seed)
        houses = g.players * g.houses(0)
        check(g, houses)
        steps = 0
        while not g.over:
            legal = g.legal_actions()
            assert legal and len(set(legal)) == len(legal)
            g.play(rnd.choice(legal))
            check(g, houses)
            steps += 1
        assert g.scores() == [sum(g.score_parts(p)) for p in range(players)]
        ended += int(g.S[T.END_REASON]) == C.END_HOUSES
    assert ended == 12  # random play runs out of houses well before the turn limit
