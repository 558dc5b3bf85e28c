"""`portobello tournament`: agents x player counts x games, summarised as head-to-head win
rates with Wilson intervals and ratings, and written as Parquet (`sim.run.tournament`
plays them); with `--probe AGENT`, the exploitability probe of one agent
(`analysis.probe`).

Exit status: 0 done; 1 some games failed (left out, listed next to the results); 2 bad
input (a probe refuses any bad input with 2; a tournament's unknown agent is 1, as it
always was); 3 (probe only) some challenger beats AGENT. Failed games win over 3: a
verdict on incomplete data is not the probe's answer."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sim.cli import options as O
from sim.cli.summary import compile_first
from sim.core.errors import PortobelloError
from sim.core.kind import GameKind
from sim.core.specs import split_specs
from sim.games.registry import kinds
from sim.run import tournament as T
from sim.run.execution import Pool
from sim.run.game_runs import ENGINES
from sim.run.task_store import TaskStore
from sim.run.tournament import PAIRINGS
from sim.run.tournament import TournamentConfig
from sim.run.tournament import format_ratings
from sim.run.tournament import format_summary
from sim.run.tournament import ratings
from sim.run.tournament import run_tournament
from sim.run.tournament import summary
from sim.run.tournament import write_parquet

TOURNAMENT_GAMES = 100
PROBE_GAMES = 600
PROBE_PLAYERS = (2, 3, 4)
TOURNAMENT_PLAYERS = [2]  # the --players default (a tournament's; a probe replaces it)
# Flags that only a probe takes: (flag, argparse dest).
PROBE_FLAGS = (("--perturbations", "perturbations"), ("--sigma", "sigma"), ("--step", "step"),
               ("--top", "top"), ("--probe-weights", "probe_weights"))


class UsageError(PortobelloError):
    """Flags that do not go together (exit 2, like any bad input to a probe)."""

    exit_code = 2


PROBE_EPILOG = (
    "Probe (--probe AGENT): AGENT against challengers written as explicit specs: each "
    "restriction wrapper around AGENT, AGENT with one of its restrictions or set weights "
    "lifted, and for agents that play weights (heuristic; mcts and fastmcts through "
    "weights=, as weight-set files next to the results) K random multiplicative "
    "perturbations of the weights AGENT plays at that player count and, one at a time, the "
    "M most influential weights times 1+F and 1-F. At each player count, both directions "
    "above 2 players (the challenger alone, and AGENT alone against n-1 challengers). "
    "Every matchup shows the challenger's win share per seat against parity 1/n with its "
    "interval corrected for all the probe's matchups (Holm, alpha 0.05) and the verdict "
    "read off it; the last line names the challengers that beat AGENT. Exit status: 0 no "
    "challenger beats AGENT, 3 some do, 1 games failed, 2 bad input. analysis/probe.py "
    "documents the design.")


def cmd_tournament(args: argparse.Namespace) -> int:
    """Play the tournament (or, with --probe, the probe); print the summary and ratings,
    write the Parquet file (and the failed games next to it, exit 1); the last line names
    the results file."""
    if args.probe is not None:
        return cmd_probe(args)
    if args.agents is None:
        raise UsageError("give --agents (two or more agents) or --probe AGENT",
                         field="--agents")
    given = [flag for flag, dest in PROBE_FLAGS if getattr(args, dest) is not None]
    if given:
        raise UsageError(f"{', '.join(given)} only go with --probe AGENT", field=given[0])
    specs = tuple(split_specs(args.agents))
    games = args.games or TOURNAMENT_GAMES
    game = O.game_from_args(args)
    check_agents(game, specs)
    config = TournamentConfig(agents=specs, players=tuple(args.players), games=games,
                              seed=args.seed, board_ref=O.material_ref(args, game),
                              rules=O.rules_from_args(args, game), pairing=args.pairs or "all",
                              jobs=args.jobs, engine=args.engine, game=game.name)
    line = config.compile_notice()
    compile_first(line, config.game)
    if args.out:
        O.check_out(args, args.out)
    start = time.perf_counter()
    out = Path(args.out) if args.out else \
        Path("data/runs") / f"tournament-{config.tournament_id}.parquet"
    store = TaskStore(out.with_suffix(".tasks"))  # what a stopped tournament keeps
    with Pool(O.execution_from_args(args)) as pool:
        df, errors = run_tournament(config, progress=not args.quiet, pool=pool, store=store)
    seconds = time.perf_counter() - start
    if not df.empty:
        write_parquet(df, out)
    store.clear()
    print(f"tournament {config.tournament_id}: {', '.join(specs)}; players "
          f"{', '.join(map(str, config.players))}; {games} games per matchup; seed "
          f"{args.seed}; {seconds:.0f} s on {pool.execution.describe()}; {engines_text(config)}")
    if not df.empty:
        print()
        print(format_summary(summary(df)))
        print()
        print(format_ratings(ratings(df)))
        print()
    report_errors(errors, out)
    # The last line names the results file (after any errors, so it is what stays in view).
    print(results_line(df, out))
    return 1 if errors else 0


def check_agents(game: GameKind, specs: Sequence[str]) -> None:
    """Refuse a spec the game has no agent for, naming --agents (the game's own reason)."""
    for spec in specs:
        try:
            game.check_agent(spec)
        except PortobelloError as exc:
            if exc.field not in (None, "agents"):
                raise
            raise PortobelloError(exc.reason, source=exc.source, field="--agents") from None


def has_probe(game: GameKind) -> bool:
    """Whether the game's agents have the exploitability probe's challengers (its report
    facet's `probe_challengers`, `analysis.facets`)."""
    from analysis.facets import declared

    return declared(game.name, "probe_challengers", None) is not None


def cmd_probe(args: argparse.Namespace) -> int:
    game = O.game_from_args(args)
    if not has_probe(game):
        having = [g.name for g in kinds().values() if has_probe(g)]
        raise UsageError(f"{game.title} has no probe of its agents' restrictions and "
                         f"weights (games with it: {', '.join(having) or 'none'})",
                         field="--probe")
    return _probe(args)


def _probe(args: argparse.Namespace) -> int:
    """`--probe AGENT`: play AGENT against its challengers; print every matchup with the
    Holm-corrected interval and verdict, write the Parquet file; the last line says which
    challengers beat AGENT. Exit 0: none does; 3: some do; 1: games failed (the verdict is
    then on incomplete data); 2: bad input."""
    # Loaded here, not with the command line: the probe's statistics (scipy) are slow to
    # import, and every other command would wait for them.
    from analysis.probe import EXIT_BEATEN
    from analysis.probe import EXIT_FAILED
    from analysis.probe import EXIT_NONE
    from analysis.probe import ProbeConfig
    from analysis.probe import beaten_by
    from analysis.probe import format_probe
    from analysis.probe import probe_table
    from analysis.probe import run_probe
    from analysis.probe import verdict_line

    if args.agents is not None:
        raise UsageError("--probe AGENT plays its own challengers: leave out --agents",
                         field="--agents")
    if args.pairs is not None:
        raise UsageError("--probe plays AGENT against each challenger: leave out --pairs",
                         field="--pairs")
    try:
        rules = O.rules_from_args(args, O.game_from_args(args))
    except PortobelloError as exc:
        raise UsageError(exc.reason, source=exc.source, field=exc.field) from None
    out = O.check_out(args, args.out) if args.out else None
    weights = None if args.probe_weights is None else \
        tuple(w.strip() for w in args.probe_weights.split(",") if w.strip())
    # The parser's own default list (not a list the user gave) means the probe's default.
    players = PROBE_PLAYERS if args.players is TOURNAMENT_PLAYERS else tuple(args.players)
    probe: dict[str, Any] = dict(
        agent=args.probe, players=players, games=args.games or PROBE_GAMES, seed=args.seed,
        board_ref=O.material_ref(args), rules=rules, jobs=args.jobs, engine=args.engine,
        weights=weights, weights_dir=out.with_suffix(".weights") if out else None)
    for key, dest in (("random", "perturbations"), ("sigma", "sigma"), ("step", "step"),
                      ("top", "top")):
        if getattr(args, dest) is not None:
            probe[key] = getattr(args, dest)
    config = ProbeConfig(**probe)
    out = out or Path("data/runs") / f"probe-{config.probe_id}.parquet"
    line = next((x for t in config.tournaments.values() if (x := t.compile_notice())), None)
    compile_first(line, O.game_from_args(args).name)
    start = time.perf_counter()
    store = TaskStore(out.with_suffix(".tasks"))  # what a stopped probe keeps
    with Pool(O.execution_from_args(args)) as pool:
        df, errors = run_probe(config, progress=not args.quiet, pool=pool, store=store)
    seconds = time.perf_counter() - start
    if not df.empty:
        write_parquet(df, out)
    store.clear()
    engines: dict[str, int] = {}
    for t in config.tournaments.values():
        for name, k in t.engines().items():
            engines[name] = engines.get(name, 0) + k
    print(f"probe {config.probe_id}: {config.agent} against "
          f"{len(config.all_challengers())} challenger(s) in {config.matchup_count()} "
          f"matchup(s); players {', '.join(map(str, config.players))}; {config.games} games "
          f"per matchup; seed {config.seed}; {seconds:.0f} s on {pool.execution.describe()}; "
          + ", ".join(f"{k} matchup(s) on the {name} engine"
                      for name, k in sorted(engines.items())))
    for n in config.players:
        if config.influence.get(n):
            print(f"influence at {n} players (pilot: share of the game left after a ±"
                  f"{config.step:g} step first changes play): {config.influence_text(n)}")
    table = probe_table(df, config) if not df.empty else None
    if table is not None:
        print()
        print("Challenger win share per seat against parity 1/n; the interval is corrected "
              "for every matchup of the probe (Holm step-down Wilson intervals, alpha 0.05): "
              "beats = above parity, loses = below, even = holds parity.")
        print()
        print(format_probe(table))
        print()
    report_errors(errors, out)
    print(results_line(df, out))
    if table is None:
        print(f"no verdict: no game of the probe of {config.agent} finished")
        return EXIT_FAILED
    print(verdict_line(table, config.agent))
    if errors:
        return EXIT_FAILED
    return EXIT_BEATEN if beaten_by(table) else EXIT_NONE


def report_errors(errors: list[dict[str, Any]], out: Path) -> None:
    """Agent errors on stderr, and saved next to the results file."""
    for e in errors:
        print(f"portobello: agent error: {e['message']}", file=sys.stderr)
    if errors:
        err_path = out.with_suffix(".errors.json")
        err_path.parent.mkdir(parents=True, exist_ok=True)
        err_path.write_text(json.dumps(errors, indent=1))
        print(f"portobello: {len(errors)} game(s) failed and were left out (details in "
              f"{err_path})", file=sys.stderr, flush=True)


def results_line(df: Any, out: Path) -> str:
    """The line naming the results file."""
    if df.empty:
        return "results: none (every game failed; nothing written)"
    return f"results: {out} ({len(df)} rows, one per game and seat)"


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
    p.epilog = PROBE_EPILOG
    O.add_agents(p, default=None,
                 help="two or more agent specs separated by commas, earlier = focus of a "
                 f"pair ({O.agents_listed()}; `portobello agents list` has their "
                 "restricted versions; required unless --probe; no default)")
    p.add_argument("--probe", metavar="AGENT", default=None,
                   help="instead of --agents: an exploitability probe of one agent spec "
                   "against its restricted versions and perturbed weight sets (see below; "
                   "default: none, a tournament of --agents)")
    p.add_argument("--players", type=O.player_counts, default=TOURNAMENT_PLAYERS,
                   metavar="N[,N...]", help="player counts, comma-separated, e.g. 2,3,4 "
                   "(default: 2) (--probe without it: 2,3,4)")
    O.add_games(p, None, f"games per matchup and player count, rounded up to whole seat "
                f"rotations (default: {TOURNAMENT_GAMES}; with --probe {PROBE_GAMES})")
    p.add_argument("--pairs", choices=PAIRINGS, default=None,
                   help="all pairs, neighbours in the listed order (ladder), or the first "
                   "agent against each other one (default: all; not with --probe)")
    O.add_seed(p, help="tournament seed (every block's game seed derives from it, the same in "
               "every matchup)")
    O.add_execution(p)
    p.add_argument("--engine", choices=ENGINES, default="auto",
                   help="auto: a matchup plays on the compiled engine when both its agents "
                   "have compiled versions (random, greedy, heuristic, restricted or not), "
                   "else decision by decision (python), which times every decision; both play "
                   "the same games (on the compiled engine the timing columns are null and the "
                   "ms/decision columns read –)")
    O.add_game(p)
    O.add_materials(p)
    O.add_rules(p)
    O.add_out(p, "FILE", "Parquet file (default: data/runs/tournament-<tournament id>.parquet, "
              "with --probe data/runs/probe-<probe id>.parquet)")
    O.add_quiet(p)
    g = p.add_argument_group("probe", "with --probe AGENT only")
    g.add_argument("--perturbations", type=O.Integer(0), default=None, metavar="K",
                   help="random perturbations of AGENT's weights per player count (default: "
                   "4)")
    g.add_argument("--sigma", type=float, default=None, metavar="S",
                   help="their spread: every weight times exp(S z), z standard normal "
                   "(default: 0.25)")
    g.add_argument("--step", type=float, default=None, metavar="F",
                   help="one weight at a time times 1+F and 1-F (default: 0.25)")
    g.add_argument("--top", type=O.Integer(0), default=None, metavar="M",
                   help="step the M weights that change AGENT's play soonest, measured by a "
                   "pilot that looks at moves, not results (default: 3; 11: every weight)")
    g.add_argument("--probe-weights", default=None, metavar="NAMES",
                   help="the weights stepped one at a time, comma-separated, instead of the "
                   "pilot's top M (default: none)")
