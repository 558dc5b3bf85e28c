"""`portobello bench [MODE]`: speed and size benchmarks, run on demand (never as tests).

Modes (`MODES` below; `portobello bench` alone is `portobello bench agents`):

- `agents`: games and decisions per second between agents on one core.
- `simulate`: `portobello simulate` end to end for each `--jobs-list` entry: games per
  second, the ratio to the first entry, and bytes per game on disk.
- `load`: a run loaded and summarised as a report does it, in a fresh child process:
  seconds for loading, for summarising (and for each summary), and the child's peak memory.
- `disk`: bytes per game on disk for each table of a run, and games + players together.

Every mode prints a short table, or one JSON object with `--json`. Bad input (a missing or
damaged run folder, bad numbers) ends in one line on stderr and exit status 2.

To add a mode (e.g. `mcts` or compiled agents), write `add_arguments(parser, agents_help)`
and `func(args) -> int` (print with `emit`) and add a `Mode` to `MODES`; `benchmarks/`
then only needs a two-line wrapper script.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import Any

from sim.engine.errors import IllegalActionError, PortobelloError

# Targets from the issue, printed next to the measured figures.
TARGET_BYTES_PER_GAME = 100.0  # games + players on disk
TARGET_LOAD_SECONDS = 10.0  # load + summarise a 1,000,000-game run
TARGET_LOAD_MB = 2048.0  # peak memory of that
LOAD_RUNS_DIR = Path("data/runs")  # where `bench load --games N` keeps its runs


class BenchError(PortobelloError):
    """Bad input to a benchmark: one line on stderr and exit status 2."""

    exit_code = 2


def bad_input_exits_2(func: Callable[[argparse.Namespace], int]
                      ) -> Callable[[argparse.Namespace], int]:
    """Any user error inside a mode becomes a BenchError (same line, exit status 2)."""

    @wraps(func)
    def wrapper(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except (BenchError, IllegalActionError):
            raise
        except PortobelloError as exc:
            raise BenchError(exc.message) from None

    return wrapper


def emit(args: argparse.Namespace, out: dict[str, Any], lines: Sequence[str]) -> int:
    """Print one JSON object with --json, else the human lines."""
    if args.json:
        print(json.dumps(out))
    else:
        print("\n".join(lines))
    return 0


# -- argument types ---------------------------------------------------------------------------
def positive_int_list(text: str) -> list[int]:
    """`1,2` -> [1, 2]: a comma-separated list of integers of at least 1."""
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of "
                                         "integers") from None
    if not values:
        raise argparse.ArgumentTypeError("give at least one number")
    if min(values) < 1:
        raise argparse.ArgumentTypeError(f"every entry must be at least 1, got {min(values)}")
    return values


def _positive_int(text: str) -> int:
    from sim.cli.main import positive_int

    return positive_int(text)


def _add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON object")


# -- disk -------------------------------------------------------------------------------------
def _open_run(path: Path) -> Any:
    """The run at `path` (complete, every games and players shard its own), else BenchError."""
    from analysis.load import load_run

    run = load_run(path)  # LoadError (a PortobelloError) names the folder and the problem
    for table in run.manifest.get("tables", []):
        if table != "records":
            run.lazy(table)  # checks every shard's metadata and owner
    return run


def disk_usage(run_dir: str | Path) -> dict[str, Any]:
    """Bytes on disk per table of a complete run (all its shard files), and per game."""
    import pyarrow.parquet as pq

    path = Path(run_dir)
    run = _open_run(path)
    tables = list(run.manifest.get("tables", []))
    games = sum(pq.read_metadata(f).num_rows for f in sorted((path / "games").glob(
        "part-*.parquet")))
    if games < 1:
        raise BenchError("run has no games", source=str(path))
    out_tables: dict[str, dict[str, Any]] = {}
    for table in tables:
        files = sorted(f for f in (path / table).glob("part-*") if f.is_file())
        size = sum(f.stat().st_size for f in files)
        out_tables[table] = {"files": len(files), "bytes": size,
                             "bytes_per_game": round(size / games, 2)}
    both = sum(out_tables[t]["bytes"] for t in ("games", "players") if t in out_tables)
    every = sum(t["bytes"] for t in out_tables.values())
    manifest_bytes = (path / "manifest.json").stat().st_size
    return {
        "run": str(path),
        "run_id": run.manifest.get("run_id"),
        "agents": run.manifest.get("agents"),
        "players": run.manifest.get("rules", {}).get("players"),
        "games": games,
        "shards": len(list((path / "games").glob("part-*.parquet"))),
        "tables": out_tables,
        "games_players_bytes": both,
        "games_players_bytes_per_game": round(both / games, 2),
        "all_tables_bytes_per_game": round(every / games, 2),
        "manifest_bytes": manifest_bytes,
        "target_bytes_per_game": TARGET_BYTES_PER_GAME,
        "within_target": both / games <= TARGET_BYTES_PER_GAME,
    }


def disk_lines(d: dict[str, Any], indent: str = "  ") -> list[str]:
    lines = [f"{indent}{'table':10} {'files':>6} {'bytes':>12} {'bytes/game':>11}"]
    for table, t in d["tables"].items():
        lines.append(f"{indent}{table:10} {t['files']:6d} {t['bytes']:12,d} "
                     f"{t['bytes_per_game']:11.2f}")
    mark = "within" if d["within_target"] else "ABOVE"
    lines.append(f"{indent}{'games+players':17} {d['games_players_bytes']:12,d} "
                 f"{d['games_players_bytes_per_game']:11.2f}  ({mark} the target of "
                 f"{d['target_bytes_per_game']:.0f} B/game)")
    return lines


def add_disk_arguments(p: argparse.ArgumentParser, agents_help: str) -> None:
    p.add_argument("run_dir", metavar="RUN_DIR", help="a complete run folder")
    _add_json(p)


@bad_input_exits_2
def cmd_disk(args: argparse.Namespace) -> int:
    d = disk_usage(args.run_dir)
    lines = [f"{d['run']}: {d['games']:,} games, {d['players']} players, "
             f"{d['shards']} shards", *disk_lines(d)]
    return emit(args, d, lines)


# -- simulate ---------------------------------------------------------------------------------
def simulate_argv(args: argparse.Namespace, out: Path, jobs: int) -> list[str]:
    """The `portobello simulate` command line that a bench simulate entry runs."""
    argv = ["simulate", "--agents", args.agents, "--games", str(args.games), "--seed",
            str(args.seed), "--board", args.board, "--shard-size", str(args.shard_size),
            "--jobs", str(jobs), "--out", str(out), "--quiet"]
    if args.players is not None:
        argv += ["--players", str(args.players)]
    for flag in ("preset", "rules"):
        if getattr(args, flag, None):
            argv += [f"--{flag}", getattr(args, flag)]
    argv += [f"--{flag}" for flag in ("events", "records") if getattr(args, flag, False)]
    return argv + list(args.simulate_flags)


def run_simulate(argv: Sequence[str]) -> tuple[Any, dict[str, Any], float]:
    """Run a `portobello simulate` command line through the command's own function (same
    parser, configuration and runner, whatever flags it gains); returns the configuration,
    the timings the command prints with --json, and the wall-clock seconds of the command."""
    from sim.cli.main import build_parser
    from sim.cli.simulate import config_from_flags

    sargs = build_parser().parse_args([*argv, "--json"])
    config = config_from_flags(sargs)
    buffer = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(buffer):
        status = sargs.func(sargs)
    seconds = time.perf_counter() - start
    if status:
        raise BenchError(f"portobello simulate ended with status {status}")
    return config, json.loads(buffer.getvalue().strip().splitlines()[-1]), seconds


def add_simulate_arguments(p: argparse.ArgumentParser, agents_help: str) -> None:
    p.add_argument("--agents", default="random", help=agents_help)
    p.add_argument("--players", type=int, default=None, help="number of players (default 2)")
    p.add_argument("--games", type=_positive_int, default=10000,
                   help="games per entry (default 10000: under a minute in all with random "
                   "agents)")
    p.add_argument("--jobs-list", type=positive_int_list, default=[1, 2], metavar="1,2",
                   help="simulate once per entry with that many jobs (default 1,2); ratios "
                   "are to the first entry")
    p.add_argument("--shard-size", type=_positive_int, default=500,
                   help="games per shard and task (default 500)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--board", default="standard", help="board name or TOML file")
    p.add_argument("--preset", help="named rules preset (see `portobello rules list`)")
    p.add_argument("--rules", metavar="FILE", help="rules TOML file")
    p.add_argument("--events", action="store_true", help="also write (and size) the events")
    p.add_argument("--records", action="store_true", help="also write (and size) records")
    p.add_argument("--out", metavar="DIR", help="keep the runs in DIR/<i>-jobs-<n> (default: a "
                   "temporary folder, deleted afterwards)")
    _add_json(p)
    p.add_argument("simulate_flags", nargs="*", metavar="-- FLAG",
                   help="more `portobello simulate` flags after --, passed as they are "
                   "(e.g. -- --backend dask)")


@bad_input_exits_2
def cmd_simulate_bench(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="portobello-bench-") as tmp:
        root = Path(args.out) if args.out else Path(tmp)
        outs = [root / f"{i}-jobs-{j}" for i, j in enumerate(args.jobs_list)]
        for out in outs:
            if out.exists() and any(out.iterdir()):
                raise BenchError("folder exists and is not empty; give a new --out",
                                 source=str(out))
        entries: list[dict[str, Any]] = []
        config = None
        for jobs, out in zip(args.jobs_list, outs, strict=True):
            config, timings, seconds = run_simulate(simulate_argv(args, out, jobs))
            entries.append({"jobs": jobs, "out": str(out) if args.out else None,
                            "seconds": round(seconds, 3),
                            "games_per_second": round(args.games / seconds, 2),
                            "decisions_per_second": round(timings["decisions"] / seconds, 1),
                            **{k: timings[k] for k in ("backend", "engine") if k in timings}})
        disk = disk_usage(outs[0])
        if not args.out:
            disk["run"] = None  # the temporary folder is gone
    assert config is not None
    base = entries[0]["games_per_second"]
    for e in entries:
        e["ratio_to_first"] = round(e["games_per_second"] / base, 3)
    result = {"agents": list(config.agents), "players": config.rules.players,
              "games": args.games, "shard_size": args.shard_size, "seed": args.seed,
              "cpus": os.cpu_count(), "runs": entries, "disk": disk}
    lines = [f"simulate {args.games:,} games, {config.rules.players} players, agents "
             f"{', '.join(config.agents)}, shard size {args.shard_size} ({os.cpu_count()} cpus)",
             f"  {'jobs':>4} {'seconds':>8} {'games/s':>9} {'decisions/s':>12} "
             f"{'ratio':>6}  engine"]
    for e in entries:
        lines.append(f"  {e['jobs']:4d} {e['seconds']:8.2f} {e['games_per_second']:9.1f} "
                     f"{e['decisions_per_second']:12.0f} {e['ratio_to_first']:6.2f}  "
                     f"{e.get('engine', 'python')}")
    lines.append(f"  on disk ({entries[0]['jobs']}-job run; every entry writes the same "
                 "tables):")
    lines += disk_lines(disk, indent="    ")
    return emit(args, result, lines)


# -- load -------------------------------------------------------------------------------------
def summary_steps() -> list[tuple[str, Callable[[Any, Any], Any]]]:
    """The summaries `analysis.report.analyse` computes for runs without events, as named
    steps taking the (games, players) pandas tables of `analysis.study.StudyData`."""
    from analysis import compare as C
    from analysis import metrics as M

    def margins(games: Any, players: Any) -> Any:
        per_game = M.Margins()(players)
        summary = M.Describe(("margin",))(per_game)
        ties = per_game.groupby(list(M.BY), observed=True)["tied"].mean()
        return summary.merge(ties.rename("tie_share").reset_index(), on=list(M.BY))

    return [
        ("win_shares", lambda g, p: M.WinShare()(p)),
        ("balance", lambda g, p: C.Holm()(M.SeatBalance()(p))),
        ("first_player", lambda g, p: C.Holm()(M.FirstPlayerAdvantage()(p))),
        ("scores", lambda g, p: M.Describe(("score",))(p)),
        ("margins", margins),
        ("length", lambda g, p: M.Describe(("rounds", "turns"))(
            g[g["end_reason"].astype(str) != "round_limit"])),
        ("points", lambda g, p: M.PointsBySource()(p)),
        ("endings", lambda g, p: M.Proportions("end_reason")(g)),
        ("anomalies", lambda g, p: M.Anomalies()(g, p)),
    ]


def _self_rss_mb() -> float:
    import resource

    return _rss_mb(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def _rss_mb(maxrss: float) -> float:
    # ru_maxrss is in kilobytes on Linux, in bytes on macOS.
    return maxrss / (1024 * 1024) if sys.platform == "darwin" else maxrss / 1024


def load_child(argv: Sequence[str] | None = None) -> int:
    """The measured child of `bench load`: import, load, summarise; one JSON line out."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        start = time.perf_counter()
        from analysis.study import cells_from_runs

        steps = summary_steps()
        imports = time.perf_counter() - start
        rss_imports = _self_rss_mb()
        start = time.perf_counter()
        data = cells_from_runs([argv[0]])
        games, players = data.games(), data.players()
        load = time.perf_counter() - start
        rss_load = _self_rss_mb()
        step_seconds: dict[str, float] = {}
        for name, step in steps:
            t = time.perf_counter()
            step(games, players)
            step_seconds[name] = round(time.perf_counter() - t, 4)
        summarise = sum(step_seconds.values())
    except PortobelloError as exc:
        print(exc.message, file=sys.stderr)
        return 2
    print(json.dumps({"games": len(games), "player_rows": len(players),
                      "import_seconds": round(imports, 4), "load_seconds": round(load, 4),
                      "summarise_seconds": round(summarise, 4), "steps": step_seconds,
                      "rss_after_imports_mb": round(rss_imports, 1),
                      "rss_after_load_mb": round(rss_load, 1)}))
    return 0


def measure_load(run_dir: str | Path) -> dict[str, Any]:
    """Run `load_child` on a run in a fresh process; its figures and its peak memory (the
    child's own max RSS from wait4, so nothing of this process counts)."""
    path = Path(run_dir).resolve()
    code = "import sys; from sim.cli.bench import load_child; sys.exit(load_child())"
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", code, str(path)],
                                stdout=subprocess.PIPE, stderr=err)
        assert proc.stdout is not None
        stdout = proc.stdout.read()
        proc.stdout.close()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            text = err.read().decode(errors="replace").strip().splitlines()
            raise BenchError(f"the measuring process failed (status {proc.returncode}): "
                             f"{text[-1] if text else 'no message'}", source=str(run_dir))
    child = json.loads(stdout)
    total = child["load_seconds"] + child["summarise_seconds"]
    peak = _rss_mb(usage.ru_maxrss)
    per_million = 1_000_000 / child["games"]
    return {"run": str(run_dir), **child, "total_seconds": round(total, 4),
            "child_wall_seconds": round(wall, 3), "peak_rss_mb": round(peak, 1),
            "total_seconds_per_million_games": round(total * per_million, 2),
            "target_seconds_per_million_games": TARGET_LOAD_SECONDS,
            "target_peak_mb_at_million_games": TARGET_LOAD_MB}


def ensure_load_run(games: int) -> Path:
    """`data/runs/bench-load-N`: reused when complete, else made (or finished) with
    `portobello simulate --agents random --players 3 --games N --jobs 2 --quiet`."""
    out = LOAD_RUNS_DIR / f"bench-load-{games}"
    manifest = out / "manifest.json"
    if manifest.exists():
        try:
            complete = json.loads(manifest.read_text()).get("status") == "complete"
        except (json.JSONDecodeError, AttributeError):
            complete = False
        if complete:
            return out
    run_simulate(["simulate", "--agents", "random", "--players", "3", "--games", str(games),
                  "--jobs", "2", "--quiet", "--out", str(out)])
    return out


def add_load_arguments(p: argparse.ArgumentParser, agents_help: str) -> None:
    p.add_argument("run_dir", metavar="RUN_DIR", nargs="?", help="a complete run folder")
    p.add_argument("--games", type=_positive_int, default=None, metavar="N",
                   help="instead of RUN_DIR: data/runs/bench-load-N, made first if missing "
                   "(random agents, 3 players, 2 jobs)")
    _add_json(p)


@bad_input_exits_2
def cmd_load(args: argparse.Namespace) -> int:
    if (args.run_dir is None) == (args.games is None):
        raise BenchError("give a run folder or --games N (one of them)")
    path = Path(args.run_dir) if args.run_dir is not None else ensure_load_run(args.games)
    _open_run(path)  # refuse bad folders here, with the loader's message
    r = measure_load(path)
    lines = [f"{r['run']}: {r['games']:,} games ({r['player_rows']:,} player rows), loaded "
             "and summarised in a fresh process",
             f"  {'imports':14} {r['import_seconds']:8.3f} s  (not counted)",
             f"  {'load':14} {r['load_seconds']:8.3f} s",
             f"  {'summarise':14} {r['summarise_seconds']:8.3f} s"]
    lines += [f"    {name:12} {s:8.3f} s" for name, s in r["steps"].items()]
    lines += [f"  {'total':14} {r['total_seconds']:8.3f} s  "
              f"({r['total_seconds_per_million_games']:.1f} s per million games if linear; "
              f"target {TARGET_LOAD_SECONDS:.0f} s)",
              f"  {'peak memory':14} {r['peak_rss_mb']:8.1f} MB (after imports "
              f"{r['rss_after_imports_mb']:.0f} MB; target {TARGET_LOAD_MB:.0f} MB at a "
              "million games)"]
    return emit(args, r, lines)


# -- agents (the original `portobello bench`) -------------------------------------------------
def add_agents_arguments(p: argparse.ArgumentParser, agents_help: str) -> None:
    from sim.cli.main import _add_rules_flags, positive_int

    p.add_argument("--players", type=int, default=None, help="number of players (default 2)")
    p.add_argument("--games", type=positive_int, default=500)
    p.add_argument("--agents", default="random", help=agents_help)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--board", default="standard", help="board name or TOML file")
    p.add_argument("--engine", choices=["auto", "compiled", "python"], default="auto",
                   help="auto: the compiled engine when every agent has a compiled version")
    _add_json(p)
    _add_rules_flags(p)


def cmd_agents(args: argparse.Namespace) -> int:
    """`portobello bench [agents]`: games and decisions per second on one core; on the
    reference engine also each agent's own decisions per second (decisions over the seconds
    spent inside its `choose`, engine time excluded). Its errors keep the command line's
    exit status."""
    from sim.agents.registry import make_agent
    from sim.agents.timing import TimedAgent
    from sim.cli.main import agent_specs, rules_from_args
    from sim.engine.board import load_board
    from sim.run.loop import derive_seed, play_game

    rules = rules_from_args(args, players=args.players)
    board = load_board(args.board)
    rules.check_board(board, source=args.board)
    specs = agent_specs(args.agents, rules.players)
    engine = getattr(args, "engine", "auto")
    if engine != "python":
        from sim.run.engines import supports

        if supports(specs):
            return _bench_compiled(args, board, rules, specs)
        if engine == "compiled":
            raise PortobelloError(f"no compiled version of {', '.join(specs)} (compiled: "
                                  "random, greedy, heuristic, restricted or not)",
                                  field="--engine")
    agents = [TimedAgent(make_agent(s, seed=seat)) for seat, s in enumerate(specs)]
    decisions = 0
    start = time.perf_counter()
    for i in range(args.games):
        _, d = play_game(board, rules, agents, derive_seed(args.seed, i), keep_log=False,
                         validate=False)
        decisions += d
    seconds = time.perf_counter() - start
    per_agent: dict[str, dict[str, float]] = {}
    for agent in agents:
        entry = per_agent.setdefault(agent.spec, {"decisions": 0, "seconds": 0.0,
                                                  "slowest": 0.0})
        entry["decisions"] += agent.decisions
        entry["seconds"] += agent.seconds
        entry["slowest"] = max(entry["slowest"], agent.slowest)
    out = {
        "agents": specs,
        "players": rules.players,
        "games": args.games,
        "engine": "python",
        "seconds": round(seconds, 4),
        "games_per_second": round(args.games / seconds, 2),
        "decisions_per_second": round(decisions / seconds, 1),
        "per_agent": {
            spec: {"decisions": int(e["decisions"]), "seconds": round(e["seconds"], 4),
                   "decisions_per_second": round(e["decisions"] / e["seconds"], 1)
                   if e["seconds"] > 0 else None,
                   "slowest_decision_ms": round(1000 * e["slowest"], 2)}
            for spec, e in per_agent.items()},
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{args.games} games, {rules.players} players, agents {', '.join(specs)}, one core")
        print(f"  {seconds:.2f} s: {out['games_per_second']:.1f} games/s, "
              f"{out['decisions_per_second']:.0f} decisions/s "
              f"({decisions / args.games:.0f} decisions per game)")
        for spec, e in out["per_agent"].items():  # type: ignore[union-attr]
            rate = e["decisions_per_second"]
            print(f"  {spec}: {e['decisions']} decisions in {e['seconds']:.2f} s thinking: "
                  f"{rate if rate is not None else 'n/a'} decisions/s, slowest "
                  f"{e['slowest_decision_ms']} ms")
    return 0


def _bench_compiled(args: argparse.Namespace, board: Any, rules: Any,
                    specs: list[str]) -> int:
    """The agents bench on the compiled engine: seats rotate as in a run, one core."""
    from sim.run.engines import CompiledEngine
    from sim.run.loop import derive_seed

    fast = CompiledEngine(board, rules, specs)
    n = rules.players
    lineups = [[specs[(s + i) % n] for s in range(n)] for i in range(args.games)]
    seeds = [derive_seed(args.seed, i) for i in range(args.games)]
    start = time.perf_counter()
    fast.play(seeds[:1], lineups[:1])  # loads (or compiles) the compiled code
    warm = time.perf_counter() - start
    start = time.perf_counter()
    res = fast.play(seeds, lineups)
    seconds = time.perf_counter() - start
    decisions = int(res.decisions.sum())
    out = {
        "agents": specs,
        "players": n,
        "games": args.games,
        "engine": "compiled",
        "seconds": round(seconds, 4),
        "games_per_second": round(args.games / seconds, 2),
        "decisions_per_second": round(decisions / seconds, 1),
        "first_game_seconds": round(warm, 3),
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{args.games} games, {n} players, agents {', '.join(specs)}, compiled engine, "
              "one core")
        print(f"  {seconds:.2f} s: {out['games_per_second']:.1f} games/s, "
              f"{out['decisions_per_second']:.0f} decisions/s "
              f"({decisions / args.games:.0f} decisions per game); first game (loading or "
              f"compiling the compiled code) {warm:.2f} s")
    return 0


# -- mcts -------------------------------------------------------------------------------------
def add_mcts_arguments(p: argparse.ArgumentParser, agents_help: str) -> None:
    from sim.cli.main import _add_rules_flags, positive_int

    p.add_argument("--agent", default="fastmcts:iterations=3000",
                   help="the searching agent's spec (fastmcts or mcts)")
    p.add_argument("--players", type=int, default=None, help="number of players (default 2)")
    p.add_argument("--positions", type=positive_int, default=24,
                   help="positions searched (taken from heuristic games)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--board", default="standard", help="board name or TOML file")
    _add_json(p)
    _add_rules_flags(p)


def mcts_positions(board: Any, rules: Any, count: int, seed: int) -> list[Any]:
    """Decision points of heuristic games, spread over whole games (not chance nodes)."""
    from sim.agents.registry import make_agent
    from sim.engine.codes import SETUP
    from sim.engine.game import Game
    from sim.run.loop import derive_seed, play_game

    out: list[Any] = []
    g = 0
    while len(out) < count:
        seed_g = derive_seed(seed, "bench-mcts", g)
        game, _ = play_game(board, rules, [make_agent("heuristic") for _ in
                                           range(rules.players)], seed_g)
        assert game.log is not None
        replay = Game(board, rules, seed=seed_g)
        for i, action in enumerate(game.log):
            if i % 23 == 11 and replay.phase != SETUP and len(out) < count:
                out.append(replay.copy(keep_log=True))
            replay.apply(action)
        g += 1
    return out


def cmd_mcts(args: argparse.Namespace) -> int:
    """Playouts (search iterations) per second of an MCTS agent on one core, over positions
    of real games; the first search (loading or compiling the code) is timed apart."""
    from sim.agents.registry import make_agent
    from sim.cli.main import rules_from_args
    from sim.engine.board import load_board

    rules = rules_from_args(args, players=args.players)
    board = load_board(args.board)
    rules.check_board(board, source=args.board)
    agent = make_agent(args.agent)
    if not hasattr(agent, "last_iterations"):
        raise BenchError(f"{args.agent} is not a search agent (mcts or fastmcts)")
    positions = mcts_positions(board, rules, args.positions, args.seed)
    start = time.perf_counter()
    agent.reseed(0)
    agent.choose(positions[0])
    warm = time.perf_counter() - start
    iterations, seconds, slowest = 0, 0.0, 0.0
    for i, game in enumerate(positions):
        agent.reseed(i)
        start = time.perf_counter()
        agent.choose(game)
        took = time.perf_counter() - start
        seconds += took
        slowest = max(slowest, took)
        iterations += agent.last_iterations
    out = {"agent": args.agent, "players": rules.players, "positions": len(positions),
           "playouts": iterations, "seconds": round(seconds, 4),
           "playouts_per_second": round(iterations / seconds, 1) if seconds else None,
           "mean_playouts_per_decision": round(iterations / len(positions), 1),
           "slowest_decision_ms": round(1000 * slowest, 2),
           "first_decision_seconds": round(warm, 3)}
    lines = [f"{args.agent}, {rules.players} players, {len(positions)} positions of heuristic "
             "games, one core",
             f"  {iterations:,} playouts in {seconds:.2f} s: "
             f"{out['playouts_per_second']:,} playouts/s "
             f"({out['mean_playouts_per_decision']} per decision, slowest decision "
             f"{out['slowest_decision_ms']} ms); first decision {warm:.2f} s"]
    return emit(args, out, lines)


# -- the modes --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Mode:
    """One `portobello bench MODE`: its help line, its flags and its command."""

    help: str
    add_arguments: Callable[[argparse.ArgumentParser, str], None]
    func: Callable[[argparse.Namespace], int]


MODES: dict[str, Mode] = {
    "agents": Mode("games and decisions per second between agents on one core (the default)",
                   add_agents_arguments, cmd_agents),
    "simulate": Mode("`portobello simulate` end to end for each --jobs-list entry: games/s, "
                     "ratio, bytes per game", add_simulate_arguments, cmd_simulate_bench),
    "load": Mode("load and summarise a run as a report does, in a fresh process: seconds "
                 "and peak memory", add_load_arguments, cmd_load),
    "disk": Mode("bytes per game on disk for each table of a run", add_disk_arguments,
                 cmd_disk),
    "mcts": Mode("playouts per second of an MCTS agent on one core, over positions of real "
                 "games", add_mcts_arguments, bad_input_exits_2(cmd_mcts)),
}


def add_parser(sub: Any, agents_help: str) -> None:
    """Register `portobello bench [MODE]` (called by `sim.cli.build_parser`)."""
    p = sub.add_parser("bench", help="speed and size benchmarks (modes: "
                       f"{', '.join(MODES)}; default agents)",
                       description="Speed and size benchmarks. Without a mode: the agents "
                       "mode (its flags are accepted here too).")
    add_agents_arguments(p, agents_help)
    p.set_defaults(func=cmd_agents)
    modes = p.add_subparsers(dest="bench_mode", metavar="[MODE]", parser_class=type(p))
    for name, mode in MODES.items():
        q = modes.add_parser(name, help=mode.help, description=mode.help)
        mode.add_arguments(q, agents_help)
        q.set_defaults(func=mode.func)


def bench_main(mode: str, argv: Sequence[str] | None = None) -> int:
    """`portobello bench MODE ARGS...` (for the scripts in benchmarks/)."""
    from sim.cli.main import main

    return main(["bench", mode, *(sys.argv[1:] if argv is None else argv)])
