"""`portobello tournament`: agents x player counts x games, summarised as head-to-head win
rates with Wilson intervals and ratings, and written as Parquet (`sim.run.tournament`
plays them)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from sim.agents.registry import split_specs
from sim.cli import options as O
from sim.cli.summary import notice
from sim.run import tournament as T
from sim.run.engines import ENGINES
from sim.run.tournament import PAIRINGS
from sim.run.tournament import TournamentConfig
from sim.run.tournament import format_ratings
from sim.run.tournament import format_summary
from sim.run.tournament import ratings
from sim.run.tournament import run_tournament
from sim.run.tournament import summary
from sim.run.tournament import write_parquet


def cmd_tournament(args: argparse.Namespace) -> int:
    """Play the tournament; print the summary and ratings, write the Parquet file (and
    the failed games next to it, exit 1); the last line names the results file."""
    rules = O.rules_from_args(args)
    specs = tuple(split_specs(args.agents))
    config = TournamentConfig(agents=specs, players=tuple(args.players), games=args.games,
                              seed=args.seed, board_ref=args.board, rules=rules,
                              pairing=args.pairs, jobs=args.jobs, engine=args.engine)
    line = config.compile_notice()
    if line:
        notice(line)
    start = time.perf_counter()
    df, errors = run_tournament(config, progress=not args.quiet)
    seconds = time.perf_counter() - start
    out = Path(args.out) if args.out else \
        Path("data/runs") / f"tournament-{config.tournament_id}.parquet"
    if not df.empty:
        write_parquet(df, out)
    print(f"tournament {config.tournament_id}: {', '.join(specs)}; players "
          f"{', '.join(map(str, config.players))}; {args.games} games per matchup; seed "
          f"{args.seed}; {seconds:.0f} s with {args.jobs} job(s); {engines_text(config)}")
    if not df.empty:
        print()
        print(format_summary(summary(df)))
        print()
        print(format_ratings(ratings(df)))
        print()
    for e in errors:
        print(f"portobello: agent error: {e['message']}", file=sys.stderr)
    if errors:
        err_path = out.with_suffix(".errors.json")
        err_path.parent.mkdir(parents=True, exist_ok=True)
        err_path.write_text(json.dumps(errors, indent=1))
        print(f"portobello: {len(errors)} game(s) failed and were left out (details in "
              f"{err_path})", file=sys.stderr, flush=True)
    # The last line names the results file (after any errors, so it is what stays in view).
    if df.empty:
        print("results: none (every game failed; nothing written)")
    else:
        print(f"results: {out} ({len(df)} rows, one per game and seat)")
    return 1 if errors else 0


def engines_text(config: TournamentConfig) -> str:
    """Which engine played the matchups: `compiled engine`, or counts when both did."""
    used = config.engines()
    if len(used) == 1:
        return f"{next(iter(used))} engine" + (" (timed)" if "python" in used else "")
    return ", ".join(f"{k} matchups on the {name} engine" for name, k in sorted(used.items()))


def add_parser(subparsers: Any) -> None:
    """Register `portobello tournament`."""
    # The library's own account: what it plays (less the command's name), then its design.
    paragraphs = (T.__doc__ or "").split("\n\n")
    what = paragraphs[0].split(": ", 1)[-1]
    design = " ".join([what[:1].upper() + what[1:], *paragraphs[1:2]]) or None
    p = O.add_command(subparsers, "tournament", "agents against each other over player "
                      "counts; win rates with Wilson intervals, ratings, Parquet",
                      cmd_tournament, description=design)
    listed = O.agents_help().split("(", 1)[-1].rstrip(")")
    O.add_agents(p, required=True,
                 help="two or more agent specs separated by commas, earlier = focus of a "
                 f"pair ({listed}; restricted: no-district(AGENT), no-customers(AGENT), "
                 "no-bobby(AGENT), first-end(AGENT); required)")
    O.add_players(p, several=True)
    O.add_games(p, 100, "games per matchup and player count, rounded up to whole seat "
                "rotations")
    p.add_argument("--pairs", choices=PAIRINGS, default="all",
                   help="all pairs, neighbours in the listed order (ladder), or the first "
                   "agent against each other one")
    O.add_seed(p, help="tournament seed (every block's game seed derives from it, the same in "
               "every matchup)")
    O.add_jobs(p, help="parallel worker processes (joblib)")
    p.add_argument("--engine", choices=ENGINES, default="auto",
                   help="auto: a matchup plays on the compiled engine when both its agents "
                   "have compiled versions (random, greedy, heuristic, restricted or not), "
                   "else on the reference engine, which times every decision; both play the "
                   "same games (on the compiled engine the timing columns are null and the "
                   "ms/decision columns read –)")
    O.add_board(p)
    O.add_rules(p)
    O.add_out(p, "FILE", "Parquet file (default: data/runs/tournament-<tournament id>.parquet)")
    O.add_quiet(p)
