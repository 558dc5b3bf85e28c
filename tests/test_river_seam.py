"""The game seam: River Market through the runner, storage, tables, studies and reports
(`sim.games.registry`), with Portobello Market's runs unchanged.

What is derived by hand:
- a seat's score is its five scoring parts (rulebook, Scoring 1-5: Events, Booths,
  Helpers, leftover Coins, leftover Goods) added up, for every seat of every game;
- a game ended by the houses (Game End: "the first player to place their last house")
  has a seat with no house left; every seat placed at most its houses (5, or 4 in the
  shorter game);
- `rounds` is the turns around the table: ceil(turns / players);
- the win share: a k-way tie for the best score gives each winner 1/k, so each game's
  shares add up to 1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from bad_input import cli_fails

from analysis.load import load_run
from analysis.study import StudyError
from analysis.study import study_from_dict
from sim.cli.command import main
from sim.games.portobello.board import load_board
from sim.games.portobello.rules import Rules
from sim.games.river.cards import load_cards
from sim.games.river.kind import NAME as RIVER
from sim.games.river.play import RES_SCORES
from sim.games.river.play import play
from sim.games.river.rules import RiverRules
from sim.games.river.tables import build_tables
from sim.run.config import RunConfig
from sim.run.runner import Run


def river_config(games: int = 240, players: int = 3, shard_size: int = 50,
                 agents: str = "greedy", houses: int | None = None) -> RunConfig:
    return RunConfig(board=load_cards(), board_ref="river-market",
                     rules=RiverRules(players=players, houses=houses),
                     agents=(agents,) * players, games=games, seed=11,
                     shard_size=shard_size, game=RIVER)


def test_a_river_run_holds_the_batches_games(tmp_path: Path) -> None:
    config = river_config()
    Run(config, tmp_path / "r").execute(jobs=1, quiet=True)
    run = load_run(tmp_path / "r")
    assert run.game == RIVER and run.board().content_hash == load_cards().content_hash
    assert run.rules() == config.rules
    games = run.games().collect().sort("game_id")
    players = run.players().collect().sort("game_id", "seat")
    # The same games as the batches play from the same seeds and seats.
    seeds = np.array([config.game_seed(i) for i in range(config.games)], np.uint64)
    out = play(build_tables(load_cards(), config.rules), seeds,
               [config.seats(i) for i in range(config.games)])
    assert players["score"].to_numpy().tolist() == out[:, RES_SCORES:].ravel().tolist()
    assert games["seed"].to_numpy().astype(np.uint64).tolist() == seeds.tolist()
    # A score is its five parts added up.
    parts = ["event_points", "booth_points", "helper_points", "coin_points", "goods_points"]
    assert (players.select(pl.sum_horizontal(parts)).to_series() == players["score"]).all()
    assert players["event_points"].sum() > 0 and players["booth_points"].sum() > 0
    # Ended by the houses: someone has none left; nobody placed more than they had.
    assert set(games["end_reason"].to_list()) == {"houses"}
    fewest = players.group_by("game_id").agg(pl.col("houses_left").min())
    assert (fewest["houses_left"] == 0).all()
    assert players["houses_left"].max() <= 5 and (games["houses"] == 5).all()
    assert (games["rounds"] == (games["turns"] + 2) // 3).all()
    shares = players.group_by("game_id").agg(pl.col("win_share").sum())
    assert np.allclose(shares["win_share"].to_numpy(), 1.0)
    winners = games.select(pl.col("winners").list.len())["winners"].to_numpy()
    best = players.group_by("game_id", maintain_order=True).agg(
        (pl.col("score") == pl.col("score").max()).sum().alias("n"))
    assert winners.tolist() == best["n"].to_list()


def test_same_tables_whatever_the_jobs_backend_and_resumable(tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="needs dask.distributed (cluster extra)")
    one, two, dask = tmp_path / "one", tmp_path / "two", tmp_path / "dask"
    Run(river_config(), one).execute(jobs=1, quiet=True)
    Run(river_config(), two).execute(jobs=2, quiet=True)
    Run(river_config(), dask).execute(jobs=2, backend="dask", quiet=True)
    for table in ("games", "players"):
        a = sorted((one / table).iterdir())
        for other in (two, dask):
            b = sorted((other / table).iterdir())
            assert [p.read_bytes() for p in a] == [p.read_bytes() for p in b]
    # A shard lost is played again, the same bytes.
    lost = one / "players" / a[0].name
    kept = lost.read_bytes()
    lost.unlink()
    Run(river_config(), one).execute(jobs=1, quiet=True)
    assert lost.read_bytes() == kept


def test_the_shorter_game_and_its_identity(tmp_path: Path) -> None:
    short = river_config(games=60, houses=4)
    Run(short, tmp_path / "s").execute(jobs=1, quiet=True)
    run = load_run(tmp_path / "s")
    assert (run.games().collect()["houses"] == 4).all()
    assert run.players().collect()["houses_left"].max() <= 4
    assert short.run_id != river_config(games=60).run_id
    assert short.identity()["game"] == RIVER
    # Another game's run in the folder is refused, naming what differs.
    with pytest.raises(Exception, match="different configuration"):
        Run(river_config(games=60), tmp_path / "s").execute(jobs=1, quiet=True)


def test_portobello_identity_has_no_game_key() -> None:
    config = RunConfig(board=load_board("standard"), board_ref="standard",
                       rules=Rules(players=2), agents=("random", "random"), games=10, seed=1)
    assert "game" not in config.identity()
    assert config.payload()["game"] == "portobello-market"
    assert RunConfig.from_payload(config.payload()).run_id == config.run_id


def test_simulate_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["simulate", "--game", "river-market", "--players", "4", "--games", "80",
                 "--shard-size", "40", "--preset", "short", "--out", str(out), "--quiet",
                 "--json"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["games_played"] == 80
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["game"] == RIVER and manifest["rules"]["houses"] == 4
    assert manifest["agents"] == ["heuristic"] * 4 and manifest["board"]["name"] == "river-market"


@pytest.mark.parametrize(("argv", "field", "reason"), [
    (["--customers", "known"], "--customers", "Portobello Market's"),
    (["--events"], "--events", "Portobello Market's"),
    (["--records"], "--records", "Portobello Market's"),
    (["--engine", "python"], "--engine", "own compiled batches"),
    (["--agents", "heuristicx"], "agents", "unknown River Market agent"),
    (["--players", "6"], "--players", "2 to 5 players"),
    (["--preset", "known-order"], "preset", "unknown River Market preset"),
    (["--cards", "no-such-cards"], None, "no such card-set file"),
    (["--board", "mini"], "--board", "no board"),
])
def test_bad_river_runs_are_one_line(argv: list[str], field: str | None, reason: str,
                                     tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    line = cli_fails(capsys, ["simulate", "--game", "river-market", "--games", "10",
                              "--out", str(out), *argv], 1)
    assert reason in line, line
    if field is not None:
        assert field in line, line
    assert not out.exists()


def test_cards_are_river_markets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = cli_fails(capsys, ["simulate", "--cards", "river-market", "--games", "10",
                              "--out", str(tmp_path / "x")], 1)
    assert "--cards" in line and "River Market's" in line


# -- studies -------------------------------------------------------------------------------
def river_spec(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "tiny-river", "game": "river-market", "players": [2, 5], "seed": 3,
        "games": 40, "shard_size": 20, "events": False,
        "skill": [{"name": "random", "agents": "random"},
                  {"name": "greedy", "agents": "greedy"}],
        "variants": [{"name": "standard", "preset": "standard"},
                     {"name": "short", "preset": "short"}]}
    base.update(changes)
    return base


@pytest.mark.parametrize(("changes", "field", "reason"), [
    ({"game": "chess"}, "game", "unknown game 'chess'"),
    ({"board": "standard"}, "board", "River Market has no board"),
    ({"cards": "no-such-set"}, "cards", "no such card-set file"),
    ({"players": [2, 6]}, "players", "from 2 to 5"),
    ({"skill": [{"name": "a", "agents": "heuristicx"}, {"name": "b", "agents": "random"}]},
     "skill", "unknown River Market agent"),
    ({"variants": [{"name": "a", "preset": "known-order"}]}, "variants[0].preset",
     "unknown preset 'known-order'"),
    ({"variants": [{"name": "a", "rules": {"stalls_per_player": 3}}]},
     "variants[0].rules.stalls_per_player", "unknown rules switch"),
    ({"variants": [{"name": "a", "rules": {"houses": 0}}]}, "variants[0]",
     "houses: must be a whole number from 1 to 10"),
    ({"variants": [{"name": "a", "board": "standard"}]}, "variants[0].board", "no board"),
    ({"sweep": {"houses": [3]}}, "sweep.houses", "at least two values"),
    ({"sweep": {"customer_order": ["drawn", "known"]}}, "sweep.customer_order",
     "unknown rules switch"),
])
def test_bad_river_studies(changes: dict[str, Any], field: str, reason: str) -> None:
    with pytest.raises(StudyError) as err:
        study_from_dict(river_spec(**changes), source="r.toml")
    msg = err.value.message
    assert msg.startswith(f"r.toml: {field}"), msg
    assert reason in msg and "\n" not in msg, msg


def test_portobello_study_refuses_cards() -> None:
    spec = {"name": "p", "players": [2], "agents": "random", "games": 4, "seed": 1,
            "variants": [{"name": "standard"}], "cards": "river-market"}
    with pytest.raises(StudyError, match="cards: a card set is River Market's"):
        study_from_dict(spec, source="p.toml")


def test_a_river_study_and_its_report(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "river.toml"
    spec = river_spec()
    lines = [f"{k} = {json.dumps(v)}" for k, v in spec.items()
             if k not in ("skill", "variants")]
    lines.append("skill = [" + ", ".join(
        f'{{name = "{lv["name"]}", agents = "{lv["agents"]}"}}' for lv in spec["skill"]) + "]")
    for v in spec["variants"]:
        lines += ["[[variants]]", f'name = "{v["name"]}"', f'preset = "{v["preset"]}"']
    path.write_text("\n".join(lines) + "\n")
    out, report = tmp_path / "study", tmp_path / "report"
    assert main(["study", str(path), "--out", str(out), "--report", str(report),
                 "--jobs", "1", "--quiet"]) == 0
    capsys.readouterr()
    cells = sorted(p.name for p in (out / "runs").iterdir() if p.is_dir())
    assert cells == sorted(f"{v}-{lv}-{n}p" for v in ("standard", "short")
                           for lv in ("random", "greedy") for n in (2, 5))
    houses = {json.loads((out / "runs" / c / "manifest.json").read_text())["rules"]["houses"]
              for c in cells if c.startswith("short")}
    assert houses == {4}
    summary = json.loads((report / "summary.json").read_text())
    fp = {(r["n_players"], r["variant"]): r for r in summary["first_player"]}
    # The strongest level's first-player share, as the run's own table gives it.
    own = load_run(out / "runs" / "standard-greedy-5p").players().collect()
    share = own.filter(pl.col("seat") == 0)["win_share"].mean()
    assert fp[(5, "standard")]["share"] == pytest.approx(share, abs=1e-6)
    assert summary["calibration"] == []
    html = (report / "index.html").read_text()
    assert "Cards <b>river-market</b>" in html
    assert "Events attended" in html and 'id="districts"' not in html
    assert 'id="calibration"' not in html and 'id="skill"' in html
    measures = {c["measure"] for c in summary["comparisons"]}
    assert "Event points per player" in measures and "lane points per player" not in measures


def test_a_report_on_plain_river_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    """Runs of two River Market rules readings are two variants, named by what differs;
    a River Market run beside a Portobello Market one is refused in one line."""
    std, short = tmp_path / "std", tmp_path / "short"
    Run(river_config(games=90), std).execute(jobs=1, quiet=True)
    Run(river_config(games=90, houses=4), short).execute(jobs=1, quiet=True)
    report = tmp_path / "report"
    assert main(["report", str(std), str(short), "--out", str(report)]) == 0
    capsys.readouterr()
    summary = json.loads((report / "summary.json").read_text())
    assert {r["variant"] for r in summary["first_player"]} == {"standard", "houses=4"}
    rows = [c for c in summary["comparisons"] if c["measure"] == "seat 0 win share"]
    assert len(rows) == 1 and rows[0]["variant"] == "houses=4"
    other = tmp_path / "portobello"
    config = RunConfig(board=load_board("standard"), board_ref="standard",
                       rules=Rules(players=3), agents=("random",) * 3, games=6, seed=1)
    Run(config, other).execute(jobs=1, quiet=True)
    line = cli_fails(capsys, ["report", str(std), str(other), "--out",
                              str(tmp_path / "mixed")], 1)
    assert "runs of different games" in line




def test_a_river_sweep(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A sweep of River Market's houses: one variant per value, each value's games played
    with that many houses, the report's sweep section drawn from River Market's sources."""
    spec = tmp_path / "sweep.toml"
    spec.write_text('name = "houses"\ngame = "river-market"\nplayers = [3]\nseed = 2\n'
                    'games = 60\nshard_size = 30\nagents = "greedy"\n'
                    'sweep = { houses = [3, 4, 5] }\n')
    out, report = tmp_path / "out", tmp_path / "report"
    assert main(["study", str(spec), "--out", str(out), "--report", str(report),
                 "--jobs", "1", "--quiet"]) == 0
    capsys.readouterr()
    for houses in (3, 4, 5):
        games = load_run(out / "runs" / f"houses-{houses}-3p").games().collect()
        assert (games["houses"] == houses).all()
    summary = json.loads((report / "summary.json").read_text())
    assert summary["sweep"]["keys"] == ["houses"]
    html = (report / "index.html").read_text()
    assert 'id="sweep"' in html and "<th>events</th>" in html and "<th>lanes</th>" not in html
