"""Worked examples of the English rulebook, part 1: scoring a lane, the baron, districts
and neutral tokens, action tokens. Each is rebuilt as a position played through
`Game.play` on a small hand-made board, the expected numbers derived by hand in each test's
docstring (part 2: tests/test_rulebook_turns.py).

Seats: Red 0, Yellow 1, Green 2, Blue 3 (the rulebook's component order). Every player
starts with 10 points. Customers are drawn with forced draws (`draw_customer(kind)`, as
records carry them), so no test depends on the random generator.
"""

from __future__ import annotations

import pytest
from helpers import BLUE
from helpers import GREEN
from helpers import RED
from helpers import YELLOW
from helpers import Driver
from helpers import bag
from helpers import one_lane_board
from helpers import star_board
from helpers import triangle_board
from helpers import two_triangles_board

from sim import load_board
from sim.core.errors import IllegalActionError
from sim.games.portobello import actions as A
from sim.games.portobello.codes import OVER
from sim.games.portobello.codes import TURN_START
from sim.games.portobello.rules import Rules

# ---------------------------------------------------------------------------------------
# Scoring a lane
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("completed_by", ["stall", "customer"])
def test_lane_scoring_example_red_12_green_8_blue_4(completed_by: str) -> None:
    """Rulebook "Scoring a Lane": Red (3 + 2 + 1) x 2 = 12, Green (1 + 3) x 2 = 8,
    Blue (2) x 2 = 4.

    One lane A-B with printed values [3, 2, 1, 1, 3, 2] from A, a citizen at A and an
    aristocrat at B (citizen-aristocrat: x2). Built from A: Red takes the first three spots
    (3, 2, 1), Green the next two (1, 3), Blue the last (2). Four players, so Yellow is in
    the game but only passes. Scoring happens the moment the lane is full *and* both ends
    hold a customer, "after placing either a Market Stall or a Customer": we complete it
    once with the last stall and once with the last customer.

    Expected: Red 10 + 12 = 22, Yellow 10, Green 10 + 8 = 18, Blue 10 + 4 = 14.
    """
    rules = Rules(players=4, baron=False, customers=bag(1, 1))
    d = Driver(one_lane_board([3, 2, 1, 1, 3, 2]), rules, bobby="D1")
    d.token(3)
    d.stall("AB", "A")
    d.stall("AB")
    d.stall("AB")
    d.end()
    d.pass_turn(2)  # Yellow
    if completed_by == "stall":
        d.token(4)  # Green: two stalls and both customers
        d.stall("AB")
        d.stall("AB")
        d.customer("citizen", "A")
        d.customer("aristocrat", "B")
        d.end()
        assert d.scored_lane_ids() == []
        d.token(2)  # Blue: the last stall fills the lane; both ends already hold customers
        d.stall("AB")
    else:
        d.token(3)  # Green: two stalls and the citizen
        d.stall("AB")
        d.stall("AB")
        d.customer("citizen", "A")
        d.end()
        d.token(2)  # Blue: the last stall fills the lane, but B is still empty
        d.stall("AB")
        assert d.scored_lane_ids() == []
        assert d.scores == [10, 10, 10, 10]
        d.customer("aristocrat", "B")
    assert d.scores == [22, 10, 18, 14]
    assert d.scored_lane_ids() == ["AB"]
    (event,) = d.events("score_lane")
    assert event["multiplier"] == 2
    assert event["points"] == [12, 0, 8, 4]
    assert d.game.stat(RED, "lane_points") == 12
    assert d.game.stat(BLUE, "lane_points") == 4


@pytest.mark.parametrize(
    ("first", "second", "baron", "multiplier"),
    [
        ("citizen", "citizen", False, 1),
        ("citizen", "aristocrat", False, 2),
        ("aristocrat", "citizen", False, 2),
        ("aristocrat", "aristocrat", False, 3),
        ("citizen", None, True, 3),
        ("aristocrat", None, True, 4),
    ],
)
def test_multiplier_table(first: str, second: str | None, baron: bool, multiplier: int) -> None:
    """Rulebook table: citizen-citizen x1, citizen-aristocrat x2, aristocrat-aristocrat x3,
    citizen-baron x3, aristocrat-baron x4 (the pair is unordered).

    One lane A-B with values [1, 2]; Red fills it alone (1 + 2 = 3 points of spots), then
    places the customers: the first at A, the second at B. With the baron on, the bag holds
    one customer (squares - 1 = 1) and the baron goes on B by itself. Red: 10 + 3 x mult.
    """
    counts = {"citizen": 0, "aristocrat": 0}
    for c in (first, second):
        if c is not None:
            counts[c] += 1
    rules = Rules(baron=baron, customers=bag(counts["citizen"], counts["aristocrat"]))
    d = Driver(one_lane_board([1, 2]), rules, bobby="D1")
    d.token(4)
    d.stall("AB", "A")
    d.stall("AB")
    d.customer(first, "A")
    if second is not None:
        d.customer(second, "B")
    else:
        assert d.game.baron_square == d.square("B")
    assert d.scores == [10 + 3 * multiplier, 10]


def test_one_customer_completes_several_lanes_in_board_file_order() -> None:
    """Rulebook: "placing a Customer might cause several Lanes to be scored"; SPEC: in the
    order the board file lists them.

    Two-triangles board (AB [1, 2, 3], CA [2, 2]). Red builds AB from A alone (1+2+3 = 6)
    and the first CA spot from C (2); Yellow the second CA spot (2). Yellow places an
    aristocrat on B and a citizen on C: nothing scores (A is empty). Red places an
    aristocrat on A, which completes both lanes at once:
      AB: aristocrat-aristocrat x3 -> Red 6 x 3 = 18
      CA: citizen-aristocrat  x2 -> Red 2 x 2 = 4, Yellow 2 x 2 = 4
    Red 10 + 18 + 4 = 32, Yellow 10 + 4 = 14. That was the last of the 3 customers, so the
    baron goes on D, where no lane is full: nothing more scores.
    """
    for order, expected in ((None, ["AB", "CA"]), (["CA", "BD", "DC", "BC", "AB"], ["CA", "AB"])):
        rules = Rules(customers=bag(1, 2))
        d = Driver(two_triangles_board(order), rules, bobby="D1")
        d.token(4)
        d.stall("AB", "A")
        d.stall("AB")
        d.stall("AB")
        d.stall("CA", "C")
        d.end()
        d.token(3)  # Yellow
        d.stall("CA")
        d.customer("aristocrat", "B")
        d.customer("citizen", "C")
        d.end()
        assert d.scores == [10, 10]
        d.token(2)  # Red
        d.customer("aristocrat", "A")
        assert d.scores == [32, 14]
        assert d.scored_lane_ids() == expected
        assert d.game.baron_square == d.square("D")


def test_baron_placed_on_last_empty_square_when_last_customer_is_placed() -> None:
    """Rulebook: "Once the last Customer is pulled from the bag, the black Customer (the
    Baron) is immediately placed on the last empty Square." SPEC: lanes completed by the
    customer are scored first, then those completed by the baron.

    Triangle board A, B, C (bag of 2 = squares - 1): lanes AB [1, 2], BC [2, 2], CA [3, 1].
    Red fills AB (1 + 2 = 3) and BC (2 + 2 = 4); Yellow fills CA (3 + 1 = 4). Red then places
    a citizen on A (nothing: B, C empty) and an aristocrat on B, the last customer:
      AB citizen-aristocrat x2   -> Red 3 x 2 = 6        (scored by the customer)
      baron on C, the one empty square:
      BC aristocrat-baron x4     -> Red 4 x 4 = 16
      CA baron-citizen x3        -> Yellow 4 x 3 = 12
    Red 10 + 6 + 16 = 32, Yellow 10 + 12 = 22. The end-of-game baron scoring later finds
    nothing unscored, so the final scores stay the same (a lane scores at most once).
    """
    d = Driver(triangle_board(), Rules(customers=bag(1, 1)), bobby="D1")
    d.token(4)
    d.stall("AB", "A")
    d.stall("AB")
    d.stall("BC", "B")
    d.stall("BC")
    d.end()
    d.token(2)
    d.stall("CA", "C")
    d.stall("CA")
    d.end()
    d.token(2)
    d.customer("citizen", "A")
    assert d.game.baron_square == -1
    d.customer("aristocrat", "B")
    assert d.game.baron_square == d.square("C")
    assert d.scores == [32, 22]
    assert d.scored_lane_ids() == ["AB", "BC", "CA"]
    kinds = [(e["type"], e.get("lane") or e.get("square")) for e in d.game.events
             if e["type"] in ("score_lane", "place_baron")]
    assert kinds == [("score_lane", "AB"), ("place_baron", "C"), ("score_lane", "BC"),
                     ("score_lane", "CA")]
    # No customer remains, so no draw is offered any more.
    assert A.DRAW not in d.game.legal_actions()
    d.end()  # every lane full, no customer left: the end is triggered
    d.pass_turn(3)  # Yellow finishes the round
    assert d.game.phase == OVER
    assert d.game.end_reason == "board_exhausted"
    assert d.scores == [32, 22]
    assert d.scored_lane_ids() == ["AB", "BC", "CA"]


# ---------------------------------------------------------------------------------------
# Scoring the Baron (end of game)
# ---------------------------------------------------------------------------------------


def test_baron_end_scoring_example() -> None:
    """Rulebook "Scoring the Baron": the baron's square touches lanes a, b, c. Lane a was
    completed and scored already, so it is ignored. Lane b scores 9 for Red (3) x 3 and 9
    for Yellow (1 + 2) x 3; lane c scores 16 for Green (1 + 3) x 4 and 4 for Yellow (1) x 4.

    Star board: centre X, lanes a = X-P [2, 2], b = X-Q [3, 1, 2, 1], c = X-R [1, 3, 1, 2];
    3 players with 3 stalls each; bag of 3 (P citizen, Q citizen, R aristocrat), the baron
    lands on X. So b is citizen-baron (x3) and c aristocrat-baron (x4).

    Round 1: Red (Bobby in XRP) fills lane a from X: values 2 + 2. Yellow places the
      citizens on P and Q. Green builds c from X: values 1, 3.
    Round 2: Red crosses lane a into XPQ (Red alone has the most stalls there: free), builds
      b from X on the 3 (his last stall: the end is triggered), then places the aristocrat
      on R, the last customer: the baron goes on X and completes lane a, citizen-baron x3:
      Red (2 + 2) x 3 = 12. Yellow builds b: values 1, 2, crosses b into XQR (Yellow 2 vs
      Red 1: free) and builds the next spot of c: value 1. Green only passes.
    End of round 2 -> baron scoring: a is already scored (ignored); b: Red 9, Yellow 9;
      c: Green 16, Yellow 4. Neither b nor c is full: they score anyway.
    Final: Red 10 + 12 + 9 = 31, Yellow 10 + 9 + 4 = 23, Green 10 + 16 = 26.
    """
    rules = Rules(players=3, stalls_per_player=3, customers=bag(2, 1))
    d = Driver(star_board(), rules, bobby="XRP")
    d.token(2)  # Red
    d.stall("a", "X")
    d.stall("a")
    d.end()
    d.token(2)  # Yellow
    d.customer("citizen", "P")
    d.customer("citizen", "Q")
    d.end()
    d.token(2)  # Green
    d.stall("c", "X")
    d.stall("c")
    d.end()
    d.token(3)  # Red, round 2
    d.move("XPQ")
    d.stall("b", "X")
    assert d.game.end_reason == "last_stall"
    d.customer("aristocrat", "R")
    assert d.game.baron_square == d.square("X")
    assert d.scores == [22, 10, 10]
    assert d.scored_lane_ids() == ["a"]
    d.end()
    d.token(3)  # Yellow
    d.stall("b")
    d.stall("b")
    d.move("XQR")
    d.stall("c")
    d.end()
    assert d.scores == [22, 10, 10]  # the Bobby moves were free, b and c are not full
    d.pass_turn(3)  # Green: the round is over, so is the game
    assert d.game.phase == OVER
    assert d.scores == [31, 23, 26]
    assert d.scored_lane_ids() == ["a", "b", "c"]
    assert [d.game.stat(p, "baron_points") for p in (RED, YELLOW, GREEN)] == [9, 13, 16]
    assert d.game.winners() == [RED]
    baron_events = [e for e in d.events("score_lane") if e["baron"]]
    assert [(e["lane"], e["multiplier"], e["points"]) for e in baron_events] == [
        ("b", 3, [9, 9, 0]), ("c", 4, [0, 4, 16])]


def test_baron_end_scoring_counts_an_empty_lane_as_scored() -> None:
    """SPEC: an empty baron lane scores nobody anything but is listed in scored_lanes.

    Triangle board, bag of 2: a citizen on A and an aristocrat on B put the baron on C.
    Only AB holds stalls (Red: 1 + 2 = 3) and it is full, so the aristocrat scores it
    citizen-aristocrat x2 = 6. Lanes BC and CA (at the baron's square C) stay empty. Red
    holds 2 stalls, so placing both triggers the end; Yellow finishes the round; baron
    scoring then lists BC and CA (file order) with no points: Red 16, Yellow 10.
    """
    rules = Rules(stalls_per_player=2, customers=bag(1, 1))
    d = Driver(triangle_board(), rules, bobby="D1")
    d.token(4)
    d.stall("AB", "A")
    d.stall("AB")
    d.customer("citizen", "A")
    d.customer("aristocrat", "B")
    d.end()
    d.pass_turn(2)
    assert d.game.phase == OVER
    assert d.scores == [16, 10]
    assert d.scored_lane_ids() == ["AB", "BC", "CA"]


# ---------------------------------------------------------------------------------------
# Scoring a district, neutral tokens
# ---------------------------------------------------------------------------------------


def _district_position() -> Driver:
    """Two-triangles board, 2 players, Bobby in D1 (lanes AB, BC, CA).

    R1 Red (token 3): AB from A, BC from B, BC.    Yellow (token 2): BC (1 Yellow stall).
    R2 Red (token 2): AB; crosses BC into D2 (Red 2 vs Yellow 1: free); BD from B.
       Yellow (token 3): passes.
    Red's stalls: AB 2, BC 2, BD 1 -> 4 in the lanes around D1 (BD is not one of them),
    3 around D2 (BC 2 + BD 1). Red has only his 4 token face up for round 3.
    """
    d = Driver(two_triangles_board(), Rules(customers=bag(2, 1)), bobby="D1")
    d.token(3)
    d.stall("AB", "A")
    d.stall("BC", "B")
    d.stall("BC")
    d.end()
    d.token(2)
    d.stall("BC")
    d.end()
    d.token(2)
    d.stall("AB")
    d.move("D2")
    d.stall("BD", "B")
    d.end()
    d.pass_turn(3)
    assert d.scores == [10, 10]
    return d


def test_district_scoring_example_4_stalls_times_4() -> None:
    """Rulebook "Scoring a District": "Red scores 16 points for scoring this District:
    4 Market Stalls x 4-value Action Token = 16" (only the stall count matters, not the
    printed values; only the scoring player scores).

    Red scores D1 with his 4: 4 x 4 = 16 -> Red 26, Yellow stays 10 (her BC stall borders D1
    but does not count). Scoring D2 instead would give 4 x 3 = 12 (BC 2 + BD 1).
    """
    d = _district_position()
    other = d.game.copy()
    assert d.game.held_tokens(RED) == [(2, False, False), (3, False, False), (4, False, True)]
    d.score(4, "D1")
    assert d.scores == [26, 10]
    assert d.game.district_scored[d.district("D1")] == RED
    other.play(A.score_district(4, d.district("D2")))
    assert other.scores == [22, 10]


def test_district_scoring_takes_the_whole_turn_and_swaps_in_a_neutral_token() -> None:
    """Rulebook: scoring a district "takes up their entire turn (they do not get to perform
    any normal actions or move the Bobby)"; the token stays in the district, which "cannot
    be [scored] again", and the player takes the top neutral token (a 3) face up.

    After Red scores D1: it is Yellow's turn at once. Red holds 2 (down), 3 (down) and a
    neutral 3 (up): not all face down, so nothing is refreshed. Yellow cannot score D1 again;
    she scores D2 with her 4: her one stall in BC borders D2 -> 4 x 1 = 4 -> Yellow 14, and
    she takes the second neutral 3.
    """
    d = _district_position()
    d.score(4, "D1")
    g = d.game
    assert (g.seat, g.phase, g.actions_left, g.round) == (YELLOW, TURN_START, 0, 3)
    assert sorted(g.held_tokens(RED)) == [(2, False, False), (3, False, False), (3, True, True)]
    assert g.neutral_top == 1
    with pytest.raises(IllegalActionError, match="already been scored"):
        d.score(4, "D1")
    d.score(4, "D2")
    assert d.scores == [26, 14]
    assert sorted(g.held_tokens(YELLOW)) == [(2, False, False), (3, False, False),
                                             (3, True, True)]
    assert g.neutral_top == 2


def test_district_scoring_not_after_playing_a_token() -> None:
    """Scoring a district replaces the whole turn, so it cannot follow `play_token`; and a
    player's own 3 (not a district token) never scores a district."""
    d = Driver(load_board("standard"), bobby="D01")
    with pytest.raises(IllegalActionError):
        d.score(3, "D02")
    d.token(2)
    with pytest.raises(IllegalActionError, match="already played"):
        d.score(4, "D02")


def test_neutral_tokens_come_from_the_top_of_the_stack_3_3_2_2_1() -> None:
    """Rulebook: the neutral stack has "the 3-value tokens on top ..., the 2-value tokens
    in the middle and the 1-value tokens on the bottom"; a district scorer takes the top one.

    Standard board, 3 players, nobody has stalls (district scoring then gives 0 x value = 0
    points but still swaps the token). Round 1 everyone scores with the 4, round 2 with the
    2: tokens handed out in that order are 3 (Red), 3 (Yellow), 2 (Green), 2 (Red), 1
    (Yellow), 1 (Green). Two 1s remain in the stack.
    Afterwards Red holds his own 3 plus neutral 3 and 2, all face up; with no own 2 or 4 left
    he can no longer score a district, and a neutral token gives as many actions as its value.
    """
    d = Driver(load_board("standard"), Rules(players=3), bobby="D01")
    for district in ("D01", "D02", "D03"):
        d.score(4, district)
    for district in ("D04", "D05", "D06"):
        d.score(2, district)
    g = d.game
    assert d.scores == [10, 10, 10]
    neutral = {p: sorted(v for v, n, _ in g.held_tokens(p) if n) for p in (RED, YELLOW, GREEN)}
    assert neutral == {RED: [2, 3], YELLOW: [1, 3], GREEN: [1, 2]}
    assert g.neutral_top == 6
    assert sorted(g.face_up_tokens(RED)) == [(2, True), (3, False), (3, True)]
    assert sorted(g.legal_actions()) == sorted(
        [A.play_token(2, True), A.play_token(3), A.play_token(3, True)])
    d.token(3, neutral=True)
    assert g.actions_left == 3
    assert sorted(g.held_tokens(RED)) == [(2, True, True), (3, False, True), (3, True, False)]


# ---------------------------------------------------------------------------------------
# Action tokens
# ---------------------------------------------------------------------------------------


def test_tokens_turn_face_up_after_all_three_were_used() -> None:
    """Rulebook: "Once an Action Token has been turned face down, it is unavailable until
    the player has used all three ... After all three ... are turned all face up".

    Red plays 2 (round 1), 3 (round 2): only the 4 is left face up in round 3, so playing
    the 2 is refused. After the 4's turn all three are face up again (round 4)."""
    d = Driver(load_board("standard"), bobby="D01")
    g = d.game
    d.pass_turn(2)
    d.pass_turn(2)  # Yellow
    assert g.face_up_tokens(RED) == [(3, False), (4, False)]
    d.pass_turn(3)
    d.pass_turn(3)
    assert g.face_up_tokens(RED) == [(4, False)]
    with pytest.raises(IllegalActionError, match="no face-up own token of value 2"):
        d.token(2)
    d.token(4)
    assert g.face_up_tokens(RED) == []
    d.end()
    assert g.face_up_tokens(RED) == [(2, False), (3, False), (4, False)]
    d.pass_turn(4)
    d.token(2)
    assert g.actions_left == 2


def test_token_value_is_the_number_of_actions_and_end_turn_any_time() -> None:
    """The token's value is the number of actions (stall or customer placements); a third
    action on a 2 is refused; the turn may end with actions left; Bobby moves stay allowed
    when no actions are left."""
    d = Driver(two_triangles_board(), Rules(customers=bag(2, 1)), bobby="D1")
    g = d.game
    d.token(2)
    d.stall("AB", "A")
    d.customer("citizen", "C")
    assert g.actions_left == 0
    with pytest.raises(IllegalActionError, match="no actions left"):
        d.stall("AB")
    assert d.move_targets() == {"D2"}
    d.end()
    d.token(4)  # Yellow ends at once with 4 actions unused
    d.end()
    assert (g.seat, g.round) == (RED, 2)
