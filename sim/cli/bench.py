"""`portobello bench [MODE]`: speed and size benchmarks, run on demand (never as tests).

The measuring is in `sim.bench`; this module parses each mode's flags, calls it and prints
a short table, or one JSON object with `--json`. Modes (`MODES`; `portobello bench` alone is
`portobello bench agents`, where a game offers it):

- `simulate`: a run once per `--jobs` entry: games per second, the ratio to the first entry,
  bytes per game on disk (any game, `--game`);
- `load`: a run loaded and summarised as a report does it, in a fresh child process;
- `disk`: bytes per game on disk for each table of a run;
- the modes a game declares (`bench_modes()` of its commands facet, `sim.cli.games`): the
  default game's `agents` (games and decisions per second between agents on one core),
  `mcts`, `compile`, `yardstick`, `cluster`; River Market's `river`.

Bad input (a missing or damaged run folder, bad numbers) ends in one line on stderr and exit
status 2; the agents mode keeps the exit status of the other commands (1 for a bad agent).

To add a mode: a function in `sim.bench` returning a dict, `add_arguments(parser)` and
`func(args) -> int` here or in a game's commands facet (print with `emit`), a `Mode` in
`GENERIC` or the facet's `bench_modes()`, and a two-line wrapper script in `benchmarks/`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sim.bench import TARGET_LOAD_MB
from sim.bench import TARGET_LOAD_SECONDS
from sim.bench import BenchError
from sim.cli import games as G
from sim.cli import options as O
from sim.cli.bench_mode import Command
from sim.cli.bench_mode import Mode
from sim.cli.bench_mode import bad_input_exits_2
from sim.cli.bench_mode import emit
from sim.games.registry import kinds

__all__ = ["MODES", "Command", "Mode", "bad_input_exits_2", "bench_main", "emit"]
DEFAULT_MODE = "agents"  # `portobello bench` alone, where a game offers it


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


# -- the modes --------------------------------------------------------------------------------
GENERIC: dict[str, Mode] = {
    "simulate": Mode("a run end to end for each --jobs entry: games/s, ratio to the first, "
                     "bytes per game", add_simulate_arguments, simulate_command),
    "load": Mode("load and summarise a run as a report does, in a fresh process: seconds "
                 "and peak memory", add_load_arguments, lambda p: cmd_load),
    "disk": Mode("bytes per game on disk for each table of a run", add_disk_arguments,
                 lambda p: cmd_disk),
}


def all_modes() -> dict[str, Mode]:
    """The toolkit's modes and every game's (`bench_modes()`), the default mode first; a
    name taken already is not taken again."""
    found = dict(GENERIC)
    for game in kinds().values():
        offered = G.member(game, "bench_modes")
        for name, mode in (offered() if offered is not None else {}).items():
            found.setdefault(name, mode)
    first = {DEFAULT_MODE: found.pop(DEFAULT_MODE)} if DEFAULT_MODE in found else {}
    return first | found


MODES: dict[str, Mode] = all_modes()


def add_parser(subparsers: Any) -> None:
    """Register `portobello bench [MODE]`."""
    default = MODES.get(DEFAULT_MODE)
    p = O.add_command(subparsers, "bench", f"speed and size benchmarks (modes: "
                      f"{', '.join(MODES)}" + (f"; default {DEFAULT_MODE})" if default else ")"),
                      description="Speed and size benchmarks, one JSON object each with "
                      "--json." + (f" Without a mode: the {DEFAULT_MODE} mode (its flags are "
                                   "accepted here too)." if default else "")
                      + " See benchmarks/README.md.")
    if default is not None:
        default.add_arguments(p)
        p.set_defaults(func=default.command(p))
    modes = O.add_subcommands(p, "bench_mode", required=default is None, metavar="[MODE]")
    for name, mode in MODES.items():
        q = O.add_command(modes, name, mode.help)
        mode.add_arguments(q)
        q.set_defaults(func=mode.command(q))


def bench_main(mode: str, argv: Sequence[str] | None = None) -> int:
    """`portobello bench MODE ARGS...` (for the scripts in benchmarks/)."""
    from sim.cli.command import main

    return main(["bench", mode, *(sys.argv[1:] if argv is None else argv)])

