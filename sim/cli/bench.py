"""`portobello bench [MODE]`: speed and size benchmarks, run on demand (never as tests).

The measuring is in `sim.bench`; this module parses each mode's flags, calls it and prints
a short table, or one JSON object with `--json`. Modes (`MODES`; `portobello bench` alone is
`portobello bench agents`):

- `agents`: games and decisions per second between agents on one core;
- `simulate`: a run once per `--jobs` entry: games per second, the ratio to the first entry,
  bytes per game on disk;
- `load`: a run loaded and summarised as a report does it, in a fresh child process;
- `disk`: bytes per game on disk for each table of a run;
- `mcts`: playouts per second of a search agent;
- `compile`: what a first run on a cold cache costs, per line-up;
- `yardstick`: random games in plain C beside the compiled engine's;
- `cluster`: a search-level study cell on 1 and 2 Dask workers, and a task's overhead.

Bad input (a missing or damaged run folder, bad numbers) ends in one line on stderr and exit
status 2; the agents mode keeps the exit status of the other commands (1 for a bad agent).

To add a mode: a function in `sim.bench` returning a dict, `add_arguments(parser)` and
`func(args) -> int` here (print with `emit`), a `Mode` in `MODES`, and a two-line wrapper
script in `benchmarks/`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import Any

from sim.bench import TARGET_LOAD_MB
from sim.bench import TARGET_LOAD_SECONDS
from sim.bench import BenchError
from sim.cli import options as O
from sim.core.errors import IllegalActionError
from sim.core.errors import PortobelloError
from sim.games.portobello.board import load_board
from sim.games.portobello.rules import Rules

Command = Callable[[argparse.Namespace], int]


def bad_input_exits_2(func: Command) -> Command:
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
    print(json.dumps(out) if args.json else "\n".join(lines))
    return 0


def _board_and_rules(args: argparse.Namespace) -> tuple[Any, Rules]:
    rules = O.rules_from_args(args, players=args.players)
    board = load_board(args.board)
    rules.check_board(board, source=args.board)
    return board, rules


# -- agents (the original `portobello bench`) -------------------------------------------------
def add_agents_arguments(p: argparse.ArgumentParser) -> None:
    O.add_players(p)
    O.add_games(p, 500, "games to play")
    O.add_agents(p)
    O.add_seed(p, help="seed of the games (game i plays seed derive_seed(SEED, i))")
    O.add_board(p)
    O.add_engine(p)
    O.add_json(p, "the figures")
    O.add_rules(p)


def agents_lines(r: dict[str, Any]) -> list[str]:
    """The human table of an agents bench."""
    compiled = r["engine"] == "compiled"
    lines = [f"{r['games']} games, {r['players']} players, agents {', '.join(r['agents'])}, "
             + ("compiled engine, " if compiled else "") + "one core",
             f"  {r['seconds']:.2f} s: {r['games_per_second']:.1f} games/s, "
             f"{r['decisions_per_second']:.0f} decisions/s "
             f"({r['decisions'] / r['games']:.0f} decisions per game)"
             + (f"; first game (loading or compiling the compiled code) "
                f"{r['first_game_seconds']:.2f} s" if compiled else "")]
    for spec, e in r.get("per_agent", {}).items():
        rate = e["decisions_per_second"]
        lines.append(f"  {spec}: {e['decisions']} decisions in {e['seconds']:.2f} s "
                     f"thinking: {rate if rate is not None else 'n/a'} decisions/s, slowest "
                     f"{e['slowest_decision_ms']} ms")
    return lines


def cmd_agents(args: argparse.Namespace) -> int:
    """`portobello bench [agents]`; its errors keep the command line's exit status."""
    from sim.bench.agents import bench_agents

    board, rules = _board_and_rules(args)
    specs = O.agent_specs(args.agents, rules.players)
    r = bench_agents(board, rules, specs, args.games, args.seed, args.engine)
    return emit(args, r, agents_lines(r))


# -- simulate ---------------------------------------------------------------------------------
def add_simulate_arguments(p: argparse.ArgumentParser) -> None:
    from sim.cli.simulate import add_run_flags

    add_run_flags(p, 10000, "games per entry (10,000 random games take under a minute in "
                  "all)", agents="random")
    p.add_argument("--jobs", "--jobs-list", type=O.positive_int_list, default=[1, 2],
                   metavar="N[,N...]", help="run once per entry with that many worker "
                   "processes; ratios are to the first entry")
    O.add_out(p, "DIR", "keep the runs in DIR/<i>-jobs-<n> (default: a temporary folder, "
              "deleted afterwards)")
    O.add_json(p, "the figures")
    p.add_argument("simulate_flags", nargs="*", metavar="-- FLAG",
                   help="any of the flags above again after -- (as `portobello simulate` "
                   "flags were passed before this mode took them; e.g. -- --backend dask)")
    O.add_backend(p)


def disk_lines(d: dict[str, Any], indent: str = "  ") -> list[str]:
    """The human table of a run's bytes on disk."""
    lines = [f"{indent}{'table':10} {'files':>6} {'bytes':>12} {'bytes/game':>11}"]
    for table, t in d["tables"].items():
        lines.append(f"{indent}{table:10} {t['files']:6d} {t['bytes']:12,d} "
                     f"{t['bytes_per_game']:11.2f}")
    mark = "within" if d["within_target"] else "ABOVE"
    lines.append(f"{indent}{'games+players':17} {d['games_players_bytes']:12,d} "
                 f"{d['games_players_bytes_per_game']:11.2f}  ({mark} the target of "
                 f"{d['target_bytes_per_game']:.0f} B/game)")
    return lines


def simulate_lines(r: dict[str, Any]) -> list[str]:
    """The human table of a simulate bench."""
    lines = [f"simulate {r['games']:,} games, {r['players']} players, agents "
             f"{', '.join(r['agents'])}, shard size {r['shard_size']} ({r['cpus']} cpus)",
             f"  {'jobs':>4} {'seconds':>8} {'games/s':>9} {'decisions/s':>12} "
             f"{'ratio':>6}  engine"]
    for e in r["runs"]:
        lines.append(f"  {e['jobs']:4d} {e['seconds']:8.2f} {e['games_per_second']:9.1f} "
                     f"{e['decisions_per_second']:12.0f} {e['ratio_to_first']:6.2f}  "
                     f"{e.get('engine', 'python')}")
    lines.append(f"  on disk ({r['runs'][0]['jobs']}-job run; every entry writes the same "
                 "tables):")
    return lines + disk_lines(r["disk"], indent="    ")


def simulate_command(parser: argparse.ArgumentParser) -> Command:
    """`portobello bench simulate`, given its parser (flags after `--` are parsed by it)."""

    @bad_input_exits_2
    def cmd_simulate(args: argparse.Namespace) -> int:
        from sim.bench.simulate import bench_simulate
        from sim.cli.simulate import config_from_flags
        from sim.cli.simulate import execute_options

        if args.simulate_flags:
            args = parser.parse_args(args.simulate_flags, namespace=args)
        if args.out:
            O.check_out(args, args.out)
        r = bench_simulate(config_from_flags(args), args.jobs, args.out,
                           **execute_options(args))
        return emit(args, r, simulate_lines(r))

    return cmd_simulate


# -- load -------------------------------------------------------------------------------------
def add_load_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", metavar="RUN_DIR", nargs="?",
                   help="a complete run folder (or --games; default: none)")
    O.add_games(p, None, "instead of RUN_DIR: data/runs/bench-load-N, made first if missing "
                "(random agents, 3 players, 2 jobs; default: none)")
    O.add_json(p, "the figures")


def load_lines(r: dict[str, Any]) -> list[str]:
    """The human table of a load bench."""
    lines = [f"{r['run']}: {r['games']:,} games ({r['player_rows']:,} player rows), loaded "
             "and summarised in a fresh process",
             f"  {'imports':14} {r['import_seconds']:8.3f} s  (not counted)",
             f"  {'load':14} {r['load_seconds']:8.3f} s",
             f"  {'summarise':14} {r['summarise_seconds']:8.3f} s"]
    lines += [f"    {name:12} {s:8.3f} s" for name, s in r["steps"].items()]
    lines += [
        f"  {'total':14} {r['total_seconds']:8.3f} s  "
        f"({r['total_seconds_per_million_games']:.1f} s per million games if linear; "
        f"target {TARGET_LOAD_SECONDS:.0f} s)",
        f"  {'peak memory':14} {r['peak_rss_mb']:8.1f} MB (after imports "
        f"{r['rss_after_imports_mb']:.0f} MB; target {TARGET_LOAD_MB:.0f} MB at a "
        "million games)"]
    return lines


@bad_input_exits_2
def cmd_load(args: argparse.Namespace) -> int:
    """`portobello bench load`: a given run, or the bench-load-N run made first."""
    from sim.bench.disk import open_run
    from sim.bench.load import ensure_load_run
    from sim.bench.load import measure_load

    if (args.run_dir is None) == (args.games is None):
        raise BenchError("give a run folder or --games N (one of them)")
    path = Path(args.run_dir) if args.run_dir is not None else ensure_load_run(args.games)
    open_run(path)  # refuse bad folders here, with the loader's message
    r = measure_load(path)
    return emit(args, r, load_lines(r))


# -- disk -------------------------------------------------------------------------------------
def add_disk_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", metavar="RUN_DIR", help="a complete run folder")
    O.add_json(p, "the figures")


@bad_input_exits_2
def cmd_disk(args: argparse.Namespace) -> int:
    """`portobello bench disk RUN_DIR`."""
    from sim.bench.disk import disk_usage

    d = disk_usage(args.run_dir)
    lines = [f"{d['run']}: {d['games']:,} games, {d['players']} players, "
             f"{d['shards']} shards", *disk_lines(d)]
    return emit(args, d, lines)


# -- mcts -------------------------------------------------------------------------------------
def add_mcts_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agent", default="fastmcts:iterations=3000", metavar="SPEC",
                   help="the one searching agent's spec (fastmcts, mcts, openspiel-mcts or "
                   "openspiel-ismcts; not a seat line-up, hence not --agents)")
    O.add_players(p)
    p.add_argument("--positions", type=O.positive_int, default=24, metavar="N",
                   help="positions searched (taken from heuristic games)")
    O.add_seed(p, help="seed of the heuristic games the positions come from")
    O.add_board(p)
    O.add_json(p, "the figures")
    O.add_rules(p)


@bad_input_exits_2
def cmd_mcts(args: argparse.Namespace) -> int:
    """`portobello bench mcts`."""
    from sim.bench.mcts import bench_mcts

    board, rules = _board_and_rules(args)
    r = bench_mcts(board, rules, args.agent, args.positions, args.seed)
    lines = [f"{r['agent']}, {r['players']} players, {r['positions']} positions of "
             "heuristic games, one core",
             f"  {r['playouts']:,} playouts in {r['seconds']:.2f} s: "
             f"{r['playouts_per_second']:,} playouts/s "
             f"({r['mean_playouts_per_decision']} per decision, slowest decision "
             f"{r['slowest_decision_ms']} ms); first decision "
             f"{r['first_decision_seconds']:.2f} s"]
    return emit(args, r, lines)


# -- yardstick ----------------------------------------------------------------------------------
def add_yardstick_arguments(p: argparse.ArgumentParser) -> None:
    O.add_players(p)
    O.add_games(p, 100_000, "games each side plays in each round")
    p.add_argument("--rounds", type=O.Integer(1), default=3, metavar="K",
                   help="rounds of C then compiled; the median round's ratio is given "
                        "(default 3)")
    O.add_seed(p, help="seed of the games (the C program's generator, and the compiled "
               "engine's game seeds as in `bench agents`)")
    O.add_board(p)
    O.add_json(p, "the figures")
    O.add_rules(p)


def cmd_yardstick(args: argparse.Namespace) -> int:
    """`portobello bench yardstick`."""
    from sim.bench.yardstick import bench_yardstick

    board, rules = _board_and_rules(args)
    r = bench_yardstick(board, rules, args.games, args.seed, args.rounds)

    def side(name: str, x: dict[str, Any]) -> str:
        scores = ", ".join(f"{s:.1f}" for s in x["mean_scores"])
        ends = ", ".join(f"{k} {v:.3f}" for k, v in x["end_reasons"].items())
        return (f"  {name:8} {x['games_per_second']:>10,.0f} games/s ({x['seconds']:.2f} s); "
                f"mean scores {scores}; mean rounds {x['mean_rounds']:.2f}; {ends}")

    rounds = ", ".join(f"{x:.3f}" for x in r["ratios"])
    lines = [f"random games, {r['players']} players, {r['games']:,} each, one core, "
             f"{r['rounds']} rounds (the median round shown)",
             side("C", r["c"]), side("compiled", r["compiled"]),
             f"  compiled / C: {r['ratio']:.3f} (rounds: {rounds})"]
    return emit(args, r, lines)


# -- compile ----------------------------------------------------------------------------------
def add_compile_arguments(p: argparse.ArgumentParser) -> None:
    from sim.games.portobello.agents.registry import split_specs

    p.add_argument("--lineups", type=split_specs, default=["random", "heuristic"],
                   metavar="SPEC[,SPEC...]", help="agents to time, each in every seat of its "
                   "own run (default: random,heuristic)")
    O.add_players(p)  # 3 when not given
    O.add_games(p, 100, "games each run plays")
    O.add_json(p, "the figures")


@bad_input_exits_2
def cmd_compile(args: argparse.Namespace) -> int:
    """`portobello bench compile`."""
    from sim.bench.compile import bench_compile
    from sim.games.portobello.agents.registry import make_agent
    from sim.run.engines import engine_name

    players = args.players or 3
    for spec in args.lineups:
        make_agent(spec)  # an unknown agent is refused by name
        if engine_name([spec] * players) != "compiled":
            raise BenchError(f"{spec} has no compiled version: nothing compiles for it")
    r = bench_compile(args.lineups, players, args.games)
    lines = [f"portobello simulate --games {r['games']} --players {r['players']}, a fresh "
             f"cache then the cache it left (load {r['load']} on {r['cpus']} cpus)",
             f"  {'agents':12} {'cold s':>8} {'cold cpu s':>11} {'warm s':>8} "
             f"{'compile s':>10}"]
    lines += [f"  {e['agents']:12} {e['cold_seconds']:8.1f} {e['cold_cpu_seconds']:11.1f} "
              f"{e['warm_seconds']:8.1f} {e['compile_seconds']:10.1f}" for e in r["runs"]]
    return emit(args, r, lines)


# -- cluster ----------------------------------------------------------------------------------
def add_cluster_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agent", default="fastmcts:iterations=100", metavar="SPEC",
                   help="the agent in every seat of the study cell, by default the skill "
                   "ladder's search level (default: fastmcts:iterations=100)")
    O.add_players(p)  # 3 when not given
    O.add_games(p, 24, "games of the study cell")
    p.add_argument("--shard-size", type=O.positive_int, default=2, metavar="N",
                   help="games per task of the study cell (default: 2)")
    O.add_seed(p, help="seed of the cell's games")
    p.add_argument("--many", type=O.positive_int, default=8, metavar="N",
                   help="workers of the many-worker run (default: 8)")
    p.add_argument("--tiny", type=O.positive_int, default=400, metavar="N",
                   help="one-game tasks of the overhead and many-worker runs (default: 400)")
    O.add_json(p, "the figures")


@bad_input_exits_2
def cmd_cluster(args: argparse.Namespace) -> int:
    """`portobello bench cluster`."""
    from sim.bench.cluster import bench_cluster
    from sim.games.portobello.agents.registry import make_agent

    make_agent(args.agent)  # an unknown agent is refused by name
    players = args.players or 3
    r = bench_cluster(args.agent, players, args.games, args.shard_size, args.seed,
                      args.many, args.tiny)
    c, t = r["cell"], r["tiny"]
    lines = [f"local Dask clusters, warmed; {r['cpus']} cpus, load {r['load']}",
             f"  study cell: {c['games']} games of {r['agent']} at {players} players, "
             f"{c['tasks']} tasks"]
    lines += [f"    {e['workers']} worker(s): {e['seconds']:8.2f} s  "
              f"{e['games_per_second']:.2f} games/s" for e in c["runs"]]
    lines += [f"    speed-up 1 -> 2 workers: {c['speedup']:.2f}; same bytes: "
              f"{'yes' if c['identical'] else 'NO'}",
              f"  {t['tasks']} one-game tasks: {t['local_seconds']:.2f} s in this process, "
              f"{t['one_worker_seconds']:.2f} s on one worker: {t['overhead_ms_per_task']:.2f} "
              "ms overhead per task",
              f"    on {t['many_workers']} workers: {t['many_seconds']:.2f} s, "
              f"{t['tasks_per_second']:.0f} tasks/s; same bytes as this process: "
              f"{'yes' if t['identical'] else 'NO'}"]
    return emit(args, r, lines)


# -- river ------------------------------------------------------------------------------------
def add_river_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--players", type=O.player_counts, default=None, metavar="N[,N...]",
                   help="player counts (default: 2,3,4,5)")
    O.add_games(p, 20_000, "games at each player count")
    O.add_seed(p, help="first game seed (game i plays seed SEED + i)")
    O.add_json(p, "the figures")


@bad_input_exits_2
def cmd_river(args: argparse.Namespace) -> int:
    """`portobello bench river`."""
    from sim.bench.river import bench_river

    r = bench_river(args.players or [2, 3, 4, 5], args.games, args.seed)
    lines = [f"River Market random games ({r['cards']} cards), one core, load "
             f"{r['load']:.2f}:"]
    for x in r["rows"]:
        scores = ", ".join(f"{s:.1f}" for s in x["mean_scores"])
        lines.append(f"  {x['players']} players: {x['games_per_second']:>9,.0f} games/s, "
                     f"{x['actions_per_second']:>12,.0f} actions/s ({x['games']:,} games in "
                     f"{x['seconds']:.2f} s; {x['mean_turns']:.1f} turns, "
                     f"{x['mean_actions']:.0f} actions a game; mean scores {scores})")
    return emit(args, r, lines)


# -- the modes --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Mode:
    """One `portobello bench MODE`: its help line, its flags and its command (made from its
    parser)."""

    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    command: Callable[[argparse.ArgumentParser], Command]


MODES: dict[str, Mode] = {
    "agents": Mode("games and decisions per second between agents on one core (the default "
                   "mode)", add_agents_arguments, lambda p: cmd_agents),
    "simulate": Mode("a run end to end for each --jobs entry: games/s, ratio to the first, "
                     "bytes per game", add_simulate_arguments, simulate_command),
    "load": Mode("load and summarise a run as a report does, in a fresh process: seconds "
                 "and peak memory", add_load_arguments, lambda p: cmd_load),
    "disk": Mode("bytes per game on disk for each table of a run", add_disk_arguments,
                 lambda p: cmd_disk),
    "mcts": Mode("playouts per second of an MCTS agent on one core, over positions of real "
                 "games", add_mcts_arguments, lambda p: cmd_mcts),
    "compile": Mode("a first run's compile: simulate with an empty cache, then warm, per "
                    "line-up", add_compile_arguments, lambda p: cmd_compile),
    "yardstick": Mode("random games in plain C beside the compiled engine's, one run: both "
                      "rates, their ratio, both games' averages", add_yardstick_arguments,
                      lambda p: cmd_yardstick),
    "river": Mode("River Market's random games per second on one core, per player count",
                  add_river_arguments, lambda p: cmd_river),
    "cluster": Mode("a search-level study cell on local Dask clusters of 1 and 2 workers "
                    "(how much faster), and the cost of a task on many workers",
                    add_cluster_arguments, lambda p: cmd_cluster),
}


def add_parser(subparsers: Any) -> None:
    """Register `portobello bench [MODE]`."""
    p = O.add_command(subparsers, "bench", f"speed and size benchmarks (modes: "
                      f"{', '.join(MODES)}; default agents)", cmd_agents,
                      description="Speed and size benchmarks, one JSON object each with "
                      "--json. Without a mode: the agents mode (its flags are accepted here "
                      "too). See benchmarks/README.md.")
    add_agents_arguments(p)
    modes = O.add_subcommands(p, "bench_mode", required=False, metavar="[MODE]")
    for name, mode in MODES.items():
        q = O.add_command(modes, name, mode.help)
        mode.add_arguments(q)
        q.set_defaults(func=mode.command(q))


def bench_main(mode: str, argv: Sequence[str] | None = None) -> int:
    """`portobello bench MODE ARGS...` (for the scripts in benchmarks/)."""
    from sim.cli.command import main

    return main(["bench", mode, *(sys.argv[1:] if argv is None else argv)])

