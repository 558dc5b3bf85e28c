"""The learned agent's training pipeline, small: the search labels its options, a fit lowers
the loss, a stopped training resumes to the same model bytes, bad specs are refused by
field, and the trained model plays whole legal games as the `expert` agent (refused at a
table it was not trained for)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sim.games.portobello.board import load_board
from sim.games.portobello.rules import Rules
from sim.learning import train as T
from sim.learning.fit import fit
from sim.learning.spec import TrainingError
from sim.learning.spec import spec_from_dict
from sim.learning.teacher import teach

SPEC = {"name": "tiny", "players": 2, "teacher": "fastmcts:iterations=6,width=4",
        "seed": 3, "rounds": 2, "games": 4, "hidden": [8], "epochs": 5, "fits": 2,
        "mix": 0.5, "eval_games": 4, "presets": ["standard", "known-order"]}


def test_the_teachers_rows() -> None:
    """Every searched decision gives one row per root option (at most the width, 4), one of
    them chosen (the most visited), visits summing to the search's budget at most."""
    rows = teach(load_board("standard"), Rules(players=2), "fastmcts:iterations=6,width=4",
                 [11])
    assert len(rows) and rows.X.shape[0] == len(rows)
    for d in np.unique(rows.decision):
        mine = rows.decision == d
        assert 1 <= mine.sum() <= 4 and rows.chosen[mine].sum() == 1
        assert rows.visits[mine].sum() <= 6 + 4  # the budget, plus visits a kept tree held
        assert rows.visits[mine][rows.chosen[mine] == 1][0] == rows.visits[mine].max()
    assert ((rows.outcome > 0) & (rows.outcome < 1)).all()


def test_fitting_longer_lowers_the_loss() -> None:
    rows = teach(load_board("standard"), Rules(players=2), "fastmcts:iterations=6,width=4",
                 [12, 13])
    _, short = fit(rows, (8,), 1, 1, 0.5)
    _, longer = fit(rows, (8,), 1, 40, 0.5)
    assert longer < short


def test_the_model_is_the_mean_of_its_fits() -> None:
    """`fits=3` averages three networks fitted with seeds 5, 6 and 7: its outputs are the
    mean of theirs, fitted one by one."""
    from sim.learning.fit import targets

    rows = teach(load_board("standard"), Rules(players=2), "fastmcts:iterations=6,width=4",
                 [14])
    model, _ = fit(rows, (8,), 5, 3, 0.5, fits=3)
    keep, _, weights = targets(rows, 0.5)
    assert (weights == 1).all() and keep.sum() == (rows.visits > 0).sum()
    alone = [fit(rows, (8,), s, 3, 0.5)[0].predict(rows.X) for s in (5, 6, 7)]
    assert np.allclose(model.predict(rows.X), np.mean(alone, axis=0), atol=1e-12)
    assert not np.allclose(alone[0], alone[1])  # the seeds do give different fits


def test_a_stopped_training_resumes_to_the_same_model(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    spec = spec_from_dict(SPEC, "tiny.toml")
    whole = T.train(spec, tmp_path / "whole", quiet=True)
    assert [r["round"] for r in whole["rounds"]] == [0, 1]
    assert whole["rounds"][1]["rows_total"] > whole["rounds"][0]["rows"]
    real, calls = T._teach_task, []

    def stops(*args: Any) -> Any:
        calls.append(1)
        if len(calls) == 6:  # round 1's second task (a game a task on one worker)
            raise ConnectionError("scheduler lost")
        return real(*args)

    monkeypatch.setattr(T, "_teach_task", stops)
    with pytest.raises(ConnectionError):
        T.train(spec, tmp_path / "cut", quiet=True)
    assert len(json.loads((tmp_path / "cut" / T.LOG).read_text())["rounds"]) == 1
    assert len(list((tmp_path / "cut" / "tasks").iterdir())) == 1  # round 1's first task
    calls.clear()
    monkeypatch.setattr(T, "_teach_task", stops)
    again = T.train(spec, tmp_path / "cut", quiet=True)
    assert len(calls) == 3  # only round 1's other three tasks were played
    assert [r["loss"] for r in again["rounds"]] == [r["loss"] for r in whole["rounds"]]
    for name in ("round-0.model", "round-1.model", T.RESULT):
        assert (tmp_path / "cut" / name).read_bytes() == (tmp_path / "whole" / name).read_bytes()
    other = dict(SPEC, seed=4)
    with pytest.raises(TrainingError, match="another training"):
        T.train(spec_from_dict(other, "o.toml"), tmp_path / "whole", quiet=True)


@pytest.mark.parametrize(("change", "field"), [
    ({"teacher": "heuristic"}, "teacher"), ({"hidden": [0]}, "hidden"),
    ({"players": 5}, "players"), ({"mix": 2}, "mix"), ({"presets": ["nope"]}, "presets"),
    ({"colour": "red"}, "colour"), ({"variants": {"baron": False}}, "variants"),
    ({"variants": [{"preset": "nope"}]}, "variants[0].preset"),
    ({"variants": [{}, {"neutral_stack": "x"}]}, "variants[1].neutral_stack"),
    ({"variants": [{"players": 3}]}, "variants[0].players"),
    ({"start_bonus": [0, 5]}, "start_bonus"),
    ({"start_bonus": {"low": 5, "high": 0}}, "start_bonus.high"),
    ({"start_bonus": {"low": -99}}, "start_bonus.low"),
    ({"start_bonus": {"low": 0, "high": 5, "share": 0}}, "start_bonus.share"),
    ({"start_bonus": {"lo": 0}}, "start_bonus.lo")])
def test_bad_specs_are_refused_by_field(change: dict[str, Any], field: str) -> None:
    with pytest.raises(TrainingError) as info:
        spec_from_dict({**SPEC, **change}, "bad.toml")
    assert info.value.field == field and info.value.source == "bad.toml"


def test_variants_are_rule_sets_of_their_own() -> None:
    """A variant table is its preset with its switches on top, at the spec's player count,
    played in turn after the presets."""
    spec = spec_from_dict({**SPEC, "variants": [
        {"neutral_stack": [1, 1, 1, 1, 2, 2, 3, 3]},
        {"preset": "known-order", "start_scores": [10, 19]}]}, "v.toml")
    assert len(spec.presets) == 4 and spec.presets[:2] == ("standard", "known-order")
    reversed_stack, compensated = (spec.rules(name) for name in spec.presets[2:])
    assert reversed_stack.neutral_stack == (1, 1, 1, 1, 2, 2, 3, 3)
    assert reversed_stack.customer_order == "drawn" and reversed_stack.players == 2
    assert compensated.customer_order == "known" and compensated.start_scores == (10, 19)
    assert [p for p, _ in T.round_seeds(spec, 0)] == list(spec.presets)  # 4 games


def test_a_start_bonus_spreads_the_start_scores_of_a_share_of_the_games() -> None:
    """With `start_bonus = {low = -3, high = 4, share = 0.5}`, about half the games keep the
    rule set's start scores (10 each, or the variant's [10, 19]) and the others give each
    later seat its own bonus from -3 to +4 over them; seat 0 keeps its start score. The
    game's seed decides, so the same seed always gives the same scores."""
    spec = spec_from_dict({**SPEC, "start_bonus": {"low": -3, "high": 4, "share": 0.5},
                           "players": 3, "variants": [{"start_scores": [10, 19, 12]}]},
                          "b.toml")
    bonus = spec.start_bonus
    assert bonus is not None and spec.identity()["start_bonus"] == {
        "low": -3, "high": 4, "share": 0.5}
    assert "start_bonus" not in spec_from_dict(SPEC, "s.toml").identity()  # as before it
    for name, base in (("standard", (10, 10, 10)), (spec.presets[-1], (10, 19, 12))):
        rules = spec.rules(name)
        seen = [bonus.apply(rules, seed).seat_start_scores for seed in range(400)]
        kept = sum(s == base for s in seen)
        assert 150 < kept < 250 + 400 // 64  # half, and a few draws of bonus 0 for both
        offsets = {s[p] - base[p] for s in seen for p in (1, 2)}
        assert offsets == set(range(-3, 5)) and all(s[0] == 10 for s in seen)
        assert [bonus.apply(rules, seed).seat_start_scores for seed in range(400)] == seen


def test_the_teacher_plays_the_spread_start_scores() -> None:
    """A game whose seed draws a bonus starts from the spread scores: every row sees the
    two seats' start scores (features: over 20, each seat block's fourth input) as 10 and
    17 with a bonus of +7, as 10 and 10 without."""
    from sim.games.portobello.agents.compiled.features import GAME
    from sim.games.portobello.agents.compiled.features import RULES
    from sim.games.portobello.agents.compiled.features import seat_block
    from sim.games.portobello.game import packed
    from sim.learning.spec import StartBonus

    bonus = StartBonus(7, 7, 1.0)  # always +7 for seat 1
    board = load_board("standard")
    block = seat_block(packed(board, Rules(players=2)))
    starts = [GAME + RULES + 3, GAME + RULES + block + 3]  # the chooser's, the other's
    rows = teach(board, Rules(players=2), "fastmcts:iterations=6,width=4", [11], bonus=bonus)
    plain = teach(board, Rules(players=2), "fastmcts:iterations=6,width=4", [11])
    assert {tuple(x) for x in np.round(rows.X[:, starts] * 20)} == {(10, 17), (17, 10)}
    assert {tuple(x) for x in np.round(plain.X[:, starts] * 20)} == {(10, 10)}


def test_the_trained_model_plays_and_is_refused_elsewhere(tmp_path: Path) -> None:
    from sim.cli import main
    from sim.games.portobello.agents.model import ModelError

    spec = spec_from_dict({**SPEC, "rounds": 1, "eval_games": 0}, "tiny.toml")
    T.train(spec, tmp_path / "t", quiet=True)
    model = tmp_path / "t" / T.RESULT
    assert main(["tournament", "--agents", f"expert:model={model},random", "--players", "2",
                 "--games", "6", "--jobs", "1", "--quiet",
                 "--out", str(tmp_path / "e.parquet")]) == 0
    from sim.games.portobello.agents.expert import ExpertAgent
    from sim.games.portobello.game import Game

    game = Game(load_board("standard"), Rules(players=3))
    game.apply(game.legal_actions()[0])
    with pytest.raises(ModelError) as info:
        ExpertAgent(model=str(model)).choose(game)
    assert info.value.field == "players" and str(model) in info.value.message


def test_rows_of_several_parts_keep_their_decisions_apart() -> None:
    """Rounds (or tasks) each number their decisions from 0: put together, no two
    decisions may share a number, or the advantage's per-decision mean would mix them."""
    from sim.learning.teacher import Rows

    def part(decisions: list[int]) -> Rows:
        n = len(decisions)
        return Rows(np.zeros((n, 2)), np.zeros(n), np.ones(n, np.int64), np.zeros(n, np.int8),
                    np.zeros(n), np.array(decisions, np.int64))

    rows = Rows.concat([part([0, 0, 1]), part([0, 1, 1, 2]), part([]), part([5, 5])])
    assert rows.decision.tolist() == [0, 0, 1, 2, 3, 3, 4, 5, 5]


def test_a_large_margin_plays_the_planners_first_candidate_whatever_the_model(
        tmp_path: Path) -> None:
    """With `margin` above any advantage the network gives, the expert keeps the planner's
    best candidate every time: two unrelated models (one trained, one of random weights of
    the same shape) then play the very same games; with no margin they do not."""
    from sim.games.portobello.agents.model import Model
    from sim.games.portobello.agents.registry import AgentSpecError
    from sim.games.portobello.agents.registry import make_agent
    from sim.games.portobello.loop import play_game

    spec = spec_from_dict({**SPEC, "rounds": 1, "eval_games": 0}, "tiny.toml")
    T.train(spec, tmp_path / "t", quiet=True)
    trained = Model.load(tmp_path / "t" / T.RESULT)
    weights, biases = trained.layers()
    rng = np.random.default_rng(5)
    Model.from_layers([rng.normal(size=w.shape) for w in weights],
                      [rng.normal(size=b.shape) for b in biases],
                      trained.header).save(tmp_path / "random.model")
    board, rules = load_board("standard"), Rules(players=2)

    def scores(model: Path, margin: float) -> list[tuple[int, ...]]:
        agents = [make_agent(f"expert:model={model},margin={margin}") for _ in range(2)]
        return [tuple(play_game(board, rules, agents, seed)[0].scores) for seed in (1, 2, 3)]

    assert scores(tmp_path / "t" / T.RESULT, 1e9) == scores(tmp_path / "random.model", 1e9)
    assert scores(tmp_path / "t" / T.RESULT, 0) != scores(tmp_path / "random.model", 0)
    with pytest.raises(AgentSpecError, match="margin"):
        make_agent(f"expert:model={tmp_path / 'random.model'},margin=-1")
