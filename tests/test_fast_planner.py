"""The compiled greedy and heuristic agents against the reference: the same games, bit for bit.

The planner agents break ties (within 1e-9) with their generator, so a compiled twin that
priced an option one ulp differently, listed options in another order or drew from the
generator once more would soon play another game. Every game here is played twice, by
`sim.run.loop.play_game` with the Python agents and by the compiled path (`sim.fast`), and the
whole action log and the final scores must be identical: 2, 3 and 4 players, mixed line-ups
(heuristic, greedy, random), tuned weights, every restriction, the rules presets, and
hypothesis-drawn random boards with random rules. The Python heuristic plays ~20 games a
second, so each case plays a handful of seeds.
"""

from __future__ import annotations

import numpy as np
import pytest
from differential import engines_agree
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from strategies import boards
from strategies import rules_for

from sim.agents.registry import make_agent
from sim.engine.actions import END as A_END
from sim.engine.board import Board
from sim.engine.board import board_from_dict
from sim.engine.board import load_board
from sim.engine.rules import Rules
from sim.engine.rules import preset
from sim.engine.rules import rules_from_dict
from sim.fast import evaluate as EV
from sim.fast import params as PA
from sim.fast import plan_bobby as PB
from sim.fast import plan_step as PS
from sim.fast import plan_work as PW
from sim.fast.layout import pack
from sim.run.engines import compiled_twin
from sim.run.engines import supports
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


# -- the pieces a search calls ---------------------------------------------------------------
def test_value_margins_and_options_match_the_reference() -> None:
    """`options` (every option of the seat to move, as sim.agents.mcts._options) and
    `value_margins` give the reference's values, in the reference's order, along a game."""
    from sim.agents.evaluate import Evaluator
    from sim.agents.evaluate import Weights
    from sim.agents.evaluate import compiled_params
    from sim.agents.mcts import _options
    from sim.agents.planning import Planner
    from sim.engine.codes import CHANCE
    from sim.engine.codes import SETUP
    from sim.engine.game import Game
    from sim.fast.convert import state_from_game

    rules = Rules(players=3)
    B = pack(STANDARD, rules)
    WF, WI = PW.new_work(B)
    rng = np.zeros(625, np.uint32)
    out = np.zeros(3)
    ev = Evaluator(STANDARD, rules, Weights())
    planners = [Planner(ev, simulate=True), Planner(ev, simulate=False, leave=False)]
    rows = [compiled_params(), compiled_params(simulate=False, leave=False)]
    free = np.zeros(4, np.int64)
    game = Game(STANDARD, rules, seed=derive_seed("options", 0))
    agents = [make_agent("heuristic", seed=p) for p in range(3)]
    checked = 0
    while not game.is_over:
        if game.phase == CHANCE:
            game.apply(game.sample_chance())
            continue
        if game.phase != SETUP:
            S = state_from_game(B, game)
            L0, L1 = PW.level(B, WF, WI, 0), PW.level(B, WF, WI, 1)
            for planner, row in zip(planners, rows, strict=True):
                want = _options(planner, game)
                k = PS.options(B, S, row, free, L0, L1, rng)
                got = [(float(L0[4][i]), _steps(B, L0, i)) for i in range(k)]
                assert got == [(o.value, o.steps) for o in want]
            EV.state(B, S, rows[0], L0[0], L0[1])
            EV.value_margins(B, L0[0], L0[1], out)
            assert out.tolist() == ev.value_margins(game)
            checked += 1
        game.apply(agents[game.seat].choose(game))
    assert checked > 100


@pytest.mark.parametrize("weights", [{}, {"bobby": 2.0}, {"bobby": 1.0, "rival": -0.5},
                                     {"bobby": 3.0, "rival": 0.0}])
def test_leave_option_matches_the_reference(weights: dict[str, float]) -> None:
    """`leave_option` (ending the turn after a last Bobby move) gives the reference's value
    and moves at every actions position of two games, with the paths found before it or by
    it. It skips districts that cannot beat the best so far and, with `rival` >= 0, skips
    the paths when nothing can be won where the Bobby stands: weights that make moves
    worth more (bobby 2 and 3), or a rival weight below 0 (moves can then raise the
    mover's margin), must not change the answer."""
    from sim.agents.evaluate import Evaluator
    from sim.agents.evaluate import Weights
    from sim.agents.evaluate import compiled_params
    from sim.agents.planning import Planner
    from sim.engine.codes import ACTIONS
    from sim.engine.codes import CHANCE
    from sim.engine.game import Game
    from sim.fast import plan_options as PO
    from sim.fast.convert import state_from_game

    rules = Rules(players=3)
    B = pack(STANDARD, rules)
    WF, WI = PW.new_work(B)
    free = np.zeros(4, np.int64)
    ev = Evaluator(STANDARD, rules, Weights(**weights))
    planner = Planner(ev)
    row = compiled_params(Weights(**weights))
    moved = stayed = 0
    for g in range(2):
        game = Game(STANDARD, rules, seed=derive_seed("leave", g))
        agents = [make_agent("heuristic", seed=p) for p in range(3)]
        while not game.is_over:
            if game.phase == CHANCE:
                game.apply(game.sample_chance())
                continue
            if game.phase == ACTIONS:
                want = planner.leave_option(game, ev.state(game), game.seat)
                S = state_from_game(B, game)
                for have_paths in (False, True):
                    L0 = PW.level(B, WF, WI, 0)
                    EV.state(B, S, row, L0[0], L0[1])
                    if have_paths:
                        PB.paths(B, S, row, free, game.seat, L0[2], L0[3])
                    value, d = PO.leave_option(B, S, row, free, game.seat, L0, have_paths)
                    buf = np.zeros(64, np.int64)
                    m = PB.path_moves(B, L0[3], d, buf, 0) if d >= 0 else 0
                    got = (*(int(a) for a in buf[:m]), int(A_END))
                    assert (value, got) == (want.value, want.steps)
                moved += want.value > 0
                stayed += want.value == 0
            game.apply(agents[game.seat].choose(game))
    assert moved > 5 and stayed > 5


def _steps(B: np.ndarray, L: PW.Level, i: int) -> tuple[int, ...]:
    buf = np.zeros(64, np.int64)
    m = PB.option_steps(B, L, i, buf)
    return tuple(int(a) for a in buf[:m])


def test_greedy_and_heuristic_have_compiled_twins() -> None:
    assert supports(["greedy", "heuristic", "no-district(heuristic:tempo=1)",
                     "first-end(no-bobby(greedy))", "heuristic:simulate=false"])
    row = compiled_twin("heuristic:district=0.5,min_gain=0.25", 2)
    assert row is not None
    assert row.params[PA.W_DISTRICT] == 0.5 and row.params[PA.P_MIN_GAIN] == 0.25
