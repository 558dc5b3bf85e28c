"""`portobello simulate`: many games into a run folder (see `sim.run.runner`).

`add_run_flags` and `config_from_flags` are shared with `portobello bench simulate`, which
runs the same configuration once per job count.

Without `--agents` a run plays `DEFAULT_AGENTS`, the compiled heuristic agent in every seat:
the strongest agent that plays over a thousand games a second per core (greedy is weaker,
MCTS far slower per game), so a run's numbers describe competent play. `portobello bench simulate`
keeps random agents, the runner's own speed.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from sim.cli import options as O
from sim.cli.summary import notice
from sim.cli.summary import run_lines
from sim.engine.board import load_board
from sim.run.runner import Run
from sim.run.runner import RunConfig

DEFAULT_AGENTS = "heuristic"
neutral_stack = O.IntegerList(1, example="3,3,2,2,1,1,1,1", empty_ok=True)


def add_run_flags(p: argparse.ArgumentParser, games: int, games_help: str,
                  agents: str = DEFAULT_AGENTS, agents_help: str | None = None) -> None:
    """Every flag that decides a run's configuration or how it is executed (not where it is
    written): rules, board, agents (default `agents`), games, seed, shards, tables, backend
    and engine."""
    O.add_players(p)
    p.add_argument("--customers", choices=["drawn", "known"], default=None,
                   help="customer order (default: drawn, or the preset's or rules file's)")
    p.add_argument("--neutral-stack", type=neutral_stack, default=None,
                   metavar="3,3,2,2,1,1,1,1",
                   help="neutral tokens, top first (default: the rules')")
    O.add_rules(p)
    O.add_board(p)
    O.add_agents(p, default=agents, help=agents_help)
    O.add_games(p, games, games_help)
    O.add_seed(p, help="run seed (each game's seed derives from it and the game index)")
    p.add_argument("--shard-size", type=O.positive_int, default=O.DEFAULT_SHARD_SIZE,
                   metavar="N", help="games per stored shard (and per task)")
    p.add_argument("--events", action="store_true", help="also write the event log")
    p.add_argument("--records", action="store_true", help="also write game records")
    p.add_argument("--backend", choices=["loky", "dask"], default="loky",
                   help="loky: local processes; dask: a local Dask cluster or --scheduler")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="existing Dask scheduler, e.g. tcp://host:8786 (implies --backend "
                   "dask; default: none)")
    O.add_engine(p)


def config_from_flags(args: argparse.Namespace) -> RunConfig:
    """The run configuration the flags of `add_run_flags` describe."""
    rules = O.rules_from_args(args, players=args.players, customer_order=args.customers,
                              neutral_stack=args.neutral_stack)
    board = load_board(args.board)
    specs = O.agent_specs(args.agents, rules.players)
    return RunConfig(board=board, board_ref=args.board, rules=rules, agents=tuple(specs),
                     games=args.games, seed=args.seed, shard_size=args.shard_size,
                     events=args.events, records=args.records)


def execute_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of `Run.execute` the flags of `add_run_flags` give (jobs and
    quiet apart)."""
    return {"backend": args.backend, "scheduler": args.scheduler, "engine": args.engine}


def cmd_simulate(args: argparse.Namespace) -> int:
    """Run (or resume) the run into --out; print the closing lines (games, agents, engine,
    seat 0's win share, the folder), or only the timings with --json. A first compile of
    the compiled engine is announced on stderr, even with --quiet."""
    config = config_from_flags(args)
    out = Path(args.out) if args.out else Path("data/runs") / f"run-{config.run_id}"
    run = Run(config, out)
    line = run.compile_notice(args.engine)
    if line:
        notice(line)
    timings = run.execute(jobs=args.jobs, quiet=args.quiet, **execute_options(args))
    if args.json:
        print(json.dumps({"out": str(out), "run_id": config.run_id, **timings}))
    else:
        print("\n".join(run_lines(out, config, timings)))
    return 0


def add_parser(subparsers: Any) -> None:
    """Register `portobello simulate`."""
    p = O.add_command(subparsers, "simulate", "play many games into a run folder (Parquet "
                      "tables)", cmd_simulate, description="Play many games in parallel into "
                      "a run folder. The same command on the same folder resumes an "
                      f"interrupted run. Without --agents, {DEFAULT_AGENTS} plays every seat "
                      "(on the compiled engine). It ends with the games played, the agents "
                      "and engine, the first player's win share with its 95% interval, "
                      "and the run folder.")
    add_run_flags(p, 1000, "games in the run", agents_help=O.agents_help() + "; without it the "
                  "strongest agent with a compiled version plays every seat (default: "
                  f"{DEFAULT_AGENTS})")
    O.add_jobs(p)
    O.add_out(p, "DIR", "run folder (default: data/runs/run-<run id>)")
    O.add_quiet(p, "no progress bar (the closing lines and a first-compile notice still "
                "print)")
    O.add_json(p, "only the timings")
