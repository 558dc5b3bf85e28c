"""Real cells played to a precision (`analysis.study.precision.play_to_precision`) on the
compiled engine: a cell stops at the first look that meets its target, or at its maximum
and says so; a stopped cell is exactly the first games of the fixed-count run; a smaller
maximum grown later, a process killed mid-round and a lost shard all resume to the
uninterrupted result; a folder holding more games than the rule's stop is refused.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from processes import kill_after_shards

from analysis.load import load_run
from analysis.metrics import WinShare
from analysis.study.precision import make_plan
from analysis.study.precision import outcome_line
from analysis.study.precision import play_to_precision
from sim.cli.command import main
from sim.games.portobello.board import load_board
from sim.games.portobello.rules import Rules
from sim.run.runner import Run
from sim.run.runner import RunConfig
from sim.run.runner import RunError

BOARD = load_board("standard")
WIDE = make_plan(0.05, 100, 100, 2000)  # ±5 points: about 385 games at two even seats


def conf(games: int = 100, players: int = 2, seed: int = 5) -> RunConfig:
    return RunConfig(board=BOARD, board_ref="standard", rules=Rules(players=players),
                     agents=("heuristic",) * players, games=games, seed=seed, shard_size=50)


def tables(out: Path) -> dict[str, bytes]:
    """Every table and checksum file of a run folder (not its manifest, which holds
    timings)."""
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*.*")
            if p.is_file() and p.name != "manifest.json"}


def manifest(out: Path) -> dict[str, Any]:
    return json.loads((out / "manifest.json").read_text())


def test_a_cell_stops_at_the_first_look_that_meets_its_target(tmp_path: Path) -> None:
    out, lines = tmp_path / "seq", []
    o = play_to_precision(conf(), WIDE, out, quiet=True, log=lines.append)
    assert o.stopped == "target" and o.games < WIDE.maximum
    assert o.half_width == max(o.half_widths) <= WIDE.target
    assert [x["games"] for x in o.looks] == WIDE.looks()[:len(o.looks)]
    assert all(x["half_width"] > WIDE.target for x in o.looks[:-1])
    # A stopped cell is the fixed-count run of its games, file for file.
    direct = tmp_path / "direct"
    Run(conf(o.games), direct).execute(quiet=True)
    assert tables(out) == tables(direct)
    # The stop, decided again from the report's own win-share table at every look.
    players = load_run(direct).pandas("players").assign(variant="v", n_players=2)
    widest = [WinShare()(players[players["game_id"] < n])["half_width"].max()
              for n in WIDE.looks() if n <= o.games]
    assert np.allclose(widest, [x["half_width"] for x in o.looks])
    assert WIDE.looks()[int(WIDE.stopping_look(np.array(widest) <= WIDE.target))] == o.games
    m = manifest(out)
    assert m["games"] == o.games and m["status"] == "complete"
    assert m["precision"] == o.block() and m["precision"]["target_met"] is True
    assert m["timings"]["games_played"] == o.games
    assert m["timings"]["rounds"] == len(o.looks)
    assert len(lines) == len(o.looks) and lines[-1].endswith("target met, stopping")
    assert "next round to 200 games" in lines[0]
    # The same request again plays nothing and stops at the same look.
    again = play_to_precision(conf(), WIDE, out, quiet=True)
    assert again.games == o.games and again.looks == o.looks
    assert again.timings["games_played"] == 0


def test_a_cell_that_cannot_meet_its_target_stops_at_its_maximum(tmp_path: Path) -> None:
    plan = make_plan(0.02, 100, 100, 300)
    out = tmp_path / "capped"
    o = play_to_precision(conf(), plan, out, quiet=True)
    assert o.stopped == "maximum" and o.games == 300 and o.half_width > 0.02
    assert [x["games"] for x in o.looks] == [100, 200, 300]
    block = manifest(out)["precision"]
    assert block["stopped"] == "maximum" and block["target_met"] is False
    assert block["max_games"] == 300 and block["games"] == 300
    assert "NOT met" in outcome_line(block) and "maximum of 300 games" in outcome_line(block)


def test_a_smaller_maximum_grown_later_gives_the_uninterrupted_result(tmp_path: Path) -> None:
    grown, whole = tmp_path / "grown", tmp_path / "whole"
    small = play_to_precision(conf(), make_plan(0.05, 100, 100, 200), grown, quiet=True)
    assert small.stopped == "maximum" and small.games == 200
    later = play_to_precision(conf(), WIDE, grown, quiet=True)
    direct = play_to_precision(conf(), WIDE, whole, quiet=True)
    assert later.games == direct.games > 200 and later.looks == direct.looks
    assert tables(grown) == tables(whole)
    assert later.timings["games_resumed"] == 200
    assert later.timings["games_played"] == direct.games - 200
    assert manifest(grown)["precision"] == manifest(whole)["precision"]


def test_a_killed_round_or_a_lost_shard_resumes_to_the_same_result(tmp_path: Path) -> None:
    """A real `portobello simulate` killed part-way through its rounds, then the same
    command again; then its last shard deleted and the command again: both times the
    folder ends exactly as an uninterrupted run's."""
    flags = ["simulate", "--players", "2", "--seed", "5", "--shard-size", "50", "--games",
             "100", "--round-games", "300", "--target-half-width", "0.03", "--max-games",
             "3000", "--quiet"]
    out, full = tmp_path / "killed", tmp_path / "full"
    written = kill_after_shards([sys.executable, "-m", "sim.cli", *flags, "--out", str(out)],
                                out, 4)
    assert written >= 4
    assert main([*flags, "--out", str(full)]) == 0
    block = manifest(full)["precision"]
    assert block["stopped"] == "target" and block["games"] > 100
    assert written < block["games"] // 50, "the run should have been killed part-way"
    assert manifest(out)["precision"]["status"] == "running"
    assert main([*flags, "--out", str(out)]) == 0
    assert tables(out) == tables(full)
    assert manifest(out)["precision"] == block
    last = block["games"] // 50 - 1
    for table in ("games", "players", "checksums"):
        next((out / table).glob(f"part-{last:05d}.*")).unlink()
    assert main([*flags, "--out", str(out)]) == 0
    assert tables(out) == tables(full)
    assert manifest(out)["precision"] == block
    assert manifest(out)["timings"]["games_played"] == 50


def test_a_folder_holding_more_than_the_rule_stops_at_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "fixed"
    Run(conf(600), out).execute(quiet=True)
    before, kept = tables(out), manifest(out)
    with pytest.raises(RunError, match="holds 600 games of this configuration, more than "
                                       "the maximum of 500"):
        play_to_precision(conf(), make_plan(0.05, 100, 100, 500), out, quiet=True)
    with pytest.raises(RunError, match="more than the 400 at which this precision rule "
                                       "stops"):
        play_to_precision(conf(), WIDE, out, quiet=True)
    assert tables(out) == before
    assert "precision" not in manifest(out) and manifest(out)["games"] == kept["games"]


# -- studies and their reports ------------------------------------------------------------
def study_spec(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "prec", "players": [2, 3], "agents": "heuristic", "games": 100, "seed": 5,
        "shard_size": 50, "events": False, "target_half_width": 0.05,
        "max_games": {"2": 2000, "3": 300}, "round_games": 100,
        "variants": [{"name": "standard"}]}
    base.update(changes)
    return base


def test_a_study_plays_each_cell_to_its_precision_and_reports_it(tmp_path: Path) -> None:
    from analysis.report import build_report
    from analysis.study import StudyError
    from analysis.study import open_study
    from analysis.study import run_study
    from analysis.study import study_from_dict

    spec = study_from_dict(study_spec())
    out, lines = tmp_path / "study", []
    results = run_study(spec, out, quiet=True, log=lines.append)
    assert [r.error for r in results] == [None, None]
    study = json.loads((out / "study.json").read_text())
    blocks = [c["precision"] for c in study["cells"]]
    # Two players meet ±5 points near 400 games; three cannot in their maximum of 300.
    assert [b["stopped"] for b in blocks] == ["target", "maximum"]
    assert blocks[0]["games"] < 2000 and blocks[1]["games"] == 300
    assert study["spec"]["precision"]["3"]["max_games"] == 300
    assert any(line.startswith("standard-2p: rounds from 100 up to 2000 games")
               for line in lines)
    assert lines[-1].startswith("standard-3p: 300 games: widest seat ±")
    assert lines[-1].endswith("target ±5.00 pp: maximum reached, stopping")
    # Each cell's run is the fixed-count run of its games, whatever the other cell did.
    direct = tmp_path / "direct"
    Run(dataclasses.replace(spec.cells()[0].config, games=blocks[0]["games"]),
        direct).execute(quiet=True)
    assert tables(out / "runs" / "standard-2p") == tables(direct)
    # Again: nothing is played.
    again = run_study(spec, out, quiet=True)
    assert [r.timings["games_played"] for r in again] == [0, 0]
    assert blocks[0]["games"] == 400  # seed 5: the stop the other tests of this file see
    assert [r.precision == b for r, b in zip(again, blocks, strict=True)] == [True, True]
    # A maximum below what a cell holds is refused before anything is written.
    before = tables(out / "runs" / "standard-2p")
    with pytest.raises(StudyError, match="holds 400 games of this configuration in cell "
                                         "standard-2p, more than the 200 asked"):
        run_study(study_from_dict(study_spec(max_games={"2": 200, "3": 300})), out,
                  quiet=True)
    assert tables(out / "runs" / "standard-2p") == before

    page = build_report(open_study(out), tmp_path / "report")
    summary = json.loads((page.parent / "summary.json").read_text())
    prec = summary["precision"]
    assert prec["rule"].startswith("sequential fixed-width rule (wilson-width/1)")
    assert prec["coverage"]["lowest"] >= 0.94
    rows = {r["n_players"]: r for r in prec["cells"]}
    assert rows[2]["stopped"] == "target" and rows[3]["stopped"] == "maximum"
    for n, b in zip((2, 3), blocks, strict=True):
        assert rows[n]["games"] == b["games"] and rows[n]["max_games"] == b["max_games"]
        # The precision shown is the report's own widest interval, the one the rule judged.
        assert rows[n]["half_width"] == pytest.approx(b["half_width"], abs=1e-9)
        assert rows[n]["recorded_half_width"] == b["half_width"]
    widest = {n: max(r["half_width"] for r in summary["win_shares"] if r["n_players"] == n)
              for n in (2, 3)}
    assert widest[2] == pytest.approx(rows[2]["half_width"], abs=1e-9)  # JSON: 10 digits
    assert widest[2] <= 0.05 < widest[3]
    found = [f for f in summary["findings"] if f["text"].startswith("Precision on demand")]
    assert len(found) == 1 and found[0]["significant"] is False
    assert "1 of 2 cells met their target" in found[0]["text"]
    assert "3 players, standard stopped at its maximum of 300 games" in found[0]["text"]
    html = page.read_text()
    assert "<h3>Precision on demand</h3>" in html and "at the maximum" in html
    assert "wilson-width/1" in html


def test_a_study_without_max_games_plays_fixed_games_as_before(tmp_path: Path) -> None:
    from analysis.report.content import analyse
    from analysis.report.content import summary
    from analysis.report.tables import display_tables
    from analysis.study import load_study
    from analysis.study import open_study
    from analysis.study import run_study
    from analysis.study import study_from_dict

    shipped = load_study(Path(__file__).resolve().parents[1] / "data/studies/"
                         "customer-order.toml")
    assert shipped.precision is None and shipped.target_half_width == 0.015
    assert [c.config.games for c in shipped.cells()] == [4400, 4500, 4400] * 2
    assert shipped.to_dict()["precision"] is None
    # --games N makes any study a fixed count (a quick, reduced run).
    assert study_from_dict(study_spec()).with_overrides(games=50).precision is None

    fixed = {k: v for k, v in study_spec(players=[2], agents="random", games=60).items()
             if k not in ("max_games", "round_games")}
    out = tmp_path / "fixed"
    run_study(study_from_dict(fixed), out, quiet=True)
    cell = json.loads((out / "study.json").read_text())["cells"][0]
    assert cell["games"] == 60 and cell["precision"] is None
    assert "precision" not in manifest(out / "runs" / "standard-2p")
    a = analyse(open_study(out))
    assert "precision" not in display_tables(a)
    assert not any(f.text.startswith("Precision on demand") for f in a.findings)
    block = summary(a)["precision"]
    assert block["rule"] is None and block["coverage"] is None
    assert [(c["mode"], c["games"], c["stopped"]) for c in block["cells"]] == [
        ("fixed", 60, None)]
    # A damaged or hand-edited block is read as none: the cell is reported from its games.
    path = out / "runs" / "standard-2p" / "manifest.json"
    for bad in ({"target_half_width": 2, "first_games": 1, "round_games": 1, "max_games": 1},
                {"target_half_width": 0.05, "first_games": 10, "round_games": 10,
                 "max_games": "many"},
                {"target_half_width": 0.05, "first_games": 10, "round_games": 10,
                 "max_games": 60, "status": "complete", "stopped": "bored"}, "text"):
        path.write_text(json.dumps({**manifest(out / "runs" / "standard-2p"),
                                    "precision": bad}))
        rows = summary(analyse(open_study(out)))["precision"]["cells"]
        assert [r["mode"] for r in rows] == ["fixed"], bad


# -- the command line -----------------------------------------------------------------------
def test_simulate_to_a_precision_prints_each_round_and_the_precision_reached(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    flags = ["simulate", "--players", "2", "--seed", "5", "--shard-size", "50", "--games",
             "100", "--round-games", "100", "--target-half-width", "0.05", "--max-games",
             "2000"]
    assert main([*flags, "--out", str(tmp_path / "a")]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].startswith("400 games of 2 players (400 played")
    assert lines[2].startswith("precision: every seat within ±4.")
    assert lines[2].endswith("target ±5.00 pp met after 400 games (maximum 2,000)")
    assert lines[3] == f"run folder: {tmp_path / 'a'}"
    rounds = [x for x in err.splitlines() if " games: widest seat ±" in x]
    assert [x.split(" ")[0] for x in rounds] == ["100", "200", "300", "400"]
    assert rounds[-1].endswith("target met, stopping")
    assert main([*flags, "--out", str(tmp_path / "b"), "--json", "--quiet"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["precision"]["games"] == 400 and data["precision"]["stopped"] == "target"
    assert data["games_played"] == 400 and data["rounds"] == 4
    assert " games: widest seat ±" not in err
    assert tables(tmp_path / "a") == tables(tmp_path / "b")
