"""A third game, written for the tests (`tests/dice_race`: a few rules, two agents, its own
material), registered in one line and played through every command that plays games:
`simulate`, `study` with its report, `tune`, `tournament` and `report`, with no file of
the toolkit changed for it (tests/test_game_names.py keeps every game's name out of the
toolkit). What each command must show is derived from the game's rules here:

- The first player of Dice Race moves first with the same die, so with the same agent in
  every seat seat 0 wins more than its fair share: with `steady` (stop at 6 or more) to 20
  points, the first to roll gets, on average, about one more turn of ~6 points by the time
  someone has banked 20 — a clear edge in a few thousand games.
- A start bonus for the later seats (`start`, extra starting points by seat) is the knob a
  fairness tuning turns; the edge shrinks as the second seat's bonus grows.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from analysis.load import load_run
from sim.cli.command import main
from sim.games.registry import EXTRA
from sim.games.registry import kind


@pytest.fixture(autouse=True)
def dice_race(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(EXTRA, "dice_race")  # the one line that registers the game


def test_the_game_is_registered_by_its_package() -> None:
    game = kind("dice-race")
    assert (game.title, game.material, game.players) == ("Dice Race", "die", (2, 4))


def test_simulate_and_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["simulate", "--game", "dice-race", "--players", "2", "--agents", "steady",
                 "--games", "2000", "--seed", "3", "--out", str(out), "--quiet"]) == 0
    run = load_run(out)
    players = run.players().collect()
    games = run.games().collect()
    assert games.height == 2000 and players.height == 4000
    # Every game ends at the target (steady banks every few rolls: 40 turns each is ample),
    # the winner holds at least 20 points, and the scores are start + banked points.
    assert set(games["end_reason"].to_list()) == {"target"}
    winners = players.filter(pl.col("rank") == 1)
    assert winners["score"].min() >= 20
    assert (players["score"] == players["start_points"] + players["banked_points"]).all()
    first = players.filter(pl.col("seat") == 0)["win_share"].mean()
    assert first > 0.53  # the first roller's edge (see the module docstring)
    report = tmp_path / "report"
    assert main(["report", str(out), "--out", str(report)]) == 0
    summary = json.loads((report / "summary.json").read_text())
    assert "Dice Race" in (report / "index.html").read_text()
    assert summary  # the page's figures come from the summary written beside it


def test_a_study_with_its_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "study.toml"
    spec.write_text('name = "dice-target"\ngame = "dice-race"\ndie = "d6"\nplayers = [2, 3]\n'
                    'seed = 5\ngames = 400\nshard_size = 200\nagents = "steady"\n'
                    'sweep = { target = [12, 30] }\n')
    out, report = tmp_path / "out", tmp_path / "report"
    assert main(["study", str(spec), "--out", str(out), "--report", str(report),
                 "--jobs", "1", "--quiet"]) == 0
    for target in (12, 30):
        for n in (2, 3):
            run = load_run(out / "runs" / f"target-{target}-{n}p")
            best = run.players().collect().filter(pl.col("rank") == 1)["score"]
            assert best.min() >= target and run.rules().target == target
    summary = json.loads((report / "summary.json").read_text())
    assert summary["sweep"]["keys"] == ["target"]
    assert 'id="sweep"' in (report / "index.html").read_text()


def test_a_fairness_tuning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "tune.toml"
    spec.write_text('name = "dice-start"\ngame = "dice-race"\ndie = "d6"\nplayers = [2]\n'
                    'agents = "steady"\nseed = 1\n'
                    'knobs = [{switch = "start", seats = "each", low = 0, high = 6}]\n'
                    'search = { budget = 7, games = 400 }\nconfirm = { best = 2, games = 800 }\n')
    out = tmp_path / "tuned"
    code = main(["tune", str(spec), "--out", str(out), "--jobs", "1", "--quiet"])
    cell = json.loads((out / "summary.json").read_text())["cells"][0]
    rec = cell["recommended"]
    assert code == (0 if rec["confirmed"] else 1)
    # The rules as given favour the first roller; the recommendation gives the second seat
    # a bonus (never the first: its knob is the second seat's only), and is fairer.
    assert cell["baseline"]["confirm"]["shares"][0] > 0.5
    assert rec["start"][0] == 0 and rec["start"][1] >= 1
    assert rec["gap"] < cell["baseline"]["confirm"]["gap"]
    assert (out / rec["rules_file"]).read_text().count("start = [0, ") == 1


def test_a_tournament(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`steady` banks once a turn holds 6; `random:stop=1` banks after one roll. On a d6
    whose 1 loses the turn, one roll banks (2+3+4+5+6)/6 = 3.33 points a turn on average,
    and holding at 6 banks E(0) = 5.38 (E(t) = t for t >= 6, else the mean of E(t+f) over
    faces 2-6 and 0 for a 1): steady wins most games, whichever seat it has."""
    out = tmp_path / "tour.parquet"
    assert main(["tournament", "--game", "dice-race", "--agents", "steady,random:stop=1",
                 "--players", "2", "--games", "200", "--out", str(out), "--quiet"]) == 0
    rows = pl.read_parquet(out)
    assert rows.height == 400 and set(rows["end_reason"]) == {"target"}
    per_game = rows.group_by("game").agg(pl.col("agent").sort())
    assert all(a == ["random:stop=1", "steady"] for a in per_game["agent"].to_list())
    share = rows.group_by("agent", "seat").agg(pl.col("win_share").mean())
    steady = share.filter(pl.col("agent") == "steady")["win_share"]
    assert steady.len() == 2 and steady.min() > 0.6


def test_a_listed_facet_that_is_missing_is_one_clear_error() -> None:
    """A game whose kind lists a module that is not there: a GameError naming the game, the
    role and the module, not an import traceback."""
    from dataclasses import replace

    from sim.core.kind import GameError

    game = replace(kind("dice-race"), facets={"session": "dice_race.session"})
    with pytest.raises(GameError, match=r"Dice Race's session module dice_race\.session is "
                                        "missing"):
        game.facet("session")
    with pytest.raises(GameError, match="Dice Race has no view"):
        game.facet("view")
