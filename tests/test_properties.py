"""Property tests of the rules engine over random legal play.

Games are played by a seeded random player (`Policy`) choosing among `game.legal_actions()`,
with chance nodes resolved by `game.sample_chance(rng)`, on the standard board and on random
valid boards (`strategies.py`), under random rules switches. After every action a `Checker`
(`invariants.py`) compares the game with the state before the action and with a small
independent reading of the rules (docs/rules.md): stalls are conserved, lanes grow as
contiguous runs from one end, lanes
are scored exactly when they should be (once, in board order, with the right points), Bobby
moves cost what the rulebook says and move points only between players (or to nobody), the
scores always add up from the statistics, the end of the game is triggered and reached at
the right moments. Separate tests check copies, record replay and the board strategy itself.
"""

from __future__ import annotations

import json
import random
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck
from hypothesis import event
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from invariants import Checker
from invariants import check_final
from invariants import play
from strategies import Policy
from strategies import board_toml
from strategies import boards
from strategies import policies
from strategies import rules_for

from sim.games.portobello import actions as A
from sim.games.portobello.actions import Action
from sim.games.portobello.board import Board
from sim.games.portobello.board import board_from_dict
from sim.games.portobello.board import load_board
from sim.games.portobello.game import Game
from sim.games.portobello.records import record_from_game
from sim.games.portobello.records import replay
from sim.games.portobello.records import replay_file
from sim.games.portobello.records import write_record
from sim.games.portobello.rules import Rules
from sim.games.portobello.rules import rules_from_dict

STANDARD = load_board("standard")
STANDARD_DICT = STANDARD.to_dict()
END_REASONS = {"last_stall", "board_exhausted", "round_limit"}
TURN_ENDERS = (A.END_TURN, A.SCORE_DISTRICT)

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- strategies for whole setups ---------------------------------------------------------------
@st.composite
def standard_setups(draw: st.DrawFn) -> tuple[Board, Rules, int]:
    rules = rules_from_dict(draw(rules_for(STANDARD_DICT, max_rounds=st.integers(8, 40))))
    return STANDARD, rules, draw(st.integers(0, 2**32 - 1))


@st.composite
def random_setups(draw: st.DrawFn) -> tuple[Board, Rules, int]:
    data = draw(boards())
    board = board_from_dict(data)
    rules = rules_from_dict(draw(rules_for(data)))
    return board, rules, draw(st.integers(0, 2**32 - 1))


any_setups = st.one_of(standard_setups(), random_setups())


def board_ref(board: Board, folder: Path) -> str:
    """A name a record can use for `board`: the shipped name, or a file written in `folder`."""
    if board is STANDARD:
        return "standard"
    (folder / "board.toml").write_text(board_toml(board.to_dict()))
    return "board.toml"


# -- the properties ------------------------------------------------------------------------------
@settings(SETTINGS, max_examples=120)
@given(setup=standard_setups(), policy=policies)
def test_invariants_on_the_standard_board(setup: tuple[Board, Rules, int],
                                          policy: Policy) -> None:
    board, rules, seed = setup
    game = Game(board, rules, seed=seed)
    play(game, policy, checker=Checker(game))
    check_final(game)
    event(f"end: {game.end_reason}")


@settings(SETTINGS, max_examples=400)
@given(setup=random_setups(), policy=policies)
def test_invariants_on_random_boards(setup: tuple[Board, Rules, int], policy: Policy) -> None:
    board, rules, seed = setup
    game = Game(board, rules, seed=seed)
    play(game, policy, checker=Checker(game))
    check_final(game)
    event(f"end: {game.end_reason}")


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("order", ["drawn", "known"])
@pytest.mark.parametrize("tie", ["pay_co_leaders", "pay_bank"])
@pytest.mark.parametrize("negative", [False, True])
def test_invariants_for_every_switch_combination(players: int, order: str, tie: str,
                                                 negative: bool) -> None:
    """One whole standard game per combination, so every reading is surely covered."""
    rules = Rules(players=players, customer_order=order, bobby_tie=tie,
                  negative_scores=negative, max_rounds=60)
    seed = players * 8 + (order == "known") * 4 + (tie == "pay_bank") * 2 + negative
    game = Game(STANDARD, rules, seed=seed)
    play(game, Policy(seed=seed, p_move=0.3, p_end=0.05, max_moves=3), checker=Checker(game))
    check_final(game)


@settings(SETTINGS, max_examples=120)
@given(setup=any_setups, policy=policies, data=st.data())
def test_copies_are_independent_and_deterministic(setup: tuple[Board, Rules, int],
                                                  policy: Policy, data: st.DataObject) -> None:
    board, rules, seed = setup
    game = Game(board, rules, seed=seed)
    snap_rng = random.Random(data.draw(st.integers(0, 2**16), label="snapshot seed"))
    copies: list[tuple[Game, tuple[Any, ...], int]] = [(game.copy(), game.key(), 0)]
    step = [0]

    def snapshot(g: Game, action: Action) -> None:
        step[0] += 1
        if snap_rng.random() < 0.05:
            copies.append((g.copy(), g.key(), step[0]))

    applied = play(game, policy, on_step=snapshot)
    final = game.key()
    assert game == game.copy() and hash(game) == hash(game.copy())
    for copy, key, at in copies:
        # The original moved on; the copy did not.
        assert copy.key() == key
        # The copy, played on with the same actions, reaches the same state.
        for action in applied[at:]:
            if A.kind(action) == A.CHANCE:
                assert copy.is_chance
                copy.apply(action)
            else:
                copy.play(action)
        assert copy.key() == final
        assert copy.scores == game.scores and copy.end_reason == game.end_reason


@settings(SETTINGS, max_examples=120)
@given(setup=any_setups, policy=policies, data=st.data())
def test_replaying_the_record_reproduces_the_game(setup: tuple[Board, Rules, int],
                                                  policy: Policy, data: st.DataObject) -> None:
    board, rules, seed = setup
    game = Game(board, rules, seed=seed)
    cut_rng = random.Random(data.draw(st.integers(0, 2**16), label="cut seed"))
    partial: list[Game] = []

    def cut(g: Game, action: Action) -> None:
        if not g.is_chance and not g.is_over and cut_rng.random() < 0.02:
            partial.append(g.copy(keep_log=True))

    play(game, policy, on_step=cut)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ref = board_ref(board, folder)
        # The whole game through a record file (the board path is relative to the file).
        write_record(folder / "game.json", record_from_game(game, board_ref=ref))
        again, out = replay_file(folder / "game.json")
        assert again.key() == game.key()
        assert out["scores"] == game.scores and out["finished"] is True
        assert out["end_reason"] == game.end_reason
        assert out["scored_lanes"] == [board.lane_ids[x] for x in game.scored_lanes]
        assert out["winners"] == game.winners() and out["round"] == game.round
        # Records cut in the middle of the game replay to the state of that moment.
        for g in [game, *partial[:3]]:
            record = json.loads(json.dumps(record_from_game(g, board_ref=ref)))
            again = replay(record, base_dir=folder)
            assert again.key() == g.key()
            assert again.scores == g.scores
            assert again.end_reason == g.end_reason
            assert again.scored_lanes == g.scored_lanes
            assert again.finished == g.finished
            assert again.log == g.log


@settings(SETTINGS, max_examples=150)
@given(data=boards(), rules_data=st.data())
def test_random_boards_are_valid(data: dict[str, Any], rules_data: st.DataObject) -> None:
    board = board_from_dict(data)
    # Written to TOML and read back, the board is the same board.
    again = board_from_dict(tomllib.loads(board_toml(data)))
    assert again.content_hash == board.content_hash
    assert again.to_dict() == board.to_dict() == data
    rules = rules_from_dict(rules_data.draw(rules_for(data)))
    rules.check_board(board)
    # The SPEC §2 facts the strategy promises.
    owners: dict[int, list[int]] = {}
    for d, lanes in enumerate(board.district_lanes):
        assert lanes
        for lane in lanes:
            owners.setdefault(lane, []).append(d)
    assert all(1 <= len(owners.get(lane, [])) <= 2 for lane in range(board.n_lanes))
    pairs = [tuple(sorted(ds)) for ds in owners.values() if len(ds) == 2]
    assert len(pairs) == len(set(pairs))
    for a, b in board.lane_ends:
        assert a != b
    assert all(v > 0 for spots in board.lane_spots for v in spots)
    event(f"districts: {min(board.n_districts, 10)}")
