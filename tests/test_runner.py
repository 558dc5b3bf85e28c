"""The runner: identical tables whatever the jobs, chunking or backend; resumes; refuses."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from processes import kill_after_shards

from analysis.load import LoadError
from analysis.load import load_run
from sim.games.portobello.board import load_board
from sim.games.portobello.engines import EngineError
from sim.games.portobello.rules import Rules
from sim.run.runner import Run
from sim.run.runner import RunConfig
from sim.run.runner import RunError
from sim.run.runner import run_lock

BOARD = load_board("standard")


def config(games: int = 120, shard_size: int = 25, players: int = 3, seed: int = 11,
           **kw: object) -> RunConfig:
    return RunConfig(board=BOARD, board_ref="standard", rules=Rules(players=players),
                     agents=("random",) * players, games=games, seed=seed,
                     shard_size=shard_size, **kw)  # type: ignore[arg-type]


def checksum(out: Path, table: str) -> str:
    """sha256 of the table sorted by game (a stable sort keeps each game's event order)."""
    df = load_run(out).lazy(table).collect()
    keys = ["game_id", "seat"] if table == "players" else ["game_id"]
    df = df.sort(keys, maintain_order=True)
    return hashlib.sha256(df.write_ipc(None).getvalue()).hexdigest()


def test_few_dear_shards_are_played_in_pieces_to_the_same_files(tmp_path: Path) -> None:
    """Three shards on two workers: each shard is cut into pieces (about four tasks per
    worker), played apart and put back together before it is written; every file, the
    event log and the records included, is byte for byte the file of one process."""
    conf = config(games=23, shard_size=10, events=True, records=True)
    assert Run(conf, tmp_path).parts([0, 1, 2], workers=2) == 3  # 9 tasks: 3-4 games each
    assert Run(conf, tmp_path).parts([0, 1, 2], workers=1) == 1  # nothing to share
    assert Run(conf, tmp_path).parts(list(range(8)), workers=2) == 1  # shards enough
    Run(conf, tmp_path / "one").execute(jobs=1, quiet=True)
    Run(conf, tmp_path / "two").execute(jobs=2, quiet=True)
    files = sorted(p.relative_to(tmp_path / "one")
                   for p in (tmp_path / "one").rglob("part-*") if "checksums" not in str(p))
    assert len(files) == 12  # 3 shards x games, players, events, records
    for f in files:
        assert (tmp_path / "one" / f).read_bytes() == (tmp_path / "two" / f).read_bytes(), f


def test_jobs_chunking_and_dask_give_identical_tables(tmp_path: Path) -> None:
    one = tmp_path / "one"
    Run(config(events=True), one).execute(jobs=1, quiet=True)
    two = tmp_path / "two"
    Run(config(events=True), two).execute(jobs=2, quiet=True)
    for table in ("games", "players", "events"):
        assert checksum(one, table) == checksum(two, table), table
    # Another shard size stores the same games (run_id differs by design: compare the rest).
    other = tmp_path / "other"
    Run(config(shard_size=7), other).execute(jobs=2, quiet=True)
    a = load_run(one).players().collect().sort(["game_id", "seat"])
    b = load_run(other).players().collect().sort(["game_id", "seat"])
    assert a.equals(b)
    # A Dask cluster on loopback, reached by its scheduler address as a remote one would be.
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        dask = tmp_path / "dask"
        Run(config(events=True), dask).execute(scheduler=cluster.scheduler_address,
                                                quiet=True)
    for table in ("games", "players", "events"):
        assert checksum(one, table) == checksum(dask, table), table
    manifest = json.loads((dask / "manifest.json").read_text())
    assert manifest["timings"]["backend"].startswith("dask@tcp://127.0.0.1")


def test_seats_rotate_and_every_game_is_stored_once(tmp_path: Path) -> None:
    c = RunConfig(board=BOARD, board_ref="standard", rules=Rules(players=3),
                  agents=("random", "random:move_chance=0.5", "random:max_moves=0"),
                  games=60, seed=3, shard_size=25)
    Run(c, tmp_path / "r").execute(quiet=True)
    run = load_run(tmp_path / "r")
    games = run.games().collect()
    assert sorted(games["game_id"].to_list()) == list(range(60))
    players = run.players().collect()
    counts = players.group_by(["agent", "seat"]).len()
    # 60 games, 3 agents, 3 seats: each agent sits in each seat 60 / 3 = 20 times.
    assert counts.height == 9 and set(counts["len"].to_list()) == {20}
    # Win shares of a game sum to 1; a k-way tie gives 1/k to each winner.
    sums = players.group_by("game_id").agg(pl.col("win_share").sum())
    assert (sums["win_share"] - 1).abs().max() < 1e-6
    pdf = run.pandas("players")
    assert len(pdf) == 180 and str(pdf["agent"].dtype) == "category"


def test_killed_run_resumes_to_the_same_tables(tmp_path: Path) -> None:
    out = tmp_path / "killed"
    args = [sys.executable, "-m", "sim.cli", "simulate", "--games", "2000", "--players", "2",
            "--shard-size", "20", "--seed", "5", "--out", str(out), "--quiet"]
    written = kill_after_shards(args, out, 3)
    assert 3 <= written < 100, "the run should have been killed part-way"
    with pytest.raises(LoadError, match="not complete"):
        load_run(out)
    # The same command resumes: finished shards are kept, missing ones are played.
    subprocess.run(args, check=True)
    full = tmp_path / "full"
    subprocess.run([*args[:-3], "--out", str(full), "--quiet", "--jobs", "2"], check=True)
    ids = load_run(out).games().select("game_id").collect()["game_id"]
    assert ids.len() == 2000 and ids.n_unique() == 2000
    for table in ("games", "players"):
        assert checksum(out, table) == checksum(full, table)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["timings"]["games_resumed"] >= 60
    assert not (out / ".lock").exists()


def test_corrupted_and_foreign_shards_are_reported(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    Run(config(), a).execute(quiet=True)
    Run(config(games=50, seed=12), b).execute(quiet=True)
    # A foreign shard (from another run) in a's folder.
    shutil.copy(b / "players" / "part-00001.parquet", a / "players" / "part-00001.parquet")
    with pytest.raises(LoadError, match="belongs to another run"):
        load_run(a).players().collect()
    with pytest.raises(RunError, match="belongs to another run"):
        Run(config(), a).execute(quiet=True)
    # A truncated shard.
    path = a / "players" / "part-00001.parquet"
    path.write_bytes((b / "players" / "part-00000.parquet").read_bytes()[:100])
    with pytest.raises(LoadError, match="damaged"):
        load_run(a).players().collect()
    # The same command plays exactly that shard again and mends the run.
    timings = Run(config(), a).execute(quiet=True)
    assert (timings["games_played"], timings["shards_repaired"]) == (25, 1)
    assert load_run(a).players().collect().height == 120 * 3


def test_other_configuration_on_a_run_folder_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "r"
    Run(config(), out).execute(quiet=True)
    before = {p: p.read_bytes() for p in out.rglob("*.parquet")}
    with pytest.raises(RunError, match=r"different configuration.*seed"):
        Run(RunConfig(board=BOARD, board_ref="standard", rules=Rules(players=3),
                      agents=("random",) * 3, games=120, seed=12, shard_size=25), out).execute(
            quiet=True)
    assert before == {p: p.read_bytes() for p in out.rglob("*.parquet")}
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "notes.txt").write_text("mine")
    with pytest.raises(RunError, match="not empty"):
        Run(config(), junk).execute(quiet=True)
    with pytest.raises(LoadError, match="no manifest"):
        load_run(junk)



def test_a_run_of_the_earlier_format_loads_but_is_never_resumed_or_topped_up(
        tmp_path: Path) -> None:
    """A portobello-run/1 folder was played with the earlier generator: its seeds no longer
    give its games, so finishing it with today's code would mix two kinds of games. It
    loads as it is; resuming and topping up are refused, and no byte of it changes."""
    out = tmp_path / "r"
    Run(config(games=50), out).execute(quiet=True)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["format"] == "portobello-run/2"
    manifest["format"] = "portobello-run/1"
    (out / "manifest.json").write_text(json.dumps(manifest))
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and p.name != ".lock"}
    assert load_run(out).games().collect().height == 50
    for games in (50, 100):
        with pytest.raises(RunError, match=r"portobello-run/1 run.*cannot be resumed or "
                                           r"topped up; use another --out"):
            Run(config(games=games), out).execute(quiet=True)
    assert before == {p: p.read_bytes() for p in out.rglob("*")
                      if p.is_file() and p.name != ".lock"}

def test_lock_refuses_a_second_writer_and_takes_a_dead_ones(tmp_path: Path) -> None:
    out = tmp_path / "r"
    out.mkdir()
    with run_lock(out), pytest.raises(RunError, match="another run is writing"):
        Run(config(), out).execute(quiet=True)
    # A lock left by a process that no longer exists is taken over.
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (out / ".lock").write_text(f"{os.uname().nodename} {dead.pid}")
    Run(config(games=30), out).execute(quiet=True)
    assert load_run(out).games().collect().height == 30


def test_cli_simulate_flags_and_errors(tmp_path: Path) -> None:
    out = tmp_path / "cli"
    res = subprocess.run([sys.executable, "-m", "sim.cli", "simulate", "--players", "4",
                          "--customers", "known", "--neutral-stack", "1,1,2,2,3,3,1,1",
                          "--agents", "random", "--games", "40", "--seed", "9", "--out",
                          str(out), "--records", "--quiet", "--json"],
                         capture_output=True, text=True, check=True)
    info = json.loads(res.stdout)
    assert info["games_played"] == 40
    games = load_run(out).games().collect()
    assert set(games["customer_order"].cast(pl.Utf8)) == {"known"}
    assert set(games["neutral_stack"].cast(pl.Utf8)) == {"1,1,2,2,3,3,1,1"}
    assert set(games["players"].to_list()) == {4}
    bad = subprocess.run([sys.executable, "-m", "sim.cli", "simulate", "--agents", "nosuch",
                          "--out", str(tmp_path / "x")], capture_output=True, text=True)
    assert bad.returncode != 0 and "unknown agent 'nosuch'" in bad.stderr
    assert "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_backend_dask_starts_its_own_local_cluster(tmp_path: Path) -> None:
    Run(config(games=40), tmp_path / "loky").execute(jobs=1, quiet=True)
    Run(config(games=40), tmp_path / "dask").execute(jobs=2, backend="dask", quiet=True)
    for table in ("games", "players"):
        assert checksum(tmp_path / "loky", table) == checksum(tmp_path / "dask", table)


@pytest.mark.parametrize("agents", [("random", "no-bobby(random)", "first-end(random)")])
def test_compiled_and_reference_engines_write_the_same_files(tmp_path: Path,
                                                             agents: tuple[str, ...]) -> None:
    """The compiled path is only faster: every stored file is byte for byte the same."""
    conf = RunConfig(board=BOARD, board_ref="standard", rules=Rules(players=3), agents=agents,
                     games=60, seed=5, shard_size=25, events=True, records=True)
    fast, ref = tmp_path / "fast", tmp_path / "ref"
    t_fast = Run(conf, fast).execute(quiet=True, engine="compiled")
    t_ref = Run(conf, ref).execute(quiet=True, engine="python")
    assert (t_fast["engine"], t_ref["engine"]) == ("compiled", "python")
    files = sorted(p.relative_to(fast) for p in fast.rglob("*") if p.is_file()
                   and p.name != "manifest.json")
    assert len(files) == 5 * conf.n_shards  # four tables and a checksum file per shard
    for rel in files:
        assert (fast / rel).read_bytes() == (ref / rel).read_bytes(), rel


def test_compiled_engine_refuses_agents_without_a_compiled_version(tmp_path: Path) -> None:
    conf = RunConfig(board=BOARD, board_ref="standard", rules=Rules(players=2),
                     agents=("mcts:iterations=5", "random"), games=2, seed=1)
    with pytest.raises(EngineError, match="no compiled version"):
        Run(conf, tmp_path / "x").execute(quiet=True, engine="compiled")
    assert not (tmp_path / "x").exists()


def test_columnar_tables_equal_the_row_by_row_tables() -> None:
    """The runner builds its tables from arrays; they must be the rows `game_row` and
    `player_rows` describe game by game (ties included: several winners share a win)."""
    from sim.games.portobello.agents.registry import make_agent
    from sim.games.portobello.loop import play_game
    from sim.games.portobello.tables import game_row
    from sim.games.portobello.tables import player_rows
    from sim.games.portobello.tables import results_from_games
    from sim.games.portobello.tables import results_tables
    from sim.games.portobello.tables import to_table
    from sim.run.loop import derive_seed

    rules = Rules(players=3, max_rounds=1)  # one round: tied scores are common
    specs = [["random", "greedy", "random"], ["no-bobby(random)", "random", "random"]] * 30
    played = [play_game(BOARD, rules, [make_agent(s) for s in lineup], derive_seed(3, i))
              for i, lineup in enumerate(specs)]
    games = [g for g, _ in played]
    assert any(len(g.winners()) > 1 for g in games)
    ids = list(range(100, 100 + len(games)))
    res = results_from_games(games, [d for _, d in played])
    g_table, p_table = results_tables(res, "abc", ids, [g.seed for g in games], specs, rules,
                                      BOARD.name)
    rows = to_table("games", [game_row(g, "abc", i, BOARD.name) for g, i in zip(games, ids,
                                                                                  strict=True)])
    prow = to_table("players", [r for g, i, s in zip(games, ids, specs, strict=True)
                                for r in player_rows(g, i, s)])
    assert g_table.equals(rows)
    assert p_table.equals(prow)


def test_a_run_played_by_other_code_is_not_resumed(tmp_path: Path) -> None:
    """Finishing a run with changed rules, engine or agents would mix the games of two
    programs: the folder is refused, naming the code, and nothing in it changes."""
    out = tmp_path / "r"
    Run(config(games=50), out).execute(quiet=True)
    manifest = out / "manifest.json"
    data = json.loads(manifest.read_text())
    data["identity"]["play_code"] = "0123456789abcdef"
    manifest.write_text(json.dumps(data))
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(RunError, match=r"different configuration.*play_code: folder has "
                                       r"'0123456789abcdef'"):
        Run(config(games=50), out).execute(quiet=True)
    assert before == {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}


def test_the_manifest_keeps_what_the_games_cost_across_resumes(tmp_path: Path) -> None:
    """`timings` say what the last command did; `cost` adds up every command that played
    games, so a run resumed with nothing to play (a study run again to rebuild its report)
    keeps what it cost."""
    from sim.cli import main

    out = tmp_path / "run"
    args = ["simulate", "--agents", "random", "--shard-size", "20", "--quiet", "--out", str(out)]
    assert main([*args, "--games", "40"]) == 0
    first = json.loads((out / "manifest.json").read_text())
    assert first["cost"]["games_played"] == 40 and first["cost"]["seconds"] > 0
    assert first["cost"]["seconds"] == first["timings"]["seconds"]
    assert main([*args, "--games", "40"]) == 0  # nothing to play
    again = json.loads((out / "manifest.json").read_text())
    assert again["timings"]["games_played"] == 0 and again["cost"] == first["cost"]
    assert main([*args, "--games", "80"]) == 0  # a top-up adds its own
    topped = json.loads((out / "manifest.json").read_text())
    assert topped["cost"]["games_played"] == 80
    assert topped["cost"]["seconds"] == round(first["cost"]["seconds"]
                                              + topped["timings"]["seconds"], 3)
