"""`portobello report`: one HTML balance report from existing run or study folders
(`analysis.study.cells_from_runs`, `analysis.report.build_report`).

It ends with the first player's (seat 0's) win share and interval per player count and
variant on stderr (`sim.cli.summary`), then the report's index page alone on stdout."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sim.cli import options as O
from sim.cli.summary import notice
from sim.cli.summary import study_lines


def cmd_report(args: argparse.Namespace) -> int:
    """Group the runs into cells and write the report; print seat 0's win shares (stderr)
    and the index page's path (stdout)."""
    from analysis.report import build_report
    from analysis.study import cells_from_runs

    O.check_out(args, args.out, report=True)
    if args.ladder:
        from analysis.report.ladder import read_ladder

        read_ladder(args.ladder)  # a bad ladder is refused before any work
    data = cells_from_runs(args.runs, allow_partial=args.allow_partial)
    for line in data.partial:
        notice(f"portobello: partial: {line}")
    if args.title:
        data.title = args.title
    path = build_report(data, Path(args.out), target_half_width=args.target,
                        ladder=args.ladder)
    notice("\n".join(study_lines(data)))
    print(path)
    return 0


def add_parser(subparsers: Any) -> None:
    """Register `portobello report`."""
    p = O.add_command(subparsers, "report", "build a balance report from run or study "
                      "folders", cmd_report,
                      description="Build one self-contained HTML report from run folders "
                      "(or study folders) on one board. Runs are grouped into variants by "
                      "their rules and agents; the variant with default rules is the "
                      "baseline. It ends with the first player's win share per player count "
                      "and variant (95% intervals), then the index page's path.")
    p.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run or study folders")
    O.add_out(p, "DIR", "report folder (index.html, summary.json; required)", required=True)
    p.add_argument("--allow-partial", action="store_true",
                   help="report runs that are unfinished or have missing or damaged shards "
                   "from their whole shards (the report's header says how many games it "
                   "holds); without it such runs are refused, naming the shard")
    p.add_argument("--title", help="report title (default: the study's title, else Balance report)")
    p.add_argument("--ladder", metavar="DIR", default=None,
                   help="report folder of a skill-ladder study that examined these findings: "
                   "each carries its label across levels of play, and a banner names the "
                   "ladder level these agents play (default: the study spec's ladder, if any)")
    p.add_argument("--target", type=O.half_width, default=None, metavar="HALF_WIDTH",
                   help="target half-width of seat win-share intervals (default: the study "
                   "spec's, else 0.015)")
