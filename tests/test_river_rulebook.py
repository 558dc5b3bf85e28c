"""River Market's worked examples, laid out as the rulebook draws them and derived by hand
from its words (rulebook: "River Market Rulebook", the sections named in each test)."""

from __future__ import annotations

import pytest
from river_scenes import card
from river_scenes import hand_of
from river_scenes import hire
from river_scenes import kinds
from river_scenes import new
from river_scenes import play
from river_scenes import set_houses
from river_scenes import set_pawn
from river_scenes import set_resources
from river_scenes import set_river
from river_scenes import use

from sim.core.errors import IllegalActionError
from sim.games.river import compiled as C
from sim.games.river.game import RiverGame


def six_booth_river(g: RiverGame) -> list[int]:
    """Top row: Swap Meet, Veggie Patch, Fishing Pier; bottom row (left to right): Trading
    Post, Lily Pond, Hardware Store (owned by seat 1, "Purple"). Clockwise: the top row left
    to right, then the bottom row right to left."""
    swap, veg, pier = card(g, "swap-meet"), card(g, "veggie-patch"), card(g, "fishing-pier")
    post, pond, hw = card(g, "trading-post"), card(g, "lily-pond"), card(g, "hardware-store")
    set_river(g, [swap, veg, pier], [post, pond, hw], owners={hw: 1, pond: 2})
    return [swap, veg, pier, hw, pond, post]


def test_moving_up_to_the_step_value_clockwise_with_the_wrap() -> None:
    """Discarding a Card to Move: "You discard a Booth card with a Step value of 5. You decide
    to move only four steps, stopping at Purple's Hardware Store." One to five steps from the
    pawn's Booth, clockwise; past the last Booth on one side to the first on the other."""
    g = new(players=3)
    order = six_booth_river(g)
    five = card(g, "general-store")  # a Booth card of Step value 5
    assert g.tables.designs[int(g.tables.CARD[five])].steps == 5
    hand_of(g, 0, [five])
    set_pawn(g, 0, order[5])  # the Trading Post: the bottom row's left end, last clockwise
    g.play(use(0, C.U_MOVE))
    # From the last Booth, one step goes to the first Booth on the opposite side (Swap Meet).
    assert g.legal_actions() == [play(C.A_MOVE, c) for c in order[:5]]
    assert order[3] == card(g, "hardware-store")  # four steps: Purple's Hardware Store
    g.play(play(C.A_MOVE, order[3]))
    assert g.pawn(0) == order[3] and g.phase == "act"


def test_never_stopping_where_you_began() -> None:
    """"You must move at least one step, and you may not stop on the same Booth you began":
    with four Booths, a 5-step card reaches the three others only; a Zoom moves anywhere
    but there."""
    g = new(players=2)
    river = g.river()
    hand_of(g, 0, [card(g, "general-store"), card(g, "ferry")])  # 5 steps, Zoom
    set_pawn(g, 0, river[1])
    g.play(use(0, C.U_MOVE))
    assert sorted(a % 1000 for a in g.legal_actions()) == sorted(set(river) - {river[1]})
    g2 = new(players=2)
    hand_of(g2, 0, [card(g2, "ferry")])
    set_pawn(g2, 0, g2.river()[2])
    g2.play(use(0, C.U_MOVE))
    assert sorted(a % 1000 for a in g2.legal_actions()) == sorted(
        set(g2.river()) - {g2.river()[2]})


def test_activating_purples_hardware_store() -> None:
    """"The Booth offers you a choice; gain two Tools, or sell one Veggie for three Tools. You
    don't have any Veggies, so you gain two Tools." "Since it was Purple's Booth, they gain
    the Owner bonus of one Tool." A plank is done once unless it says otherwise; a choice
    Booth lets one plank be used."""
    g = new(players=3)
    order = six_booth_river(g)
    hw = order[3]
    hand_of(g, 0, [card(g, "veggie-stand")])  # a Booth card used to move (1 step)
    set_pawn(g, 0, order[2])
    set_resources(g, 0, coin=4)
    set_resources(g, 1)
    g.play(use(0, C.U_MOVE))
    g.play(play(C.A_MOVE, hw))
    # No Veggie: only the free plank (and ending the turn).
    assert g.legal_actions() == [play(C.A_PLANK, 0), play(C.A_END)]
    g.play(play(C.A_PLANK, 0))
    assert g.resources(0)["tool"] == 2 and g.resources(1)["tool"] == 1
    assert g.legal_actions() == [play(C.A_END)]  # once; the other plank not with it
    # With a Veggie, the choice is open; taking the sale closes the free plank.
    g2 = new(players=3)
    order = six_booth_river(g2)
    hand_of(g2, 0, [card(g2, "veggie-stand")])
    set_pawn(g2, 0, order[2])
    set_resources(g2, 0, veggie=1)
    g2.play(use(0, C.U_MOVE))
    g2.play(play(C.A_MOVE, order[3]))
    assert g2.legal_actions() == [play(C.A_PLANK, 0), play(C.A_PLANK, 1), play(C.A_END)]
    g2.play(play(C.A_PLANK, 1))
    assert g2.resources(0)["veggie"] == 0 and g2.resources(0)["tool"] == 3
    assert g2.legal_actions() == [play(C.A_END)]


def one_step_to(g: RiverGame, design: str, owner: int, mover: int = 0) -> int:
    """The river Swap Meet, `design` (owned by `owner`), Veggie Patch, Fishing Pier; the
    mover's pawn on the Swap Meet with a 1-step card in hand, played to move one step onto
    `design`. Returns that Booth."""
    booth = card(g, design)
    swap = card(g, "swap-meet")
    set_river(g, [swap, booth], [card(g, "veggie-patch"), card(g, "fishing-pier")],
              owners={booth: owner})
    hand_of(g, mover, [card(g, "veggie-stand")])
    set_pawn(g, mover, swap)
    g.play(use(0, C.U_MOVE))
    g.play(play(C.A_MOVE, booth))
    return booth


def test_the_owner_bonus_comes_once_a_visit() -> None:
    """"The owner gains the Owner bonus ... (only once, even if you do multiple things at the
    Booth)": the Blacksmith (spend a Coin for two Tools, up to twice; owner bonus a Coin)
    used twice pays its owner one Coin; "if you activate another player's Booth": the owner
    at their own Booth gets no bonus."""
    g = new(players=3)
    set_resources(g, 0, coin=2)
    set_resources(g, 2)
    one_step_to(g, "blacksmith", owner=2)
    g.play(play(C.A_PLANK, 0))
    g.play(play(C.A_PLANK, 0))
    assert g.resources(0) == {"coin": 0, "veggie": 0, "fish": 0, "cloth": 0, "tool": 4,
                              "lily": 0}
    assert g.resources(2)["coin"] == 1
    assert g.legal_actions() == [play(C.A_END)]  # "up to twice": done
    own = new(players=2)
    set_resources(own, 0, coin=1)
    one_step_to(own, "blacksmith", owner=0)
    own.play(play(C.A_PLANK, 0))
    assert own.resources(0)["coin"] == 0 and own.resources(0)["tool"] == 2


def test_building_art_supplies() -> None:
    """Booth Cards, building example: with one Coin, one Cloth and one Tool, Art Supplies is
    built at any of the four end spots, a house on it; no move, no activation; the turn
    ends. Without its cost, or without a house, it cannot be built."""
    g = new(players=3)
    art = card(g, "art-supplies")
    hand_of(g, 0, [art])
    set_resources(g, 0, coin=1, cloth=1, tool=1)
    builds = [use(0, C.U_BUILD + e) for e in range(4)]
    assert [a for a in g.legal_actions() if a in builds] == builds
    top = g.river()[:2]
    g.play(use(0, C.U_BUILD + 1))  # the top row's right end
    assert g.resources(0) == dict.fromkeys(("coin", "veggie", "fish", "cloth", "tool",
                                            "lily"), 0)
    assert g.river()[:3] == [*top, art]  # clockwise after the top row's Booths
    assert g.owner(art) == 0 and g.houses(0) == 4
    assert g.seat == 1 and g.phase == "turn"  # the turn ended
    # Short of a Tool: no build; no house left: no build.
    g2 = new(players=3)
    hand_of(g2, 0, [card(g2, "art-supplies")])
    set_resources(g2, 0, coin=1, cloth=1)
    assert not set(builds) & set(g2.legal_actions())
    set_resources(g2, 0, coin=1, cloth=1, tool=1)
    set_houses(g2, 0, 0)
    assert not set(builds) & set(g2.legal_actions())
    with pytest.raises(IllegalActionError, match="build Art Supplies at the top-left end is "
                       "not allowed now"):
        g2.play(builds[0])


def test_the_left_ends_extend_the_rows_leftwards() -> None:
    """Building at a row's left end puts the Booth first in that row: at the top row first
    clockwise, at the bottom row last clockwise."""
    for end, place in ((0, 0), (3, -1)):
        g = new(players=2)
        booth = card(g, "lily-pond")
        hand_of(g, 0, [booth])
        set_resources(g, 0, coin=1, veggie=1)
        g.play(use(0, C.U_BUILD + end))
        assert g.river()[place] == booth and len(g.river()) == 5


def test_hiring_the_beaver() -> None:
    """Helper Cards, hiring example: "You pay two Fish and one Tool to hire this Beaver." It
    is in play for its hirer; the turn ends."""
    g = new(players=2)
    beaver = card(g, "beaver")
    hand_of(g, 0, [beaver])
    set_resources(g, 0, fish=2, tool=1)
    g.play(use(0, C.U_HIRE))
    assert g.resources(0)["fish"] == 0 and g.resources(0)["tool"] == 0
    assert g.owner(beaver) == 0 and g.location(beaver) == C.LOC_HIRED
    assert g.seat == 1


def test_lilypad_hop_scoring() -> None:
    """Events You Are Attending: "Your pawn is attending the Lilypad Hop Event, which is worth
    2 points for every two Lilies you have. You have five Lilies, so you score 4 points."
    The owner's house does not count as attending; a house and the pawn score it once."""
    g = new(players=3)
    hop = card(g, "lilypad-hop")
    swap = card(g, "swap-meet")
    set_river(g, [swap, hop], [card(g, "veggie-patch"), card(g, "fishing-pier")],
              owners={hop: 1})
    for p in range(3):
        set_resources(g, p, lily=5)
    set_pawn(g, 0, hop)  # attending by pawn
    set_pawn(g, 1, swap)  # the owner, elsewhere
    set_pawn(g, 2, hop)
    g.S[g.tables.R[C.R_O_ATTEND] + hop] = 1 << 2  # and a house in a star space
    assert g.score_parts(0)[0] == 4
    assert g.score_parts(1)[0] == 0
    assert g.score_parts(2)[0] == 4


def test_attending_an_event() -> None:
    """Events: at an Event, place one of your remaining houses in a star space, not twice;
    the owner may attend like anyone."""
    g = new(players=2)
    one_step_to(g, "lilypad-hop", owner=0)
    assert g.legal_actions() == [play(C.A_ATTEND), play(C.A_END)]
    g.play(play(C.A_ATTEND))
    assert g.houses(0) == 4 and g.legal_actions() == [play(C.A_END)]


def test_leftover_coins_and_goods() -> None:
    """Leftover Coins: "You have six leftover Coins, which score 3 points." Leftover Goods: 1
    point a batch of three different Goods, remainders ignored."""
    g = new(players=2)
    set_resources(g, 0, coin=6, veggie=2, fish=1, cloth=1)
    assert g.score_parts(0)[3:] == [3, 1]
    set_resources(g, 0, coin=7, veggie=4, fish=1, cloth=1, tool=1, lily=1)
    # Each batch needs two of the four non-Veggie Goods at least: two batches, no more.
    assert g.score_parts(0)[3:] == [3, 2]
    set_resources(g, 0, veggie=3, fish=3, cloth=3)
    assert g.score_parts(0)[4] == 3


def test_the_wood_duck_and_another_helper_score_eight() -> None:
    """Helpers You Hired: "You hired two Helpers; including the four Lilies you now store on
    your Wood Duck, they score a combined total of 8 points." Stored resources are not
    leftovers."""
    g = new(players=2)
    hire(g, 0, card(g, "wood-duck"))
    hire(g, 0, card(g, "beaver"))
    set_resources(g, 0, lily=4, veggie=1, fish=1)
    parts = g.score_parts(0)
    assert parts[2] == 8
    assert parts[4] == 0  # the Lilies are stored: a Veggie and a Fish make no batch


def advance(g: RiverGame) -> None:
    """The seat moves with its first card to the first Booth offered and ends its turn (or
    passes with no card)."""
    first = g.legal_actions()[0]
    g.play(first)
    if first // 1000 == C.A_PASS:
        return
    g.play(g.legal_actions()[0])
    g.play(play(C.A_END))


def test_the_end_trigger_and_two_more_turns_each() -> None:
    """Game End: the first player out of houses finishes their turn; everyone gets a Zoom
    token; everyone (the end player too) gets two more turns; then the game ends."""
    g = new(players=3)
    booth = card(g, "lily-pond")
    hand_of(g, 0, [booth, card(g, "veggie-stand")])
    set_resources(g, 0, coin=1, veggie=1)
    set_houses(g, 0, 1)
    g.play(use(0, C.U_BUILD + 1))  # the last house
    assert g.houses(0) == 0
    assert all(g.S[g.tables.R[C.R_O_ZOOM] + p] == 1 for p in range(3))
    turns = []
    while not g.over:
        turns.append(g.seat)
        assert any(a % 1000 % 8 == C.U_ZOOM for a in g.legal_actions()
                   if a // 1000 == C.A_PLAY) or not g.hand(g.seat)
        advance(g)
    assert turns == [1, 2, 0, 1, 2, 0]
    assert g.scores() == [sum(g.score_parts(p)) for p in range(3)]


def test_a_zoom_token_moves_anywhere() -> None:
    """Zoom Tokens: on either of the last two turns, a Zoom token changes a moving card's
    Step value to a Zoom: any Booth but the one where the pawn began."""
    g = new(players=2)
    g.S[g.tables.R[C.R_O_ZOOM] + 0] = 1
    hand_of(g, 0, [card(g, "veggie-stand")])  # Step value 1
    river = g.river()
    set_pawn(g, 0, river[0])
    g.play(use(0, C.U_ZOOM))
    assert sorted(a % 1000 for a in g.legal_actions()) == sorted(river[1:])
    assert g.S[g.tables.R[C.R_O_ZOOM] + 0] == 0


def test_every_starting_hand_holds_a_booth() -> None:
    """Setup 5: a hand without a Booth card is shown, discarded and drawn again, until it
    holds one (Events are Booths); four cards, four Coins, the pawn on the Swap Meet."""
    for seed in range(40):
        g = new(players=4, seed=seed)
        for p in range(4):
            hand = g.hand(p)
            assert len(hand) == 4
            assert any(g.tables.designs[int(g.tables.CARD[c])].kind in ("booth", "event")
                       for c in hand)
            assert g.resources(p)["coin"] == 4 and g.houses(p) == 5
            assert g.pawn(p) == card(g, "swap-meet")
    # Without the mulligan some first hands hold no Booth.
    lacking = sum(not any(g.tables.designs[int(g.tables.CARD[c])].kind in ("booth", "event")
                          for c in g.hand(0))
                  for g in (new(players=2, seed=s, mulligan=False) for s in range(40)))
    assert lacking > 0


def test_five_players_and_the_shorter_game_have_four_houses() -> None:
    """Setup 5: five houses; four in a 5-player game or a shorter 3-4 player game."""
    assert new(players=3).houses(0) == 5
    assert new(players=5).houses(4) == 4
    assert new(players=4, houses=4).houses(0) == 4
    assert kinds(new(players=5).legal_actions())[0] == C.A_PLAY
