"""Every rules switch (SPEC §1 and `sim.games.portobello.rules.Rules`): for each, one situation in
which its two readings give different, hand-derived results. Also the end-reason precedence of SPEC.

Seats: Red 0, Yellow 1, Green 2. Every position is played through `Game.play`.
"""

from __future__ import annotations

import pytest
from helpers import GREEN
from helpers import RED
from helpers import YELLOW
from helpers import Driver
from helpers import bag
from helpers import one_lane_board
from helpers import triangle_board
from helpers import two_triangles_board

from sim import load_board
from sim.core.errors import IllegalActionError
from sim.core.errors import RulesError
from sim.games.portobello import actions as A
from sim.games.portobello.codes import CHANCE
from sim.games.portobello.codes import PLACE
from sim.games.portobello.codes import SETUP
from sim.games.portobello.game import Game
from sim.games.portobello.records import record_from_game
from sim.games.portobello.records import replay
from sim.games.portobello.rules import RULE_KEYS
from sim.games.portobello.rules import Rules
from sim.games.portobello.rules import rules_from_dict


@pytest.fixture(scope="module")
def standard():
    return load_board("standard")


# ---------------------------------------------------------------------------------------
# players, stalls_per_player, start_score, player_tokens
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "seat", "round_", "stalls"), [(2, RED, 2, 30),
                                                                   (3, GREEN, 1, 20)])
def test_players(standard, players: int, seat: int, round_: int, stalls: int) -> None:
    """After Red and Yellow have each passed a turn: with 2 players the round is over and
    Red starts round 2; with 3 players Green (seat 2) is next, still in round 1. Default
    stalls: 30 each for 2 players, 20 for 3 (rulebook set-up table)."""
    d = Driver(standard, Rules(players=players), bobby="D01")
    assert d.game.stalls_left == [stalls] * players
    assert d.scores == [10] * players
    d.pass_turn(2)
    d.pass_turn(2)
    assert (d.game.seat, d.game.round) == (seat, round_)


def test_players_beyond_four_need_explicit_stalls() -> None:
    """SPEC §3: more than 4 players needs an explicit stalls_per_player."""
    with pytest.raises(RulesError, match="stalls_per_player"):
        Rules(players=5)
    assert Rules(players=5, stalls_per_player=12).stalls == 12
    assert Rules(players=4).stalls == 16


@pytest.mark.parametrize(("stalls", "reason"), [(1, "last_stall"), (2, None)])
def test_stalls_per_player(standard, stalls: int, reason: str | None) -> None:
    """Red places one stall. With 1 stall per player that is his last: the end is
    triggered; with 2 it is not (1 left)."""
    d = Driver(standard, Rules(stalls_per_player=stalls), bobby="D05")
    d.token(2)
    d.stall("L11", "S05")
    assert d.game.stalls_left[RED] == stalls - 1
    assert d.game.end_reason == reason


@pytest.mark.parametrize(("start", "may_move", "after"), [(10, True, 9), (1, True, 0),
                                                          (0, False, None)])
def test_start_score(standard, start: int, may_move: bool, after: int | None) -> None:
    """Scores start at start_score. Crossing an empty lane costs 1; with negative scores
    off the move needs a score of at least 1: allowed from 10 (-> 9) and from 1 (-> 0, a
    cost equal to the score is allowed), refused from 0."""
    d = Driver(standard, Rules(start_score=start), bobby="D05")
    assert d.scores == [start, start]
    d.token(2)
    assert ("D04" in d.move_targets()) is may_move
    if may_move:
        d.move("D04")
        assert d.scores == [after, start]
    else:
        with pytest.raises(IllegalActionError, match="costs 1 points but the score is 0"):
            d.move("D04")


def _random_game(board, rules: Rules, seed: int) -> Game:
    """A whole game played through `Game.play` by a seeded random chooser (chance outcomes
    from the game's own generator)."""
    import random

    g = Game(board, rules, seed=seed)
    rng = random.Random(seed)
    while not g.is_over:
        if g.is_chance:
            g.apply(g.sample_chance())
        else:
            g.play(rng.choice(g.legal_actions()))
    return g


def test_start_scores(standard) -> None:
    """start_scores [10, 13], 2 players: before any action (the Bobby not yet placed) Red
    has 10 and Yellow 13, where the default gives both start_score 10. With negative scores
    on, no move's legality depends on a score, so the same seed and the same random choices
    play the same game under both rules: every point won or paid is the same, and the final
    scores differ by exactly the starts, 13 - 10 = 3 for Yellow and 0 for Red."""
    with_list = Rules(start_scores=[10, 13], negative_scores=True)
    plain = Rules(negative_scores=True)
    assert Game(standard, with_list).scores == [10, 13]
    assert Game(standard, plain).scores == [10, 10]
    a, b = _random_game(standard, with_list, 5), _random_game(standard, plain, 5)
    assert a.log == b.log
    assert [a.scores[s] - b.scores[s] for s in (RED, YELLOW)] == [0, 3]
    assert [a.scores[s] - with_list.start_scores[s] for s in (RED, YELLOW)] == \
        [b.scores[s] - 10 for s in (RED, YELLOW)]
    # The record carries the list and replays the same game with the same scores.
    record = record_from_game(a, board_ref="standard", agents=["random"] * 2)
    assert record["rules"]["start_scores"] == [10, 13]
    back = replay(record)
    assert (back.rules, back.scores, back.log) == (with_list, a.scores, a.log)


def test_start_scores_replace_start_score(standard) -> None:
    """docs/rules.md: start_scores wins over start_score, which is then ignored."""
    assert Game(standard, Rules(start_score=4, start_scores=(10, 13))).scores == [10, 13]
    assert Game(standard, Rules(start_score=4)).scores == [4, 4]


def test_start_scores_refused_when_the_player_count_changes() -> None:
    """A study that changes the player count re-checks the list's length at that point."""
    rules = Rules(start_scores=(10, 13))
    with pytest.raises(RulesError, match="3 players but 2 scores") as caught:
        rules.with_changes(players=3)
    assert caught.value.field == "start_scores"
    assert rules.with_changes(players=3, start_scores=(10, 11, 12)).seat_start_scores == \
        (10, 11, 12)


def test_start_scores_unset_leave_the_rules_table_alone() -> None:
    """Identity: without start_scores the rules table is what it was before the switch."""
    assert "start_scores" not in Rules().to_dict()
    assert "start_scores" not in Rules(start_score=3).to_dict(changed_only=True)
    assert Rules(start_scores=(1, 2)).to_dict(changed_only=True) == {"start_scores": [1, 2]}


def test_player_tokens(standard) -> None:
    """player_tokens (2, 3, 4) vs (2, 5): a 5 gives five actions only in the second; with
    two tokens they are all face down (and refreshed) after two turns, with three only
    after three. Red plays 2 then his highest token; in round 3 the 2 is face up again only
    with two tokens."""
    results = {}
    for tokens in ((2, 3, 4), (2, 5)):
        d = Driver(standard, Rules(player_tokens=tokens, district_tokens=(2,)), bobby="D05")
        g = d.game
        assert sorted(g.face_up_tokens(RED)) == [(v, False) for v in tokens]
        d.pass_turn(2)
        d.pass_turn(2)
        top = max(tokens)
        d.token(top)
        assert g.actions_left == top
        d.end()
        d.pass_turn(top)
        results[tokens] = g.face_up_tokens(RED)
    assert results[(2, 3, 4)] == [(3, False)]
    assert results[(2, 5)] == [(2, False), (5, False)]
    d = Driver(standard, bobby="D05")
    with pytest.raises(IllegalActionError):
        d.token(5)


# ---------------------------------------------------------------------------------------
# neutral_stack, district_tokens
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("stack", "received"), [((3, 3, 2, 2, 1, 1, 1, 1), (3, 3)),
                                                 ((1, 1, 1, 1, 2, 2, 3, 3), (1, 1)),
                                                 ((2, 3), (2, 3))])
def test_neutral_stack_order(standard, stack: tuple[int, ...], received: tuple[int, int]) -> None:
    """The first two district scorers take the top two tokens of the stack (listed top
    first): 3 and 3 by default, 1 and 1 with the reversed stack, 2 then 3 for [2, 3]."""
    d = Driver(standard, Rules(neutral_stack=stack), bobby="D05")
    d.score(4, "D01")
    d.score(4, "D02")
    got = tuple(next(v for v, n, _ in d.game.held_tokens(p) if n) for p in (RED, YELLOW))
    assert got == received


def test_neutral_stack_empty_leaves_nothing_and_the_player_passes(standard) -> None:
    """With one token (2) per player and district_tokens (2,): with an empty neutral stack a
    district scorer is left holding nothing, so on his next turn his only legal action is
    end_turn (SPEC: a player with no usable face-up token passes). With a stack [1] he
    holds a neutral 1 and plays it."""
    for stack, expected in (((), [A.END]), ((1,), [A.play_token(1, True)])):
        rules = Rules(player_tokens=(2,), district_tokens=(2,), neutral_stack=stack)
        d = Driver(standard, rules, bobby="D05")
        d.score(2, "D01")
        d.pass_turn(2)  # Yellow
        assert d.game.seat == RED
        assert d.game.legal_actions() == expected
        d.game.play(expected[0])


def test_neutral_tokens_never_score_districts(standard) -> None:
    """With neutral_stack [2, ...] Red's first district score (with his 4) brings him a
    neutral 2. After he also scores with his own 2 he holds a neutral 2 face up but can
    no longer score: neutral tokens never score districts."""
    d = Driver(standard, Rules(neutral_stack=(2, 2, 1)), bobby="D05")
    d.score(4, "D01")
    d.pass_turn(2)
    d.score(2, "D02")
    d.pass_turn(3)
    assert (2, True) in d.game.face_up_tokens(RED)
    assert all(A.kind(a) != A.SCORE_DISTRICT for a in d.game.legal_actions())
    with pytest.raises(IllegalActionError):
        d.score(2, "D03")


@pytest.mark.parametrize(("district_tokens", "legal", "illegal"), [((2, 4), 4, 3),
                                                                   ((3,), 3, 4)])
def test_district_tokens(standard, district_tokens: tuple[int, ...], legal: int,
                         illegal: int) -> None:
    """Default: the 2 and the 4 may score a district, the 3 may not; with
    district_tokens (3,) only the 3 may. Red holds stalls in L11 (2) and L13 (1) around D05,
    so the legal scoring gives value x 3."""
    d = Driver(standard, Rules(district_tokens=district_tokens), bobby="D05")
    d.token(2)
    d.stall("L11", "S05")
    d.stall("L11")
    d.end()
    d.pass_turn(2)
    d.token(3)
    d.stall("L13", "S05")
    d.end()
    d.pass_turn(3)
    assert d.scores == [10, 10]
    # Red has only the 4 face up left: one more round turns all three face up again.
    d.token(4)
    d.end()
    d.pass_turn(4)
    assert d.game.face_up_tokens(RED) == [(2, False), (3, False), (4, False)]
    with pytest.raises(IllegalActionError, match=f"value {illegal} cannot score"):
        d.score(illegal, "D05")
    d.score(legal, "D05")
    assert d.scores == [10 + legal * 3, 10]


def test_district_tokens_must_be_player_tokens() -> None:
    with pytest.raises(RulesError, match="district_tokens"):
        Rules(player_tokens=(2, 3), district_tokens=(4,))


# ---------------------------------------------------------------------------------------
# customers, baron, customer_order, customer_sequence
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("citizens", "aristocrats"), [(5, 5), (3, 7)])
def test_customers(standard, citizens: int, aristocrats: int) -> None:
    """The bag's counts are the chances of a drawn customer: 5/10 each by default, 3/10
    citizen and 7/10 aristocrat with a 3 + 7 bag (10 = 11 squares - 1 with the baron)."""
    d = Driver(standard, Rules(customers=bag(citizens, aristocrats)), bobby="D05")
    d.token(2)
    d.game.play(A.draw_customer())
    assert d.game.phase == CHANCE
    outcomes = dict(d.game.chance_outcomes())
    assert outcomes == {A.chance(1): citizens / 10, A.chance(2): aristocrats / 10}


def test_customers_must_fill_squares_minus_one_with_the_baron(standard) -> None:
    """With the baron on, the bag must hold exactly squares - 1 = 10 customers; with it off,
    a smaller bag is allowed."""
    with pytest.raises(RulesError, match="squares - 1"):
        Game(standard, Rules(customers=bag(5, 4)))
    Game(standard, Rules(customers=bag(5, 4), baron=False))
    with pytest.raises(RulesError):
        Game(standard, Rules(customers=bag(6, 6), baron=False))


@pytest.mark.parametrize(("baron", "scores", "scored"), [(True, [19, 10], ["AB"]),
                                                        (False, [10, 10], [])])
def test_baron(baron: bool, scores: list[int], scored: list[str]) -> None:
    """One lane A-B [1, 2] filled by Red (1 + 2 = 3), one citizen in the bag placed on A.
    Baron on: it is the last customer, so the baron goes on B at once and the lane scores
    citizen-baron x3 = 9 -> Red 19. Baron off: B stays empty and the lane never scores, not
    even at the end of the game (Red has 2 stalls: the end follows this round)."""
    rules = Rules(baron=baron, customers=bag(1, 0), stalls_per_player=2)
    d = Driver(one_lane_board([1, 2]), rules, bobby="D1")
    d.token(3)
    d.stall("AB", "A")
    d.stall("AB")
    d.customer("citizen", "A")
    assert d.game.baron_square == (d.square("B") if baron else -1)
    d.end()
    d.pass_turn(2)
    assert d.game.is_over
    assert d.scores == scores
    assert d.scored_lane_ids() == scored


def test_customer_order_drawn_vs_known(standard) -> None:
    """drawn: a draw waits for chance (either kind may come); known: the line is drawn at
    set-up (a shuffle of the 5 + 5 bag), the draw reveals the line's next customer at once,
    and forcing the other kind is refused."""
    drawn = Driver(standard, Rules(), bobby="D05")
    drawn.token(2)
    drawn.game.play(A.draw_customer())
    assert drawn.game.phase == CHANCE
    assert drawn.game.line is None

    known = Driver(standard, Rules(customer_order="known"), bobby="D05")
    g = known.game
    line = g.line
    assert sorted(line) == [1] * 5 + [2] * 5
    known.token(4)
    other = 3 - line[0]
    with pytest.raises(IllegalActionError, match="next customer in the line"):
        g.play(A.draw_customer(other))
    g.play(A.draw_customer())
    assert (g.phase, g.pending) == (PLACE, line[0])
    g.play(A.place_customer(known.square("S01")))
    g.play(A.draw_customer(line[1]))
    g.play(A.place_customer(known.square("S02")))
    assert g.square_customer[:2] == [line[0], line[1]]
    # Records of known-order games carry the line (engines shuffle differently).
    rec = record_from_game(g)
    names = {1: "citizen", 2: "aristocrat"}
    assert rec["rules"]["customer_sequence"] == [names[c] for c in line]


@pytest.mark.parametrize(("sequence", "score"), [(("citizen", "aristocrat"), 19),
                                                 (("aristocrat", "citizen"), 22),
                                                 (("aristocrat", "citizen", "baron"), 22)])
def test_customer_sequence(sequence: tuple[str, ...], score: int) -> None:
    """Triangle board (bag of 2 = squares - 1). Red fills AB [1, 2] (3 points of spots),
    then places the line's first customer on A and its second on C; the baron goes on B.
    AB is then <first>-baron: citizen-baron x3 = 9 -> 19; aristocrat-baron x4 = 12 -> 22.
    A trailing "baron" changes nothing. The sequence implies known order."""
    rules = rules_from_dict({"customer_sequence": list(sequence)})
    assert rules.customer_order == "known"
    d = Driver(triangle_board(), rules, bobby="D1")
    g = d.game
    d.token(4)
    d.stall("AB", "A")
    d.stall("AB")
    g.play(A.draw_customer())
    g.play(A.place_customer(d.square("A")))
    g.play(A.draw_customer())
    g.play(A.place_customer(d.square("C")))
    assert g.baron_square == d.square("B")
    assert d.scores == [score, 10]


def test_customer_sequence_with_drawn_order_is_an_error() -> None:
    with pytest.raises(RulesError, match="implies known order"):
        rules_from_dict({"customer_sequence": ["citizen"], "customer_order": "drawn"})
    with pytest.raises(RulesError, match="implies known order"):
        Rules(customer_sequence=("citizen",))


# ---------------------------------------------------------------------------------------
# bobby_placer, bobby_tie, negative_scores
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("placer", "seat"), [("first", RED), ("next", YELLOW),
                                               ("last", GREEN)])
def test_bobby_placer(standard, placer: str, seat: int) -> None:
    """3 players: the Bobby is placed before the first turn by seat 0 (first, English
    rulebook), seat 1 (next, the start player's left-hand neighbour) or seat n-1 = 2 (last,
    the start player's right-hand neighbour). Either way seat 0 then takes the first
    turn."""
    g = Game(standard, Rules(players=3, bobby_placer=placer), record_events=True)
    assert (g.phase, g.seat) == (SETUP, seat)
    with pytest.raises(IllegalActionError, match="Bobby must be placed"):
        g.play(A.play_token(2))
    g.play(A.place_bobby(standard.district_index("D07")))
    assert g.events[0] == {"type": "place_bobby", "seat": seat, "district": "D07"}
    assert (g.seat, g.round) == (RED, 1)


def test_bobby_placer_next_game_and_record(standard) -> None:
    """bobby_placer "next", 3 players: the game's first decision is Yellow's (seat 1) Bobby
    placement, then Red (seat 0) takes turn 1. With the same seed and choices the default
    game differs from its first event on (Red places the Bobby). The record carries the
    switch and replays the same game."""
    rules = Rules(players=3, bobby_placer="next")
    g = Game(standard, rules, seed=8, record_events=True)
    assert (g.phase, g.seat, g.turn) == (SETUP, YELLOW, 0)
    g.play(A.place_bobby(standard.district_index("D03")))
    assert (g.seat, g.turn) == (RED, 1)
    default = Game(standard, Rules(players=3), seed=8, record_events=True)
    default.play(A.place_bobby(standard.district_index("D03")))
    assert (g.events[0]["seat"], default.events[0]["seat"]) == (YELLOW, RED)
    played = _random_game(standard, rules, 8)
    record = record_from_game(played, board_ref="standard", agents=["random"] * 3)
    assert record["rules"]["bobby_placer"] == "next"
    back = replay(record)
    assert (back.rules, back.log, back.scores) == (rules, played.log, played.scores)


def _tie_position(tie: str, yellow_stalls: int) -> Driver:
    """Two-triangles board, 2 players, Bobby in D1. Round 1: Red places 1 stall in BC,
    Yellow `yellow_stalls`. Round 2: Red plays his 3 and crosses BC into D2."""
    d = Driver(two_triangles_board(), Rules(bobby_tie=tie, customers=bag(2, 1)), bobby="D1")
    d.token(2)
    d.stall("BC", "B")
    d.end()
    d.token(2)
    for _ in range(yellow_stalls):
        d.stall("BC")
    d.end()
    d.token(3)
    d.move("D2")
    return d


@pytest.mark.parametrize(("tie", "scores"), [("pay_co_leaders", [9, 11]), ("pay_bank", [9, 10])])
def test_bobby_tie_with_the_mover_tied(tie: str, scores: list[int]) -> None:
    """BC: Red 1, Yellow 1: Red is tied for the most. pay_co_leaders: Red pays Yellow 1
    (9 / 11). pay_bank: Red loses 1 to nobody (9 / 10)."""
    assert _tie_position(tie, 1).scores == scores


@pytest.mark.parametrize("tie", ["pay_co_leaders", "pay_bank"])
def test_bobby_tie_only_matters_when_the_mover_is_tied(tie: str) -> None:
    """BC: Red 1, Yellow 2: Yellow alone has the most, so under both readings Red pays her
    1 point (9 / 11)."""
    assert _tie_position(tie, 2).scores == [9, 11]


def test_bobby_tie_pay_bank_with_three_way_tie() -> None:
    """pay_bank with three players tied (Red, Yellow, Green 1 each in BC): the mover loses
    just 1 point to nobody (9, 10, 10); pay_co_leaders: Red pays Yellow and Green (8, 11,
    11)."""
    for tie, scores in (("pay_bank", [9, 10, 10]), ("pay_co_leaders", [8, 11, 11])):
        rules = Rules(players=3, bobby_tie=tie, customers=bag(2, 1))
        d = Driver(two_triangles_board(), rules, bobby="D1")
        for frm in ("B", None, None):
            d.token(2)
            d.stall("BC", frm)
            d.end()
        d.token(3)
        d.move("D2")
        assert d.scores == scores


@pytest.mark.parametrize("allowed", [False, True])
def test_negative_scores(allowed: bool) -> None:
    """Start score 1 (switch start_score). BC holds Red 1, Yellow 2, Green 2 stalls; Red
    crossing it pays 1 to Yellow and 1 to Green: cost 2 > score 1. negative_scores off:
    refused (not offered, play raises). On: allowed, Red 1 - 2 = -1, Yellow 2, Green 2."""
    rules = Rules(players=3, start_score=1, negative_scores=allowed, customers=bag(2, 1))
    d = Driver(two_triangles_board(), rules, bobby="D1")
    d.token(2)
    d.stall("BC", "B")
    d.end()
    for _ in (YELLOW, GREEN):
        d.token(2)
        d.stall("BC")
        d.stall("BC")
        d.end()
    d.token(3)
    assert ("D2" in d.move_targets()) is allowed
    if allowed:
        d.move("D2")
        assert d.scores == [-1, 2, 2]
    else:
        with pytest.raises(IllegalActionError, match="costs 2 points but the score is 1"):
            d.move("D2")
        assert d.scores == [1, 1, 1]


# ---------------------------------------------------------------------------------------
# multipliers, max_rounds
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("table", "score"), [({}, 16), ({"aristocrat-citizen": 5}, 25)])
def test_multipliers(table: dict[str, int], score: int) -> None:
    """One lane A-B [1, 2] filled by Red (3 points of spots), a citizen on A and an
    aristocrat on B (baron off). Default citizen-aristocrat x2 -> 10 + 6 = 16; with the
    table entry set to 5 (given in the other order, which is the same pair) -> 10 + 15 = 25.
    """
    rules = rules_from_dict({"multipliers": table, "baron": False,
                             "customers": {"citizen": 1, "aristocrat": 1}})
    d = Driver(one_lane_board([1, 2]), rules, bobby="D1")
    d.token(4)
    d.stall("AB", "A")
    d.stall("AB")
    d.customer("citizen", "A")
    d.customer("aristocrat", "B")
    assert d.scores == [score, 10]


@pytest.mark.parametrize(("max_rounds", "over"), [(1, True), (2, False)])
def test_max_rounds(standard, max_rounds: int, over: bool) -> None:
    """Both players pass round 1. max_rounds 1: the game ends after the last seat's turn of
    round 1 with end_reason round_limit (round stays 1). max_rounds 2: round 2 begins."""
    d = Driver(standard, Rules(max_rounds=max_rounds), bobby="D05")
    d.pass_turn(2)
    assert not d.game.is_over
    d.pass_turn(2)
    assert d.game.is_over is over
    if over:
        assert (d.game.end_reason, d.game.round) == ("round_limit", 1)
    else:
        assert (d.game.end_reason, d.game.round, d.game.seat) == (None, 2, RED)


# ---------------------------------------------------------------------------------------
# End-reason precedence
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("max_rounds", [1, 200])
@pytest.mark.parametrize(("stalls", "reason"), [(2, "last_stall"), (3, "board_exhausted")])
def test_last_stall_wins_over_board_exhausted_in_one_turn(stalls: int, reason: str,
                                                         max_rounds: int) -> None:
    """One lane A-B [1, 2], one citizen in the bag. In one turn Red places two stalls (the
    lane is full), then the citizen on A (the baron follows on B). At the end of the turn
    every lane is full and no customer remains: board_exhausted. With 2 stalls per player
    the second stall was his last, which happened earlier in the turn: last_stall wins.
    With 3 stalls the end reason is board_exhausted. Either way Yellow still plays (the
    round is finished), and a round limit of 1 (ending at the end of the round, later
    still) does not change the reason."""
    rules = Rules(stalls_per_player=stalls, customers=bag(1, 0), max_rounds=max_rounds)
    d = Driver(one_lane_board([1, 2]), rules, bobby="D1")
    d.token(3)
    d.stall("AB", "A")
    d.stall("AB")
    d.customer("citizen", "A")
    d.end()
    assert not d.game.is_over
    assert d.game.end_reason == reason
    d.pass_turn(2)
    assert d.game.is_over
    assert (d.game.end_reason, d.game.round) == (reason, 1)
    assert [e["reason"] for e in d.events("end_triggered")] == [reason]
    assert d.scores == [19, 10]  # citizen-baron x3 on 1 + 2


def test_board_full_with_customers_left_is_not_exhausted() -> None:
    """The board is exhausted only when every lane is full *and* no customer remains. One
    lane A-B [1, 2] filled by Red, two citizens still in the bag (baron off): play goes on
    into round 2."""
    rules = Rules(baron=False, customers=bag(2, 0))
    d = Driver(one_lane_board([1, 2]), rules, bobby="D1")
    d.token(2)
    d.stall("AB", "A")
    d.stall("AB")
    d.end()
    d.pass_turn(2)
    assert (d.game.is_over, d.game.end_reason, d.game.round) == (False, None, 2)


def test_last_stall_in_the_final_round_wins_over_round_limit(standard) -> None:
    """max_rounds 1 and Yellow (seat 1 of 3) places her only stall in round 1: last_stall
    happened first (at the stall), round_limit would only come at the end of the round."""
    d = Driver(standard, Rules(players=3, stalls_per_player=1, max_rounds=1), bobby="D05")
    d.pass_turn(2)
    d.token(2)
    d.stall("L11", "S05")
    d.end()
    d.pass_turn(2)
    assert d.game.is_over
    assert d.game.end_reason == "last_stall"


def test_round_limit_when_nothing_else_happened(standard) -> None:
    """max_rounds 2, 3 players who only pass: over after Green's turn in round 2."""
    d = Driver(standard, Rules(players=3, max_rounds=2), bobby="D05")
    for value in (2, 2, 2, 3, 3):
        d.pass_turn(value)
    assert not d.game.is_over
    d.pass_turn(3)
    assert (d.game.is_over, d.game.end_reason, d.game.round) == (True, "round_limit", 2)


def test_every_switch_is_covered() -> None:
    """Guard: a new switch in Rules needs a test here."""
    covered = {"players", "stalls_per_player", "start_score", "start_scores", "player_tokens",
               "neutral_stack",
               "district_tokens", "customers", "baron", "customer_order", "customer_sequence",
               "bobby_placer", "bobby_tie", "negative_scores", "max_rounds", "multipliers"}
    assert set(RULE_KEYS) == covered
