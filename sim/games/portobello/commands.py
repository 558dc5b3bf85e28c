"""Portobello Market's side of the command line (its "commands" facet, what
`sim.cli.games.CommandsFacet` lists): the `board check|show` command, the benchmark modes of
its engine and agents, the rules flags only it takes (`--customers`, `--neutral-stack`), one
game played for `portobello play`, its records replayed, its agents, presets and rules file
in words.

Imported when the command line is built, so it imports the game's agents, rules and board
(as the command line always did) and nothing that compiles; what plays is imported where it
is used.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sim.cli import options as O
from sim.cli.bench_mode import Command
from sim.cli.bench_mode import Mode
from sim.cli.bench_mode import bad_input_exits_2
from sim.cli.bench_mode import emit
from sim.core.specs import split_specs
from sim.games.portobello.agents import weight_sets
from sim.games.portobello.agents.registry import AGENTS
from sim.games.portobello.agents.registry import agent_params
from sim.games.portobello.agents.restricted import WRAPPERS
from sim.games.portobello.board import load_board
from sim.games.portobello.board import resolve_board_path
from sim.games.portobello.kind import GAME
from sim.games.portobello.rules import PRESET_NOTES as NOTES

HELP = "the rules switches of docs/rules.md on a board (--board)"
RUN_AGENTS = "heuristic"  # the strongest agent that plays over a thousand games a second
PRESET_NOTES: Mapping[str, str] = NOTES
# The rules flags of a run only this game takes, by their argparse dest: the switch each sets.
RUN_RULES = {"customers": "customer_order", "neutral_stack": "neutral_stack"}
neutral_stack = O.IntegerList(1, example="3,3,2,2,1,1,1,1", empty_ok=True)


def add_run_flags(p: argparse.ArgumentParser) -> None:
    """`--customers` and `--neutral-stack`: the customer order and the neutral tokens of a
    run's rules (`RUN_RULES`)."""
    p.add_argument("--customers", choices=["drawn", "known"], default=None,
                   help="customer order (default: drawn, or the preset's or rules file's)")
    p.add_argument("--neutral-stack", type=neutral_stack, default=None,
                   metavar="3,3,2,2,1,1,1,1",
                   help="neutral tokens, top first (default: the rules')")


def agent_names() -> list[str]:
    return sorted(AGENTS)


def agents_listing() -> list[str]:
    """Every agent with its parameters and defaults, the restriction wrappers and the
    weight sets `heuristic:weights=NAME` accepts."""
    lines = []
    for name in sorted(AGENTS):
        params = agent_params(name)
        shown = ", ".join(f"{k}={'(set)' if v is None else v}" for k, v in params.items())
        lines.append(f"{name:10} {shown or '(no parameters)'}")
    lines.append("")
    lines += [f"{wrapper + '(AGENT)':22} {note}" for wrapper, (_, note) in WRAPPERS.items()]
    lines += ["", "weight sets (heuristic:weights=NAME, or a file `portobello agents tune` "
              "wrote):",
              f"  {weight_sets.DEFAULT:10} the tuned set of the game's player count (default)"]
    lines += [f"  {name:10} {weight_sets.describe(name)}"
              for name in weight_sets.shipped_names()[1:]]
    return lines


def rules_text(rules: Any, source: str) -> str:
    """The rules as a rules file: every switch, the stall count as a comment where the
    player count decides it (`sim.core.toml_text.rules_toml`)."""
    from sim.core.toml_text import rules_toml

    return rules_toml(rules, source)


def material_path(ref: str) -> Path:
    """Where a board reference is read from (a shipped board's file)."""
    return resolve_board_path(ref)


# -- compiling --------------------------------------------------------------------------------
def compile_first(say: Callable[[str], None], notice: str) -> None:
    """Compile what `notice` announces now, saying so (`engines.compile_now`), then the
    simpler line-ups' games its code holds (`simpler_kinds`), so that a later command of
    those line-ups does not compile again."""
    import time

    from sim.games.portobello import engines

    engines.compile_now(say, notice)
    rest = simpler_kinds(notice)
    if rest:
        start = time.monotonic()
        say(f"compiling the games of {' and '.join(w for w, _ in rest)} too (once, from the "
            "parts just compiled, so that no later command compiles them)...")
        with engines.still_saying(say, "compiling the fast engine"):
            for _, kind in rest:
                engines.compile_for(kind)
        say(f"compiled in {time.monotonic() - start:.0f} s")


def simpler_kinds(notice: str) -> list[tuple[str, str]]:
    """The kinds of compiled games (in words, and their compile notice) whose code the
    games `notice` announces hold, not yet in this machine's cache: the learned agent's
    games hold the planner's (greedy and heuristic agents), which hold the random agents'.
    Each is a few seconds once its parts are cached, against a first compile of its own
    later."""
    from sim.games.portobello import engines

    planner = ("greedy and heuristic agents", engines.COMPILE_NOTICE_PLANNER, (True, False))
    random = ("random agents alone", engines.COMPILE_NOTICE, (False, False))
    held = {engines.COMPILE_NOTICE_NETWORKS: (planner, random),
            engines.COMPILE_NOTICE_PLANNER: (random,)}.get(notice, ())
    return [(words, kind) for words, kind, (p, n) in held
            if not engines.compiled_code_cached(p, n)]


# -- one game ---------------------------------------------------------------------------------
def summary_lines(board_name: str, players: int, seed: int, specs: Sequence[str], game: Any,
                  actions: int) -> list[str]:
    """The game in a few lines: the board, players and seed; how and when it ended; each
    seat's agent and score, the winners marked; the winner (or the tie)."""
    winners = list(game.winners())
    width = max(len(s) for s in specs)
    lines = [f"board {board_name}, {players} players, seed {seed}: ended by "
             f"{game.end_reason} after {game.round} rounds ({actions} actions)"]
    for seat, (spec, score) in enumerate(zip(specs, game.scores, strict=True)):
        mark = "  winner" if seat in winners else ""
        lines.append(f"  seat {seat}  {spec:{width}}  {score:4d}{mark}")
    who = " and ".join(f"seat {s} ({specs[s]})" for s in winners)
    top = max(game.scores)
    lines.append(f"{'tie' if len(winners) > 1 else 'winner'}: {who} with {top} points")
    return lines


def play_game(material: Any, material_ref: str, rules: Any, specs: Sequence[str], seed: int
              ) -> tuple[dict[str, Any], list[str]]:
    """One game between `specs` (each seat its own agent), decision by decision: its record
    and its summary."""
    from sim.games.portobello.agents.registry import make_agent
    from sim.games.portobello.loop import play_game as play
    from sim.games.portobello.records import record_from_game

    agents = [make_agent(s, seed=seat) for seat, s in enumerate(specs)]
    game, _ = play(material, rules, agents, seed)
    record = record_from_game(game, board_ref=material_ref, agents=list(specs))
    return record, summary_lines(material.name, rules.players, seed, specs, game,
                                 len(record["actions"]))


def write_record(path: str | Path, record: Mapping[str, Any]) -> None:
    from sim.games.portobello.records import write_record as write

    write(path, record)


def replay_record(path: str | Path) -> tuple[dict[str, Any], list[str]]:
    """Replay a record action by action (an illegal action ends in `action INDEX TYPE:
    reason`, exit 2): its outcome (docs/rules.md) and the outcome in lines."""
    from sim.games.portobello.records import replay_file

    _, out = replay_file(path)
    status = f"finished ({out['end_reason']})" if out["finished"] else "not finished"
    lines = [f"{path}: {status} after round {out['round']}"]
    for seat, score in enumerate(out["scores"]):
        mark = "  winner" if seat in out["winners"] else ""
        lines.append(f"  seat {seat}: {score}{mark}")
    lines.append(f"  scored lanes: {', '.join(out['scored_lanes']) or 'none'}")
    return out, lines


# -- portobello board check|show --------------------------------------------------------------
def cmd_board_check(args: argparse.Namespace) -> int:
    """Load the board, check it against the rules given; print its size and hash."""
    board = load_board(args.file)
    rules = O.rules_from_args(args, GAME)
    rules.check_board(board, source=str(args.file))
    print(f"{args.file}: board {board.name!r} is valid: {board.n_squares} squares, "
          f"{board.n_lanes} lanes, {board.n_districts} districts, {board.total_spots} spots "
          f"(lanes of {min(board.lane_len)}-{max(board.lane_len)}), hash {board.content_hash}")
    return 0


def cmd_board_show(args: argparse.Namespace) -> int:
    """Draw the board to --out (the format from its suffix)."""
    from sim.games.portobello.view.draw import draw_board

    out = O.check_out(args, args.out)
    board = load_board(args.file)
    out.parent.mkdir(parents=True, exist_ok=True)
    draw_board(board, out)
    print(f"wrote {out}")
    return 0


def add_board_parser(subparsers: Any) -> None:
    """Register `portobello board check|show`."""
    p = O.add_command(subparsers, "board", "check or draw a board file",
                      description="Check a board file (docs/rules.md) against the rules, or "
                      "draw it.")
    modes = O.add_subcommands(p, "board_command")
    q = O.add_command(modes, "check", "validate a board file against the rules (exit 1 if "
                      "invalid)", cmd_board_check)
    q.add_argument("file", metavar="BOARD", help="board TOML file or shipped board name")
    O.add_rules(q)
    q = O.add_command(modes, "show", "draw a board to an image", cmd_board_show)
    q.add_argument("file", metavar="BOARD", help="board TOML file or shipped board name")
    O.add_out(q, "FILE", "image file to write (png, svg or pdf)", default="data/runs/board.png")


def commands() -> dict[str, Callable[[Any], None]]:
    return {"board": add_board_parser}


# -- benchmarks -------------------------------------------------------------------------------
def _board_and_rules(args: argparse.Namespace) -> tuple[Any, Any]:
    rules = O.rules_from_args(args, GAME, players=args.players)
    board = load_board(args.board)
    rules.check_board(board, source=args.board)
    return board, rules


def _add_common(p: argparse.ArgumentParser) -> None:
    """The board, the JSON switch and the rules flags every engine mode takes."""
    O.add_material(p, GAME)
    O.add_json(p, "the figures")
    O.add_rules(p)


def add_agents_arguments(p: argparse.ArgumentParser) -> None:
    O.add_players(p)
    O.add_games(p, 500, "games to play")
    O.add_agents(p)
    O.add_seed(p, help="seed of the games (game i plays seed derive_seed(SEED, i))")
    O.add_material(p, GAME)
    O.add_engine(p)
    O.add_json(p, "the figures")
    O.add_rules(p)


def agents_lines(r: dict[str, Any]) -> list[str]:
    """The human table of an agents bench."""
    compiled = r["engine"] == "compiled"
    lines = [f"{r['games']} games, {r['players']} players, agents {', '.join(r['agents'])}, "
             + ("compiled engine, " if compiled else "") + "one core",
             f"  {r['seconds']:.2f} s: {r['games_per_second']:.1f} games/s, "
             f"{r['decisions_per_second']:.0f} decisions/s "
             f"({r['decisions'] / r['games']:.0f} decisions per game)"
             + (f"; first game (loading or compiling the compiled code) "
                f"{r['first_game_seconds']:.2f} s" if compiled else "")]
    for spec, e in r.get("per_agent", {}).items():
        rate = e["decisions_per_second"]
        lines.append(f"  {spec}: {e['decisions']} decisions in {e['seconds']:.2f} s "
                     f"thinking: {rate if rate is not None else 'n/a'} decisions/s, slowest "
                     f"{e['slowest_decision_ms']} ms")
    return lines


def cmd_agents(args: argparse.Namespace) -> int:
    """`portobello bench [agents]`; its errors keep the command line's exit status."""
    from sim.bench.agents import bench_agents

    board, rules = _board_and_rules(args)
    specs = O.agent_specs(args.agents, rules.players)
    r = bench_agents(board, rules, specs, args.games, args.seed, args.engine)
    return emit(args, r, agents_lines(r))


def add_mcts_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agent", default="fastmcts:iterations=3000", metavar="SPEC",
                   help="the one searching agent's spec (fastmcts, mcts, openspiel-mcts or "
                   "openspiel-ismcts; not a seat line-up, hence not --agents)")
    O.add_players(p)
    p.add_argument("--positions", type=O.positive_int, default=24, metavar="N",
                   help="positions searched (taken from heuristic games)")
    O.add_seed(p, help="seed of the heuristic games the positions come from")
    _add_common(p)


@bad_input_exits_2
def cmd_mcts(args: argparse.Namespace) -> int:
    """`portobello bench mcts`."""
    from sim.bench.mcts import bench_mcts

    board, rules = _board_and_rules(args)
    r = bench_mcts(board, rules, args.agent, args.positions, args.seed)
    lines = [f"{r['agent']}, {r['players']} players, {r['positions']} positions of "
             "heuristic games, one core",
             f"  {r['playouts']:,} playouts in {r['seconds']:.2f} s: "
             f"{r['playouts_per_second']:,} playouts/s "
             f"({r['mean_playouts_per_decision']} per decision, slowest decision "
             f"{r['slowest_decision_ms']} ms); first decision "
             f"{r['first_decision_seconds']:.2f} s"]
    return emit(args, r, lines)


def add_yardstick_arguments(p: argparse.ArgumentParser) -> None:
    O.add_players(p)
    O.add_games(p, 100_000, "games each side plays in each round")
    p.add_argument("--rounds", type=O.Integer(1), default=3, metavar="K",
                   help="rounds of C then compiled; the median round's ratio is given "
                        "(default 3)")
    O.add_seed(p, help="seed of the games (the C program's generator, and the compiled "
               "engine's game seeds as in `bench agents`)")
    _add_common(p)


def cmd_yardstick(args: argparse.Namespace) -> int:
    """`portobello bench yardstick`."""
    from sim.bench.yardstick import bench_yardstick

    board, rules = _board_and_rules(args)
    r = bench_yardstick(board, rules, args.games, args.seed, args.rounds)

    def side(name: str, x: dict[str, Any]) -> str:
        scores = ", ".join(f"{s:.1f}" for s in x["mean_scores"])
        ends = ", ".join(f"{k} {v:.3f}" for k, v in x["end_reasons"].items())
        return (f"  {name:8} {x['games_per_second']:>10,.0f} games/s ({x['seconds']:.2f} s); "
                f"mean scores {scores}; mean rounds {x['mean_rounds']:.2f}; {ends}")

    rounds = ", ".join(f"{x:.3f}" for x in r["ratios"])
    lines = [f"random games, {r['players']} players, {r['games']:,} each, one core, "
             f"{r['rounds']} rounds (the median round shown)",
             side("C", r["c"]), side("compiled", r["compiled"]),
             f"  compiled / C: {r['ratio']:.3f} (rounds: {rounds})"]
    return emit(args, r, lines)


def add_compile_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lineups", type=split_specs, default=["random", "heuristic"],
                   metavar="SPEC[,SPEC...]", help="agents to time, each in every seat of its "
                   "own run (default: random,heuristic)")
    O.add_players(p)  # 3 when not given
    O.add_games(p, 100, "games each run plays")
    O.add_json(p, "the figures")


@bad_input_exits_2
def cmd_compile(args: argparse.Namespace) -> int:
    """`portobello bench compile`."""
    from sim.bench import BenchError
    from sim.bench.compile import bench_compile
    from sim.games.portobello.agents.registry import make_agent
    from sim.games.portobello.engines import engine_name

    players = args.players or 3
    for spec in args.lineups:
        make_agent(spec)  # an unknown agent is refused by name
        if engine_name([spec] * players) != "compiled":
            raise BenchError(f"{spec} has no compiled version: nothing compiles for it")
    r = bench_compile(args.lineups, players, args.games)
    lines = [f"portobello simulate --games {r['games']} --players {r['players']}, a fresh "
             f"cache then the cache it left (load {r['load']} on {r['cpus']} cpus)",
             f"  {'agents':12} {'cold s':>8} {'cold cpu s':>11} {'warm s':>8} "
             f"{'compile s':>10}"]
    lines += [f"  {e['agents']:12} {e['cold_seconds']:8.1f} {e['cold_cpu_seconds']:11.1f} "
              f"{e['warm_seconds']:8.1f} {e['compile_seconds']:10.1f}" for e in r["runs"]]
    return emit(args, r, lines)


def add_cluster_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agent", default="fastmcts:iterations=100", metavar="SPEC",
                   help="the agent in every seat of the study cell, by default the skill "
                   "ladder's search level (default: fastmcts:iterations=100)")
    O.add_players(p)  # 3 when not given
    O.add_games(p, 24, "games of the study cell")
    p.add_argument("--shard-size", type=O.positive_int, default=2, metavar="N",
                   help="games per task of the study cell (default: 2)")
    O.add_seed(p, help="seed of the cell's games")
    p.add_argument("--many", type=O.positive_int, default=8, metavar="N",
                   help="workers of the many-worker run (default: 8)")
    p.add_argument("--tiny", type=O.positive_int, default=400, metavar="N",
                   help="one-game tasks of the overhead and many-worker runs (default: 400)")
    O.add_json(p, "the figures")


@bad_input_exits_2
def cmd_cluster(args: argparse.Namespace) -> int:
    """`portobello bench cluster`."""
    from sim.bench.cluster import bench_cluster
    from sim.games.portobello.agents.registry import make_agent

    make_agent(args.agent)  # an unknown agent is refused by name
    players = args.players or 3
    r = bench_cluster(args.agent, players, args.games, args.shard_size, args.seed,
                      args.many, args.tiny)
    c, t = r["cell"], r["tiny"]
    lines = [f"local Dask clusters, warmed; {r['cpus']} cpus, load {r['load']}",
             f"  study cell: {c['games']} games of {r['agent']} at {players} players, "
             f"{c['tasks']} tasks"]
    lines += [f"    {e['workers']} worker(s): {e['seconds']:8.2f} s  "
              f"{e['games_per_second']:.2f} games/s" for e in c["runs"]]
    lines += [f"    speed-up 1 -> 2 workers: {c['speedup']:.2f}; same bytes: "
              f"{'yes' if c['identical'] else 'NO'}",
              f"  {t['tasks']} one-game tasks: {t['local_seconds']:.2f} s in this process, "
              f"{t['one_worker_seconds']:.2f} s on one worker: {t['overhead_ms_per_task']:.2f} "
              "ms overhead per task",
              f"    on {t['many_workers']} workers: {t['many_seconds']:.2f} s, "
              f"{t['tasks_per_second']:.0f} tasks/s; same bytes as this process: "
              f"{'yes' if t['identical'] else 'NO'}"]
    return emit(args, r, lines)


def _the(command: Command) -> Callable[[argparse.ArgumentParser], Command]:
    return lambda p: command


def bench_modes() -> dict[str, Mode]:
    """The benchmark modes of the game's engine and agents (`agents` is `portobello bench`
    alone)."""
    return {
        "agents": Mode("games and decisions per second between agents on one core (the "
                       "default mode)", add_agents_arguments, _the(cmd_agents)),
        "mcts": Mode("playouts per second of an MCTS agent on one core, over positions of "
                     "real games", add_mcts_arguments, _the(cmd_mcts)),
        "compile": Mode("a first run's compile: simulate with an empty cache, then warm, per "
                        "line-up", add_compile_arguments, _the(cmd_compile)),
        "yardstick": Mode("random games in plain C beside the compiled engine's, one run: "
                          "both rates, their ratio, both games' averages",
                          add_yardstick_arguments, _the(cmd_yardstick)),
        "cluster": Mode("a search-level study cell on local Dask clusters of 1 and 2 workers "
                        "(how much faster), and the cost of a task on many workers",
                        add_cluster_arguments, _the(cmd_cluster)),
    }
