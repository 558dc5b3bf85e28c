"""The greedy and heuristic agents seated at `Game` one decision at a time play the games the
compiled batches play, bit for bit, and every game is a game of the rules (the oracle replays
it, `tests/differential.py`).

The planner agents break ties (within 1e-9) with their generator and keep a queue of steps
between decisions, so a seat that kept another memory or drew from its generator once more
would soon play another game. Every game here is played twice, by
`sim.games.portobello.loop.play_game` and by `sim.games.portobello.agents.compiled.play`, and
the whole action log and the final scores must be identical: 2, 3 and 4 players, mixed
line-ups (heuristic, greedy, random), tuned weights, every restriction, the rules presets,
and hypothesis-drawn random boards with random rules.
"""

from __future__ import annotations

import pytest
from differential import engines_agree
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from strategies import boards
from strategies import rules_for

from sim.games.portobello.agents.compiled import params as PA
from sim.games.portobello.board import Board
from sim.games.portobello.board import board_from_dict
from sim.games.portobello.board import load_board
from sim.games.portobello.engines import compiled_row
from sim.games.portobello.engines import supports
from sim.games.portobello.rules import Rules
from sim.games.portobello.rules import preset
from sim.games.portobello.rules import rules_from_dict
from sim.run.loop import derive_seed

STANDARD = load_board("standard")


def compare(board: Board, rules: Rules, lineups: list[list[str]], seeds: list[int]) -> None:
    """Play every (seed, line-up) on both engines; the games must be identical."""
    engines_agree(board, rules, lineups, seeds)


def seeds_for(case: str, count: int) -> list[int]:
    return [derive_seed(case, i) for i in range(count)]


def rotations(specs: list[str], count: int) -> list[list[str]]:
    """`count` line-ups: the specs rotated one seat per game."""
    n = len(specs)
    return [specs[i % n:] + specs[:i % n] for i in range(count)]


# -- line-ups on the standard board ----------------------------------------------------------
LINEUPS = {
    "heuristic-2": ["heuristic", "heuristic"],
    "heuristic-3": ["heuristic", "heuristic", "heuristic"],
    "heuristic-4": ["heuristic", "heuristic", "heuristic", "heuristic"],
    "greedy-2": ["greedy", "greedy"],
    "greedy-3": ["greedy", "greedy", "greedy"],
    "mixed-3": ["heuristic", "greedy", "random"],
    "mixed-4": ["heuristic", "greedy", "random", "heuristic:tempo=1.0,rival=0.5"],
    "weights": ["heuristic:tempo=1.0,rival=0.5", "heuristic:min_gain=0.5,bobby=0.5,horizon=0",
                "heuristic:simulate=false"],
    "restricted-heuristic": ["no-district(heuristic)", "no-bobby(heuristic)",
                             "first-end(heuristic)", "no-customers(heuristic)"],
    "restricted-greedy": ["first-end(greedy)", "no-customers(greedy)", "no-district(greedy)",
                          "no-bobby(first-end(greedy))"],
}


@pytest.mark.parametrize("case", sorted(LINEUPS))
def test_lineups_on_the_standard_board(case: str) -> None:
    specs = LINEUPS[case]
    count = 24 if all(s.endswith("greedy") or "greedy)" in s for s in specs) else 10
    compare(STANDARD, Rules(players=len(specs)), rotations(specs, count),
            seeds_for(case, count))


@pytest.mark.parametrize("name", ["standard", "known-order", "spanish", "german",
                                  "negative-scores"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_rules_presets(name: str, players: int) -> None:
    specs = ["heuristic", "greedy", "no-district(heuristic)", "first-end(greedy)"][:players]
    compare(STANDARD, preset(name, players=players), rotations(specs, 4),
            seeds_for(f"preset-{name}-{players}", 4))


def test_rules_that_stress_the_planner() -> None:
    """Few stalls (the last-stall pricing from the first turn), other tokens and neutral
    stacks (plans of 5 actions, tokens that cannot score), no baron, a short game."""
    specs = ["heuristic", "greedy", "heuristic:simulate=false"]
    for i, changes in enumerate([
            {"stalls_per_player": 3},
            {"player_tokens": (1, 5), "district_tokens": (5,), "neutral_stack": ()},
            {"player_tokens": (1, 2, 3, 4), "district_tokens": (2, 3, 4)},
            {"baron": False, "customers": (("citizen", 6), ("aristocrat", 4))},
            {"max_rounds": 4, "start_score": 0},
    ]):
        rules = Rules(players=3, **changes)
        compare(STANDARD, rules, rotations(specs, 3), seeds_for(f"stress-{i}", 3))


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_boards_and_rules(data: st.DataObject) -> None:
    board_dict = data.draw(boards())
    board = board_from_dict(board_dict)
    rules = rules_from_dict(data.draw(rules_for(board_dict)))
    pool = ["heuristic", "greedy", "random", "no-bobby(heuristic)", "first-end(greedy)",
            "heuristic:simulate=false,bobby=0.5", "no-customers(heuristic)",
            "no-district(greedy)"]
    lineup = [data.draw(st.sampled_from(pool)) for _ in range(rules.players)]
    compare(board, rules, [lineup], [data.draw(st.integers(0, 2**63 - 1))])


def test_greedy_and_heuristic_have_compiled_rows() -> None:
    assert supports(["greedy", "heuristic", "no-district(heuristic:tempo=1)",
                     "first-end(no-bobby(greedy))", "heuristic:simulate=false"])
    row = compiled_row("heuristic:district=0.5,min_gain=0.25", 2)
    assert row is not None
    assert row.params[PA.W_DISTRICT] == 0.5 and row.params[PA.P_MIN_GAIN] == 0.25
