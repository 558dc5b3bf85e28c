"""`portobello bench` modes: well-formed, self-consistent output on tiny runs, and one-line
refusals with exit status 2. No timing is asserted: benchmarks run on demand."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from sim.cli import bench as bench_cli
from sim.cli.main import main

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


def test_disk_bytes_per_game_are_file_sizes_over_games(
        run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _json(capsys, ["bench", "disk", str(run_dir), "--json"])
    assert d["games"] == GAMES and d["players"] == 2 and d["shards"] == 4
    assert set(d["tables"]) == {"games", "players"}
    for table, t in d["tables"].items():
        assert t["files"] == 4
        assert t["bytes"] == _sizes(run_dir / table)
        assert t["bytes_per_game"] == pytest.approx(t["bytes"] / GAMES, abs=0.005)
    both = _sizes(run_dir / "games") + _sizes(run_dir / "players")
    assert d["games_players_bytes"] == both
    assert d["games_players_bytes_per_game"] == pytest.approx(both / GAMES, abs=0.005)
    assert d["within_target"] == (both / GAMES <= d["target_bytes_per_game"])
    # The human table shows the same figures.
    assert main(["bench", "disk", str(run_dir)]) == 0
    text = capsys.readouterr().out
    assert f"{GAMES} games" in text and f"{both:,d}" in text


def test_load_reports_seconds_and_peak_memory_of_a_child(
        run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    r = _json(capsys, ["bench", "load", str(run_dir), "--json"])
    assert r["games"] == GAMES and r["player_rows"] == 2 * GAMES
    assert list(r["steps"]) == [name for name, _ in bench_cli.summary_steps()]
    assert r["summarise_seconds"] == pytest.approx(sum(r["steps"].values()), abs=1e-3)
    assert r["total_seconds"] == pytest.approx(r["load_seconds"] + r["summarise_seconds"],
                                               abs=1e-3)
    assert all(v >= 0 for v in (r["import_seconds"], r["load_seconds"], *r["steps"].values()))
    # The child's own peak, at least what it saw itself after loading.
    assert r["peak_rss_mb"] >= r["rss_after_load_mb"] >= r["rss_after_imports_mb"] > 0
    assert main(["bench", "load", str(run_dir)]) == 0
    text = capsys.readouterr().out
    assert "peak memory" in text and "margins" in text


def test_load_steps_are_the_tables_a_report_computes(run_dir: Path) -> None:
    from analysis.report import analyse
    from analysis.study import cells_from_runs

    tables = set(analyse(cells_from_runs([run_dir])).tables)
    # margins_games (one row per game) is folded into the margins step.
    assert tables - {"margins_games"} == {name for name, _ in bench_cli.summary_steps()}


def test_load_games_makes_the_run_once_then_reuses_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = bench_cli.ensure_load_run(12)
    assert out == Path("data/runs/bench-load-12")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["games"] == 12
    assert manifest["agents"] == ["random"] * 3 and manifest["timings"]["jobs"] == 2
    stamp = (out / "manifest.json").stat().st_mtime_ns
    assert bench_cli.ensure_load_run(12) == out
    assert (out / "manifest.json").stat().st_mtime_ns == stamp


def test_simulate_rates_ratios_and_disk(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sim"
    r = _json(capsys, ["bench", "simulate", "--games", str(GAMES), "--shard-size", "5",
                       "--players", "3", "--jobs-list", "1,2", "--out", str(out), "--json",
                       "--", "--engine", "python"])  # flags after -- go to simulate
    assert r["games"] == GAMES and r["players"] == 3 and r["agents"] == ["random"] * 3
    assert [e["jobs"] for e in r["runs"]] == [1, 2]
    assert [e["engine"] for e in r["runs"]] == ["python", "python"]
    first = r["runs"][0]["games_per_second"]
    for e in r["runs"]:
        assert e["games_per_second"] == pytest.approx(GAMES / e["seconds"], rel=0.01)
        assert e["ratio_to_first"] == pytest.approx(e["games_per_second"] / first, abs=0.001)
    # Bytes per game come from the first entry's run folder; both runs store the same tables.
    runs = [out / "0-jobs-1", out / "1-jobs-2"]
    disk = r["disk"]
    assert disk["run"] == str(runs[0]) and disk["games"] == GAMES
    for table in ("games", "players"):
        assert disk["tables"][table]["bytes"] == _sizes(runs[0] / table)
        assert disk["tables"][table]["bytes_per_game"] == pytest.approx(
            _sizes(runs[0] / table) / GAMES, abs=0.005)
    both = _sizes(runs[0] / "games") + _sizes(runs[0] / "players")
    assert disk["games_players_bytes_per_game"] == pytest.approx(both / GAMES, abs=0.005)
    # The same --out again is refused (it would only resume the finished runs).
    assert main(["bench", "simulate", "--games", "5", "--out", str(out)]) == 2
    assert "give a new --out" in capsys.readouterr().err


def test_plain_bench_is_the_agents_mode(capsys: pytest.CaptureFixture[str]) -> None:
    a = _json(capsys, ["bench", "--games", "3", "--json"])
    b = _json(capsys, ["bench", "agents", "--games", "3", "--json"])
    assert set(a) == set(b) and a["games"] == b["games"] == 3
    assert a["agents"] == b["agents"] == ["random", "random"]


def test_mcts_playouts_add_up(capsys: pytest.CaptureFixture[str]) -> None:
    """Iterations-only budgets: every searched decision runs exactly that many playouts, so
    the total is a multiple of it and the rate is total over seconds."""
    out = _json(capsys, ["bench", "mcts", "--agent", "fastmcts:iterations=60", "--positions",
                         "6", "--json"])
    assert out["positions"] == 6 and out["playouts"] % 60 == 0 and 0 < out["playouts"] <= 360
    # `seconds` is printed to 0.1 ms, so the rate agrees with it to a few percent.
    assert out["playouts_per_second"] == pytest.approx(out["playouts"] / out["seconds"],
                                                       rel=0.05)


def test_agents_mode_says_which_engine(capsys: pytest.CaptureFixture[str]) -> None:
    fast = _json(capsys, ["bench", "--games", "20", "--players", "3", "--json"])
    ref = _json(capsys, ["bench", "--games", "20", "--players", "3", "--engine", "python",
                         "--json"])
    assert (fast["engine"], ref["engine"]) == ("compiled", "python") and "per_agent" in ref
    assert fast["games"] == ref["games"] == 20


def test_every_script_is_a_wrapper_of_a_mode() -> None:
    scripts = sorted((REPO / "benchmarks").glob("bench_*.py"))
    assert scripts
    for script in scripts:
        mode = re.search(r'bench_main\("(\w+)"\)', script.read_text())
        assert mode and mode.group(1) in bench_cli.MODES, script.name
        assert script.stem == f"bench_{mode.group(1)}"


def test_profile_agents_tables_are_well_formed() -> None:
    spec = importlib.util.spec_from_file_location("profile_agents",
                                                  REPO / "benchmarks" / "profile_agents.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    r = mod.profile_case("random", 2, 3, top=5)
    for key, pct in (("by_cumulative", "cum_pct"), ("by_own", "own_pct")):
        rows = r[key]
        assert len(rows) == 5
        values = [row[pct] for row in rows]
        assert values == sorted(values, reverse=True) and 0 <= min(values) <= max(values) <= 100
    assert any("play_game" in row["function"] for row in r["by_cumulative"])


def test_tile_run_makes_a_loadable_larger_run(run_dir: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("tile_run",
                                                  REPO / "benchmarks" / "tile_run.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main([str(run_dir), str(tmp_path / "big"), "--copies", "3"]) == 0
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
        "load-zero-games": (["load", "--games", "0"], "--games: must be at least 1"),
        "load-games-not-a-number": (["load", "--games", "many"], "'many' is not an integer"),
        "simulate-jobs-zero": (["simulate", "--jobs-list", "1,0"], "--jobs-list: every entry"),
        "simulate-jobs-text": (["simulate", "--jobs-list", "one"],
                               "is not a comma-separated list"),
        "simulate-games-zero": (["simulate", "--games", "0"], "--games: must be at least 1"),
        "simulate-bad-agent": (["simulate", "--agents", "nosuch", "--games", "2"],
                               "unknown agent 'nosuch'"),
        "simulate-bad-players": (["simulate", "--players", "9", "--games", "2"], "players"),
        "unknown-mode": (["nosuch"], "invalid choice: 'nosuch'"),
        "mcts-not-a-search": (["mcts", "--agent", "greedy", "--positions", "1"],
                              "greedy is not a search agent"),
        "mcts-bad-agent": (["mcts", "--agent", "fastmcts:iterations=0", "--positions", "1"],
                           "needs a budget"),
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
