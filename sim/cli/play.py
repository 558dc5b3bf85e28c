"""`portobello play`: one game between agents; prints its record and the scores."""

from __future__ import annotations

import argparse
import json
from typing import Any

from sim.agents.registry import make_agent
from sim.cli import options as O
from sim.engine.board import load_board
from sim.run.loop import play_game


def cmd_play(args: argparse.Namespace) -> int:
    """Play the game; print the record (cut at 2,000 characters) and the scores, or only
    the record with --json; write it with --record."""
    from sim.engine.records import record_from_game, write_record

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
    print(json.dumps(record, indent=None)[:2000] + (" ..." if not args.record else ""))
    print()
    print(f"board {board.name}, {rules.players} players, seed {args.seed}: "
          f"{game.end_reason} after {game.round} rounds, {len(record['actions'])} actions")
    for seat, (spec, score) in enumerate(zip(specs, game.scores, strict=True)):
        mark = "  winner" if seat in game.winners() else ""
        print(f"  seat {seat} {spec:12} {score:4d}{mark}")
    if args.record:
        print(f"record written to {args.record}")
    return 0


def add_parser(subparsers: Any) -> None:
    """Register `portobello play`."""
    p = O.add_command(subparsers, "play", "play one game between agents; print its record "
                      "and scores", cmd_play)
    O.add_players(p)
    O.add_agents(p)
    O.add_seed(p, help="the game's seed (the agents' seeds derive from it and their seats)")
    O.add_board(p)
    O.add_rules(p)
    p.add_argument("--record", metavar="FILE",
                   help="write the game record (SPEC §3) here (default: not written)")
    O.add_json(p, "only the record")
