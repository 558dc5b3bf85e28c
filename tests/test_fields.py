"""The named accessors (`sim.games.portobello.compiled.fields`) are generated from the layout's one
field table, cover every table of the state, and read what the independent reading of the
rules (`tests/oracle`) holds at each position of a game."""

from __future__ import annotations

import random

import numpy as np
from oracle.convert import state_from_game
from oracle.game import Game as OracleGame

from sim.games.portobello.board import load_board
from sim.games.portobello.codes import N_STATS
from sim.games.portobello.compiled import fields as F
from sim.games.portobello.compiled import layout as L
from sim.games.portobello.rules import Rules


def test_the_accessors_are_the_field_tables_generated_source() -> None:
    """`python -m sim.games.portobello.compiled.layout` writes fields.py; it must be up to date."""
    assert L.FIELDS_FILE.read_text() == L.fields_source()


def test_every_table_of_the_state_has_its_accessors() -> None:
    board, rules = load_board("standard"), Rules(players=3)
    tables = {slot for slot, _ in L.state_tables(board, rules)}
    named = {getattr(L, slot) for _, slot, _, _ in L.STATE_FIELDS}
    assert named == tables
    for name, _, _, _ in L.STATE_FIELDS:
        assert callable(getattr(F, name)) and callable(getattr(F, f"set_{name}"))


def test_the_accessors_read_what_the_oracle_holds() -> None:
    board = load_board("standard")
    rng = random.Random(5)
    for players, order in ((2, "known"), (4, "drawn")):
        rules = Rules(players=players, customer_order=order)
        B = L.pack(board, rules)
        game = OracleGame(board, rules, seed=players)
        t = len(rules.player_tokens)
        while not game.is_over:
            S = state_from_game(B, game)
            for p in range(players):
                assert F.score(B, S, p) == game.scores[p]
                assert F.stalls_left(B, S, p) == game.stalls_left[p]
                for k in range(t):
                    assert F.token_value(B, S, p, k) == game.tok_val[p * t + k]
                    assert F.token_up(B, S, p, k) == game.tok_up[p * t + k]
                for s in range(N_STATS):
                    assert F.stat(B, S, p, s) == game.stats[p * N_STATS + s]
                for lane in range(board.n_lanes):
                    assert F.lane_stalls(B, S, lane, p) == game.lane_stalls(lane, p)
            for lane in range(board.n_lanes):
                assert F.lane_count(B, S, lane) == game.lane_count[lane]
                assert F.lane_len(B, lane) == board.lane_len[lane]
                assert F.lane_end1(B, lane) == board.lane_ends[lane][1]
            for square in range(board.n_squares):
                assert F.square_customer(B, S, square) == game.square_customer[square]
            assert [F.spot_seat(B, S, i) for i in range(board.total_spots)] == game.spot_seat
            if game.is_chance:
                game.apply(game.sample_chance(rng))
            else:
                game.apply(rng.choice(game.legal_actions()))
        S = state_from_game(B, game)
        assert np.array_equal([F.score(B, S, p) for p in range(players)], game.scores)
