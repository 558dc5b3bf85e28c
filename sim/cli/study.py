"""`portobello study` (run a study spec and build its report) and `portobello report`
(build a report from existing run or study folders)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from sim.cli.main import positive_int


def cmd_study(args: argparse.Namespace) -> int:
    from analysis.study import load_study, open_study, run_study

    spec = load_study(args.file)
    if args.games is not None or args.agents is not None:
        spec = spec.with_overrides(games=args.games, agents=args.agents)
    out = Path(args.out) if args.out else Path("data/runs/studies") / spec.name

    def log(msg: str) -> None:
        if not args.quiet:
            print(msg, file=sys.stderr)

    results = run_study(spec, out, jobs=args.jobs, quiet=args.quiet, log=log)
    failed = [r for r in results if r.error]
    if args.no_report:
        print(out)
        return 1 if failed else 0
    from analysis.report import build_report

    report_dir = Path(args.report) if args.report else out / "report"
    path = build_report(open_study(out), report_dir)
    print(path)
    if failed:
        print(f"portobello: error: {len(failed)} cell(s) stopped on errors (listed under "
              f"anomalies in the report): {failed[0].key}: {failed[0].error}", file=sys.stderr)
        return 1
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from analysis.report import build_report
    from analysis.study import cells_from_runs

    data = cells_from_runs(args.runs)
    if args.title:
        data.title = args.title
    path = build_report(data, Path(args.out), target_half_width=args.target)
    print(path)
    return 0


def _target(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 0.5:
        raise argparse.ArgumentTypeError(f"must be between 0 and 0.5 (e.g. 0.015), got {value}")
    return value


def add_parser(sub: Any, agents_help: str) -> None:
    p = sub.add_parser("study", help="run a balance study (variants x player counts) and build "
                       "its report", description="Run every cell of a study spec "
                       "(data/studies/*.toml) into DIR/runs/<variant>-<players>p, resumably, "
                       "then write the report to DIR/report/index.html (or --report).")
    p.add_argument("file", help="study spec (TOML)")
    p.add_argument("--out", help="study folder (default data/runs/studies/<name>)")
    p.add_argument("--report", metavar="DIR", help="report folder (default OUT/report)")
    p.add_argument("--jobs", type=positive_int, default=1, help="parallel worker processes")
    p.add_argument("--games", type=positive_int, default=None,
                   help="games per cell, overriding the spec (for a quick, reduced study)")
    p.add_argument("--agents", default=None, help="override the spec's agents: " + agents_help)
    p.add_argument("--no-report", action="store_true", help="only run the cells")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=cmd_study)

    p = sub.add_parser("report", help="build a balance report from run or study folders",
                       description="Build one self-contained HTML report from run folders "
                       "(or study folders) on one board. Runs are grouped into variants by "
                       "their rules and agents; the variant with default rules is the "
                       "baseline.")
    p.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run or study folders")
    p.add_argument("--out", required=True, help="report folder (index.html, summary.json)")
    p.add_argument("--title", help="report title")
    p.add_argument("--target", type=_target, default=None, metavar="HALF_WIDTH",
                   help="target half-width of seat win-share intervals (default 0.015)")
    p.set_defaults(func=cmd_report)
