"""`portobello tune`: search rules switches toward fair seats (`sim.tuning.fairness`), then
write the recommended rules and the report (`analysis.report.fairness`).

It ends with one line per cell on stderr (the recommendation, every seat's confirmed win
share and interval, and whether that confirms fair), then the report's path alone on
stdout (or the tuning folder's with --no-report). Exit 1 when a recommendation could not
be confirmed fair, so a script cannot take an unconfirmed answer for an answer.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from sim.cli import games as G
from sim.cli import options as O
from sim.cli.summary import compile_first
from sim.core.specs import split_specs
from sim.games.registry import kinds

EXAMPLE = """\
A tuning spec (data/tuning/compensation.toml is a full one):

  name = "bonus-2p"
  players = [2]                 # one search per player count (and variant)
  agents = "heuristic"          # every seat; or one spec per seat; or several levels
                                #   of play, cheapest first, ["heuristic", "expert"]:
                                #   the setting fair at every level, raced
  seed = 1
  preset = "standard"           # fixed rules: a preset and/or [rules] switches;
                                # [[variants]] as in a study give one search each

  [[knobs]]                     # what the search may change
  switch = "start_scores"       # a bonus over each seat's start score
  seats = "each"                # each later seat its own bonus (seats count from 0;
  low = -5                      #   "later": seat k gets k x one bonus; or a seat or list)
  high = 15
  # [[knobs]] switch = "bobby_placer", choices = ["first", "last", "next"]
  # [[knobs]] switch = "multipliers.citizen-baron", low = 2, high = 5

  [target]                      # weights of what is minimised (default seat_gap = 1)
  seat_gap = 1.0                # the largest |seat's win share - 1/n|
  first_player = 0.0            # |first player's share - 1/n|
  length = 0.0                  # |mean rounds - length_goal| / length_goal
  # length_goal = 12

  [search]
  method = "auto"               # auto: monotone for one integer knob, surface for
  budget = 40                   #   several, grid for few choices, else optuna
  games = 2000                  # per setting, the same seeds for every setting
  profile = true                # move each knob alone around the best (the figures)
  # margin = 0.03               # several levels: a setting whose worst seat gap is
                                #   surely above it stops before the dearer levels

  [confirm]
  best = 3                      # the best few settings replayed on fresh seeds
  games = 10000
  checks = [{ agents = "fastmcts:iterations=10", games = 1000 }]

{games}Outputs in OUT: tuning.json (the log it resumes from), summary.json, rules/<cell>.toml
(the recommended rules, one file per variant and player count) and report/index.html."""


def example() -> str:
    """The example spec, with what each other game's spec says instead (`TUNE_EXAMPLE` of
    its commands facet, `sim.cli.games`)."""
    said = [G.member(g, "TUNE_EXAMPLE") for g in kinds().values() if not G.is_default(g)]
    return EXAMPLE.replace("{games}", "".join(f"{text}\n\n" for text in said if text))


def cmd_tune(args: argparse.Namespace) -> int:
    """Run (or resume) the tuning, write its report, print the verdict per cell."""
    from sim.run.game_runs import compile_notice
    from sim.tuning.fairness.run import cell_line
    from sim.tuning.fairness.run import race_line
    from sim.tuning.fairness.run import tune_rules
    from sim.tuning.fairness.spec import load_tuning

    spec = load_tuning(args.file)
    reduced = []
    if args.budget is not None:
        spec = replace(spec, budget=args.budget, stage_budget=args.budget)
        reduced.append(f"--budget {args.budget}")
    if args.games is not None:
        spec = replace(spec, games=args.games)
        reduced.append(f"--games {args.games}")
    if args.confirm_games is not None:
        spec = replace(spec, confirm_games=args.confirm_games,
                       checks=tuple((a, args.confirm_games) for a, _ in spec.checks))
        reduced.append(f"--confirm-games {args.confirm_games}")
    if args.no_checks and spec.checks:
        spec = replace(spec, checks=())
        reduced.append("--no-checks")
    if reduced:
        spec = replace(spec, reduced=" ".join(reduced))
    name = spec.name + ("-reduced" if reduced else "")
    out, report_dir, log = O.out_and_report(args, Path("data/runs/tuning") / name)

    def before_play() -> None:
        # The game's first compile, if its games compile for long (`sim.run.game_runs`).
        specs = [a for level in spec.level_specs for a in split_specs(level)]
        compile_first(compile_notice(spec.game, specs), spec.game)

    summary = tune_rules(spec, out, quiet=args.quiet, log=log,
                         execution=O.execution_from_args(args), before_play=before_play)
    path: Path = out
    if not args.no_report:
        from analysis.report.fairness import build_fairness_report

        path = build_fairness_report(summary, report_dir, rules_dir=out / "rules")
    from analysis.report.fairness_next import next_steps

    for c in summary["cells"]:
        print(cell_line(c), file=sys.stderr)
        for step in next_steps(c):  # an unconfirmed cell: what to try next
            print(f"  what to try next: {step}", file=sys.stderr)
    saved = race_line(summary)
    if saved:
        print(saved, file=sys.stderr)
    print(path)
    unconfirmed = [c["key"] for c in summary["cells"] if not c["recommended"]["confirmed"]]
    if unconfirmed:
        where = " at some level" if summary.get("race") else ""
        print(f"portobello: {len(unconfirmed)} recommendation(s) not confirmed fair (a seat's "
              f"confirmed 95% interval excludes 1/n{where}): {', '.join(unconfirmed)}",
              file=sys.stderr)
        return 1
    return 0


class _Formatter(O.HelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults shown, and the example spec kept as written."""


def add_parser(subparsers: Any) -> None:
    """Register `portobello tune`."""
    p = subparsers.add_parser(
        "tune", help="search rules switches (start-score or Coin bonuses, choices) toward "
        "fair seats",
        formatter_class=_Formatter, epilog=example(),
        description="Search the rules switches a tuning spec names (knobs) toward its "
        "target,\nseat balance by default, for every variant and player count: every setting "
        "plays\nthe same game seeds, the best few are confirmed on fresh seeds, and the "
        "recommended\nrules are written as rules files with a report (seat shares against "
        "each knob,\nthe confirmation table, the search history). Resumable: the same command "
        "goes on\nwhere an interrupted tuning stopped.")
    p.set_defaults(func=cmd_tune)
    p.add_argument("file", metavar="SPEC", help="tuning spec (TOML)")
    O.add_out(p, "DIR", "tuning folder (default: data/runs/tuning/<spec name>, with "
              "-reduced after it when a flag below reduces the spec)")
    p.add_argument("--report", metavar="DIR", help="report folder (default: OUT/report)")
    O.add_execution(p)
    p.add_argument("--budget", type=O.positive_int, default=None, metavar="N",
                   help="settings each stage of a cell may play: the search (overriding "
                   "search.budget), the profiles and the neighbourhood (the nearest to the "
                   "search's best), for a quick look (default: the spec's, every profile "
                   "and neighbourhood setting)")
    p.add_argument("--games", type=O.game_count, default=None, metavar="N",
                   help="games per setting in the search, the profiles, the neighbourhood "
                   "and the race, overriding search.games, for a quick, reduced tuning "
                   "(default: the spec's)")
    p.add_argument("--confirm-games", type=O.game_count, default=None, metavar="N",
                   help="games per confirmed setting (at every level of play) and per "
                   "check, overriding confirm.games and the checks' games (default: the "
                   "spec's)")
    p.add_argument("--no-checks", action="store_true", help="skip the spec's confirm.checks "
                   "(other agents playing the recommendation), for a quick look")
    p.add_argument("--no-report", action="store_true", help="only tune (summary.json and "
                   "the rules files are still written)")
    O.add_quiet(p, "no progress bars or per-cell lines (the closing lines still print)")
