"""`portobello play`: one game between agents; prints its summary (the scores, the winner,
how and when it ended) and writes its record only where asked: `--record FILE`, or
`--json` for the record as one JSON object on stdout."""

from __future__ import annotations

import argparse
import json
from typing import Any

from sim.cli import options as O
from sim.games.portobello.agents.registry import make_agent
from sim.games.portobello.board import load_board
from sim.run.loop import play_game


def summary_lines(board_name: str, players: int, seed: int, specs: list[str], game: Any,
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


def cmd_play(args: argparse.Namespace) -> int:
    """Play the game; print its summary, and the record where asked: `--record FILE`
    writes it (and says where), `--json` prints only the record as JSON."""
    from sim.games.portobello.records import record_from_game
    from sim.games.portobello.records import write_record

    if args.record:
        O.check_out(args, args.record, field="--record")
    if args.game == "river-market":
        return river_play(args)
    rules = O.rules_from_args(args, players=args.players)
    board = load_board(args.board)
    rules.check_board(board, source=args.board)
    specs = O.agent_specs(args.agents, rules.players)
    agents = [make_agent(s, seed=seat) for seat, s in enumerate(specs)]
    game, _ = play_game(board, rules, agents, args.seed)
    record = record_from_game(game, board_ref=args.board, agents=specs)
    if args.record:
        write_record(args.record, record)
    if args.json:
        print(json.dumps(record))
        return 0
    print("\n".join(summary_lines(board.name, rules.players, args.seed, specs, game,
                                  len(record["actions"]))))
    print(f"record: {args.record}" if args.record else
          "record: not written (--record FILE writes it; --json prints it)")
    return 0


def river_play(args: argparse.Namespace) -> int:
    """`play --game river-market`: one River Market game (docs/river-market.md)."""
    from sim.core.errors import PortobelloError
    from sim.games.river.play import parse_agent
    from sim.games.river.play import play_one
    from sim.games.river.records import record_of
    from sim.games.river.records import write_record

    rules = O.river_rules_from_args(args, args.players)
    specs = O.agent_specs(args.agents, rules.players)
    for s in specs:
        try:
            parse_agent(s)
        except ValueError as exc:
            raise PortobelloError(str(exc), field="--agents") from None
    game, actions = play_one(rules, specs, args.seed)
    start = game.__class__.new(rules, seed=args.seed)
    record = record_of(start, actions)
    if args.record:
        write_record(args.record, record)
    if args.json:
        print(json.dumps(record))
        return 0
    scores = game.scores()
    top = max(scores)
    winners = [p for p, s in enumerate(scores) if s == top]
    width = max(len(s) for s in specs)
    lines = [f"River Market, {rules.players} players, seed {args.seed}: ended after "
             f"{game.turn} turns ({len(actions)} actions)"]
    for seat, (spec, score) in enumerate(zip(specs, scores, strict=True)):
        parts = ", ".join(f"{n} {v}" for n, v in zip(
            ("events", "booths", "helpers", "coins", "goods"), game.score_parts(seat),
            strict=True))
        lines.append(f"  seat {seat}  {spec:{width}}  {score:4d}  ({parts})"
                     + ("  winner" if seat in winners else ""))
    who = " and ".join(f"seat {s} ({specs[s]})" for s in winners)
    lines.append(f"{'tie' if len(winners) > 1 else 'winner'}: {who} with {top} points")
    print("\n".join(lines))
    print(f"record: {args.record}" if args.record else
          "record: not written (--record FILE writes it; --json prints it)")
    return 0


def add_parser(subparsers: Any) -> None:
    """Register `portobello play`."""
    p = O.add_command(subparsers, "play", "play one game between agents; print its scores, "
                      "winner and ending (the record with --record or --json)", cmd_play,
                      description="Play one game between agents and print its summary: "
                      "how and when it ended, every seat's agent and score, the winner. The "
                      "game record (docs/rules.md) is written only with --record FILE, or printed "
                      "as JSON with --json.")
    O.add_game(p, "its agents random, greedy, heuristic[:weights=SET,WEIGHT=X] and "
               "search[:iterations=N]")
    O.add_players(p)
    O.add_agents(p)
    O.add_seed(p, help="the game's seed (the agents' seeds derive from it and their seats)")
    O.add_board(p)
    O.add_rules(p)
    p.add_argument("--record", metavar="FILE",
                   help="write the game record (docs/rules.md) here (default: not written)")
    O.add_json(p, "the game record (not the summary)")
