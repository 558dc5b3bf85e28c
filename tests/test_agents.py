"""Agents: the registry and its errors, determinism, sound choices in constructed positions,
the ladder over a small seeded match, restrictions, and failures reported with the seed."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import Driver
from helpers import bag
from helpers import two_triangles_board

from sim.games.portobello import actions as A
from sim.games.portobello.actions import Action
from sim.games.portobello.agents.base import BaseAgent
from sim.games.portobello.agents.registry import AgentSpecError
from sim.games.portobello.agents.registry import make_agent
from sim.games.portobello.agents.registry import parse_spec
from sim.games.portobello.agents.registry import split_specs
from sim.games.portobello.agents.restricted import RestrictedAgent
from sim.games.portobello.board import load_board
from sim.games.portobello.game import Game
from sim.games.portobello.loop import play_game
from sim.games.portobello.rules import Rules
from sim.run.loop import AgentError
from sim.run.loop import derive_seed

BOARD = load_board("standard")
SPECS = ["random", "greedy", "heuristic", "mcts:iterations=3", "no-district(heuristic)",
         "first-end(no-bobby(greedy))"]


def play(specs: list[str], seed: int, rules: Rules | None = None,
         events: bool = False) -> Game:
    rules = rules or Rules(players=len(specs))
    agents = [make_agent(s, seed=i) for i, s in enumerate(specs)]
    game, _ = play_game(BOARD, rules, agents, seed, record_events=events)
    return game


# -- registry ------------------------------------------------------------------------------
def test_every_agent_is_made_from_its_spec_with_parameters() -> None:
    agent = make_agent("heuristic:district=0.5,tempo=2")
    w = agent.weights_for(3)  # type: ignore[attr-defined]
    assert w.district == 0.5 and w.tempo == 2.0
    mcts = make_agent("mcts:iterations=400,c=1.2")
    assert mcts.iterations == 400 and mcts.c == 1.2  # type: ignore[attr-defined]
    assert make_agent("greedy").spec == "greedy"


def test_unknown_agent_lists_agents_and_wrappers() -> None:
    with pytest.raises(AgentSpecError) as err:
        make_agent("grandmaster")
    text = str(err.value)
    for name in ("random", "greedy", "heuristic", "mcts", "no-district(AGENT)",
                 "first-end(AGENT)"):
        assert name in text


def test_unknown_parameter_lists_the_agents_parameters() -> None:
    with pytest.raises(AgentSpecError) as err:
        make_agent("heuristic:cleverness=3")
    text = str(err.value)
    assert "cleverness" in text and "district=" in text and "tempo=" in text
    with pytest.raises(AgentSpecError, match="iterations=200"):
        make_agent("mcts:iters=5")
    with pytest.raises(AgentSpecError, match="must be a int"):
        make_agent("mcts:iterations=lots")


def test_restricted_specs_nest_and_bad_ones_say_why() -> None:
    assert parse_spec("no-district(heuristic:district=0.8)") == (
        "no-district", {"agent": "heuristic:district=0.8"})
    agent = make_agent("no-bobby(no-district(heuristic:district=0.8))")
    assert agent.restrict.bobby and agent.restrict.district
    assert agent.spec == "no-bobby(no-district(heuristic:district=0.8))"
    with pytest.raises(AgentSpecError, match=r"unknown restriction 'no-fun'.*no-customers"):
        make_agent("no-fun(heuristic)")
    with pytest.raises(AgentSpecError, match="unknown agent 'hero'"):
        make_agent("no-district(hero)")
    with pytest.raises(AgentSpecError, match="no parameter 'x'"):
        make_agent("no-district(heuristic:x=1)")
    with pytest.raises(AgentSpecError, match="needs an agent inside"):
        make_agent("no-district()")
    with pytest.raises(AgentSpecError, match="malformed"):
        make_agent("no-district(heuristic")
    assert split_specs("no-district(heuristic:district=0.8,tempo=1),greedy") == [
        "no-district(heuristic:district=0.8,tempo=1)", "greedy"]


# -- determinism ---------------------------------------------------------------------------
@pytest.mark.parametrize("spec", SPECS)
def test_same_seed_same_game_whatever_was_played_before(spec: str) -> None:
    specs = [spec, "random"]
    first = play(specs, seed=5)
    again = play(specs, seed=5)
    assert first.log == again.log and first.scores == again.scores
    # The same agent objects reused after another game replay the game exactly.
    agents = [make_agent(s, seed=i) for i, s in enumerate(specs)]
    play_game(BOARD, Rules(), agents, 99)
    reused, _ = play_game(BOARD, Rules(), agents, 5)
    assert reused.log == first.log


def test_different_seeds_give_different_games() -> None:
    assert play(["heuristic", "heuristic"], 1).log != play(["heuristic", "heuristic"], 2).log


def test_mcts_known_order_is_deterministic_and_legal() -> None:
    rules = Rules(players=2, customer_order="known")
    a = play(["mcts:iterations=5", "greedy"], 3, rules)
    b = play(["mcts:iterations=5", "greedy"], 3, rules)
    assert a.log == b.log and a.is_over


# -- choices in constructed positions ------------------------------------------------------
def lane_completion_position() -> tuple[Driver, Action]:
    """Red has 2 of the 3 stalls of lane AB (ends A citizen, B aristocrat) and 3 actions:
    the third stall scores AB at once for (1 + 2 + 3) x 2 = 12."""
    d = Driver(two_triangles_board(), Rules(customers=bag(2, 1)), bobby="D1")
    d.token(4)
    d.stall("AB", "A")
    d.stall("AB")
    d.customer("citizen", "A")
    d.customer("aristocrat", "B")
    d.end()
    d.pass_turn(2)  # Yellow
    d.token(3)  # Red again, 3 actions
    return d, d.stall_action("AB", "A")


@pytest.mark.parametrize("spec", ["greedy", "heuristic"])
def test_agents_take_an_available_lane_completion(spec: str) -> None:
    d, completing = lane_completion_position()
    agent = make_agent(spec, seed=1)
    assert agent.choose(d.game) == completing
    before = d.scores[0]
    d.game.play(completing)
    assert d.scores[0] == before + 12


@pytest.mark.parametrize("spec", ["mcts:iterations=300", "mcts:iterations=300,weights=classic"])
def test_mcts_with_enough_search_takes_the_completion_this_turn(spec: str) -> None:
    """The completion cannot be taken away within Red's turn, so a search may place another
    stall first (the tuned weights do); what it must not do is end the turn without the 12."""
    d, completing = lane_completion_position()
    agent = make_agent(spec, seed=1)
    game, turn, before = d.game, d.game.turn, d.scores[0]
    taken = []
    while game.turn == turn and not game.is_over:
        action = agent.choose(game)
        taken.append(action)
        game.play(action)
    assert completing in taken and game.scores[0] - before >= 12


def test_greedy_pays_for_the_bobby_only_when_it_scores() -> None:
    """The completing stall is across lane BC (empty: moving costs 1), in D2's lane BD.
    Greedy moves (the path is part of the option) because 1 < the lane's points."""
    d = Driver(two_triangles_board(), Rules(customers=bag(1, 2)), bobby="D2")
    d.token(4)
    d.stall("BD", "B")
    d.stall("BD")
    d.customer("aristocrat", "B")
    d.customer("aristocrat", "D")
    d.move("D1")  # costs Red 1 point: BC is empty
    d.end()
    d.pass_turn(2)
    d.token(3)
    agent = make_agent("greedy", seed=0)
    assert agent.choose(d.game) == A.move_bobby(d.district("D2"))
    d.game.play(A.move_bobby(d.district("D2")))
    assert agent.choose(d.game) == d.stall_action("BD", "B")


def test_evaluator_deltas_match_a_copy_and_apply() -> None:
    """The evaluator's stall delta equals the change seen by applying the stall on a copy:
    exactly for points (the greedy evaluation), and for the full evaluation in margin (the
    turns-left estimate that a stall shortens moves every seat's token term alike, which
    the delta leaves out)."""
    from sim.games.portobello.agents.compiled import eval_deltas as ED
    from sim.games.portobello.agents.compiled import evaluate as EV
    from sim.games.portobello.agents.compiled import plan_work as PW
    from sim.games.portobello.agents.evaluate import compiled_params

    d, completing = lane_completion_position()
    g = d.game
    lane, end = A.stall_lane(completing), A.stall_end(completing)
    after = g.copy()
    after.apply(completing)
    B = g.B
    WF, WI = PW.new_work(B)
    ef, ei = PW.level(B, WF, WI, 0)[:2]
    delta = np.zeros(g.n)
    points = compiled_params(immediate=True)
    EV.state(B, g.S, points, ef, ei)
    ED.stall_delta(B, g.S, points, ef, ei, 0, lane, end, delta)
    assert [a - b for a, b in zip(after.scores, g.scores, strict=True)] == delta.tolist()
    full = compiled_params()  # rival weight 1: a seat's margin is its value minus the other's
    EV.state(B, g.S, full, ef, ei)
    ED.stall_delta(B, g.S, full, ef, ei, 0, lane, end, delta)
    before_margins, after_margins = np.zeros(2), np.zeros(2)
    EV.value_margins(B, ef, ei, before_margins)
    EV.state(B, after.S, full, ef, ei)
    EV.value_margins(B, ef, ei, after_margins)
    for p in range(2):
        assert delta[p] - delta[1 - p] == pytest.approx(
            after_margins[p] - before_margins[p], abs=1e-9)


# -- the ladder on a small seeded match ----------------------------------------------------
def head_to_head(a: str, b: str, games: int, seed: int = 0) -> tuple[float, int]:
    """a's win share and total margin over `games` 2-player games, seats alternating."""
    share, margin = 0.0, 0
    for i in range(games):
        seat = i % 2
        specs = [b, b]
        specs[seat] = a
        game = play(specs, derive_seed(seed, i // 2))
        winners = game.winners()
        share += 1 / len(winners) if seat in winners else 0.0
        margin += game.scores[seat] - game.scores[1 - seat]
    return share / games, margin


def test_heuristic_beats_random_and_greedy_clearly() -> None:
    share, margin = head_to_head("heuristic", "random", 6)
    assert share == 1.0 and margin > 6 * 50
    share, margin = head_to_head("heuristic", "greedy", 6)
    assert share >= 5 / 6 and margin > 6 * 30


def test_mcts_beats_greedy_even_with_a_tiny_budget() -> None:
    share, margin = head_to_head("mcts:iterations=12", "greedy", 2, seed=3)
    assert share == 1.0 and margin > 2 * 30


def test_greedy_beats_random() -> None:
    share, margin = head_to_head("greedy", "random", 12)
    assert share >= 8 / 12 and margin > 12 * 15


# -- restricted play -----------------------------------------------------------------------
def seat_events(game: Game, seat: int, kind: str) -> list[dict[str, object]]:
    return [e for e in game.events or [] if e["type"] == kind and e.get("seat") == seat]


@pytest.mark.parametrize("inner", ["random", "greedy", "heuristic", "mcts:iterations=4"])
def test_restricted_agents_never_use_the_forbidden_feature(inner: str) -> None:
    for seed in (1, 2):
        g = play([f"no-district({inner})", f"no-customers({inner})"], seed, events=True)
        assert not seat_events(g, 0, "score_district")
        assert not seat_events(g, 1, "place_customer")
        g = play([f"no-bobby({inner})", f"first-end({inner})"], seed, events=True)
        assert not seat_events(g, 0, "move_bobby")
        seen: set[object] = set()
        for e in g.events or []:
            if e["type"] == "place_stall":
                if e["lane"] not in seen and e["seat"] == 1:
                    assert e["spot"] == 0, e  # started from the first listed end
                seen.add(e["lane"])


def test_restriction_changes_play() -> None:
    free = play(["heuristic", "heuristic"], 4, events=True)
    assert seat_events(free, 0, "score_district")  # the free agent does score districts


class Stubborn(BaseAgent):
    """Scores a district whenever it can, restriction or not (a buggy agent)."""

    name = "stubborn"

    def choose(self, game: Game) -> Action:
        legal = game.legal_actions()
        scoring = [a for a in legal if A.kind(a) == A.SCORE_DISTRICT]
        return scoring[0] if scoring else legal[0]


def test_a_wrapper_catches_an_agent_that_ignores_its_restriction() -> None:
    agents = [RestrictedAgent(Stubborn(), "no-district"), make_agent("random")]
    with pytest.raises(AgentError, match=r"game seed 12: raised RestrictionError: "
                                         r"no-district forbids score_district"):
        play_game(BOARD, Rules(), agents, 12)


# -- failures name the game ----------------------------------------------------------------
class Crashing(BaseAgent):
    name = "crashing"

    def choose(self, game: Game) -> Action:
        if game.round >= 3:
            raise ZeroDivisionError("boom")
        return game.legal_actions()[-1]


class Cheating(BaseAgent):
    name = "cheating"

    def choose(self, game: Game) -> Action:
        return A.score_district(3, 0)  # a 3 never scores a district


def test_an_agent_that_raises_is_reported_with_seed_and_state() -> None:
    with pytest.raises(AgentError) as err:
        play_game(BOARD, Rules(), [make_agent("greedy"), Crashing()], 31)
    e = err.value
    assert e.seed == 31 and e.seat == 1 and e.agent == "crashing"
    assert "raised ZeroDivisionError: boom" in str(e)
    assert "round 3" in e.state and "scores" in e.state


def test_an_illegal_action_is_reported_with_seed_and_state() -> None:
    with pytest.raises(AgentError) as err:
        play_game(BOARD, Rules(), [make_agent("random"), Cheating()], 8)
    text = str(err.value)
    assert "game seed 8" in text and "illegal action score_district(value=3" in text
    assert "phase turn_start" in text


def test_bad_parameter_values_are_spec_errors() -> None:
    with pytest.raises(AgentSpecError, match="returns must be one of margin, rank"):
        make_agent("mcts:returns=best")
    with pytest.raises(AgentSpecError, match="needs a budget"):
        make_agent("mcts:iterations=0")


def test_the_compiled_parameter_row_reads_every_weight_by_name() -> None:
    """The compiled evaluator's weights are the fields of `Weights`, in their order: a weight
    added to one and not the other would be silently ignored or misread."""
    from dataclasses import fields

    from sim.games.portobello.agents.compiled.params import WEIGHT_NAMES
    from sim.games.portobello.agents.evaluate import Weights

    assert tuple(f.name for f in fields(Weights)) == WEIGHT_NAMES
