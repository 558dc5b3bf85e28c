"""The compiled engine's batches against games played decision by decision through `Game`,
and both against the oracle: the same seeds must give the same games.

Every game is played twice (`differential.engines_agree`): one decision at a time through
`Game` (`sim.games.portobello.engines.StepEngine`) and in a compiled batch (`CompiledEngine`), and
everything a run keeps must agree: the whole action log (so the game records are
identical), scores, per-seat statistics, stalls left, end reason, rounds, turns, where the
baron went and the decision count. Each game is then replayed on the oracle (`tests/oracle`),
its whole state compared after every action. Covered: every rules switch in both readings
on the standard board, hypothesis-drawn random valid boards with random rules, and the
random agent with its parameters and every restriction; besides, games in one batch kept
apart, records rebuilt from compiled logs, logs that outgrow their first room, the engine's
arrays driven directly against `Game` state by state, and the random-only batch.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from differential import engines_agree
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from oracle.variants import MORE_VARIANTS
from oracle.variants import VARIANTS
from strategies import boards
from strategies import rules_for

from sim.games.portobello.agents.registry import make_agent
from sim.games.portobello.board import Board
from sim.games.portobello.board import board_from_dict
from sim.games.portobello.board import load_board
from sim.games.portobello.engines import CompiledEngine
from sim.games.portobello.engines import compiled_row
from sim.games.portobello.engines import supports
from sim.games.portobello.game import Game
from sim.games.portobello.loop import play_game
from sim.games.portobello.records import record_from_game
from sim.games.portobello.rules import RULE_KEYS
from sim.games.portobello.rules import Rules
from sim.games.portobello.rules import rules_from_dict
from sim.run.loop import derive_seed

STANDARD = load_board("standard")
RANDOM_SPECS = ["random", "random:move_chance=0.7,max_moves=4", "no-bobby(random)",
                "first-end(random)", "no-district(random)", "no-customers(random)",
                "no-bobby(first-end(random))"]

def both_paths(board: Board, rules: Rules, specs: list[str], seed: int) -> None:
    """Play one game on both engines and require the same game in every kept detail."""
    engines_agree(board, rules, [specs], [seed])


def test_every_switch_has_a_variant() -> None:
    """Guard: a new rules switch must join the differential test."""
    assert set(VARIANTS) - {"defaults"} == set(RULE_KEYS)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_random_agents_on_the_standard_board(variant: str) -> None:
    rules = Rules(**VARIANTS[variant])
    for i in range(12):
        seed = derive_seed("fast-engine", variant, i)
        specs = [RANDOM_SPECS[(i + p) % len(RANDOM_SPECS)] for p in range(rules.players)]
        both_paths(STANDARD, rules, specs, seed)


@pytest.mark.parametrize("variant", sorted(MORE_VARIANTS))
def test_random_agents_on_more_readings(variant: str) -> None:
    """Both paths play the same games, and the oracle's, for `start_scores` and
    `bobby_placer = "next"` too."""
    rules = Rules(**MORE_VARIANTS[variant])
    for i in range(12):
        seed = derive_seed("fast-engine", variant, i)
        specs = [RANDOM_SPECS[(i + p) % len(RANDOM_SPECS)] for p in range(rules.players)]
        both_paths(STANDARD, rules, specs, seed)


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_agents_on_random_boards(data: st.DataObject) -> None:
    board_dict = data.draw(boards())
    board = board_from_dict(board_dict)
    rules = rules_from_dict(data.draw(rules_for(board_dict)))
    specs = [data.draw(st.sampled_from(RANDOM_SPECS)) for _ in range(rules.players)]
    both_paths(board, rules, specs, data.draw(st.integers(0, 2**63 - 1)))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_many_games_in_one_batch_match_one_by_one(players: int) -> None:
    """A batch reuses its generators, memory and buffers: games must not leak into each
    other. Games anywhere in a batch of 41 play as they do alone."""
    rules = Rules(players=players)
    specs = ["random", "no-bobby(random)", "first-end(random)", "random"][:players]
    seeds = [derive_seed("batch", i) for i in range(41)]
    lineups = [specs[i % players:] + specs[:i % players] for i in range(41)]
    fast = CompiledEngine(STANDARD, rules, specs)
    whole = fast.play(seeds, lineups, keep_log=True)
    for i in (0, 1, 2, 3, 17, 39, 40):
        one = fast.play([seeds[i]], [lineups[i]], keep_log=True)
        assert one.logs is not None and whole.logs is not None
        assert one.logs[0] == whole.logs[i]
        assert np.array_equal(one.scores[0], whole.scores[i])


def test_records_from_compiled_logs_are_the_step_by_step_records() -> None:
    """A record is written from a game rebuilt from the compiled log: the same JSON."""
    rules = Rules(players=2, customer_order="known")
    specs = ["random", "random"]
    seed = derive_seed("records", 1)
    game, _ = play_game(STANDARD, rules, [make_agent(s) for s in specs], seed)
    res = CompiledEngine(STANDARD, rules, specs).play([seed], [specs], keep_log=True)
    assert res.logs is not None
    rebuilt = Game(STANDARD, rules, seed=seed)
    for action in res.logs[0]:
        rebuilt.play(action)  # validating: `play` checks every compiled action is legal
    assert json.dumps(record_from_game(rebuilt, "standard", specs)) == \
        json.dumps(record_from_game(game, "standard", specs))


def test_long_games_outgrow_the_first_log_and_are_replayed() -> None:
    """A game longer than the first log room is replayed with more room, not cut short."""
    import sim.games.portobello.engines as batch

    rules = Rules(players=2)
    seed = derive_seed("long", 0)
    game, _ = play_game(STANDARD, rules, [make_agent("random"), make_agent("random")], seed)
    old = batch.LOG_START
    batch.LOG_START = 16
    try:
        res = CompiledEngine(STANDARD, rules, ["random"]).play([seed], [["random", "random"]],
                                                          keep_log=True)
    finally:
        batch.LOG_START = old
    assert res.logs is not None and res.logs[0] == game.log and len(game.log) > 16 * 4


def test_which_agents_have_a_compiled_row() -> None:
    assert supports(["random", "no-bobby(random)", "random:move_chance=0.1"])
    assert not supports(["mcts"])
    assert compiled_row("no-such-agent", 2) is None


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_state_by_state_on_random_boards(data: st.DataObject) -> None:
    """Step by step, the compiled engine driven on an array of its own lists the same legal
    actions in the same order as a `Game`, and after each action its state equals the
    `Game`'s position read back field by field (`oracle.convert.state_from_game`: every
    field, every table)."""
    from oracle.convert import state_from_game

    from sim.games.portobello.compiled.engine import apply
    from sim.games.portobello.compiled.engine import legal_actions
    from sim.games.portobello.compiled.layout import LOG_LEN
    from sim.games.portobello.compiled.layout import LOG_OVERFLOW
    from sim.games.portobello.compiled.layout import pack

    board_dict = data.draw(boards())
    board = board_from_dict(board_dict)
    rules = rules_from_dict(data.draw(rules_for(board_dict)))
    game = Game(board, rules, seed=data.draw(st.integers(0, 2**32)))
    B = pack(board, rules)
    S = state_from_game(B, game)
    buf = np.zeros(1024, np.int64)
    no_log = np.zeros(0, np.int64)
    pick = data.draw(st.randoms(use_true_random=False))
    while not game.is_over:
        legal = game.legal_actions()
        m = legal_actions(B, S, buf)
        assert buf[:m].tolist() == legal
        action = game.sample_chance() if game.is_chance else pick.choice(legal)
        game.apply(action)
        apply(B, S, action, no_log)
        now = state_from_game(B, game)
        S[LOG_LEN] = S[LOG_OVERFLOW] = 0
        assert np.array_equal(S, now)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("tie", ["pay_co_leaders", "pay_bank"])
def test_no_bobby_move_costs_more_than_players_minus_one(players: int, tie: str) -> None:
    """The compiled legal actions skip the move costs for a seat with at least
    max(1, players - 1) points; that holds only if no move costs more. By the rules
    (docs/rules.md): an empty lane costs 1, leading alone 0, co-leading 1 to the bank or 1
    to each other co-leader (at most players - 1), and trailing 1 to each leader (at most
    players - 1, the mover not among them). Every count vector of one lane, 0 to 3 stalls
    a seat, every mover, in the engine's own `move_cost`."""
    import itertools

    game = Game(load_board("standard"), Rules(players=players, bobby_tie=tie))
    worst = 0
    for counts in itertools.product(range(4), repeat=players):
        seats = game.lane_seat
        seats[:players] = counts
        game.lane_seat = seats
        for mover in range(players):
            worst = max(worst, game.move_cost(0, mover)[0])
    assert worst == max(1, players - 1)  # the bound, and reached



@pytest.mark.parametrize("variant", ["defaults", "neutral_stack", "player_tokens",
                                     "district_tokens", "customer_order"])
def test_turn_start_counts_and_picks_are_the_legal_lists(variant: str) -> None:
    """The random agent chooses at a turn's start from the engine's counts of token plays
    and district scorings and names the one drawn (`turn_start_counts`,
    `turn_start_action`): at every turn start of random games, under switches that change
    the tokens (the neutral stack) or not, the counts are those of the legal list's two
    kinds and the j-th named of each kind is the list's j-th, in its order."""
    from sim.games.portobello.codes import PLAY_TOKEN
    from sim.games.portobello.codes import SCORE_DISTRICT
    from sim.games.portobello.codes import TURN_START
    from sim.games.portobello.compiled import actions as A
    from sim.games.portobello.compiled.engine import turn_start_action
    from sim.games.portobello.compiled.engine import turn_start_counts

    seen = 0
    for players in (2, 3, 4):
        rules = rules_from_dict({**VARIANTS[variant], "players": players})
        for seed in range(4):
            game = Game(STANDARD, rules, seed=seed)
            agent = make_agent("random", seed)
            while not game.is_over:
                if game.phase == TURN_START:
                    legal = game.legal_actions()
                    plays = [a for a in legal if A.kind(a) == PLAY_TOKEN]
                    scorings = [a for a in legal if A.kind(a) == SCORE_DISTRICT]
                    assert turn_start_counts(game.B, game.S) == (len(plays), len(scorings))
                    for scoring, listed in ((False, plays), (True, scorings)):
                        named = [turn_start_action(game.B, game.S, scoring, np.int64(j))
                                 for j in range(len(listed))]
                        assert named == listed
                    seen += 1
                game.apply(game.sample_chance() if game.is_chance else agent.choose(game))
    assert seen > 200
@pytest.mark.parametrize("players", [2, 4])
def test_the_random_only_batch_plays_the_games_of_the_full_batch(players: int) -> None:
    """Random agents alone enter `play_batch_random`, compiled without the planner; the
    batch with the planner in it plays the same line-ups to the same results and records."""
    from sim.games.portobello.agents.compiled import play as FP

    rules = Rules(players=players, customer_order="known")
    specs = ["random", "no-bobby(random)", "first-end(random)", "random"][:players]
    fast = CompiledEngine(STANDARD, rules, specs)
    assert fast.entry is FP.play_batch_random
    seeds = [derive_seed("random-only", i) for i in range(60)]
    lineups = [specs[i % players:] + specs[:i % players] for i in range(60)]
    game_seeds, per_seat, seat_agent = fast.prepare(seeds, lineups)
    args = (fast.B, game_seeds, per_seat, seat_agent, fast.kinds, fast.params, fast.restrict,
            2048)
    alone, with_planner = FP.play_batch_random(*args), FP.play_batch(*args)
    assert np.array_equal(alone[0], with_planner[0]) and np.array_equal(alone[1],
                                                                        with_planner[1])
    assert CompiledEngine(STANDARD, rules, ["greedy", *specs[1:]]).entry is FP.play_batch
