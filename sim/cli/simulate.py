"""`portobello simulate`: many games into a run folder (see `sim.run.runner`).

`add_run_flags` and `config_from_flags` are shared with `portobello bench simulate`, which
runs the same configuration once per job count.

Without `--agents` a run plays `DEFAULT_AGENTS`, the compiled heuristic agent in every seat:
the strongest agent that plays over a thousand games a second per core (greedy is weaker,
MCTS far slower per game), so a run's numbers describe competent play. `portobello bench simulate`
keeps random agents, the runner's own speed.

With `--target-half-width` and `--max-games` a run asks for a precision instead of a count
(`analysis.study.precision`): `--games` is its first round, then rounds of `--round-games`
until every seat's 95% win-share interval is within the target or the maximum is reached.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from sim.cli import games as G
from sim.cli import options as O
from sim.cli.summary import compile_first
from sim.cli.summary import notice
from sim.cli.summary import run_lines
from sim.core.kind import GameKind
from sim.games.registry import default_game
from sim.games.registry import kind
from sim.games.registry import kinds
from sim.run.runner import Run
from sim.run.runner import RunConfig


def run_agents(game: GameKind) -> str:
    """The line-up a run of `game` plays without --agents: its strongest cheap agent
    (`RUN_AGENTS` of its commands facet, `sim.cli.games`)."""
    return str(G.member(game, "RUN_AGENTS", G.DEFAULT_RUN_AGENTS))


DEFAULT_AGENTS = run_agents(kind(default_game()))


def run_agents_text(others: bool = False) -> str:
    """Every game's default line-up: the default game's, then the others' by title (with
    `others`, only theirs, each after "; ")."""
    said = [run_agents(g) if G.is_default(g) else f"{g.title}: {run_agents(g)}"
            for g in kinds().values() if not (others and G.is_default(g))]
    return "".join(f"; {s}" for s in said) if others else "; ".join(said)


def add_run_flags(p: argparse.ArgumentParser, games: int, games_help: str,
                  agents: str | None = None, agents_help: str | None = None) -> None:
    """Every flag that decides a run's configuration or how it is executed (not where it is
    written): the game, its rules (and the rules flags a game adds, `add_run_flags` of its
    commands facet), its material, agents (default `agents`, or each game's own,
    `run_agents`), games, seed, shards, tables, backend and engine."""
    O.add_players(p)
    taken: set[str] = set()
    for game in kinds().values():
        add = G.member(game, "add_run_flags")
        if add is not None and not taken & set(G.run_flags(game)):
            add(p)
            taken |= set(G.run_flags(game))
    O.add_rules(p)
    O.add_materials(p)
    O.add_game(p)
    default = agents or run_agents_text()
    O.add_agents(p, default=None, help=agents_help or f"{O.agents_help()} (default: {default})")
    p.set_defaults(run_agents=agents)  # the command's line-up; None: the game's own
    O.add_games(p, games, games_help)
    O.add_seed(p, help="run seed (each game's seed derives from it and the game index)")
    p.add_argument("--shard-size", type=O.positive_int, default=O.DEFAULT_SHARD_SIZE,
                   metavar="N", help="games per stored shard (and per task)")
    p.add_argument("--events", action="store_true", help="also write the event log")
    p.add_argument("--records", action="store_true", help="also write game records")
    O.add_engine(p)


def config_from_flags(args: argparse.Namespace) -> RunConfig:
    """The run configuration the flags of `add_run_flags` describe: the flags the game
    does not take refused first, whatever their values (`sim.cli.games.refusals`), then its
    rules (with the rules flags its commands facet adds, `RUN_RULES`), material and
    agents."""
    game = O.game_from_args(args, run=True)
    changes = {key: getattr(args, dest, None)
               for dest, key in (G.member(game, "RUN_RULES", {}) or {}).items()}
    rules = O.rules_from_args(args, game, players=args.players, **changes)
    board, board_ref = O.material_from_args(args, game)
    specs = O.agent_specs(args.agents or args.run_agents or run_agents(game), rules.players)
    return RunConfig(board=board, board_ref=board_ref, rules=rules, agents=tuple(specs),
                     games=args.games, seed=args.seed, shard_size=args.shard_size,
                     events=args.events, records=args.records, game=game.name)


def execute_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of `Run.execute` the flags of `add_run_flags` give (jobs and
    quiet apart)."""
    return {"backend": args.backend, "scheduler": args.scheduler,
            "scheduler_timeout": args.scheduler_timeout, "engine": args.engine}


PRECISION_FLAGS = ("--target-half-width", "--max-games", "--round-games")


def plan_from_flags(args: argparse.Namespace) -> Any:
    """The precision plan (`analysis.study.precision.Plan`) the flags ask for, None for a
    fixed count; flags that do not go together, or a maximum below the first round, raise
    `PrecisionFlagError` (one line naming the flag, exit status 2)."""
    from analysis.study.precision import FLAG_FIELDS
    from analysis.study.precision import PrecisionError
    from analysis.study.precision import PrecisionFlagError
    from analysis.study.precision import make_plan

    target, most, step = args.target_half_width, args.max_games, args.round_games
    if target is None and most is None and step is None:
        return None
    if target is None:
        flag = "--max-games" if most is not None else "--round-games"
        raise PrecisionFlagError("needs --target-half-width, the precision to stop at (e.g. "
                             "0.015)", field=flag)
    if most is None:
        raise PrecisionFlagError("needs --max-games N, the most games to play if the target is "
                             "not met sooner", field="--target-half-width")
    try:
        return make_plan(target, args.games, args.games if step is None else step, most,
                         fields=FLAG_FIELDS)
    except PrecisionError as exc:
        raise PrecisionFlagError(exc.reason, field=exc.field) from None


def cmd_simulate(args: argparse.Namespace) -> int:
    """Run (or resume) the run into --out; print the closing lines (games, agents, engine,
    seat 0's win share, the folder; with a target, the precision reached), or only the
    timings with --json (and the `precision` block). A first compile of the compiled
    engine is announced on stderr, even with --quiet; each round's line is progress."""
    plan = plan_from_flags(args)
    config = config_from_flags(args)
    out = Path(args.out) if args.out else Path("data/runs") / f"run-{config.run_id}"
    O.check_out(args, out, owned=[out])
    run = Run(config, out)
    line = run.compile_notice(args.engine)
    compile_first(line, config.game)
    extra: dict[str, Any] = {}
    if plan is None:
        timings = run.execute(jobs=args.jobs, quiet=args.quiet, **execute_options(args))
    else:
        from analysis.study.precision import outcome_line
        from analysis.study.precision import play_to_precision

        outcome = play_to_precision(config, plan, out, jobs=args.jobs, quiet=args.quiet,
                                    log=None if args.quiet else notice,
                                    **execute_options(args))
        config, timings = outcome.config, outcome.timings
        extra = {"precision": outcome.block()}
        closing = outcome_line(extra["precision"])
    if args.json:
        print(json.dumps({"out": str(out), "run_id": config.run_id, **timings, **extra}))
    else:
        lines = run_lines(out, config, timings)
        if extra:
            lines.insert(-1, closing)
        print("\n".join(lines))
    return 0


def add_parser(subparsers: Any) -> None:
    """Register `portobello simulate`."""
    p = O.add_command(subparsers, "simulate", "play many games into a run folder (Parquet "
                      "tables)", cmd_simulate, description="Play many games in parallel into "
                      "a run folder. The same command on the same folder resumes an "
                      f"interrupted run. Without --agents, {DEFAULT_AGENTS} plays every seat "
                      f"(on the compiled engine{run_agents_text(others=True)}). It "
                      "ends with the games played, the agents and engine, the first "
                      "player's win share with its 95% interval, "
                      "and the run folder. With --target-half-width and --max-games it asks "
                      "for a precision instead of a count: --games games first, then rounds "
                      "of --round-games, stopping at the first round after which every "
                      "seat's 95% Wilson win-share interval is within the target (or at "
                      "--max-games); game i keeps its seed, so the run is the first games "
                      "of the fixed-count one, and it ends with the precision reached.")
    add_run_flags(p, 1000, "games in the run (with --target-half-width: its first round)",
                  agents_help=O.agents_help() + "; without it the "
                  f"strongest agent with a compiled version plays every seat (default: "
                  f"{run_agents_text()})")
    p.add_argument("--target-half-width", type=O.half_width, default=None,
                   metavar="HALF_WIDTH", help="precision on demand: play rounds until every "
                   "seat's 95%% win-share interval is within ±HALF_WIDTH (e.g. 0.015 for "
                   "±1.5 points); --games is then the first round (needs --max-games; "
                   "default: none, a fixed count)")
    p.add_argument("--max-games", type=O.game_count, default=None, metavar="N",
                   help="with --target-half-width: the most games to play if the target "
                   f"is not met sooner (at least --games, at most {O.MAX_GAMES:,}; default: "
                   "none)")
    p.add_argument("--round-games", type=O.game_count, default=None, metavar="N",
                   help="with --target-half-width: games per round after the first "
                   "(default: --games; multiples of --shard-size replay no shard)")
    O.add_execution(p)
    O.add_out(p, "DIR", "run folder (default: data/runs/run-<run id>)")
    O.add_quiet(p, "no progress bar (the closing lines and a first-compile notice still "
                "print)")
    O.add_json(p, "only the timings")
