"""The adapters' shared core (`sim.adapters.core`), without either framework: the
parameters, the dense action numbering, positions (the known line's chance steps, the
Bobby-move bound, returns) and observations."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from helpers import bag
from helpers import two_triangles_board

from sim.adapters.core import observation
from sim.adapters.core.actions import ActionTable
from sim.adapters.core.position import Position
from sim.adapters.core.settings import AdapterError
from sim.adapters.core.settings import Settings
from sim.adapters.core.settings import default_bobby_moves
from sim.adapters.core.settings import settings
from sim.core.errors import BoardError
from sim.core.errors import RulesError
from sim.games.portobello import actions as A
from sim.games.portobello.board import load_board
from sim.games.portobello.game import Game
from sim.games.portobello.rules import Rules


def _play_random(pos: Position, rng: random.Random) -> list[int]:
    """Play to the end with random legal indices and chance by its probabilities; the
    indices played."""
    played = []
    while not pos.is_over:
        if pos.is_chance:
            outcomes = pos.chance_outcomes()
            pos.apply_outcome(rng.choices([o for o, _ in outcomes],
                                          [p for _, p in outcomes])[0])
        else:
            i = rng.choice(pos.legal())
            played.append(i)
            pos.apply(i)
    return played


# -- the action numbering ------------------------------------------------------------------
def test_the_standard_boards_numbering_counts_every_kind_of_action() -> None:
    """Derived from the standard board (12 districts, 22 lanes, 11 squares) and the
    default rules (own tokens 2, 3, 4; neutral values 1, 2, 3; districts scored with 2
    and 4): 12 Bobby placements + 3 own tokens + 3 neutral tokens + 2 x 12 district
    scorings + 22 x 2 stall ends + 1 draw + 11 squares + 12 Bobby moves + 1 end = 111."""
    table = ActionTable(load_board("standard"), Rules())
    assert len(table) == 12 + 3 + 3 + 24 + 44 + 1 + 11 + 12 + 1 == 111
    assert len(set(table.codes)) == len(table)
    assert table.name(table.index[A.place_stall(6, 0)]) == "place_stall L07 from S03"
    assert table.name(table.index[A.play_token(3, 1)]) == "play_token 3 neutral"
    assert table.name(table.index[A.score_district(4, 0)]) == "score_district 4 D01"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_action_the_engine_offers_has_a_number(players: int) -> None:
    """Random games through a position: every legal code the engine offers maps to an
    index and back, and the indices come sorted."""
    board = load_board("standard")
    s = Settings(board=board, rules=Rules(players=players), bobby_moves=25, returns="win")
    table = ActionTable(board, s.rules)
    for seed in range(3):
        pos = Position(s, table)
        rng = random.Random(seed)
        while not pos.is_over:
            if pos.is_chance:
                pos.apply_outcome(rng.choice([o for o, _ in pos.chance_outcomes()]))
                continue
            legal = pos.legal()
            assert legal == sorted(legal)
            assert pos.game is not None
            assert {table.codes[i] for i in legal} <= set(pos.game.legal_actions())
            pos.apply(rng.choice(legal))


# -- parameters ------------------------------------------------------------------------------
def test_the_bobby_bound_is_the_diameter_for_every_action_and_once_more() -> None:
    """Two districts sharing one lane: diameter 1; the biggest token is 4, so a turn
    has room for 1 x (4 + 1) = 5 moves. On the standard board the longest shortest paths
    (D03 to D08, D04 to D10) cross 5 lanes, so 5 x 5 = 25."""
    assert default_bobby_moves(two_triangles_board(), Rules(customers=bag(1, 2))) == 5
    assert default_bobby_moves(load_board("standard"), Rules()) == 25
    assert settings().bobby_moves == 25
    assert settings(bobby_moves=3).bobby_moves == 3


def test_empty_defaults_take_the_rules_files_values(tmp_path: Path) -> None:
    rules = tmp_path / "three.toml"
    rules.write_text('players = 3\ncustomer_order = "known"\nneutral_stack = [1, 1, 2]\n')
    s = settings(rules=str(rules))
    assert (s.players, s.rules.customer_order, s.rules.neutral_stack) == (3, "known",
                                                                         (1, 1, 2))
    s = settings(rules=str(rules), players=4, customer_order="drawn",
                 neutral_stack="3, 3,2")
    assert (s.players, s.rules.customer_order, s.rules.neutral_stack) == (4, "drawn",
                                                                         (3, 3, 2))
    assert settings().players == 2 and settings().rules == Rules()


@pytest.mark.parametrize(("params", "error", "field", "words"), [
    ({"colour": "red"}, AdapterError, "colour", "unknown parameter"),
    ({"players": "four"}, AdapterError, "players", "must be an integer"),
    ({"players": -1}, AdapterError, "players", "0 or more"),
    ({"players": 9}, RulesError, "players", "stalls_per_player"),
    ({"customer_order": "sideways"}, RulesError, "customer_order", "drawn, known"),
    ({"neutral_stack": "3,x"}, AdapterError, "neutral_stack", "separated by spaces or commas"),
    ({"neutral_stack": "0,1"}, RulesError, "neutral_stack", ""),
    ({"returns": "points"}, AdapterError, "returns", "win, margin"),
    ({"bobby_moves": 1.5}, AdapterError, "bobby_moves", "integer"),
    ({"board": "nowhere"}, BoardError, None, "no shipped board named 'nowhere'"),
    ({"rules": "/no/such/rules.toml"}, RulesError, None, "no such rules file"),
])
def test_bad_parameters_name_the_parameter_and_the_reason(
        params: dict[str, object], error: type[Exception], field: str | None,
        words: str) -> None:
    with pytest.raises(error) as info:
        settings(**params)
    exc = info.value
    assert getattr(exc, "field", None) == field
    assert words in str(exc)
    assert "\n" not in str(exc)


# -- positions ------------------------------------------------------------------------------
def test_the_known_line_is_drawn_by_chance_with_the_bags_odds() -> None:
    """Known order, 5 citizens and 5 aristocrats: the first draw is 1/2 each; after five
    aristocrats only citizens are left (probability 1); then the game's line is exactly
    the drawn order and the customers come out in it."""
    s = settings(customer_order="known")
    pos = Position(s, ActionTable(s.board, s.rules))
    assert pos.is_chance and pos.drawing_line
    assert pos.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    pos.apply_outcome(1)
    assert pos.chance_outcomes() == [(0, 5 / 9), (1, 4 / 9)]
    for _ in range(4):
        pos.apply_outcome(1)
    assert pos.chance_outcomes() == [(0, 1.0)]
    for _ in range(5):
        pos.apply_outcome(0)
    assert not pos.is_chance and pos.game is not None
    assert pos.game.line == (2, 2, 2, 2, 2, 1, 1, 1, 1, 1)
    assert pos.game.rules.customer_order == "known"


def test_a_draw_in_drawn_order_is_a_chance_step_with_the_bags_odds() -> None:
    s = settings()
    table = ActionTable(s.board, s.rules)
    pos = Position(s, table)
    assert not pos.is_chance
    pos.apply(table.index[A.place_bobby(0)])
    pos.apply(table.index[A.play_token(4)])
    pos.apply(table.index[A.DRAW])
    assert pos.is_chance and pos.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    pos.apply_outcome(1)  # an aristocrat: 5 citizens and 4 aristocrats are left
    assert pos.game is not None and pos.game.pending == 2
    pos.apply(pos.legal()[0])
    pos.apply(table.index[A.DRAW])
    assert pos.chance_outcomes() == [(0, 5 / 9), (1, 4 / 9)]


def test_bobby_moves_stop_at_the_bound_and_come_back_next_turn() -> None:
    """Bound 2 on the standard board: after two moves no move is offered (though the
    rules would allow one: 10 points pay for ten empty lanes), the next seat may move
    again."""
    s = settings(bobby_moves=2)
    table = ActionTable(s.board, s.rules)
    pos = Position(s, table)
    moves = {i for i, c in enumerate(table.codes) if A.kind(c) == A.MOVE_BOBBY}
    pos.apply(table.index[A.place_bobby(0)])
    pos.apply(table.index[A.play_token(2)])
    for _ in range(2):
        move = min(moves & set(pos.legal()))
        pos.apply(move)
    assert pos.game is not None
    assert any(A.kind(c) == A.MOVE_BOBBY for c in pos.game.legal_actions())
    assert not moves & set(pos.legal())
    pos.apply(table.index[A.END])
    pos.apply(table.index[A.play_token(2)])
    assert moves & set(pos.legal())
    assert pos.moves_left() == 2


def test_a_position_at_an_engine_game_continues_that_game() -> None:
    """`Position.at` copies the game: playing on never touches the original, and the
    Bobby moves already made count against the bound."""
    s = settings(bobby_moves=3)
    table = ActionTable(s.board, s.rules)
    game = Game(s.board, s.rules, seed=4)
    game.apply(A.place_bobby(5))
    game.apply(A.play_token(3))
    pos = Position.at(s, table, game, moves_made=2)
    assert pos.moves_left() == 1
    _play_random(pos, random.Random(1))
    assert pos.is_over and not game.is_over and game.bobby == 5


@pytest.mark.parametrize(("scores", "win", "margin"), [
    # winners share the win; margin = own score - mean of the others'
    ([30, 20, 10], [1, 0, 0], [30 - 15, 20 - 20, 10 - 25]),
    ([25, 25, 10], [0.5, 0.5, 0], [25 - 17.5, 25 - 17.5, 10 - 25]),
    ([7, 7], [0.5, 0.5], [0, 0]),
])
def test_returns_are_win_shares_or_margins(scores: list[int], win: list[float],
                                           margin: list[float]) -> None:
    for kind, want in (("win", win), ("margin", margin)):
        s = settings(players=len(scores), returns=kind)
        pos = Position(s, ActionTable(s.board, s.rules))
        assert pos.returns() == [0.0] * len(scores)  # nothing before the end
        _play_random(pos, random.Random(0))
        assert pos.game is not None
        pos.game.scores = list(scores)
        assert pos.returns() == pytest.approx(want)
        assert sum(pos.returns()) == pytest.approx(1.0 if kind == "win" else 0.0)


def test_returns_are_within_the_declared_bounds() -> None:
    for kind in ("win", "margin"):
        s = settings(players=3, returns=kind)
        low, high = s.utility_bounds
        for seed in range(5):
            pos = Position(s, ActionTable(s.board, s.rules))
            _play_random(pos, random.Random(seed))
            assert all(low <= r <= high for r in pos.returns())


def test_games_end_within_the_declared_length() -> None:
    s = settings(players=4, customer_order="known", bobby_moves=6)
    for seed in range(5):
        pos = Position(s, ActionTable(s.board, s.rules))
        steps = 10 + len(_play_random(pos, random.Random(seed)))  # + the line's draws
        assert steps <= s.max_game_length


# -- observations -----------------------------------------------------------------------------
def test_each_seat_observes_the_same_facts_from_its_own_chair() -> None:
    """Seat blocks are in turn order from the observer: seat 1's first score is its own,
    and its `to_move` marks seat 0 one chair before it (position 2 of 3)."""
    s = settings(players=3)
    table = ActionTable(s.board, s.rules)
    pos = Position(s, table)
    pos.apply(table.index[A.place_bobby(3)])
    assert pos.game is not None
    pos.game.scores = [10, 20, 30]
    parts = observation.pieces(s)
    seen = []
    for player in range(3):
        tensor = np.zeros(observation.size(s), np.float32)
        view = observation.views(tensor, parts)
        observation.fill(view, pos, player)
        seen.append(view)
        assert view["seat"].tolist() == [float(p == player) for p in range(3)]
        assert view["scores"][0] == pytest.approx(pos.game.scores[player] / 100)
        assert view["bobby"].tolist() == [float(d == 3) for d in range(12)]
    assert seen[1]["scores"].tolist() == pytest.approx([0.2, 0.3, 0.1])
    assert seen[1]["to_move"].tolist() == [0.0, 0.0, 1.0]
    assert seen[0]["to_move"].tolist() == [1.0, 0.0, 0.0]
    assert observation.text(pos, 1).startswith("seat 1 observing\nround 1, seat 0 to move")


def test_the_tensor_follows_the_game() -> None:
    """A stall, a customer and a scored district show where the rules put them."""
    s = settings()
    table = ActionTable(s.board, s.rules)
    pos = Position(s, table)
    pos.apply(table.index[A.place_bobby(0)])
    pos.apply(table.index[A.play_token(4)])
    game = pos.game
    assert game is not None
    lane = s.board.district_lanes[0][0]
    pos.apply(table.index[A.place_stall(lane, 1)])  # seat 0 builds from the lane's far end
    pos.apply(table.index[A.DRAW])
    pos.apply_outcome(0)  # a citizen
    pos.apply(table.index[A.place_customer(4)])
    pos.apply(table.index[A.END])
    pos.apply(table.index[A.score_district(2, 0)])  # seat 1 scores D01 (no stalls: 0)
    view = observation.views(np.zeros(observation.size(s), np.float32),
                             observation.pieces(s))
    observation.fill(view, pos, 1)
    spot = s.board.lane_offset[lane] + s.board.lane_len[lane] - 1
    assert view["spots"][spot].tolist() == [0.0, 1.0]  # seat 0 is one chair after seat 1
    assert view["spots"].sum() == 1
    assert view["customers"][4].tolist() == [1.0, 0.0, 0.0]
    assert view["districts"][0].tolist() == [1.0, 0.0]  # by the observer itself
    assert view["bag"].tolist() == pytest.approx([0.4, 0.5])
    assert view["neutral_stack"].tolist() == [0.0] + [1.0] * 7  # seat 1 took the top 3
