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
from sim.run import tournament as T
from sim.run.tournament import (
    PAIRINGS,
    TournamentConfig,
    format_ratings,
    format_summary,
    ratings,
    run_tournament,
    summary,
    write_parquet,
)


def _players(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of player counts "
                                         "like 2,3,4") from None
    if not values or any(v < 2 for v in values):
        raise argparse.ArgumentTypeError(f"player counts must be at least 2, got {text!r}")
    return values


def cmd_tournament(args: argparse.Namespace) -> int:
    from sim.cli.main import rules_from_args

    rules = rules_from_args(args)
    specs = tuple(split_specs(args.agents))
    config = TournamentConfig(agents=specs, players=args.players, games=args.games,
                              seed=args.seed, board_ref=args.board, rules=rules,
                              pairing=args.pairs, jobs=args.jobs)
    start = time.perf_counter()
    df, errors = run_tournament(config, progress=not args.quiet)
    seconds = time.perf_counter() - start
    out = Path(args.out) if args.out else \
        Path("data/runs") / f"tournament-{config.tournament_id}.parquet"
    if not df.empty:
        write_parquet(df, out)
    print(f"tournament {config.tournament_id}: {', '.join(specs)}; players "
          f"{', '.join(map(str, config.players))}; {args.games} games per matchup; seed "
          f"{args.seed}; {seconds:.0f} s with {args.jobs} job(s)")
    if not df.empty:
        print()
        print(format_summary(summary(df)))
        print()
        print(format_ratings(ratings(df)))
        print()
        print(f"results: {out} ({len(df)} rows, one per game and seat)")
    for e in errors:
        print(f"portobello: agent error: {e['message']}", file=sys.stderr)
    if errors:
        err_path = out.with_suffix(".errors.json")
        err_path.parent.mkdir(parents=True, exist_ok=True)
        err_path.write_text(json.dumps(errors, indent=1))
        print(f"portobello: {len(errors)} game(s) failed and were left out (details in "
              f"{err_path})", file=sys.stderr)
        return 1
    return 0


def add_parser(subparsers: Any, agents_help: str) -> None:
    """Register `portobello tournament` (called by sim.cli)."""
    p = subparsers.add_parser(
        "tournament", help="agents against each other over player counts; win rates with "
        "Wilson intervals, ratings, Parquet",
        description=T.__doc__.split("\n\n")[1] if T.__doc__ else None)
    p.add_argument("--agents", required=True,
                   help="two or more agent specs separated by commas, earlier = focus of a "
                   f"pair ({agents_help.split('(', 1)[-1].rstrip(')')}; restricted: "
                   "no-district(AGENT), no-customers(AGENT), no-bobby(AGENT), "
                   "first-end(AGENT))")
    p.add_argument("--players", type=_players, default=(2,),
                   help="player counts, e.g. 2,3,4 (default 2)")
    p.add_argument("--games", type=int, default=100,
                   help="games per matchup and player count, rounded up to whole seat "
                   "rotations (default 100)")
    p.add_argument("--pairs", choices=PAIRINGS, default="all",
                   help="all pairs, neighbours in the listed order (ladder), or the first "
                   "agent against each other one (default all)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="parallel processes (joblib)")
    p.add_argument("--board", default="standard", help="board name or TOML file")
    p.add_argument("--out", metavar="FILE",
                   help="Parquet file (default data/runs/tournament-<id>.parquet)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--preset", help="named rules preset (see `portobello rules list`)")
    p.add_argument("--rules", metavar="FILE", help="rules TOML file (SPEC §3)")
    p.set_defaults(func=cmd_tournament)
