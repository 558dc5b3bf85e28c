"""River Market's engine against an independent reading of its rules (`tests/river_oracle.py`):
random games at 2 to 5 players, under the default rules and under the switches (four houses,
no mulligan, no Zoom tokens, one final turn each, a short turn limit, other hand limits and
starting Coins), are played on the engine (`sim.games.river.game.RiverGame`) and every action is
replayed on the oracle. Before each action both must list the same legal actions, in the same
order; after each one the whole observable position must be equal (phase, seat, decider, turn,
resources, houses, Zoom tokens, pawns, hands in order, the river clockwise, owners, Helpers
hired, Event attendance, the deck in order, the discard pile, every card's location), at every
turn's start each player's score so far part by part, and at the end the scores.

The oracle takes from the engine only the position after setup and the order of each
reshuffled deck (chance it cannot know); a failure names the game's seed and rules, the
action's index, the action and the field that differs.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from typing import Any

import pytest
from river_oracle import RiverOracle
from river_oracle import Shuffler
from river_scenes import card

from sim.games.river import compiled as C
from sim.games.river import tables as T
from sim.games.river.cards import card_set_from_dict
from sim.games.river.cards import load_cards
from sim.games.river.effects import CardSet
from sim.games.river.game import RiverGame
from sim.games.river.rules import RiverRules

SHIPPED: CardSet = load_cards("river-market")


def _card(cid: str, kind: str, **fields: Any) -> dict[str, Any]:
    """One `[[card]]` table, its name made from its id."""
    return {"id": cid, "name": cid.replace("-", " ").title(), "kind": kind, **fields}


# A card set made to reach what the shipped one rarely or never does: every kind of payment
# and gain on Starting Booths, Actions, owner bonuses and Helpers' abilities (Goods chosen
# by the owner and by the mover in one activation), "before" and "after" effects, two
# on-activate Helpers of one player, a discount of two, Coins stored, Booths and Helpers
# storing the same resource for the same points, every kind of score; a small deck, so it
# is reshuffled often.
STRESS_CARDS: list[dict[str, Any]] = [
    _card("s-swap", "start", start=True, planks=[{"spend_any": 1, "gain_any": 1, "times": 3}]),
    _card("s-match", "start", choose=True, planks=[
        {"spend_matching": 2, "gain_different": 2}, {"gain": {"coin": 1}, "gain_any": 1}]),
    _card("s-diff", "start", planks=[{"spend_different": 2, "gain": {"coin": 2}, "times": 2},
                                     {"gain": {"veggie": 1, "fish": 1}}]),
    _card("s-free", "start", planks=[{"gain_any": 2}]),
    _card("a-before", "action", steps=2, when="before", copies=2, effect=[{"gain_any": 1}]),
    _card("a-after", "action", steps=3, when="after", copies=2,
          effect=[{"spend": {"coin": 1}, "gain_different": 3}]),
    _card("a-choose", "action", steps=1, choose=True, effect=[
        {"gain": {"lily": 1}}, {"spend_matching": 2, "gain": {"coin": 3}, "times": 2}]),
    _card("a-zoom", "action", steps="zoom", effect=[{"gain": {"tool": 1}, "gain_different": 2}]),
    _card("b-coins", "booth", steps=2, cost={"coin": 1}, points=1,
          planks=[{"gain": {"coin": 2}}], owner_bonus={"gain_any": 1},
          store={"resource": "coin", "limit": 3, "points": 1}),
    _card("b-veggie", "booth", steps=3, cost={"veggie": 1}, points=2, copies=2,
          planks=[{"gain": {"veggie": 2}}, {"spend": {"veggie": 2}, "gain": {"coin": 1},
                                            "times": 3}],
          owner_bonus={"gain_different": 2},
          store={"resource": "veggie", "limit": 2, "points": 1}),
    _card("b-different", "booth", steps=4, cost={"coin": 1, "fish": 1}, points=1, choose=True,
          planks=[{"gain": {"fish": 2}}, {"spend_different": 3, "gain_any": 2}],
          owner_bonus={"gain": {"fish": 1}}, bonus={"points": 2, "per_different": 2}),
    _card("b-per-event", "booth", steps=1, cost={"coin": 2}, points=0,
          planks=[{"gain": {"cloth": 1}}], owner_bonus={"gain": {"cloth": 1}},
          bonus={"points": 1, "per_owned": "event"}),
    _card("b-per-helper", "booth", steps=5, cost={"tool": 1}, points=1,
          planks=[{"gain": {"tool": 1}, "times": 2}], owner_bonus={"gain": {"coin": 1}},
          bonus={"points": 1, "per_owned": "helper"}),
    _card("b-zoom", "booth", steps="zoom", cost={"coin": 1, "lily": 1}, points=2,
          planks=[{"spend_any": 2, "gain": {"coin": 2}}], owner_bonus={"gain_any": 2}),
    _card("e-flat", "event", steps=2, cost={"coin": 1}, points=1, copies=2,
          attend={"points": 3}, owner_bonus={"gain_any": 1}),
    _card("e-different", "event", steps=3, cost={"coin": 1, "veggie": 1}, points=2,
          attend={"points": 2, "per_different": 3}, bonus={"points": 1, "per": {"coin": 3}}),
    _card("e-owned", "event", steps=4, cost={"fish": 1}, points=1,
          attend={"points": 1, "per_owned": "booth"}, owner_bonus={"gain": {"lily": 1}}),
    _card("e-veggie", "event", steps=1, cost={"coin": 2}, points=1,
          attend={"points": 1, "per": {"veggie": 2}}),
    _card("h-any", "helper", steps=2, cost={"coin": 1}, points=1, copies=2,
          ability={"on_activate": {"gain_any": 1}}),
    _card("h-fish", "helper", steps=3, cost={"coin": 1}, points=0,
          ability={"on_activate": {"gain": {"fish": 1}}},
          store={"resource": "veggie", "limit": 3, "points": 1}),
    _card("h-attend", "helper", steps=1, cost={"veggie": 1}, points=1,
          ability={"on_attend": {"gain_different": 2}, "extra_steps": 3}),
    _card("h-build", "helper", steps=2, cost={"fish": 1}, points=1,
          ability={"on_build": {"gain": {"coin": 1}, "gain_any": 1}, "build_discount": 2}),
    _card("h-hand", "helper", steps=4, cost={"coin": 2}, points=2, ability={"hand_limit": 2},
          store={"resource": "coin", "limit": 2, "points": 2}),
    _card("h-bonus", "helper", steps="zoom", cost={"lily": 1}, points=1,
          bonus={"points": 2, "per_owned": "helper"}),
]
# A deck so small that hands run dry: the turn passes with no card to play.
TINY_CARDS: list[dict[str, Any]] = [
    *STRESS_CARDS[:4],
    _card("a-odd", "action", steps=1, copies=2, effect=[{"gain": {"coin": 1}}]),
    _card("b-cheap", "booth", steps=2, cost={"coin": 1}, points=1, copies=2,
          planks=[{"gain": {"coin": 1}}], owner_bonus={"gain_any": 1}),
    _card("h-cheap", "helper", steps=1, cost={"coin": 1}, points=1, copies=3,
          ability={"hand_limit": 1}),
]


def card_set(name: str, cards: list[dict[str, Any]]) -> CardSet:
    """A card set from its cards, the declared composition counted from them."""
    def count(*kinds: str) -> int:
        """Cards of these kinds, copies counted."""
        return sum(c.get("copies", 1) for c in cards if c["kind"] in kinds)
    return card_set_from_dict({
        "format": "portobello-cards/1", "name": name, "card": cards,
        "deck": {"actions": count("action"), "booths": count("booth", "event"),
                 "helpers": count("helper"), "start": count("start")}}, source=f"<{name}>")


STRESS = card_set("river-stress", STRESS_CARDS)
TINY = card_set("river-tiny", TINY_CARDS)


@dataclass
class Tally:
    """What a batch of replays compared: games, actions, games by how they ended."""

    games: int = 0
    actions: int = 0
    by_end: dict[str, int] = field(default_factory=dict)


class Disagreement(AssertionError):
    """The engine and the oracle part: where and how."""


def engine_view(g: RiverGame) -> dict[str, Any]:
    """The engine's observable position, field by field as `RiverOracle.view` gives it,
    read through `RiverGame` and the state layout of `sim.games.river.tables`."""
    R = [int(x) for x in g.tables.R]
    S = g.S.tolist()
    n, cards, hmax, nh = g.players, g.tables.n_cards, R[T.R_HMAX], R[T.R_NH]

    def block(key: int, length: int, at: int = 0) -> list[int]:
        """`length` values of the state block `key` (an R_O_* offset), from `at` in it."""
        start = R[key] + at
        return [int(x) for x in S[start:start + length]]

    attended: dict[int, list[int]] = {}
    for c, mask in enumerate(block(T.R_O_ATTEND, cards)):
        if mask:
            attended[c] = [p for p in range(n) if mask >> p & 1]
    return {
        "phase": g.phase,
        "seat": g.seat,
        "decider": g.decider,
        "turn": g.turn,
        "resources": [block(T.R_O_RES, T.NRES, p * T.NRES) for p in range(n)],
        "houses": block(T.R_O_HOUSES, n),
        "zoom": block(T.R_O_ZOOM, n),
        "pawns": block(T.R_O_PAWN, n),
        "hands": [block(T.R_O_HAND, S[R[T.R_O_HAND_LEN] + p], p * hmax) for p in range(n)],
        "river": block(T.R_O_RIVER, S[T.RIVER_LEN]),
        "owners": block(T.R_O_OWNER, cards),
        "hired": [block(T.R_O_HIRED, S[R[T.R_O_NHIRED] + p], p * nh) for p in range(n)],
        "attended": attended,
        "deck": block(T.R_O_DECK, S[T.DECK_LEN]),
        "discard": sorted(block(T.R_O_DISC, S[T.DISC_LEN])),
        "scores": g.scores(),
    }


def engine_locations(g: RiverGame) -> list[int]:
    """Every card's location as the engine records it (LOC_*)."""
    R = g.tables.R
    return [int(x) for x in g.S[R[T.R_O_LOC]:R[T.R_O_LOC] + g.tables.n_cards]]


def oracle_from(g: RiverGame, rules: RiverRules, cards: CardSet) -> RiverOracle:
    """An oracle at the engine's position after setup: the deck, hands, river and discard
    pile (chance); its reshuffles ordered as the engine's turned out (see `shuffler`)."""
    view = engine_view(g)
    R = g.tables.R
    discard = [int(x) for x in g.S[R[T.R_O_DISC]:R[T.R_O_DISC] + g.S[T.DISC_LEN]]]
    return RiverOracle(cards, rules, view["deck"], view["hands"], view["river"], discard,
                       shuffler=shuffler(g))


def shuffler(g: RiverGame) -> Shuffler:
    """The order of a deck reshuffled while the oracle replays an action the engine has
    already done: the engine's deck now, with the cards the refill drew from it after the
    shuffle (the hand's last ones, the first drawn from the top) put back on top. The oracle
    checks that it is the discard pile's cards."""
    def order(p: int, cards: list[int], to_draw: int) -> list[int]:
        """The new deck for `p`'s refill, `to_draw` cards still to draw, its top last."""
        drawn = min(to_draw, len(cards))
        hand = g.hand(p)
        tail = hand[len(hand) - drawn:] if drawn else []
        return [*engine_view(g)["deck"], *tail[::-1]]
    return order


def first_difference(mine: dict[str, Any], theirs: dict[str, Any]) -> str | None:
    """The first field that differs, in words; None when all agree."""
    for key, value in theirs.items():
        if mine.get(key) != value:
            return f"field {key!r}: engine {value} != oracle {mine.get(key)}"
    return None


def differs(g: RiverGame, o: RiverOracle) -> str | None:
    """The first observable difference between the engine and the oracle, in words."""
    diff = first_difference(o.view(), engine_view(g))
    if diff is not None:
        return diff
    theirs, mine = engine_locations(g), o.locations()
    # A Booth being built (between PLAY and its DISCOUNT choices) is in neither's lists.
    bad = [c for c in range(o.n_cards) if theirs[c] != mine[c] and c != o.build_card]
    if bad:
        return f"field 'location' of card {bad[0]}: engine {theirs[bad[0]]} != oracle " \
               f"{mine[bad[0]]}"
    if g.phase == "turn" or g.over:
        for p in range(g.players):
            if g.score_parts(p) != o.score_parts(p):
                return (f"field 'score_parts' of player {p}: engine {g.score_parts(p)} != "
                        f"oracle {o.score_parts(p)}")
    return None


def replay(rules: RiverRules, seed: int, cards: CardSet = SHIPPED) -> tuple[int, str]:
    """One random game (uniform random legal actions from `random.Random(seed)`) on the
    engine, replayed on the oracle: the legal actions compared before every action, the
    position after it. Returns the actions compared and how the game ended ("houses" or
    "turns"); raises `Disagreement` naming the card set, seed and rules, the action's index,
    the action and the field."""
    g = RiverGame.new(rules, cards=cards, seed=seed)
    o = oracle_from(g, rules, cards)
    where = f"{cards.name}, seed {seed}, {rules}"
    if o.setup_problems:
        raise Disagreement(f"{where}, setup: {'; '.join(o.setup_problems)}")
    diff = differs(g, o)
    if diff is not None:
        raise Disagreement(f"{where}, setup: {diff}")
    rnd = random.Random(seed)
    i = 0
    while not g.over:
        legal = g.legal_actions()
        mine = o.legal_actions()
        if mine != legal:
            kind = "order" if sorted(mine) == sorted(legal) else "set"
            raise Disagreement(f"{where}, before action #{i}: field 'legal_actions' ({kind}): "
                               f"engine {legal} != oracle {mine}")
        a = rnd.choice(legal)
        at = f"{where}, action #{i} {a} ({g.describe(a)})"
        g.apply(a)
        try:
            o.apply(a)
        except AssertionError as e:  # a reshuffle that is not the discard pile
            raise Disagreement(f"{at}: field 'deck': {e}") from e
        diff = differs(g, o)
        if diff is not None:
            raise Disagreement(f"{at}: {diff}")
        i += 1
    end = {C.END_HOUSES: "houses", C.END_TURNS: "turns"}.get(int(g.S[T.END_REASON]), "?")
    return i, end


def play_many(rules: RiverRules, seeds: range, cards: CardSet = SHIPPED) -> Tally:
    """`replay` over `seeds`; what they compared."""
    tally = Tally()
    for seed in seeds:
        actions, end = replay(rules, seed, cards)
        tally.games += 1
        tally.actions += actions
        tally.by_end[end] = tally.by_end.get(end, 0) + 1
    return tally


# The games: (name, card set, rules, seeds), each set's seeds its own.
BASE = RiverRules()
SETS: list[tuple[str, CardSet, RiverRules, range]] = [
    ("2p", SHIPPED, replace(BASE, players=2), range(0, 100)),
    ("3p", SHIPPED, replace(BASE, players=3), range(1000, 1100)),
    ("4p", SHIPPED, replace(BASE, players=4), range(2000, 2080)),
    ("5p", SHIPPED, replace(BASE, players=5), range(3000, 3060)),
    ("3p houses=4", SHIPPED, replace(BASE, players=3, houses=4), range(4000, 4040)),
    ("4p houses=4", SHIPPED, replace(BASE, players=4, houses=4), range(4500, 4530)),
    ("2p no mulligan", SHIPPED, replace(BASE, players=2, mulligan=False), range(5000, 5040)),
    ("4p no mulligan", SHIPPED, replace(BASE, players=4, mulligan=False), range(5500, 5530)),
    ("3p no zoom tokens", SHIPPED, replace(BASE, players=3, zoom_tokens=False),
     range(6000, 6040)),
    ("5p no zoom tokens", SHIPPED, replace(BASE, players=5, zoom_tokens=False),
     range(6500, 6520)),
    ("2p final_turns=1", SHIPPED, replace(BASE, players=2, final_turns=1), range(7000, 7030)),
    ("4p final_turns=1", SHIPPED, replace(BASE, players=4, final_turns=1), range(7500, 7530)),
    ("3p max_turns=12", SHIPPED, replace(BASE, players=3, max_turns=12), range(8000, 8020)),
    ("2p hand_limit=2", SHIPPED, replace(BASE, players=2, hand_limit=2), range(9000, 9020)),
    ("5p hand_limit=6 start_coins=9", SHIPPED,
     replace(BASE, players=5, hand_limit=6, start_coins=9), range(9500, 9520)),
    ("stress 2p", STRESS, replace(BASE, players=2), range(10000, 10040)),
    ("stress 3p houses=8", STRESS, replace(BASE, players=3, houses=8), range(11000, 11025)),
    ("stress 4p", STRESS, replace(BASE, players=4), range(12000, 12025)),
    ("stress 5p final_turns=3", STRESS, replace(BASE, players=5, final_turns=3),
     range(13000, 13020)),
    ("tiny 2p", TINY, replace(BASE, players=2, hand_limit=1, houses=10, start_coins=20,
                              max_turns=60), range(14000, 14020)),
    ("tiny 3p", TINY, replace(BASE, players=3, hand_limit=2, houses=10, start_coins=20,
                              mulligan=False, max_turns=60), range(15000, 15010)),
]


@pytest.mark.parametrize(("cards", "rules", "seeds"),
                         [pytest.param(c, r, s, id=name.replace(" ", "-"))
                          for name, c, r, s in SETS])
def test_every_action_of_random_games_agrees_with_the_oracle(cards: CardSet, rules: RiverRules,
                                                            seeds: range) -> None:
    """Random games replayed on the oracle: the same legal actions before every action, the
    same position after it, the same scores at the end."""
    tally = play_many(rules, seeds, cards)
    assert tally.games == len(seeds)
    assert tally.actions > 20 * tally.games  # every game was played through
    if rules.max_turns <= 60:  # the turn limit ends these games, not the houses
        assert tally.by_end == {"turns": len(seeds)}


def test_the_oracle_reads_the_same_cards_and_actions() -> None:
    """Guard: the oracle's physical cards, Swap Meet and action encoding are the engine's."""
    import river_oracle as O

    for cards in (SHIPPED, STRESS, TINY):
        g = RiverGame.new(RiverRules(players=3), cards=cards, seed=1)
        o = oracle_from(g, RiverRules(players=3), cards)
        assert o.card_design == [int(x) for x in g.tables.CARD]
        assert o.swap_meet == int(g.tables.R[T.R_SWAP])
    for name in ("PH_TURN", "PH_MOVE", "PH_ACT", "PH_PAY", "PH_GAIN", "PH_DISCOUNT",
                 "PH_OVER", "A_PLAY", "A_MOVE", "A_PLANK", "A_FX", "A_ATTEND", "A_PAY",
                 "A_GAIN", "A_DISCOUNT", "A_END", "A_PASS", "U_MOVE", "U_ZOOM", "U_BUILD",
                 "U_HIRE", "LOC_DECK", "LOC_HAND", "LOC_DISC", "LOC_RIVER", "LOC_HIRED"):
        assert getattr(O, name) == getattr(C, name), name


def test_the_games_cover_enough() -> None:
    """Guard: at least 200 games, every player count, and the switches the brief names."""
    assert sum(len(s) for _, _, _, s in SETS) >= 200
    assert {r.players for _, _, r, _ in SETS} == {2, 3, 4, 5}
    assert any(r.houses == 4 for _, _, r, _ in SETS)
    assert any(not r.mulligan for _, _, r, _ in SETS)
    assert any(not r.zoom_tokens for _, _, r, _ in SETS)
    assert any(r.final_turns == 1 for _, _, r, _ in SETS)


def test_the_oracle_scores_the_rulebooks_examples() -> None:
    """The oracle on its own, on the rulebook's scoring examples: the Lilypad Hop attended
    by pawn with five Lilies scores 4 ("Events You Are Attending"), six leftover Coins 3
    ("Leftover Coins"), the Wood Duck storing four Lilies and another Helper 8 ("Helpers You
    Hired"), the stored Lilies no leftovers."""
    g = RiverGame.new(RiverRules(players=2), seed=3)
    o = oracle_from(g, RiverRules(players=2), SHIPPED)
    hop, duck, beaver = (card(g, d) for d in ("lilypad-hop", "wood-duck", "beaver"))
    for c in (hop, duck, beaver):
        for pile in (o.deck, o.discard, *o.hands):
            if c in pile:
                pile.remove(c)
    o.river.append(hop)
    o.owner[hop] = 1
    o.pawn[0] = hop
    o.hired[0] += [duck, beaver]
    o.owner[duck] = o.owner[beaver] = 0
    o.res[0] = [6, 1, 1, 0, 0, 5]  # six Coins, a Veggie, a Fish, five Lilies
    assert o.score_parts(0) == [4, 0, 8, 3, 1]  # a Veggie, a Fish, the fifth Lily: a batch
    o.res[0] = [6, 1, 1, 0, 0, 4]
    assert o.score_parts(0) == [4, 0, 8, 3, 0]  # the four Lilies stored: no batch
    assert o.score_parts(1)[0] == 0  # the owner's house does not attend
