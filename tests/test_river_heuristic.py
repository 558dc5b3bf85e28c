"""River Market's heuristic: the greedy agent is the heuristic with the greedy weights (the
very games it played before the heuristic generalised its measure), every weight changes
play, the measure is what the documentation says, and bad specs and weight files are
refused in one line naming what is wrong."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from bad_input import cli_fails

from sim.river import tables as T
from sim.river import weight_sets
from sim.river.agents import GREEDY_WEIGHTS
from sim.river.agents import WEIGHTS
from sim.river.agents import worth
from sim.river.game import RiverGame
from sim.river.play import RES_ACTIONS
from sim.river.play import RiverAgentError
from sim.river.play import parse_agent
from sim.river.play import play
from sim.river.play import seat_agent
from sim.river.rules import RiverRules

GREEDY_EXPLICIT = "heuristic:good=0.3,coin=0.2,house=0,kinds=0,booth=0,helper=0,rival=0"


def tables(players: int = 3) -> T.Tables:
    return RiverGame.new(RiverRules(players=players)).tables


def rotated(focus: str, field: str, games: int, players: int = 3) -> list[list[str]]:
    """Game g: `focus` in seat g mod n, `field` in the others."""
    return [[focus if g % players == p else field for p in range(players)]
            for g in range(games)]


def test_greedy_is_the_heuristic_with_the_greedy_weights() -> None:
    """`greedy`, `heuristic:weights=greedy` and the heuristic with the greedy weights given
    one by one play the same games, and the games greedy played before the heuristic
    generalised its measure (their action counts pinned from that code)."""
    seeds = np.arange(700, 724, dtype=np.uint64)
    before = [268, 280, 279, 282, 279, 429, 308, 412, 272, 249, 289, 220, 320, 213, 203, 334,
              208, 227, 222, 399, 213, 211, 243, 325]
    t = tables()
    results = []
    for spec in ("greedy", "heuristic:weights=greedy", GREEDY_EXPLICIT):
        lineups = [[spec] * 3 if g % 2 == 0 else [spec, "random", "random"] for g in range(24)]
        results.append(play(t, seeds, lineups))
    assert list(results[0][:, RES_ACTIONS]) == before
    assert (results[0] == results[1]).all() and (results[0] == results[2]).all()
    assert parse_agent("greedy").weights == GREEDY_WEIGHTS


@pytest.mark.parametrize("weight", WEIGHTS)
def test_every_weight_changes_play(weight: str) -> None:
    """Each weight alone, over the greedy ones, plays other games than greedy: every term of
    the measure is read."""
    value = 0.2 if weight == "rival" else 0.7 if weight != "house" else -0.7
    spec = f"heuristic:weights=greedy,{weight}={value}"
    t = tables()
    seeds = np.arange(40, 52, dtype=np.uint64)
    greedy = play(t, seeds, rotated("greedy", "random", 12))
    other = play(t, seeds, rotated(spec, "random", 12))
    assert not (greedy == other).all(), weight


def test_the_measure_by_hand() -> None:
    """The heuristic's worth of a mid-game position (every seat has hired a Helper and built
    a Booth), worked out from the front's named parts: the score if the game ended now, plus
    each weight times what it weighs, less `rival` times the best other player's worth
    measured the same way."""
    w = np.array([0.5, 0.25, -0.4, 0.3, 1.5, 2.0, 0.35])
    g = RiverGame.new(RiverRules(players=3), seed=33)
    agents = [seat_agent("heuristic:weights=greedy,helper=2,booth=1", 33, p) for p in range(3)]
    while g.turn < 36:
        g.apply(agents[g.decider].choose(g))
    t = g.tables

    def cards(p: int, *kinds: str) -> int:
        return sum(g.owner(c) == p and t.designs[int(t.CARD[c])].kind in kinds
                   for c in range(t.n_cards))

    def own(p: int) -> float:
        held = g.resources(p)
        goods = [held[r] for r in ("veggie", "fish", "cloth", "tool", "lily")]
        return (sum(g.score_parts(p)) + 0.5 * sum(goods) + 0.25 * held["coin"]
                - 0.4 * g.houses(p) + 0.3 * sum(x > 0 for x in goods)
                + 1.5 * cards(p, "booth", "event") + 2.0 * cards(p, "helper"))

    assert all(cards(p, "helper") and cards(p, "booth", "event") for p in range(3))
    for p in range(3):
        expected = own(p) - 0.35 * max(own(q) for q in range(3) if q != p)
        assert worth(t.CD, t.CARD, t.R, g.S.copy(), p, w) == pytest.approx(expected)


@pytest.mark.parametrize(("spec", "message"), [
    ("heuristic:goodness=1", "heuristic:goodness=1: goodness: the heuristic has no parameter "
     "'goodness' (parameters: weights=SET, good, coin, house, kinds, booth, helper, rival)"),
    ("heuristic:good=x", "heuristic:good=x: good: must be a finite number, got 'x'"),
    ("heuristic:good=nan", "heuristic:good=nan: good: must be a finite number, got 'nan'"),
    ("heuristic:good", "heuristic:good: parameter 'good' must be key=value"),
    ("heuristic:weights=strongest", "weights: no River Market weight set named 'strongest' "
     "(named: greedy"),
    ("greedy:good=1", "'greedy:good=1': greedy takes no parameters (the heuristic takes "
     "weights)"),
    ("search:iterations=0", "'search:iterations=0': search takes one parameter"),
    ("mcts", "unknown River Market agent 'mcts' (agents: random, greedy, "
     "heuristic[:weights=SET,WEIGHT=X,...], search[:iterations=N])"),
])
def test_bad_specs_are_refused_naming_the_parameter(
        spec: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError) as exc:  # (the commands catch ValueError)
        parse_agent(spec)
    assert isinstance(exc.value, RiverAgentError | weight_sets.RiverWeightSetError)
    assert message in str(exc.value)
    line = cli_fails(capsys, ["play", "--game", "river-market", "--agents", spec], 1)
    assert line == f"portobello: error: --agents: {exc.value}", line


@pytest.mark.parametrize(("text", "field", "message"), [
    ("[weights]\ngood = 'much'\n", "weights.good", "must be a finite number, got 'much'"),
    ("[weights]\ngood = true\n", "weights.good", "must be a finite number, got True"),
    ("[weights]\nrival = inf\n", "weights.rival", "must be a finite number, got inf"),
    ("[weights]\nlane = 1.0\n", "weights.lane", "unknown weight (River Market's heuristic "
     "weighs good, coin, house, kinds, booth, helper, rival)"),
    ("name = 'x'\n", "weights", "no [weights] table"),
    ("game = 'portobello-market'\n[weights]\ngood = 1.0\n", "game",
     "a weight set for 'portobello-market', not River Market"),
    ("[weights\n", None, "not valid TOML"),
])
def test_bad_weight_files_are_refused_naming_file_and_field(
        text: str, field: str | None, message: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "w.toml"
    path.write_text(text)
    with pytest.raises(weight_sets.RiverWeightSetError) as exc:
        parse_agent(f"heuristic:weights={path}")
    where = f"{path}: {field}: " if field else f"{path}: "
    assert str(exc.value).startswith(where) and message in str(exc.value), str(exc.value)
    line = cli_fails(capsys, ["tournament", "--game", "river-market", "--agents",
                              f"greedy,heuristic:weights={path}", "--games", "3"], 1)
    assert line.startswith(f"portobello: error: --agents: {where}"), line


def test_a_missing_weight_file_and_a_partial_one(tmp_path: Path) -> None:
    """A file naming a missing path is refused; a file with some weights keeps the greedy
    values of the others."""
    with pytest.raises(weight_sets.RiverWeightSetError, match="no such weights file"):
        parse_agent(f"heuristic:weights={tmp_path / 'none.toml'}")
    path = tmp_path / "some.toml"
    path.write_text("[weights]\nhelper = 1.5\n")
    weights = dict(zip(WEIGHTS, parse_agent(f"heuristic:weights={path}").weights,
                       strict=True))
    assert weights == dict(zip(WEIGHTS, GREEDY_WEIGHTS, strict=True)) | {"helper": 1.5}
    over = parse_agent(f"heuristic:weights={path},helper=0.5,rival=0.1").weights
    assert over[WEIGHTS.index("helper")] == 0.5 and over[WEIGHTS.index("rival")] == 0.1
