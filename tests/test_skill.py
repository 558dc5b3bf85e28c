"""Skill levels in a study: the spec syntax and its errors, cells of variant x level x player
count on common seeds, and studies without levels unchanged (identity and cells byte for
byte as before levels existed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from analysis.study import StudyError
from analysis.study import load_study
from analysis.study import run_study
from analysis.study import study_from_dict
from sim.agents.registry import time_budget

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "study_identity.json"
LEVELS = [{"name": "greedy", "agents": "greedy"},
          {"name": "heuristic", "agents": "heuristic"},
          {"name": "mcts", "agents": "fastmcts:iterations=40", "games": {"2": 6, "3": 9}}]


def skill_dict(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "lv", "players": [2, 3], "games": 12, "seed": 9, "shard_size": 6,
        "skill": LEVELS,
        "variants": [{"name": "standard"}, {"name": "known", "preset": "known-order"}]}
    base.update(changes)
    return base


# -- the spec -------------------------------------------------------------------------------
def test_cells_are_variant_by_level_by_player_count_on_one_seed() -> None:
    spec = study_from_dict(skill_dict())
    cells = spec.cells()
    assert [c.key for c in cells[:6]] == ["standard-greedy-2p", "standard-greedy-3p",
                                          "standard-heuristic-2p", "standard-heuristic-3p",
                                          "standard-mcts-2p", "standard-mcts-3p"]
    assert len(cells) == 2 * 3 * 2 and len({c.key for c in cells}) == 12
    assert {c.config.seed for c in cells} == {9}
    games = {(c.level, c.players): c.config.games for c in cells}
    assert games == {("greedy", 2): 12, ("greedy", 3): 12, ("heuristic", 2): 12,
                     ("heuristic", 3): 12, ("mcts", 2): 6, ("mcts", 3): 9}
    assert {c.level: c.config.agents[0] for c in cells} == {
        "greedy": "greedy", "heuristic": "heuristic", "mcts": "fastmcts:iterations=40"}
    # Every cell is a run of its own.
    assert len({c.config.run_id for c in cells}) == 12
    d = spec.to_dict()
    assert [lv["name"] for lv in d["skill"]] == ["greedy", "heuristic", "mcts"]
    assert [lv["strong"] for lv in d["skill"]] == [False, True, True]
    assert d["skill"][2]["games"] == {"2": 6, "3": 9}
    # The strongest level's agents stand in the spec's `agents`.
    assert d["agents"]["3"] == ["fastmcts:iterations=40"] * 3


def test_overrides_with_levels() -> None:
    spec = study_from_dict(skill_dict())
    quick = spec.with_overrides(games=4)
    assert {c.config.games for c in quick.cells()} == {4}
    assert [c.key for c in quick.cells()] == [c.key for c in spec.cells()]
    with pytest.raises(StudyError) as err:
        spec.with_overrides(agents="random")
    assert err.value.field == "--agents" and "skill levels (greedy, heuristic, mcts)" in \
        err.value.reason


def test_time_budgets_are_found_under_wrappers() -> None:
    assert time_budget("fastmcts:iterations=800") is None
    assert time_budget("heuristic") is None and time_budget("random") is None
    assert time_budget("fastmcts:time=0.5") == "time=0.5"
    assert time_budget("no-bobby(mcts:iterations=10,time=2)") == "time=2.0"


TIMED = "depend on the machine"


@pytest.mark.parametrize(("changes", "field", "reason"), [
    ({"agents": "greedy"}, "skill", "replaces agents (each level names the agents of every "
                                    "seat): give agents or skill, not both"),
    ({"skill": [{"name": "greedy", "agents": "greedy"}]}, "skill",
     "a list of at least two levels, weakest first"),
    ({"skill": {"name": "greedy"}}, "skill", "a list of at least two levels"),
    ({"skill": ["greedy", "heuristic"]}, "skill[0]", "must be a table with name and agents"),
    ({"skill": [LEVELS[0], {"name": "h", "agents": "heuristic", "colour": 1}]},
     "skill[1].colour", "unknown key (keys: name, label, agents, games)"),
    ({"skill": [{"agents": "greedy"}, LEVELS[1]]}, "skill[0].name", "missing"),
    ({"skill": [LEVELS[0], {"name": "h"}]}, "skill[1].agents", "missing"),
    ({"skill": [{"name": "a b", "agents": "greedy"}, LEVELS[1]]}, "skill[0].name",
     "letters, digits, - and _"),
    ({"skill": [LEVELS[0], {"name": "greedy", "agents": "heuristic"}]}, "skill[1].name",
     "duplicate level name 'greedy'"),
    ({"skill": [LEVELS[0], {"name": "x", "agents": "nobody"}]}, "skill[1].agents",
     "unknown agent 'nobody'"),
    ({"skill": [LEVELS[0], {"name": "x", "agents": "greedy,greedy,greedy"}]},
     "skill[1].agents", "3 agent specs for 2 players"),
    ({"skill": [*LEVELS[:2], {"name": "mcts", "agents": "fastmcts:time=0.5"}]},
     "skill[2].agents", "fastmcts:time=0.5 has a time budget (time=0.5); a time budget "
                        "makes the study depend on the machine"),
    ({"skill": [*LEVELS[:2], {"name": "mcts", "agents": {"2": "mcts:iterations=50,time=1",
                                                         "3": "mcts"}}]},
     "skill[2].agents", "use an iteration budget (iterations=) instead"),
    ({"skill": [LEVELS[0], {"name": "r", "agents": "no-district(fastmcts:time=1)"}]},
     "skill[1].agents", TIMED),
    ({"skill": [LEVELS[0], {"name": "x", "agents": "greedy", "games": 0}]}, "skill[1].games",
     "must be a positive integer, got 0 for 2 players"),
    ({"skill": [LEVELS[0], {"name": "x", "agents": "greedy", "games": {"2": 10}}]},
     "skill[1].games", "no value for 3 players"),
    ({"skill": [LEVELS[0], {"name": "x", "agents": {"2": "greedy,random", "3": "greedy"},
                            "games": 7}]}, "skill[1].games", "use a multiple of 2"),
    ({"skill": [LEVELS[0], {"name": "x", "agents": {"2": "greedy,random", "3": "greedy"}}],
      "games": 13}, "games", "in level 'x': use a multiple of 2"),
    ({"skill": [{"name": "b-c", "agents": "greedy"}, {"name": "c", "agents": "heuristic"}],
      "variants": [{"name": "a"}, {"name": "a-b"}]}, "skill", "would share the run folder "
                                                              "a-b-c-2p"),
])
def test_bad_levels_name_file_field_and_reason(changes: dict[str, Any], field: str,
                                               reason: str) -> None:
    with pytest.raises(StudyError) as err:
        study_from_dict(skill_dict(**changes), source="data/studies/x.toml")
    msg = err.value.message
    assert msg.startswith(f"data/studies/x.toml: {field}: "), msg
    assert reason in msg and "\n" not in msg, msg


def test_a_time_budget_is_refused_in_any_study_and_in_a_file(tmp_path: Path) -> None:
    data = {"name": "t", "players": [2], "agents": "mcts:time=0.2", "games": 4, "seed": 1,
            "variants": [{"name": "a"}]}
    with pytest.raises(StudyError, match=rf"^s.toml: agents: mcts:time=0.2 has a time budget "
                                         rf".*{TIMED}"):
        study_from_dict(data, source="s.toml")
    path = tmp_path / "x.toml"
    path.write_text('name = "x"\nplayers = [2]\ngames = 4\nseed = 1\n'
                    'skill = [{name = "g", agents = "greedy"}, '
                    '{name = "m", agents = "fastmcts:time=1.5"}]\n'
                    'variants = [{name = "a"}]\n')
    with pytest.raises(StudyError) as err:
        load_study(path)
    assert err.value.source == str(path) and err.value.field == "skill[1].agents"
    assert str(err.value).startswith(f"{path}: skill[1].agents: fastmcts:time=1.5 has a "
                                     "time budget (time=1.5)")


def test_the_agents_override_is_refused_in_one_line(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from sim.cli.main import main

    path = tmp_path / "x.toml"
    path.write_text('name = "x"\nplayers = [2]\ngames = 4\nseed = 1\n'
                    'skill = [{name = "r", agents = "random"}, {name = "g", agents = "greedy"}]\n'
                    'variants = [{name = "a"}]\n')
    capsys.readouterr()
    assert main(["study", str(path), "--agents", "random", "--out", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"portobello: error: {path}: --agents: this study has skill levels "
                          "(r, g)")
    assert not (tmp_path / "o").exists()


# -- studies without levels are unchanged ---------------------------------------------------
VARIANTS = {"name": "tiny", "players": [2, 3], "agents": "random", "games": 4, "seed": 9,
            "shard_size": 5, "variants": [{"name": "standard"},
                                          {"name": "known", "preset": "known-order"}]}
SWEEP = {"name": "sw", "players": [3, 4],
         "agents": {"3": "greedy", "4": "random,greedy,random,greedy"},
         "games": {"3": 6, "4": 8}, "seed": 5, "shard_size": 4, "events": False,
         "variants": [{"name": "drawn"}, {"name": "known", "preset": "known-order"}],
         "sweep": {"stalls_per_player": [{"3": 18, "4": 14}, {"3": 20, "4": 16}]}}


def snapshot(spec: Any) -> dict[str, Any]:
    """What a study without levels must keep: its identity, and each cell's key, variant,
    players, games and run identity (the play code's hash aside: it changes with the
    engine, not with the study)."""
    return {"identity": spec.identity(),
            "cells": [{"key": c.key, "variant": c.variant.name, "players": c.players,
                       "games": c.config.games,
                       "run": {k: v for k, v in c.config.identity().items() if k != "play_code"}}
                      for c in spec.cells()]}


def test_a_study_without_levels_keeps_its_identity_and_cells_byte_for_byte(
        tmp_path: Path) -> None:
    """Recorded before skill levels existed (tests/golden/study_identity.json)."""
    golden = json.loads(GOLDEN.read_text())
    assert json.dumps(snapshot(study_from_dict(VARIANTS)), indent=1) == json.dumps(
        golden["variants"], indent=1)
    assert json.dumps(snapshot(study_from_dict(SWEEP)), indent=1) == json.dumps(
        golden["sweep"], indent=1)
    run_study(study_from_dict(VARIANTS), tmp_path / "s", quiet=True)
    study = json.loads((tmp_path / "s" / "study.json").read_text())
    got = {"identity": study["identity"],
           "cells": [{k: v for k, v in c.items() if k not in ("timings", "run_id")}
                     for c in study["cells"]]}
    assert json.dumps(got, indent=1) == json.dumps(golden["study_json"], indent=1)
    assert "skill" not in study["spec"] and all("level" not in c for c in study["cells"])
