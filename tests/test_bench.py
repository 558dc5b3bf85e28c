"""`portobello bench` and `sim.bench`: every figure is checked against a separate count or
measurement (games and decisions counted again, files sized, playouts counted, the call
timed from outside), and bad input is refused in one line with exit status 2.

No speed is asserted: benchmarks run on demand. Where a reported time is compared with one
taken around the call, only the containment (the measured part lies inside the call) or a
wide factor is checked, never a threshold in seconds.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from sim.bench import agents as bench_agents_mod
from sim.bench import load as bench_load
from sim.bench.agents import bench_agents
from sim.bench.mcts import bench_mcts
from sim.bench.mcts import mcts_positions
from sim.cli import bench as bench_cli
from sim.cli.command import main
from sim.games.portobello.agents.registry import make_agent
from sim.games.portobello.board import load_board
from sim.games.portobello.loop import play_game
from sim.games.portobello.rules import Rules
from sim.run.runner import RunConfig

REPO = Path(__file__).resolve().parents[1]
GAMES = 20


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A complete 20-game, 2-player run in 4 shards."""
    out = tmp_path_factory.mktemp("bench") / "run"
    assert main(["simulate", "--games", str(GAMES), "--shard-size", "5", "--out", str(out),
                 "--quiet", "--engine", "python"]) == 0
    return out


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # one JSON object on one line
    return json.loads(out)


def _sizes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.glob("part-*"))


def _rows(folder: Path) -> int:
    return sum(pq.read_metadata(f).num_rows for f in folder.glob("part-*.parquet"))


# -- disk -------------------------------------------------------------------------------------
def test_disk_bytes_per_game_are_file_sizes_over_games(
        run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from analysis.load import load_run

    d = _json(capsys, ["bench", "disk", str(run_dir), "--json"])
    assert d["games"] == GAMES == load_run(run_dir).games().collect().height
    assert d["players"] == 2 and d["shards"] == 4
    assert set(d["tables"]) == {"games", "players"}
    for table, t in d["tables"].items():
        assert t["files"] == len(list((run_dir / table).glob("part-*"))) == 4
        assert t["bytes"] == _sizes(run_dir / table)
        assert t["bytes_per_game"] == pytest.approx(_sizes(run_dir / table) / GAMES, abs=0.005)
    both = _sizes(run_dir / "games") + _sizes(run_dir / "players")
    assert d["games_players_bytes"] == both
    assert d["games_players_bytes_per_game"] == pytest.approx(both / GAMES, abs=0.005)
    assert d["manifest_bytes"] == (run_dir / "manifest.json").stat().st_size
    assert d["within_target"] == (both / GAMES <= d["target_bytes_per_game"])
    # The human table shows the same figures.
    assert main(["bench", "disk", str(run_dir)]) == 0
    text = capsys.readouterr().out
    assert f"{GAMES} games" in text and f"{both:,d}" in text


# -- load -------------------------------------------------------------------------------------
def test_load_reports_seconds_and_peak_memory_of_a_child(
        run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start = time.perf_counter()
    r = _json(capsys, ["bench", "load", str(run_dir), "--json"])
    outside = time.perf_counter() - start
    # The child counted the rows that are on disk.
    assert r["games"] == _rows(run_dir / "games") == GAMES
    assert r["player_rows"] == _rows(run_dir / "players") == 2 * GAMES
    assert list(r["steps"]) == [name for name, _ in bench_load.summary_steps()]
    assert r["summarise_seconds"] == pytest.approx(sum(r["steps"].values()), abs=1e-3)
    assert r["total_seconds"] == pytest.approx(r["load_seconds"] + r["summarise_seconds"],
                                               abs=1e-3)
    assert all(v >= 0 for v in (r["import_seconds"], r["load_seconds"], *r["steps"].values()))
    # What the child timed lies inside its life as the parent saw it, inside the command.
    inside = r["import_seconds"] + r["load_seconds"] + r["summarise_seconds"]
    assert inside <= r["child_wall_seconds"] + 1e-3 <= outside + 2e-3
    # The child's own peak, at least what it saw itself after loading.
    assert r["peak_rss_mb"] >= r["rss_after_load_mb"] >= r["rss_after_imports_mb"] > 0
    assert main(["bench", "load", str(run_dir)]) == 0
    text = capsys.readouterr().out
    assert "peak memory" in text and "margins" in text


def test_load_steps_are_the_tables_a_report_computes(run_dir: Path) -> None:
    from analysis.report import analyse
    from analysis.study import cells_from_runs

    tables = set(analyse(cells_from_runs([run_dir])).tables)
    # margins_games (one row per game) is folded into the margins step; precision reads the
    # cells' manifests (where a cell played to a precision stopped), not the tables.
    assert tables - {"margins_games", "precision"} == {
        name for name, _ in bench_load.summary_steps()}


def test_load_games_makes_the_run_once_then_reuses_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = bench_load.ensure_load_run(12)
    assert out == Path("data/runs/bench-load-12")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["games"] == 12
    assert manifest["agents"] == ["random"] * 3 and manifest["timings"]["jobs"] == 2
    assert _rows(out / "games") == 12 and _rows(out / "players") == 36
    # The run `portobello simulate --agents random --players 3 --games 12` makes.
    from sim.cli.command import build_parser
    from sim.cli.simulate import config_from_flags

    args = build_parser().parse_args(["simulate", "--agents", "random", "--players", "3",
                                      "--games", "12"])
    assert manifest["run_id"] == config_from_flags(args).run_id
    stamp = (out / "manifest.json").stat().st_mtime_ns
    assert bench_load.ensure_load_run(12) == out
    assert (out / "manifest.json").stat().st_mtime_ns == stamp


# -- simulate ---------------------------------------------------------------------------------
def test_simulate_runs_hold_the_games_the_bench_claims(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each entry's run folder holds exactly the run's games (ids, seeds, players); the
    rates times the seconds give back the games played and the decisions the runner counted;
    each entry's time contains the runner's own and lies inside the command's."""
    out = tmp_path / "sim"
    start = time.perf_counter()
    r = _json(capsys, ["bench", "simulate", "--games", str(GAMES), "--shard-size", "5",
                       "--players", "3", "--jobs-list", "1,2", "--out", str(out), "--json",
                       "--", "--engine", "python"])  # flags after -- are still taken
    outside = time.perf_counter() - start
    config = RunConfig(board=load_board("standard"), board_ref="standard",
                       rules=Rules(players=3), agents=("random",) * 3, games=GAMES, seed=0,
                       shard_size=5)
    assert r["games"] == GAMES and r["players"] == 3 and r["agents"] == ["random"] * 3
    assert (r["shard_size"], r["seed"]) == (5, 0)
    assert [e["jobs"] for e in r["runs"]] == [1, 2]
    assert [e["engine"] for e in r["runs"]] == ["python", "python"]
    runs = [out / "0-jobs-1", out / "1-jobs-2"]
    assert [e["out"] for e in r["runs"]] == [str(p) for p in runs]
    games = [pq.read_table(p / "games").to_pandas() for p in runs]
    for run, table, e in zip(runs, games, r["runs"], strict=True):
        manifest = json.loads((run / "manifest.json").read_text())
        assert manifest["run_id"] == config.run_id and manifest["timings"]["jobs"] == e["jobs"]
        assert sorted(table["game_id"]) == list(range(GAMES))
        assert dict(zip(table["game_id"], table["seed"], strict=True)) == {
            i: config.game_seed(i) for i in range(GAMES)}
        assert set(table["players"]) == {3} and _rows(run / "players") == 3 * GAMES
        assert e["games_per_second"] * e["seconds"] == pytest.approx(len(table), rel=0.01)
        decisions = manifest["timings"]["decisions"]
        assert e["decisions_per_second"] * e["seconds"] == pytest.approx(decisions, rel=0.01)
        assert manifest["timings"]["seconds"] <= e["seconds"] + 1e-3
    assert sum(e["seconds"] for e in r["runs"]) <= outside
    # Both entries played the same games.
    assert games[0].drop(columns="run_id").equals(games[1].drop(columns="run_id"))
    first = r["runs"][0]["games_per_second"]
    for e in r["runs"]:
        assert e["ratio_to_first"] == pytest.approx(e["games_per_second"] / first, abs=0.001)
    # Bytes per game come from the first entry's run folder.
    disk = r["disk"]
    assert disk["run"] == str(runs[0]) and disk["games"] == GAMES
    for table in ("games", "players"):
        assert disk["tables"][table]["bytes"] == _sizes(runs[0] / table)
    both = _sizes(runs[0] / "games") + _sizes(runs[0] / "players")
    assert disk["games_players_bytes_per_game"] == pytest.approx(both / GAMES, abs=0.005)
    # The same --out again is refused (it would only resume the finished runs).
    assert main(["bench", "simulate", "--games", "5", "--out", str(out)]) == 2
    assert "give a new --out" in capsys.readouterr().err


def test_simulate_uses_the_runner_not_the_command_line() -> None:
    """sim.bench sits below sim.cli: no module of it imports the command line."""
    for path in sorted((REPO / "sim" / "bench").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n == "sim.cli" or n.startswith("sim.cli.") for n in names), path


# -- agents -----------------------------------------------------------------------------------
def _reference_decisions(specs: list[list[str]], seeds: list[int]) -> int:
    """Decisions of these games played again, one fresh agent per seat."""
    board, rules = load_board("standard"), Rules(players=len(specs[0]))
    return sum(play_game(board, rules, [make_agent(s, seed=k) for k, s in enumerate(lineup)],
                         seed)[1] for lineup, seed in zip(specs, seeds, strict=True))


def test_agents_bench_plays_the_games_it_claims() -> None:
    """The reference engine: decisions counted again by replaying the games, per agent and
    in all; the rate of the games over the time of the whole call, within a factor."""
    board, rules = load_board("standard"), Rules(players=3)
    specs = ["greedy", "random", "random"]
    start = time.perf_counter()
    r = bench_agents(board, rules, specs, GAMES, seed=4, engine="python")
    outside = time.perf_counter() - start
    seeds = bench_agents_mod.game_seeds(4, GAMES)
    assert r["engine"] == "python" and r["games"] == GAMES and r["agents"] == specs
    assert r["decisions"] == _reference_decisions([specs] * GAMES, seeds)
    assert sum(e["decisions"] for e in r["per_agent"].values()) == r["decisions"]
    assert set(r["per_agent"]) == {"greedy", "random"}
    assert r["seconds"] <= outside
    assert GAMES / outside <= r["games_per_second"] * 1.01
    assert r["games_per_second"] <= 4 * GAMES / outside  # the loop is nearly all the call
    # The rate is decisions over the unrounded time; `seconds` is rounded to 0.1 ms, which
    # on a fast run is more than 1% of it, so allow that rounding too.
    assert r["decisions_per_second"] * r["seconds"] == pytest.approx(
        r["decisions"], rel=0.01, abs=r["decisions_per_second"] * 0.00005)
    thinking = sum(e["seconds"] for e in r["per_agent"].values())
    assert thinking <= r["seconds"] + 1e-3  # time inside `choose` is part of the games


def test_compiled_agents_bench_plays_the_reference_games() -> None:
    """The compiled engine rotates seats as a run does; its decision count is that of the
    same games on the reference engine."""
    board, rules = load_board("standard"), Rules(players=3)
    specs = ["greedy", "random", "random"]
    start = time.perf_counter()
    r = bench_agents(board, rules, specs, GAMES, seed=4, engine="auto")
    outside = time.perf_counter() - start
    assert r["engine"] == "compiled" and r["games"] == GAMES
    lineups = bench_agents_mod.rotated_lineups(specs, GAMES)
    assert r["decisions"] == _reference_decisions(lineups, bench_agents_mod.game_seeds(4,
                                                                                        GAMES))
    # Both times are rounded (`seconds` to 0.1 ms, `first_game_seconds` to 1 ms), so each may
    # have been rounded up by half its last digit.
    assert r["seconds"] + r["first_game_seconds"] <= outside + 0.00005 + 0.0005
    # The rate is decisions over the unrounded time; `seconds` is rounded to 0.1 ms, which
    # on a fast run is more than 1% of it, so allow that rounding too.
    assert r["decisions_per_second"] * r["seconds"] == pytest.approx(
        r["decisions"], rel=0.01, abs=r["decisions_per_second"] * 0.00005)


def test_plain_bench_is_the_agents_mode(capsys: pytest.CaptureFixture[str]) -> None:
    a = _json(capsys, ["bench", "--games", "3", "--json"])
    b = _json(capsys, ["bench", "agents", "--games", "3", "--json"])
    assert set(a) == set(b) and a["games"] == b["games"] == 3
    assert a["agents"] == b["agents"] == ["random", "random"]
    assert a["decisions"] == b["decisions"]  # the same seeds: the same games


def test_agents_mode_says_which_engine(capsys: pytest.CaptureFixture[str]) -> None:
    fast = _json(capsys, ["bench", "--games", "20", "--players", "3", "--json"])
    ref = _json(capsys, ["bench", "--games", "20", "--players", "3", "--engine", "python",
                         "--json"])
    assert (fast["engine"], ref["engine"]) == ("compiled", "python") and "per_agent" in ref
    assert fast["games"] == ref["games"] == 20
    assert main(["bench", "--games", "2"]) == 0
    assert "2 games, 2 players" in capsys.readouterr().out


# -- mcts -------------------------------------------------------------------------------------
def test_mcts_playouts_are_the_searches_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """The playouts the bench reports are the iterations the compiled search ran on the
    same positions, counted at the search itself by a fresh agent."""
    from sim.games.portobello.agents.compiled import mcts as M

    board, rules = load_board("standard"), Rules()
    spec = "fastmcts:iterations=60"
    start = time.perf_counter()
    r = bench_mcts(board, rules, spec, positions=6, seed=0)
    outside = time.perf_counter() - start
    ran: list[int] = []
    real = M.iterate
    monkeypatch.setattr(M, "iterate", lambda *a: ran.append(real(*a)) or ran[-1])
    agent = make_agent(spec)
    for i, game in enumerate(mcts_positions(board, rules, 6, 0)):
        agent.reseed(i)
        agent.choose(game)
    assert r["positions"] == 6 and r["playouts"] == sum(ran) > 0
    assert r["playouts"] % 60 == 0  # an iterations-only budget: 60 per searched decision
    assert r["mean_playouts_per_decision"] == pytest.approx(r["playouts"] / 6, abs=0.05)
    assert r["seconds"] + r["first_decision_seconds"] <= outside
    assert r["playouts_per_second"] == pytest.approx(r["playouts"] / r["seconds"], rel=0.05)


def test_mcts_mode_prints_the_same_figures(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, ["bench", "mcts", "--agent", "fastmcts:iterations=60", "--positions",
                         "3", "--json"])
    assert out["positions"] == 3 and out["agent"] == "fastmcts:iterations=60"
    assert main(["bench", "mcts", "--agent", "fastmcts:iterations=60", "--positions",
                 "3"]) == 0
    assert f"{out['playouts']:,} playouts" in capsys.readouterr().out


# -- scripts ----------------------------------------------------------------------------------
def test_every_script_is_a_wrapper_of_a_mode() -> None:
    scripts = sorted((REPO / "benchmarks").glob("bench_*.py"))
    assert scripts
    for script in scripts:
        mode = re.search(r'bench_main\("(\w+)"\)', script.read_text())
        assert mode and mode.group(1) in bench_cli.MODES, script.name
        assert script.stem == f"bench_{mode.group(1)}"


def _script(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_profile_agents_tables_are_well_formed() -> None:
    r = _script("profile_agents").profile_case("random", 2, 3, top=5)
    for key, pct in (("by_cumulative", "cum_pct"), ("by_own", "own_pct")):
        rows = r[key]
        assert len(rows) == 5
        values = [row[pct] for row in rows]
        assert values == sorted(values, reverse=True) and 0 <= min(values) <= max(values) <= 100
    assert any("play_game" in row["function"] for row in r["by_cumulative"])


def test_tile_run_makes_a_loadable_larger_run(run_dir: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert _script("tile_run").main([str(run_dir), str(tmp_path / "big"), "--copies", "3"]) == 0
    capsys.readouterr()
    from analysis.load import load_run

    players = load_run(tmp_path / "big").players().collect()
    assert players["game_id"].n_unique() == 3 * GAMES and len(players) == 3 * 2 * GAMES
    d = _json(capsys, ["bench", "disk", str(tmp_path / "big"), "--json"])
    assert d["games"] == 3 * GAMES


# -- bad input: one line, exit status 2, no traceback (real processes, run concurrently) -------
def _bad_cases(tmp: Path, run: Path) -> dict[str, tuple[list[str], str]]:
    (tmp / "empty").mkdir()
    (tmp / "file.txt").write_text("x")
    running = tmp / "running"
    running.mkdir()
    (running / "manifest.json").write_text(
        (run / "manifest.json").read_text().replace('"complete"', '"running"'))
    return {
        "disk-missing": (["disk", str(tmp / "nope")], "no such folder"),
        "disk-not-a-run": (["disk", str(tmp / "empty")], "not a run folder"),
        "disk-a-file": (["disk", str(tmp / "file.txt")], "not a run folder"),
        "disk-not-complete": (["disk", str(running)], "run is not complete"),
        "load-missing": (["load", str(tmp / "nope")], "no such folder"),
        "load-not-a-run": (["load", str(tmp / "empty")], "not a run folder"),
        "load-nothing": (["load"], "give a run folder or --games N"),
        "load-both": (["load", str(run), "--games", "5"], "give a run folder or --games N"),
        "load-zero-games": (["load", "--games", "0"], "--games: must be at least 1, got '0'"),
        "load-games-not-a-number": (["load", "--games", "many"],
                                    "--games: must be a positive integer, got 'many'"),
        "simulate-jobs-zero": (["simulate", "--jobs-list", "1,0"],
                               "--jobs-list: every entry must be at least 1, got '1,0'"),
        "simulate-jobs-text": (["simulate", "--jobs", "one"],
                               "must be a comma-separated list of integers"),
        "simulate-games-zero": (["simulate", "--games", "0"], "--games: must be at least 1"),
        "simulate-shard-zero": (["simulate", "--shard-size", "0"],
                                "--shard-size: must be at least 1"),
        "simulate-bad-agent": (["simulate", "--agents", "nosuch", "--games", "2"],
                               "unknown agent 'nosuch'"),
        "simulate-bad-players": (["simulate", "--players", "9", "--games", "2"], "players"),
        "simulate-bad-tail": (["simulate", "--games", "2", "--", "--nosuch"],
                              "unrecognized arguments: --nosuch"),
        "unknown-mode": (["nosuch"], "invalid choice: 'nosuch'"),
        "mcts-not-a-search": (["mcts", "--agent", "greedy", "--positions", "1"],
                              "greedy is not a search agent"),
        "mcts-bad-agent": (["mcts", "--agent", "fastmcts:iterations=0", "--positions", "1"],
                           "needs a budget"),
        "mcts-zero-positions": (["mcts", "--positions", "0"], "--positions: must be at least 1"),
    }


def test_bad_input_is_one_line_and_exit_2(run_dir: Path, tmp_path: Path) -> None:
    cases = _bad_cases(tmp_path, run_dir)

    def run(args: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "sim.cli", "bench", *args],
                              capture_output=True, text=True, cwd=tmp_path, timeout=120,
                              check=False)

    with ThreadPoolExecutor(max_workers=4) as pool:
        procs = dict(zip(cases, pool.map(run, [a for a, _ in cases.values()]), strict=True))
    for name, (args, expected) in cases.items():
        proc = procs[name]
        shown = f"{name} {args}: status {proc.returncode}, stdout {proc.stdout!r}, " \
                f"stderr {proc.stderr!r}"
        assert proc.returncode == 2, shown
        assert proc.stdout == "", shown
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, shown
        assert expected in proc.stderr, shown


def test_the_c_yardstick_plays_the_same_game() -> None:
    """The C program's random games (its own generator) and the compiled engine's have the
    same averages: mean scores per seat and mean rounds within a few standard errors
    (4,000 games: a seat's score spreads about 25 points, so its mean's error is about 0.4;
    rounds spread about 1), in drawn and known order. A rule the C program read otherwise
    (a multiplier, the Bobby's cost, the end) moves these by more."""
    import shutil

    from sim.bench.yardstick import bench_yardstick

    if not any(shutil.which(c) for c in ("cc", "gcc", "clang")):
        pytest.skip("no C compiler on this machine: the yardstick is C")
    for rules, rounds in ((Rules(players=2), 3), (Rules(players=3, customer_order="known"), 1)):
        r = bench_yardstick(load_board("standard"), rules, 4000, seed=3, rounds=rounds)
        assert len(r["ratios"]) == rounds
        assert r["ratio"] == sorted(r["ratios"])[(rounds - 1) // 2]  # the median round's
        c, fast = r["c"], r["compiled"]
        assert c["games"] == fast["games"] == 4000
        for a, b in zip(c["mean_scores"], fast["mean_scores"], strict=True):
            assert abs(a - b) < 3.0, (c["mean_scores"], fast["mean_scores"])
        assert abs(c["mean_rounds"] - fast["mean_rounds"]) < 0.15
        assert c["end_reasons"]["last_stall"] == pytest.approx(
            fast["end_reasons"]["last_stall"], abs=0.02)
        assert r["ratio"] == pytest.approx(fast["games_per_second"] / c["games_per_second"])


def test_the_yardstick_refuses_what_it_cannot_play(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_text("players = 9\nstalls_per_player = 10\n")
    out = subprocess.run([sys.executable, "-m", "sim.cli", "bench", "yardstick", "--rules",
                          str(big), "--games", "10"], capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.strip() == ("portobello: error: yardstick: players: 9 is over the "
                                  "yardstick's limit of 8")


def test_profile_fast_random_parts_lie_inside_the_whole() -> None:
    """Each part is timed on its own, compiled beforehand: every part timed directly is
    positive and smaller than the whole batch they are parts of (a part that timed its
    compilation, or the whole batch, would not be). The parts that are differences of two
    timings (apply, of which lists) can come out slightly negative on a
    shared machine when the part is small, so they are held only to lie below the whole."""
    parts = _script("profile_fast_random").breakdown(2, 2000)
    whole = parts.pop("whole")
    assert parts.pop("actions_per_game") > 50
    parts.pop("agent + rest")  # the whole less the others, by construction
    for name in ("prep", "seeding", "new game"):
        assert 0 < parts[name] < whole, (name, parts[name], whole)
    for name in ("apply", "of which lists"):
        assert abs(parts[name]) < whole, (name, parts[name], whole)
