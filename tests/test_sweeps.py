"""Every rules switch in a study (the stall count too, by variant or by player count),
sweeps of one or two switches on common game seeds, reports that tell runs apart by any
switch, and topping a study folder up to more games."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from analysis.study import StudyError
from analysis.study import cells_from_runs
from analysis.study import load_study
from analysis.study import open_study
from analysis.study import run_study
from analysis.study import study_from_dict
from sim.cli import main
from sim.games.portobello.board import load_board
from sim.games.portobello.rules import Rules
from sim.run.runner import Run
from sim.run.runner import RunConfig

BOARD = load_board("standard")
STACK = [3, 3, 2, 2, 1, 1, 1, 1]
REVERSED = [1, 1, 1, 1, 2, 2, 3, 3]


def spec_dict(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"name": "sw", "players": [4], "agents": "random", "games": 8,
                            "seed": 5, "shard_size": 4, "events": False}
    base.update(changes)
    return base


def stalls_by_variant(out: Path) -> dict[str, set[int]]:
    """The stalls each player had (placed + left) in every game, by variant."""
    p = open_study(out).players()
    totals = p["stalls_placed"] + p["stalls_left"]
    return {v: set(totals[p["variant"].astype(str) == v]) for v in p["variant"].cat.categories}


def test_a_variant_sets_the_stall_count(tmp_path: Path) -> None:
    spec = study_from_dict(spec_dict(variants=[
        {"name": "standard"}, {"name": "short", "rules": {"stalls_per_player": 14}}]))
    run_study(spec, tmp_path / "s", quiet=True)
    assert stalls_by_variant(tmp_path / "s") == {"standard": {16}, "short": {14}}


def test_a_stall_count_by_player_count() -> None:
    table = {"2": 28, "3": 18, "4": 14}
    spec = study_from_dict(spec_dict(players=[2, 3, 4], variants=[
        {"name": "a", "rules": {"stalls_per_player": table}}]))
    assert [(c.key, c.config.rules.stalls) for c in spec.cells()] == [
        ("a-2p", 28), ("a-3p", 18), ("a-4p", 14)]
    # A table may name counts the study does not play; the study level sets every variant.
    spec = study_from_dict(spec_dict(rules={"stalls_per_player": table}, variants=[
        {"name": "drawn"}, {"name": "known", "preset": "known-order"}]))
    assert [(c.key, c.config.rules.stalls) for c in spec.cells()] == [
        ("drawn-4p", 14), ("known-4p", 14)]


def test_a_sweep_is_one_variant_per_value_on_common_seeds(tmp_path: Path) -> None:
    spec = study_from_dict(spec_dict(sweep={"stalls_per_player": [12, 14, 16, 18]}))
    # The value that plays the standard rules (16 at four players) is the baseline.
    assert spec.baseline == "stalls_per_player-16"
    assert [v.name for v in spec.variants] == [
        "stalls_per_player-16", "stalls_per_player-12", "stalls_per_player-14",
        "stalls_per_player-18"]
    assert [v.label for v in spec.variants][:2] == ["stalls_per_player 16",
                                                    "stalls_per_player 12"]
    assert {c.config.seed for c in spec.cells()} == {5}
    run_study(spec, tmp_path / "s", quiet=True)
    assert stalls_by_variant(tmp_path / "s") == {f"stalls_per_player-{n}": {n}
                                                  for n in (16, 12, 14, 18)}
    data = open_study(tmp_path / "s")
    games = data.games()
    seeds = games.pivot_table(index="game_id", columns="variant", values="seed",
                              observed=True, aggfunc="first")
    assert len(seeds) == 8 and (seeds.nunique(axis=1) == 1).all()
    assert data.sweep is not None and data.sweep.keys == ("stalls_per_player",)
    study = json.loads((tmp_path / "s" / "study.json").read_text())
    assert study["spec"]["sweep"] == {"keys": ["stalls_per_player"],
                                      "values": {"stalls_per_player": [12, 14, 16, 18]}}


def test_a_grid_and_a_sweep_on_top_of_variants() -> None:
    grid = study_from_dict(spec_dict(players=[3, 4], sweep={
        "stalls_per_player": [{"3": 18, "4": 14}, {"3": 20, "4": 16}],
        "neutral_stack": [STACK, REVERSED]}))
    assert grid.baseline == "stalls_per_player-3p20-4p16__neutral_stack-3-3-2-2-1-1-1-1"
    got = {(c.variant.name, c.players): (c.config.rules.stalls,
                                         list(c.config.rules.neutral_stack))
           for c in grid.cells()}
    assert len(got) == 8
    assert got[("stalls_per_player-3p18-4p14__neutral_stack-1-1-1-1-2-2-3-3", 3)] == (
        18, REVERSED)
    assert grid.variants[1].label == "stalls_per_player 3p 18, 4p 14 · neutral_stack " \
                                     "3,3,2,2,1,1,1,1"
    # With variants, the sweep applies on top of each of them.
    both = study_from_dict(spec_dict(
        variants=[{"name": "drawn"}, {"name": "known", "preset": "known-order"}],
        sweep={"stalls_per_player": [14, 16]}, baseline="known"))
    assert both.baseline == "known_stalls_per_player-16"
    assert sorted(v.name for v in both.variants) == [
        "drawn_stalls_per_player-14", "drawn_stalls_per_player-16",
        "known_stalls_per_player-14", "known_stalls_per_player-16"]
    orders = {c.key: (c.config.rules.customer_order, c.config.rules.stalls)
              for c in both.cells()}
    assert orders["known_stalls_per_player-14-4p"] == ("known", 14)


@pytest.mark.parametrize(("changes", "field", "reason"), [
    ({"sweep": {"stalls_per_player": [12]}}, "sweep.stalls_per_player",
     "a list of at least two values"),
    ({"sweep": {"stalls_per_player": [12, 0]}}, "sweep.stalls_per_player[1]",
     "at 4 players: must be an integer from 1 to 10,000, got 0"),
    ({"sweep": {"stalls_per_player": [12, 12]}}, "sweep.stalls_per_player[1]",
     "value 12 is given twice"),
    ({"sweep": {"stalls_per_player": [{"3": 18}, 14]}}, "sweep.stalls_per_player[0]",
     "no value for 4 players"),
    ({"sweep": {"neutral_stack": [STACK, "flat"]}}, "sweep.neutral_stack[1]",
     "must be a list"),
    ({"sweep": {"colour": [1, 2]}}, "sweep.colour", "unknown rules switch"),
    ({"sweep": {"players": [2, 3]}}, "sweep.players", "set by the study's player counts"),
    ({"sweep": [12, 14]}, "sweep", "a table of one or two rules switches"),
    ({"sweep": {"baron": [True, False], "start_score": [0, 10], "max_rounds": [9, 99]}},
     "sweep", "one or two"),
    ({"sweep": {"stalls_per_player": [12, 14]},
      "variants": [{"name": "a", "rules": {"stalls_per_player": 14}}]},
     "variants[0].rules.stalls_per_player", "which the study sweeps"),
    ({"sweep": {"customer_order": ["drawn", "known"]}, "preset": "known-order"}, "preset",
     "which the study sweeps"),
    ({"sweep": {"stalls_per_player": [12, 14]}, "baseline": "nope"}, "baseline",
     "'nope' is not a variant (stalls_per_player-12, stalls_per_player-14)"),
    ({"rules": {"stalls_per_player": {"5": 3, "4": 12}}, "variants": [{"name": "a"}]},
     "rules.stalls_per_player", "keys 2, 3 or 4"),
    ({"variants": [{"name": "a", "rules": {"stalls_per_player": {"3": 18}}}]},
     "variants[0].rules.stalls_per_player", "no value for 4 players"),
    ({"variants": [{"name": "a", "rules": {"stalls_per_player": 0}}]}, "variants[0]",
     "stalls_per_player: must be an integer from 1 to 10,000"),
    ({}, "variants", "missing (give [[variants]], a sweep, or both)"),
])
def test_bad_sweeps_and_stall_counts_name_file_field_and_reason(
        changes: dict[str, Any], field: str, reason: str) -> None:
    with pytest.raises(StudyError) as err:
        study_from_dict(spec_dict(**changes), source="data/studies/x.toml")
    msg = err.value.message
    assert msg.startswith(f"data/studies/x.toml: {field}: "), msg
    assert reason in msg and "\n" not in msg, msg


def test_a_sweep_error_in_a_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "x.toml"
    path.write_text('name = "x"\nplayers = [4]\nagents = "random"\ngames = 8\nseed = 1\n'
                    "sweep = { stalls_per_player = [12, -1] }\n")
    with pytest.raises(StudyError, match=rf"^{path}: sweep.stalls_per_player\[1\]: at 4 "
                                         "players: must be an integer from 1 to 10,000, got -1$"):
        load_study(path)


def run_with_stalls(out: Path, stalls: int | None, games: int = 8) -> Path:
    """A plain 4-player run (as `portobello simulate` makes) with a stall count."""
    config = RunConfig(board=BOARD, board_ref="standard",
                       rules=Rules(players=4, stalls_per_player=stalls),
                       agents=("random",) * 4, games=games, seed=2, shard_size=games)
    Run(config, out).execute(quiet=True)
    return out


def test_reports_tell_runs_apart_by_the_stall_count(tmp_path: Path) -> None:
    r14 = run_with_stalls(tmp_path / "r14", 14)
    r16 = run_with_stalls(tmp_path / "r16", 16)
    r18 = run_with_stalls(tmp_path / "r18", 18)
    data = cells_from_runs([r14, r16])
    # 16 is the standard count at four players: that run comes first, named by its count.
    assert data.variants == ["stalls_per_player=16", "stalls_per_player=14"]
    assert data.sweep is None
    assert cells_from_runs([r18, r14]).variants == ["stalls_per_player=18",
                                                    "stalls_per_player=14"]
    # The default (no count given) plays the same games as an explicit 16: one variant.
    default = run_with_stalls(tmp_path / "default", None)
    with pytest.raises(Exception, match=r"two runs for the same variant \(stalls_per_player=16"):
        cells_from_runs([default, r16, r14])
    # Three values of one switch are read as a sweep.
    three = cells_from_runs([r14, r16, r18])
    assert three.sweep is not None and three.sweep.keys == ("stalls_per_player",)
    # Runs differing in two switches are named after both (each its own values).
    other = RunConfig(board=BOARD, board_ref="standard",
                      rules=Rules(players=4, stalls_per_player=14, neutral_stack=(2,) * 8),
                      agents=("random",) * 4, games=8, seed=2, shard_size=8)
    Run(other, tmp_path / "flat").execute(quiet=True)
    assert cells_from_runs([r16, tmp_path / "flat"]).variants == [
        "stalls_per_player=16; neutral_stack=3,3,2,2,1,1,1,1",
        "stalls_per_player=14; neutral_stack=2,2,2,2,2,2,2,2"]


def test_the_report_command_on_simulate_runs_of_two_stall_counts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = []
    for n in (14, 16):
        rules = tmp_path / f"r{n}.toml"
        rules.write_text(f"stalls_per_player = {n}\n")
        runs.append(str(tmp_path / f"run{n}"))
        assert main(["simulate", "--players", "4", "--agents", "greedy", "--games", "40",
                     "--seed", "4", "--rules", str(rules), "--out", runs[-1], "--quiet"]) == 0
    assert main(["report", *runs, "--out", str(tmp_path / "rep")]) == 0
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    assert {r["variant"] for r in summary["win_shares"]} == {"stalls_per_player=14",
                                                             "stalls_per_player=16"}
    assert {r["variant"] for r in summary["comparisons"]} == {"stalls_per_player=14"}
    page = (tmp_path / "rep" / "index.html").read_text()
    assert "stalls_per_player=14 vs stalls_per_player=16" in page
    assert summary["sweep"] is None and 'id="sweep"' not in page


def tables(out: Path) -> dict[str, bytes]:
    """Every table file of a study folder's cells (manifests, with their timings, aside)."""
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in (out / "runs").rglob("*.*")
            if p.is_file() and p.name != "manifest.json"}


def test_topping_a_study_up_equals_a_study_of_the_larger_count(tmp_path: Path) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text('name = "grow"\nplayers = [3]\nagents = "greedy"\ngames = 300\nseed = 7\n'
                    "shard_size = 70\nevents = true\n"
                    "sweep = { stalls_per_player = [18, 20] }\n")
    grown, direct = tmp_path / "grown", tmp_path / "direct"
    args = ["study", str(spec), "--no-report", "--quiet"]
    assert main([*args, "--out", str(grown)]) == 0
    assert main([*args, "--out", str(grown), "--games", "600"]) == 0
    assert main([*args, "--out", str(direct), "--games", "600"]) == 0
    assert tables(grown) == tables(direct)
    assert len(tables(grown)) == 2 * 4 * 9  # cells x (games, players, events, checksums) x shards
    study = json.loads((grown / "study.json").read_text())
    assert [c["games"] for c in study["cells"]] == [600, 600]
    assert open_study(grown).games().groupby("variant", observed=True).size().tolist() == [
        600, 600]
    # Fewer games, or another configuration, is refused before anything is written.
    before = (grown / "study.json").read_bytes()
    loaded = load_study(spec)
    with pytest.raises(StudyError, match="holds 600 games of this configuration in cell "
                                         r"stalls_per_player-20-3p, more than the 300 asked"):
        run_study(loaded, grown, quiet=True)
    spec.write_text(spec.read_text().replace("[18, 20]", "[18, 20, 22]"))
    with pytest.raises(StudyError, match=r"in another configuration \(cells: folder has "):
        run_study(load_study(spec).with_overrides(games=600), grown, quiet=True)
    spec.write_text(spec.read_text().replace("seed = 7", "seed = 8"))
    with pytest.raises(StudyError, match=r"seed: folder has 7, asked 8"):
        run_study(load_study(spec).with_overrides(games=900), grown, quiet=True)
    assert (grown / "study.json").read_bytes() == before


def test_the_report_draws_a_sweep_on_top_of_variants(tmp_path: Path) -> None:
    from analysis.report import build_report

    spec = study_from_dict(spec_dict(
        players=[2, 3], games=12, variants=[{"name": "drawn"},
                                            {"name": "known", "preset": "known-order"}],
        sweep={"stalls_per_player": [{"2": 28, "3": 18}, {"2": 30, "3": 20}]}))
    run_study(spec, tmp_path / "s", quiet=True)
    page = build_report(open_study(tmp_path / "s"), tmp_path / "r").read_text()
    assert '<section id="sweep">' in page and 'href="#sweep"' in page
    for measure in ("Win share by seat", "First player", "Game length", "Points per player"):
        assert f'alt="{measure}' in page, measure
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    sweep = summary["sweep"]
    assert sweep["keys"] == ["stalls_per_player"] and sweep["lines"] is None
    assert sweep["baseline"] == "drawn_stalls_per_player-2p30-3p20"
    points = sweep["points"]
    # Per cell (4 per count): every seat's win share, the advantage, rounds, six sources.
    assert len(points) == sum(4 * (n + 1 + 1 + 6) for n in (2, 3))
    seat0 = {(p["variant"], p["n_players"]): p["x"] for p in points
             if p["measure"] == "win share" and p["series"] == "seat 0"}
    assert seat0[("known_stalls_per_player-2p28-3p18", 3)] == 18
    assert {p["group"] for p in points} == {"drawn", "known"}
    assert all(p["lo"] <= p["value"] <= p["hi"] for p in points)


def test_the_shipped_stalls_study_sweeps_four_counts_at_four_players() -> None:
    spec = load_study(Path(__file__).resolve().parent.parent / "data/studies/stalls.toml")
    assert spec.players == (4,) and spec.baseline == "stalls_per_player-16"
    assert [(c.key, c.config.rules.stalls) for c in spec.cells()] == [
        (f"stalls_per_player-{n}-4p", n) for n in (16, 12, 14, 18)]
    assert spec.agents[4] == ("expert",) * 4
    # Every seat's Wilson half-width within ±1.5 pp for a seat share up to 40%.
    assert 1.96 * (0.4 * 0.6 / spec.games[4]) ** 0.5 <= 0.015
