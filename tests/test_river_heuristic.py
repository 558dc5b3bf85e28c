"""River Market's heuristic: the greedy agent is the heuristic with the greedy weights (the
very games it played before the heuristic generalised its measure), every weight changes
play, the measure is what the documentation says, the tuned set beats the greedy agent,
bad specs and weight files are refused in one line naming what is wrong, and
`portobello agents tune --game river-market` tunes it end to end."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from bad_input import cli_fails

from sim.cli.command import main
from sim.games.river import tables as T
from sim.games.river import weight_sets
from sim.games.river.agents import GREEDY_WEIGHTS
from sim.games.river.agents import WEIGHTS
from sim.games.river.agents import worth
from sim.games.river.game import RiverGame
from sim.games.river.play import RES_ACTIONS
from sim.games.river.play import RES_SCORES
from sim.games.river.play import RiverAgentError
from sim.games.river.play import parse_agent
from sim.games.river.play import play
from sim.games.river.play import seat_agent
from sim.games.river.rules import RiverRules
from sim.games.river.tuning import BOUNDS as RIVER_BOUNDS
from sim.games.river.tuning import weights_spec as river_spec_of
from sim.run.ratings import wilson_interval

GREEDY_EXPLICIT = "heuristic:good=0.3,coin=0.2,house=0,kinds=0,booth=0,helper=0,rival=0"


def tables(players: int = 3) -> T.Tables:
    return RiverGame.new(RiverRules(players=players)).tables


def rotated(focus: str, field: str, games: int, players: int = 3) -> list[list[str]]:
    """Game g: `focus` in seat g mod n, `field` in the others."""
    return [[focus if g % players == p else field for p in range(players)]
            for g in range(games)]


def focus_share(scores: np.ndarray, players: int = 3) -> float:
    """The summed win share (ties shared) of game g's seat g mod n."""
    share = 0.0
    for g, row in enumerate(scores):
        best = row == row.max()
        share += best[g % players] / best.sum()
    return share


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


def test_the_tuned_heuristic_beats_the_greedy_agent() -> None:
    """`heuristic` (the shipped tuned set) against two greedy agents at 3 players, its seat
    rotated, 1,500 games on fixed seeds: the whole 95% interval of its win share lies
    above a third."""
    n = 1500
    scores = play(tables(), np.arange(90_000, 90_000 + n, dtype=np.uint64),
                  rotated("heuristic", "greedy", n))[:, RES_SCORES:]
    lo, hi = wilson_interval(focus_share(scores), n)
    assert lo > 1 / 3, (lo, hi)


def test_the_tuners_space_is_the_heuristics() -> None:
    """The tuner's River Market space weighs exactly the heuristic's weights, holds the
    greedy ones, and its spec of a point plays that point whatever the default set."""
    assert tuple(RIVER_BOUNDS) == WEIGHTS
    for k, v in zip(WEIGHTS, GREEDY_WEIGHTS, strict=True):
        assert RIVER_BOUNDS[k][0] <= v <= RIVER_BOUNDS[k][1]
    point = {"good": 0.5, "coin": 0.25, "house": -0.5, "kinds": 0.125, "booth": 1.0,
             "helper": 2.0, "rival": 0.25}
    assert parse_agent(river_spec_of(point)).weights == tuple(point.values())


def test_the_shipped_sets() -> None:
    """`heuristic` plays the shipped tuned set; every shipped set lies in the tuner's
    ranges."""
    assert weight_sets.names() == ("greedy", "tuned-3p") and weight_sets.DEFAULT == "tuned-3p"
    for name in weight_sets.names():
        values = weight_sets.resolve(name)
        for k, v in zip(WEIGHTS, values, strict=True):
            lo, hi = RIVER_BOUNDS[k]
            assert lo <= v <= hi, (name, k, v)
    assert parse_agent("heuristic") == parse_agent("heuristic:weights=tuned-3p")
    assert parse_agent("heuristic").weights != GREEDY_WEIGHTS


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


def test_tuning_river_market_end_to_end(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """`agents tune --game river-market`: a tiny tuning from the greedy weights writes a
    River Market weight set whose weights are the ones its evaluation chose, which plays as
    `heuristic:weights=FILE` the games of the explicit spec; run again it resumes (nothing
    replayed), with one more generation it extends; a guard or a board is refused."""
    out = tmp_path / "t"

    def tune(generations: int = 2, *flags: str) -> list[str]:
        return ["agents", "tune", "--game", "river-market", "--players", "3", "--population",
                "3", "--blocks", "2", "--final-blocks", "3", "--seed", "4", "--quiet",
                "--generations", str(generations), *(flags or ("--out", str(out)))]

    assert main(tune()) == 0
    text = capsys.readouterr().out
    assert "River Market heuristic weights for 3 players, starting from greedy" in text
    log = json.loads((out / "tune.json").read_text())
    assert log["identity"]["game"] == "river-market"
    assert log["identity"]["start"] == dict(zip(WEIGHTS, GREEDY_WEIGHTS, strict=True))
    assert [len(g["panel"]) for g in log["generations"]] == [1, 2]
    final = log["final"]
    chosen = final["finalists"][final["chosen"]]
    assert chosen["games"] == 3 * 3 and math.isclose(final["parity"], 0.3333)
    file = out / "weights.toml"
    assert 'game = "river-market"' in file.read_text()
    values = weight_sets.read_weight_set(file)
    assert dict(zip(WEIGHTS, values, strict=True)) == chosen["weights"]
    seeds = np.arange(5, 11, dtype=np.uint64)
    from_file = play(tables(), seeds, rotated(f"heuristic:weights={file}", "greedy", 6))
    explicit = play(tables(), seeds, rotated(river_spec_of(chosen["weights"]), "greedy", 6))
    assert (from_file == explicit).all()
    before = file.read_text()
    assert main(tune()) == 0 and file.read_text() == before
    assert len(json.loads((out / "tune.json").read_text())["generations"]) == 2
    assert main(tune(3)) == 0
    assert len(json.loads((out / "tune.json").read_text())["generations"]) == 3
    capsys.readouterr()
    line = cli_fails(capsys, tune(2, "--guard", "no-bobby", "--out", str(tmp_path / "g")), 1)
    assert "guard: River Market's agents have no restricted versions" in line, line
    line = cli_fails(capsys, tune(2, "--board", "other", "--out", str(tmp_path / "b")), 1)
    assert "--board: River Market has no board" in line, line
