"""`portobello simulate`: many games into a run folder (see sim.run.runner)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from sim.cli.main import agent_specs, rules_from_args
from sim.engine.board import load_board
from sim.engine.errors import PortobelloError
from sim.run.runner import Run, RunConfig


def _stack(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of "
                                         "integers") from None
    return values


def config_from_flags(args: argparse.Namespace) -> RunConfig:
    rules = rules_from_args(args, players=args.players, customer_order=args.customers,
                            neutral_stack=args.neutral_stack)
    board = load_board(args.board)
    specs = agent_specs(args.agents, rules.players)
    return RunConfig(board=board, board_ref=args.board, rules=rules, agents=tuple(specs),
                     games=args.games, seed=args.seed, shard_size=args.shard_size,
                     events=args.events, records=args.records)


def cmd_simulate(args: argparse.Namespace) -> int:
    config = config_from_flags(args)
    out = Path(args.out) if args.out else Path("data/runs") / f"run-{config.run_id}"
    if args.jobs < 1:
        raise PortobelloError("must be at least 1", field="--jobs")
    timings = Run(config, out).execute(jobs=args.jobs, backend=args.backend,
                                       scheduler=args.scheduler, quiet=args.quiet,
                                       engine=args.engine)
    if args.json:
        print(json.dumps({"out": str(out), "run_id": config.run_id, **timings}))
    elif not args.quiet:
        rate = timings["games_per_second"]
        print(f"{out}: {config.games} games ({timings['games_resumed']} resumed, "
              f"{timings['games_played']} played in {timings['seconds']:.1f} s"
              + (f", {rate:.0f} games/s" if rate else "") + ")")
    return 0


def add_parser(sub: Any, agents_help: str) -> None:
    p = sub.add_parser("simulate", help="play many games into a run folder (Parquet tables)",
                       description="Play many games in parallel into a run folder. The same "
                       "command on the same folder resumes an interrupted run.")
    p.add_argument("--players", type=int, default=None, help="number of players (default 2)")
    p.add_argument("--customers", choices=["drawn", "known"], default=None,
                   help="customer order (default drawn)")
    p.add_argument("--neutral-stack", type=_stack, default=None, metavar="3,3,2,2,1,1,1,1",
                   help="neutral tokens, top first")
    p.add_argument("--preset", help="named rules preset (see `portobello rules list`)")
    p.add_argument("--rules", metavar="FILE", help="rules TOML file")
    p.add_argument("--board", default="standard", help="board name or TOML file")
    p.add_argument("--agents", default="random", help=agents_help)
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0, help="run seed (each game's seed derives "
                   "from it and the game index)")
    p.add_argument("--jobs", type=int, default=1, help="parallel worker processes")
    p.add_argument("--out", help="run folder (default data/runs/run-<run id>)")
    p.add_argument("--shard-size", type=int, default=1000, help="games per stored shard "
                   "(and per task)")
    p.add_argument("--events", action="store_true", help="also write the event log")
    p.add_argument("--records", action="store_true", help="also write game records")
    p.add_argument("--backend", choices=["loky", "dask"], default="loky",
                   help="loky: local processes; dask: a local Dask cluster or --scheduler")
    p.add_argument("--scheduler", metavar="ADDRESS", help="existing Dask scheduler, e.g. "
                   "tcp://host:8786 (implies --backend dask)")
    p.add_argument("--engine", choices=["auto", "compiled", "python"], default="auto",
                   help="auto: the compiled engine when every agent has a compiled version "
                   "(random, greedy, heuristic), else the reference one; both give the "
                   "same games")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the timings as JSON")
    p.set_defaults(func=cmd_simulate)
