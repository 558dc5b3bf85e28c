"""Skill levels in a study: the spec syntax and its errors, cells of variant x level x player
count on common seeds, studies without levels unchanged (identity and cells byte for byte
as before levels existed), the report's "does it hold for stronger play?" section and
summary block, and calibration against real play."""

from __future__ import annotations

import html
import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from analysis.metrics.calibration import FAR_RATIO
from analysis.metrics.calibration import REAL_PLAY
from analysis.metrics.calibration import Calibration
from analysis.metrics.calibration import far_from_real_play
from analysis.metrics.robustness import LABELS
from analysis.metrics.robustness import LevelEstimate
from analysis.metrics.robustness import SizeChange
from analysis.metrics.robustness import classify
from analysis.report import build_report
from analysis.report.provenance import reduced_run
from analysis.study import StudyError
from analysis.study import load_study
from analysis.study import open_study
from analysis.study import run_study
from analysis.study import study_from_dict
from sim.games.portobello.agents.registry import time_budget

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
    from sim.cli.command import main

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


# -- a tiny study end to end ----------------------------------------------------------------
@pytest.fixture(scope="module")
def skill_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Greedy and the heuristic at 2 players, two variants, 40 games a cell."""
    out = tmp_path_factory.mktemp("skill")
    spec = study_from_dict({
        "name": "levels", "title": "Two levels", "players": [2], "games": 40, "seed": 3,
        "shard_size": 20,
        "skill": [{"name": "greedy", "agents": "greedy"},
                  {"name": "heuristic", "label": "Heuristic", "agents": "heuristic"}],
        "variants": [{"name": "standard", "label": "Standard"},
                     {"name": "known", "label": "Known order", "preset": "known-order"}]})
    run_study(spec, out / "study", quiet=True)
    build_report(open_study(out / "study"), out / "report")
    return out


def test_cells_are_ordinary_runs_on_common_seeds(skill_study: Path) -> None:
    study = json.loads((skill_study / "study" / "study.json").read_text())
    assert [(c["key"], c["level"]) for c in study["cells"]] == [
        ("standard-greedy-2p", "greedy"), ("standard-heuristic-2p", "heuristic"),
        ("known-greedy-2p", "greedy"), ("known-heuristic-2p", "heuristic")]
    for c in study["cells"]:
        manifest = json.loads((skill_study / "study" / c["run"] / "manifest.json").read_text())
        assert manifest["status"] == "complete" and manifest["agents"] == c["agents"]
    data = open_study(skill_study / "study")
    assert data.levels == ["greedy", "heuristic"] and data.skill is not None
    games = data.games()
    seeds = games.pivot_table(index="game_id", columns=["variant", "level"], values="seed",
                              observed=True, aggfunc="first")
    assert seeds.shape == (40, 4) and (seeds.nunique(axis=1) == 1).all()
    one = data.at_level("greedy")
    assert {c.level for c in one.cells} == {"greedy"} and one.skill is None
    assert len(one.players()) == 2 * 40 * 2


def test_the_closing_lines_go_level_by_level(skill_study: Path) -> None:
    from sim.cli.summary import study_lines

    lines = study_lines(open_study(skill_study / "study"))
    assert lines[0] == ("Two levels: the first player's (seat 0's) win share, 95% interval, "
                        "by skill level")
    assert [x for x in lines if x.startswith(" level")] == [" level greedy (greedy):",
                                                            " level Heuristic (heuristic):"]
    # a heading per level, a line per variant and one for the variant's change
    assert len(lines) == 1 + 2 * (1 + 2 + 1)
    assert all(re.search(r"2 players +(Standard|Known order) +0\.\d{3} \[", x)
               or re.search(r"2 players +Known order − Standard: [+-]\d+\.\d pp \[", x)
               for x in lines if x.startswith("    "))


def test_the_report_has_the_section_and_the_summary_block(skill_study: Path) -> None:
    page = html.unescape((skill_study / "report" / "index.html").read_text())
    assert '<section id="skill">' in page and 'href="#skill"' in page
    assert page.index('id="comparisons"') < page.index('id="skill"') < page.index('id="scores"')
    assert re.search(r'alt="each measure against skill level, 2 players"', page)
    text = " ".join(re.sub(r"<[^>]+>", " ", page).split())
    assert "Findings are stated at the strongest skill level, Heuristic ." in text
    s = json.loads((skill_study / "report" / "summary.json").read_text())
    sk = s["skill"]
    assert [lv["name"] for lv in sk["levels"]] == ["greedy", "heuristic"]
    assert sk["from_heuristic_up"] == "heuristic" and sk["headline_level"] == "heuristic"
    assert [lv["from_heuristic_up"] for lv in sk["levels"]] == [False, True]
    # the games each level's cells played (fewest, most over the variants), from the runs
    assert [lv["games"] for lv in sk["levels"]] == [{"2": [40, 40]}, {"2": [40, 40]}]
    kinds = {(f["kind"], f["measure"]) for f in sk["findings"]}
    assert ("first player", "seat 0 win share") in kinds
    assert ("effect", "seat 0 win share") in kinds
    assert ("effect", "rounds (round-limit games left out)") in kinds
    assert sum(sk["counts"].values()) == len(sk["findings"])
    assert set(sk["counts"]) == set(LABELS)
    # At the strongest level the section's numbers are the body's (the first player).
    body = {(r["variant"], r["n_players"]): r for r in s["first_player"]}
    for f in sk["findings"]:
        if f["kind"] == "first player":
            top = f["levels"][-1]
            assert top["level"] == "heuristic"
            r = body[(f["variant"], f["n_players"])]
            assert math.isclose(top["estimate"], r["advantage"])
            assert math.isclose(top["adj_lo"], r["adv_adj_lo"])
            assert top["significant"] == r["significant"]
    # The first screen's answer: each variant's change in the first player's share at the
    # two strongest levels, with the same numbers and labels as the findings.
    answer = text[text.index("The answer at the top of the ladder"):text.index("Generated")]
    for f in sk["findings"]:
        if f["kind"] == "effect" and f["measure"] == "seat 0 win share":
            top = f["levels"][-1]
            shown = (f"Heuristic {100 * top['estimate']:+.1f} pp ("
                     f"{100 * top['adj_lo']:+.1f} to {100 * top['adj_hi']:+.1f})")
            assert shown in answer, (shown, answer)
            assert f"{f['n_players']} players" in answer and f["label"] in answer
            assert f["convergence"]["text"] in answer


def test_labels_agree_with_the_intervals_shown(skill_study: Path) -> None:
    """Every level's verdict is exactly its shown interval leaving out 0, and every label
    is the rule applied to the numbers summary.json gives."""
    s = json.loads((skill_study / "report" / "summary.json").read_text())
    sk = s["skill"]
    names = [lv["name"] for lv in sk["levels"]]
    for f in sk["findings"]:
        assert f["label"] in LABELS
        points = []
        for e in f["levels"]:
            lo, hi = e["adj_lo"], e["adj_hi"]
            if lo is not None and hi is not None:
                assert e["significant"] == (lo > 0 or hi < 0), f
            nan = float("nan")
            points.append(LevelEstimate(e["level"], nan if e["estimate"] is None else
                                        e["estimate"], nan if lo is None else lo,
                                        nan if hi is None else hi, bool(e["significant"])))
        by = {p.level: p for p in points}
        ordered = [by.get(n, LevelEstimate(n, float("nan"), float("nan"), float("nan"),
                                           False)) for n in names]
        c = f["change"]
        size = None if not c else SizeChange(c["diff"], c["adj_lo"], c["adj_hi"],
                                             c["significant"])
        if c and c["adj_lo"] is None:  # an untested change (a constant measure)
            assert not c["significant"]
            size = None
        elif c:
            assert c["significant"] == (c["adj_lo"] > 0 or c["adj_hi"] < 0), f
            assert (c["weak"], c["strong"]) == ("greedy", "heuristic")
        assert classify(ordered, names.index(sk["from_heuristic_up"]), size).text == \
            f["verdict"], f
    # The findings on top carry their label; those the section classifies all do.
    labelled = [f for f in s["findings"] if f["topic"] == "balance"
                or (f["topic"] == "variant" and not f["text"].startswith("Of "))]
    assert labelled and all(f.get("label") in LABELS for f in labelled)
    assert all("Across skill levels (greedy to Heuristic)" in f["text"] for f in labelled)


def test_calibration_per_level(skill_study: Path) -> None:
    s = json.loads((skill_study / "report" / "summary.json").read_text())
    cal = pd.DataFrame(s["calibration"])
    assert sorted(zip(cal["level"], cal["variant"], strict=True)) == [
        ("greedy", "known"), ("greedy", "standard"), ("heuristic", "known"),
        ("heuristic", "standard")]
    # Two players: no reference, so no flag.
    assert cal["reference"].isna().all() and cal["far"].isna().all()
    data = open_study(skill_study / "study").at_level("heuristic")
    g = data.games()
    std = g[g["variant"].astype(str) == "standard"]
    row = cal[(cal["level"] == "heuristic") & (cal["variant"] == "standard")].iloc[0]
    assert math.isclose(row["turns_per_player"], (std["turns"] / 2).mean())
    shares = row[["stalls_share", "customers_share", "districts_share"]].to_numpy(dtype=float)
    assert math.isclose(shares.sum(), 1.0)
    page = (skill_study / "report" / "index.html").read_text()
    assert '<section id="calibration">' in page and "No cell is at a player count" in page


def test_a_reduced_skill_study_says_so_only_when_a_level_is_short(skill_study: Path) -> None:
    data = open_study(skill_study / "study")
    assert reduced_run(data) is None
    text = data.study["spec_text"] if data.study else ""
    assert text == ""  # made from a dict: nothing to compare with
    study = dict(data.study or {})
    study["spec_text"] = ('name = "levels"\nplayers = [2]\ngames = 80\nseed = 3\nskill = ['
                          '{name = "greedy", agents = "greedy", games = 40}, '
                          '{name = "heuristic", agents = "heuristic", games = 40}]\n')
    data.study = study
    assert reduced_run(data) is None  # every level played what it asks, not the default 80
    study["spec_text"] = study["spec_text"].replace("games = 40}]", "games = 50}]")
    r = reduced_run(data)
    assert r is not None and r.played == {2: 40} and r.asked == {2: 50}


# -- calibration against real play ----------------------------------------------------------
def test_calibration_statistic_and_its_flag() -> None:
    ref = REAL_PLAY["turns_per_player"]["value"]
    assert far_from_real_play(ref * FAR_RATIO[0] - 0.01, 4) is True
    assert far_from_real_play(ref * FAR_RATIO[0], 4) is False
    assert far_from_real_play(ref * FAR_RATIO[1] + 0.01, 4) is True
    assert far_from_real_play(30.0, 2) is None  # no reference at two players
    games = pd.DataFrame({"variant": ["a"] * 3 + ["b"] * 2, "n_players": 4,
                          "game_id": [0, 1, 2, 0, 1], "turns": [24, 28, 32, 100, 104],
                          "rounds": [6, 7, 8, 25, 26],
                          "end_reason": ["last_stall"] * 4 + ["round_limit"]})
    players = pd.DataFrame({"variant": ["a"] * 4 + ["b"] * 4, "n_players": 4,
                            "stalls_placed": [16, 14, 12, 10, 1, 1, 1, 1],
                            "customers_placed": [2, 2, 3, 3, 0, 0, 0, 0],
                            "districts_scored": [2, 2, 1, 1, 0, 0, 0, 0]})
    out = Calibration()(games, players).set_index("variant")
    assert out.loc["a", "turns_per_player"] == 7.0 and out.loc["b", "turns_per_player"] == 25.5
    assert out.loc["a", "stalls_share"] == 52 / 68 and out.loc["a", "districts_share"] == 6 / 68
    assert out.loc["a", "stalls_per_player"] == 13.0
    assert not out.loc["a", "far"] and out.loc["b", "far"]
    assert out.loc["b", "round_limit_share"] == 0.5 and out.loc["a", "ratio"] == 7.0 / ref
    assert np.isclose(out.loc["a", "tpp_lo"] + out.loc["a", "tpp_hi"], 14.0)


def test_a_study_without_levels_gets_calibration_but_no_skill_section(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sim.cli.command import main

    path = tmp_path / "x.toml"
    path.write_text('name = "x"\nplayers = [4]\nagents = "random"\ngames = 8\nseed = 2\n'
                    'shard_size = 8\nvariants = [{name = "a"}]\n')
    capsys.readouterr()
    assert main(["study", str(path), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    page = (tmp_path / "o" / "report" / "index.html").read_text()
    assert 'id="skill"' not in page and '<section id="calibration">' in page
    s = json.loads((tmp_path / "o" / "report" / "summary.json").read_text())
    assert s["skill"] is None and len(s["calibration"]) == 1
    row = s["calibration"][0]
    assert row["reference"] == 6.0 and row["far"] == (not 3 <= row["turns_per_player"] <= 12)
    found = [f for f in s["findings"] if f["topic"] == "calibration"]
    assert len(found) == 1 and "about 6 reported for real play" in found[0]["text"]
    assert all("label" not in f for f in s["findings"])
    assert ("Far from real play" in page) == row["far"]
    assert ("Close to real play" in page) == (not row["far"])
    assert capsys.readouterr().out.strip().endswith("index.html")


def test_games_far_from_real_play_are_flagged(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """With a reference a quarter of what the games last, the cell is far from real play:
    flagged in its table row, the section and the finding on top."""
    spec = study_from_dict({"name": "far", "players": [4], "agents": "greedy", "games": 8,
                            "seed": 2, "shard_size": 8, "variants": [{"name": "a"}]})
    run_study(spec, tmp_path / "s", quiet=True)
    turns = (open_study(tmp_path / "s").games()["turns"] / 4).mean()
    monkeypatch.setitem(REAL_PLAY["turns_per_player"], "value", float(turns) / 4)
    build_report(open_study(tmp_path / "s"), tmp_path / "r")
    page = " ".join(html.unescape((tmp_path / "r" / "index.html").read_text()).split())
    s = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert s["calibration"][0]["far"] is True and math.isclose(s["calibration"][0]["ratio"], 4)
    assert "Far from real play: a, 4 players" in page and "FAR from real play" in page
    found = [f for f in s["findings"] if f["topic"] == "calibration"]
    assert len(found) == 1 and not found[0]["significant"]
    assert "far from it (outside 0.5x–2x" in found[0]["text"]


def test_precision_on_demand_caps_a_level_at_its_own_games() -> None:
    """With `max_games`, every level plays rounds to the target; a level that gives its own
    games (the search level: 6 at 2 players, 9 at 3) plays at most that many, so the
    costly level never runs to the study's maximum (60)."""
    from analysis.study.spec import cell_plan

    spec = study_from_dict(skill_dict(target_half_width=0.05, max_games=60))
    plans = {c.key: cell_plan(spec, c) for c in spec.cells() if c.variant.name == "standard"}
    assert {k: (p.first, p.maximum) for k, p in plans.items() if p} == {
        "standard-greedy-2p": (12, 60), "standard-greedy-3p": (12, 60),
        "standard-heuristic-2p": (12, 60), "standard-heuristic-3p": (12, 60),
        "standard-mcts-2p": (6, 6), "standard-mcts-3p": (9, 9)}


def test_a_level_whose_own_games_equal_the_studys_is_capped_too() -> None:
    """A level that names games in its own line is capped at them even when they equal the
    study's `games` (12 here): its cells play one round of 12 and stop, where the levels
    without games of their own play rounds up to the maximum (60)."""
    from analysis.study.spec import cell_plan

    levels = [{"name": "greedy", "agents": "greedy"},
              {"name": "mcts", "agents": "fastmcts:iterations=40", "games": 12}]
    spec = study_from_dict(skill_dict(skill=levels, target_half_width=0.05, max_games=60))
    plans = {c.key: cell_plan(spec, c) for c in spec.cells() if c.variant.name == "standard"}
    assert {k: (p.first, p.maximum) for k, p in plans.items() if p} == {
        "standard-greedy-2p": (12, 60), "standard-greedy-3p": (12, 60),
        "standard-mcts-2p": (12, 12), "standard-mcts-3p": (12, 12)}


# -- the saturation check of the strongest level ------------------------------------------------
@pytest.mark.parametrize(("changes", "field", "reason"), [
    ({"saturation": {"agents": "heuristic", "games": 12}, "skill": None, "agents": "greedy"},
     "saturation", "give the study skill levels"),
    ({"saturation": "heuristic"}, "saturation", "must be a table"),
    ({"saturation": {"agents": "heuristic", "games": 12, "seats": 1}}, "saturation.seats",
     "unknown key (keys: agents, games)"),
    ({"saturation": {"games": 12}}, "saturation.agents", "missing"),
    ({"saturation": {"agents": "heuristic"}}, "saturation.games", "missing"),
    ({"saturation": {"agents": "nobody", "games": 12}}, "saturation.agents",
     "unknown agent 'nobody'"),
    ({"saturation": {"agents": {"2": "greedy,heuristic", "3": "heuristic"}, "games": 12}},
     "saturation.agents", "must be one agent spec"),
    ({"saturation": {"agents": "heuristic", "games": 10}}, "saturation.games",
     "10 games at 3 players: use a multiple of 3"),
    ({"saturation": {"agents": "fastmcts:time=1", "games": 12}}, "saturation.agents",
     "time budget"),
])
def test_a_bad_saturation_check_names_file_field_and_reason(changes: dict[str, Any],
                                                            field: str, reason: str) -> None:
    d = skill_dict(**changes)
    d = {k: v for k, v in d.items() if v is not None}
    with pytest.raises(StudyError) as err:
        study_from_dict(d, source="data/studies/x.toml")
    msg = err.value.message
    assert msg.startswith(f"data/studies/x.toml: {field}: "), msg
    assert reason in msg and "\n" not in msg, msg


def test_the_check_is_a_cell_per_player_count_in_the_baseline_variant() -> None:
    spec = study_from_dict(skill_dict(saturation={"agents": "fastmcts:iterations=80",
                                                  "games": {"2": 8, "3": 12}}))
    checks = [c for c in spec.cells() if c.check]
    assert [(c.key, c.config.agents, c.config.games) for c in checks] == [
        ("standard-mcts-doubled-2p", ("fastmcts:iterations=80", "fastmcts:iterations=40"), 8),
        ("standard-mcts-doubled-3p", ("fastmcts:iterations=80", "fastmcts:iterations=40",
                                      "fastmcts:iterations=40"), 12)]
    # The same seed and rules as the strongest level's baseline cell: the same games dealt.
    top = {c.players: c for c in spec.level_cells() if c.level == "mcts"
           and c.variant.name == "standard"}
    for c in checks:
        assert (c.config.seed, c.config.rules) == (top[c.players].config.seed,
                                                   top[c.players].config.rules)
    # --players and --games carry the check along (rounded up to whole rotations).
    assert [c.key for c in spec.with_overrides(players=[3]).cells() if c.check] == [
        "standard-mcts-doubled-3p"]
    assert [c.config.games for c in spec.with_overrides(games=10).cells() if c.check] == [
        10, 12]


@pytest.fixture(scope="module")
def checked_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A planted unsaturated top: random and greedy levels at 2 players, and a "doubled"
    greedy that is in fact the tuned heuristic, which beats greedy far beyond the margin."""
    out = tmp_path_factory.mktemp("checked")
    spec = study_from_dict({
        "name": "checked", "players": [2], "games": 60, "seed": 5, "shard_size": 30,
        "skill": [{"name": "random", "agents": "random"}, {"name": "greedy", "agents": "greedy"}],
        "saturation": {"agents": "heuristic", "games": 60},
        "variants": [{"name": "standard"}, {"name": "known", "preset": "known-order"}]})
    run_study(spec, out / "study", quiet=True)
    build_report(open_study(out / "study"), out / "report")
    return out


def test_an_unsaturated_top_is_found_and_named(checked_study: Path) -> None:
    study = json.loads((checked_study / "study" / "study.json").read_text())
    check = [c for c in study["cells"] if c.get("check")]
    assert [(c["key"], c["agents"], c["check"]) for c in check] == [
        ("standard-greedy-doubled-2p", ["heuristic", "greedy"], "doubled")]
    data = open_study(checked_study / "study")
    assert data.levels == ["random", "greedy"] and len(data.checks) == 1
    # The doubled agent's win share by hand from the check's players table.
    players = pd.read_parquet(checked_study / "study" / check[0]["run"] / "players")
    mine = players[players["agent"].astype(str) == "heuristic"]["win_share"].astype(float)
    assert len(mine) == 60
    s = json.loads((checked_study / "report" / "summary.json").read_text())
    conv = s["skill"]["convergence"]
    sat = conv["saturation"]["2"]
    assert sat["agent"] == "heuristic" and sat["games"] == 60 and sat["fair"] == 0.5
    assert math.isclose(sat["share"], mine.mean())
    assert sat["lo"] > 0.5 and sat["state"] == "not saturated"
    labels = [f["convergence"]["label"] for f in s["skill"]["findings"]]
    assert conv["counts"] == {"converged": labels.count("converged"),
                              "not converged": labels.count("not converged")}
    # The check's games are in the configuration and the report's cost with the levels'.
    checked = [c for c in s["configuration"]["cells"] if c["variant"].endswith("check")]
    assert [(c["variant"], c["agents"], c["games"]) for c in checked] == [
        ("standard · greedy · saturation check", "heuristic, greedy", 60)]
    assert s["configuration"]["games"] == 2 * 2 * 60 + 60
    for f in s["skill"]["findings"]:
        c = f["convergence"]
        # The doubled budget wins significantly more than its fair share: a figure in the
        # reason, not a missing point (the label is the top levels' agreement alone).
        assert "the top is not saturated" in c["reason"], c
        assert set(c["missing"]) <= {"levels disagree", "too few games", "one level"}, c
        assert (c["label"] == "converged") == (not c["missing"]), c
        if c["top_difference"] is not None:
            assert (c["top_difference"]["weak"], c["top_difference"]["strong"]) == (
                "random", "greedy")
    page = html.unescape((checked_study / "report" / "index.html").read_text())
    text = " ".join(re.sub(r"<[^>]+>", " ", page).split())
    assert f"Converged at the top? {labels.count('converged')} converged" in text
    from sim.cli.summary import study_lines

    lines = study_lines(data)
    assert lines[-2:] == [
        " saturation check: heuristic in one seat against the strongest level, its win share",
        f"  2 players  {sat['share']:.3f} [{sat['lo']:.3f}, {sat['hi']:.3f}]  (fair 0.500, "
        "60 games)  not saturated"]
    # The doubled budget's gain is in the reasons, never among a label's missing points.
    assert "; top not saturated" not in text and "(top not saturated" not in text
