"""Worked examples of the English rulebook, part 2: placing stalls and customers, moving
the Bobby, the end of the game. Each is rebuilt as a position played through `Game.play`
on a small hand-made board, the expected numbers derived by hand in each test's docstring
(part 1: tests/test_rulebook_scoring.py, which says how seats are named and customers
drawn).
"""

from __future__ import annotations

import pytest
from helpers import BLUE
from helpers import GREEN
from helpers import RED
from helpers import YELLOW
from helpers import Driver
from helpers import bag
from helpers import two_triangles_board

from sim import load_board
from sim.core.errors import IllegalActionError
from sim.games.portobello import actions as A
from sim.games.portobello.codes import ACTIONS
from sim.games.portobello.codes import TURN_START
from sim.games.portobello.rules import Rules

# ---------------------------------------------------------------------------------------
# Placing stalls and customers
# ---------------------------------------------------------------------------------------


def test_stalls_only_around_the_bobby_and_moving_first_opens_other_lanes() -> None:
    """Rulebook "Place a Market Stall" example: a stall may go in one of the three lanes
    around the Bobby; moving the Bobby over a lane (paying for it) opens the lanes around
    the new district. Bobby in D1: lanes AB, BC, CA. Crossing the empty BC into D2 costs
    Red 1 point (10 -> 9); then BC, BD, DC are open, AB is not."""
    d = Driver(two_triangles_board(), Rules(customers=bag(2, 1)), bobby="D1")
    d.token(3)
    assert d.stall_lanes() == {"AB", "BC", "CA"}
    with pytest.raises(IllegalActionError, match="does not border"):
        d.stall("BD", "B")
    d.move("D2")
    assert d.scores == [9, 10]
    assert d.stall_lanes() == {"BC", "BD", "DC"}
    d.stall("BD", "D")
    with pytest.raises(IllegalActionError, match="does not border"):
        d.stall("AB", "A")


def test_lanes_build_contiguously_from_one_end() -> None:
    """Rulebook: "The first Market Stall in a Lane may be placed at either end. Thereafter,
    each one must be placed next to the last one" (built up from one side only).

    Lane AB has values [1, 2, 3] from A. Both ends are offered while it is empty; Red builds
    from B, so the stalls take spot 2 (value 3), then spot 1 (value 2), then spot 0 (value
    1); building from A afterwards is refused."""
    d = Driver(two_triangles_board(), Rules(customers=bag(2, 1)), bobby="D1")
    d.token(4)
    legal = d.game.legal_actions()
    assert d.stall_action("AB", "A") in legal
    assert d.stall_action("AB", "B") in legal
    d.stall("AB", "B")
    assert d.stall_action("AB", "A") not in d.game.legal_actions()
    with pytest.raises(IllegalActionError, match="built from B"):
        d.stall("AB", "A")
    d.stall("AB", "B")
    d.stall("AB")
    assert [(e["spot"], e["value"]) for e in d.events("place_stall")] == [(2, 3), (1, 2), (0, 1)]
    assert "AB" not in d.stall_lanes()  # full


def test_customer_goes_on_any_empty_square_wherever_the_bobby_is() -> None:
    """Rulebook "Place a Customer": onto an empty square, "the location of the Bobby does
    not matter". Bobby in D1; D is a corner of D2 only, yet it is offered, and after a
    citizen stands on D only A, B, C remain. SPEC: the customer is drawn (and seen) before
    its square is chosen, and nothing else may come in between."""
    d = Driver(two_triangles_board(), Rules(customers=bag(2, 1)), bobby="D1")
    d.token(2)
    with pytest.raises(IllegalActionError, match="no customer has been drawn"):
        d.game.play(A.place_customer(d.square("D")))  # the customer is drawn (seen) first
    d.game.play(A.draw_customer(1))
    with pytest.raises(IllegalActionError, match="must be placed on a square first"):
        d.end()
    squares = {d.board.square_ids[A.arg(a)] for a in d.game.legal_actions()}
    assert squares == {"A", "B", "C", "D"}
    d.game.play(A.place_customer(d.square("D")))
    d.game.play(A.draw_customer(1))
    squares = {d.board.square_ids[A.arg(a)] for a in d.game.legal_actions()}
    assert squares == {"A", "B", "C"}


# ---------------------------------------------------------------------------------------
# Moving the Bobby
# ---------------------------------------------------------------------------------------


def _bobby_position(counts: dict[int, int]) -> Driver:
    """4 players, two-triangles board, Bobby in D1. In round 1 each seat in turn (Red,
    Yellow, Green, Blue) plays its 2 and places `counts[seat]` stalls in lane BC (built from
    B), the lane between D1 and D2. Round 2 starts with Red playing his 3."""
    d = Driver(two_triangles_board(), Rules(players=4, customers=bag(2, 1)), bobby="D1")
    for seat in (RED, YELLOW, GREEN, BLUE):
        d.token(2)
        for _ in range(counts.get(seat, 0)):
            d.stall("BC", None if d.game.lane_count[d.lane("BC")] else "B")
        d.end()
    d.token(3)
    assert d.game.seat == RED
    assert d.scores == [10, 10, 10, 10]
    return d


def test_bobby_empty_lane_costs_the_mover_one_point_to_nobody() -> None:
    """Rulebook b): "There are no stalls in the Lane; therefore, Red loses 1 Victory
    Point." -> Red 9, everyone else still 10."""
    d = _bobby_position({})
    d.move("D2")
    assert d.scores == [9, 10, 10, 10]
    assert d.game.bobby == d.district("D2")


def test_bobby_mover_alone_with_the_most_moves_free() -> None:
    """Rulebook a): "The only stall in the Lane is red; therefore, they do not need to pay."
    Also free when Red has the most but not all: Red 2, Yellow 1."""
    d = _bobby_position({RED: 1})
    d.move("D2")
    assert d.scores == [10, 10, 10, 10]
    d = _bobby_position({RED: 2, YELLOW: 1})
    d.move("D2")
    assert d.scores == [10, 10, 10, 10]


def test_bobby_example_1_green_and_blue_tied_for_most() -> None:
    """Rulebook c) Example 1: "Green and Blue are tied for the most stalls in the Lane (two
    each). Therefore, Red loses 2 Victory Points, and Green and Blue each gain 1."
    BC: Red 1, Green 2, Blue 2 -> Red 10 - 2 = 8, Yellow 10, Green 11, Blue 11."""
    d = _bobby_position({RED: 1, GREEN: 2, BLUE: 2})
    d.move("D2")
    assert d.scores == [8, 10, 11, 11]
    assert d.game.stat(RED, "bobby_paid") == 2
    assert d.game.stat(GREEN, "bobby_received") == 1


def test_bobby_example_2_yellow_has_the_most() -> None:
    """Rulebook c) Example 2: "Yellow has the most stalls in the Lane (two, compared to one
    each for Blue, Green, and Red). Therefore, Red loses 1 Victory Point and Yellow gains 1."
    -> Red 9, Yellow 11, Green 10, Blue 10."""
    d = _bobby_position({RED: 1, YELLOW: 2, GREEN: 1, BLUE: 1})
    d.move("D2")
    assert d.scores == [9, 11, 10, 10]


def test_bobby_tie_including_the_mover_pays_the_co_leaders() -> None:
    """Rulebook c): the payment "includes cases where two (or more) players are tied for the
    most ... (including the current player)". BC: Red 2, Yellow 2, Blue 2 -> Red pays 1 to
    Yellow and 1 to Blue: Red 8, Yellow 11, Green 10, Blue 11."""
    d = _bobby_position({RED: 2, YELLOW: 2, BLUE: 2})
    d.move("D2")
    assert d.scores == [8, 11, 10, 11]


def test_bobby_each_lane_crossed_is_paid_separately_any_time_in_the_turn() -> None:
    """Rulebook: the Bobby moves "as far as they like, any number of times per turn (before
    or after any action)", paying for each lane crossed. Red crosses the empty BC three
    times (D1 -> D2 -> D1 -> D2), before and after placing a stall in AB: 10 - 3 = 7.
    Before playing a token no move is allowed."""
    d = Driver(two_triangles_board(), Rules(customers=bag(2, 1)), bobby="D1")
    with pytest.raises(IllegalActionError):
        d.move("D2")
    d.token(2)
    d.move("D2")
    d.move("D1")
    d.stall("AB", "A")
    d.move("D2")
    assert d.scores == [7, 10]
    assert d.game.phase == ACTIONS


# ---------------------------------------------------------------------------------------
# End of the game
# ---------------------------------------------------------------------------------------


def test_end_of_game_round_is_finished_after_the_last_stall() -> None:
    """Rulebook "End of Game": "When a player places their last Market Stall, that is their
    last turn. However, the current round of turns is finished ... before the game ends."

    Standard board, 3 players with 2 stalls each, Bobby in D05 (lanes L11, L13, L15).
    Round 1 everyone passes. Round 2: Red places his 2 stalls (end triggered, but his turn
    goes on: he may still draw a customer, no more stalls are offered); Yellow places her 2
    (she, too, is out of stalls and still takes the rest of her turn: she moves the Bobby);
    Green still plays; the game ends when Green (seat n-1) ends her turn, in round 2.
    """
    d = Driver(load_board("standard"), Rules(players=3, stalls_per_player=2), bobby="D05")
    g = d.game
    for _ in range(3):
        d.pass_turn(2)
    d.token(4)
    d.stall("L11", "S05")
    assert g.end_reason is None
    d.stall("L13", "S05")
    assert g.end_reason == "last_stall"
    assert d.stall_lanes() == set()
    assert A.DRAW in g.legal_actions()
    d.customer("citizen", "S01")
    d.end()
    assert (g.phase, g.seat) == (TURN_START, YELLOW)
    d.token(3)
    d.stall("L15", "S06")
    d.stall("L15")
    assert g.stalls_left == [0, 0, 2]
    d.move("D04")
    d.end()
    assert (g.phase, g.seat) == (TURN_START, GREEN)
    d.token(3)
    d.stall("L14", "S06")
    assert not g.is_over
    d.end()
    assert g.is_over
    assert g.round == 2
    assert g.end_reason == "last_stall"


def test_end_of_game_when_the_last_seat_places_its_last_stall() -> None:
    """If the player who places the last stall is the last seat of the round (n-1), the game
    ends with that turn. 2 players, 1 stall each: Red passes, Yellow places her stall ->
    over after her end_turn, round 1. Red never gets a second turn."""
    d = Driver(load_board("standard"), Rules(stalls_per_player=1), bobby="D05")
    d.pass_turn(2)
    d.token(2)
    d.stall("L11", "S05")
    d.end()
    assert d.game.is_over
    assert (d.game.round, d.game.end_reason) == (1, "last_stall")
    with pytest.raises(IllegalActionError, match="game is over"):
        d.token(3)


def test_winners_share_a_tie() -> None:
    """The winner has the most points; SPEC: ties share the win. Nobody scores anything in a
    one-round game capped by max_rounds = 1: both players end with 10 and both win."""
    d = Driver(load_board("standard"), Rules(max_rounds=1), bobby="D05")
    d.pass_turn(2)
    d.pass_turn(2)
    assert d.game.is_over
    assert d.game.winners() == [RED, YELLOW]
