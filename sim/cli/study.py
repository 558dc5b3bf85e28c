"""`portobello study`: run every cell of a balance study spec, resumably, then build its
report (`analysis.study`, `analysis.report`).

It ends with the first player's (seat 0's) win share and interval per player count and
variant, on stderr (`sim.cli.summary`), then the report's path alone on stdout (or the
study folder's with --no-report). A first compile of the compiled engine is announced on
stderr before the first cell, even with --quiet.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sim.cli import options as O
from sim.cli.summary import compile_first
from sim.cli.summary import notice
from sim.cli.summary import study_lines


def cmd_study(args: argparse.Namespace) -> int:
    """Run the study's cells (resumably), then build its report unless --no-report; exit
    1 when a cell stopped on errors."""
    from analysis.metagame.spec import population_file
    from analysis.study import load_study
    from analysis.study import open_study
    from analysis.study import run_study
    from analysis.study.switches import StudyError

    if population_file(args.file):
        return cmd_population(args)
    spec = load_study(args.file)
    if args.rounds is not None:
        raise StudyError("only a population study plays rounds of adaptive sampling",
                         source=args.file, field="--rounds")
    if args.games is not None or args.agents is not None or args.players is not None:
        spec = spec.with_overrides(games=args.games, agents=args.agents, players=args.players)
    out, report_dir, log = _folders(args, spec.name, spec.players)
    line, game = compile_notice(spec, out)
    compile_first(line, game)
    results = run_study(spec, out, quiet=args.quiet, log=log,
                        execution=O.execution_from_args(args))
    failed = [r for r in results if r.error]
    data = open_study(out) if len(failed) < len(results) else None
    if args.no_report:
        path = out
    else:
        from analysis.report import build_report

        path = build_report(data if data is not None else open_study(out), report_dir)
    if data is not None:
        notice("\n".join(study_lines(data)))
    print(path)
    if failed:
        print(f"portobello: error: {len(failed)} cell(s) stopped on errors (listed under "
              f"anomalies in the report): {failed[0].key}: {failed[0].error}", file=sys.stderr)
        return 1
    return 0


def _folders(args: argparse.Namespace, name: str, players: Any
             ) -> tuple[Path, Path, Callable[[str], None]]:
    """A study's folders (`options.out_and_report`) under data/runs/studies/, named for
    the player counts played when --players picks some."""
    name += "" if args.players is None else "-" + "-".join(f"{n}p" for n in players)
    return O.out_and_report(args, Path("data/runs/studies") / name)


def cmd_population(args: argparse.Namespace) -> int:
    """A population study (`population = [...]`): its rounds of adaptive sampling, then its
    report; the answers whoever plays on stderr, the report's path on stdout."""
    from analysis.metagame.spec import load_population
    from analysis.metagame.study import run_population
    from analysis.metagame.summary import summarise
    from analysis.study.switches import StudyError

    spec = load_population(args.file)
    if args.agents is not None:
        raise StudyError("a population study's bots are its population; edit population in "
                         "the spec", source=args.file, field="--agents")
    spec = spec.with_overrides(round_games=args.games, players=args.players)
    out, report_dir, log = _folders(args, spec.name, spec.study.players)
    run_population(spec, out, quiet=args.quiet, log=log,
                   execution=O.execution_from_args(args), rounds_limit=args.rounds)
    again = ["portobello", "study", str(args.file), "--out", str(out)]
    if args.report:
        again += ["--report", str(args.report)]
    summary = summarise(spec, out, command=" ".join(again + (
        ["--jobs", str(args.jobs)] if getattr(args, "jobs", None) else [])))
    path: Path = out
    if not args.no_report:
        from analysis.report.population import build_population_report
        from analysis.report.population import headline

        path = build_population_report(summary, report_dir)
        for h in headline(summary):
            notice(f"{h['players']} players, {h['variant']}: first player wins {h['answer']} "
                   f"whoever plays; {h['change']}; {h['convergence']}")
    print(path)
    return 0


def compile_notice(spec: Any, out: Path) -> tuple[str | None, str | None]:
    """The first-compile line if a cell with games left plays on compiled code not cached
    yet (`sim.run.runner.Run.compile_notice`), and the game it compiles; else None, None."""
    from sim.run.runner import Run

    for cell in spec.cells():
        line = Run(cell.config, out / "runs" / cell.key).compile_notice()
        if line:
            return line, cell.config.game
    return None, None


def add_parser(subparsers: Any) -> None:
    """Register `portobello study`."""
    p = O.add_command(subparsers, "study", "run a balance study (variants x player counts) "
                      "and build its report", cmd_study,
                      description="Run every cell of a study spec (data/studies/*.toml) into "
                      "OUT/runs/<variant>-<players>p, resumably, then write the report to "
                      "OUT/report/index.html (or --report). The spec sets the rules, board, "
                      "player counts, agents, games and seed of every cell; with max_games "
                      "(next to target_half_width) each cell plays rounds until every "
                      "seat's 95% win-share interval is within the target or max_games is "
                      "reached, and the report says where each stopped. With skill levels "
                      "(skill = [...], in place of agents) there is a cell per variant, level "
                      "and player count, OUT/runs/<variant>-<level>-<players>p, all on the "
                      "same seeds, and the report says whether each finding holds for "
                      "stronger play; with saturation = {agents, games} the strongest level "
                      "is played against itself at double its budget "
                      "(OUT/runs/<baseline>-<level>-doubled-<players>p) and each finding "
                      "is labelled converged or not (docs/studies.md). With population = "
                      "[bots, weakest first] (in place of agents) the study plays the "
                      "empirical meta-game of those bots, in rounds of adaptive sampling, and "
                      "answers whoever plays: at the equilibrium where every seat picks its "
                      "best bot (--games: each profile's games a round).")
    p.add_argument("file", metavar="STUDY", help="study spec (TOML)")
    O.add_out(p, "DIR", "study folder (default: data/runs/studies/<study name>)")
    p.add_argument("--report", metavar="DIR", help="report folder (default: OUT/report)")
    O.add_execution(p)
    O.add_games(p, None, "games per cell, overriding the spec, for a quick, reduced study "
                "(a fixed count, also for a spec with max_games; default: the spec's)")
    O.add_agents(p, default=None, help="override the spec's agents: " + O.agents_help()
                 + " (default: the spec's)")
    p.add_argument("--players", type=O.player_counts, default=None, metavar="N[,N...]",
                   help="play only these of the spec's player counts, e.g. 3 (the cells are "
                   "the full study's at those counts; default folder: "
                   "data/runs/studies/<study name>-<N>p; default: every count of the spec)")
    p.add_argument("--rounds", type=O.positive_int, default=None, metavar="N",
                   help="a population study: stop after round N of adaptive sampling and "
                   "report where the answers stand (the same command without --rounds "
                   "continues it; default: play until every answer is within the spec's "
                   "margin or its profiles reach max_games)")
    p.add_argument("--no-report", action="store_true", help="only run the cells (and still "
                   "print the first player's win share in each)")
    O.add_quiet(p, "no progress bars or per-cell lines (the closing lines and a "
                "first-compile notice still print)")
