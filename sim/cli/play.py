"""`portobello play`: one game between agents; prints its summary (the scores, the winner,
how and when it ended) and writes its record only where asked: `--record FILE`, or
`--json` for the record as one JSON object on stdout. The game plays it (`play_game` of its
commands facet, `sim.cli.games`)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from sim.cli import games as G
from sim.cli import options as O


def cmd_play(args: argparse.Namespace) -> int:
    """Play the game; print its summary, and the record where asked: `--record FILE`
    writes it (and says where), `--json` prints only the record as JSON."""
    if args.record:
        O.check_out(args, args.record, field="--record")
    game = O.game_from_args(args)
    play = G.need(game, "play_game", "play command (one game between agents)")
    rules = O.rules_from_args(args, game, players=args.players)
    material, ref = O.material_from_args(args, game)
    game.check(rules, material, ref)
    specs = O.agent_specs(args.agents, rules.players)
    record, lines = play(material, ref, rules, specs, args.seed)
    if args.record:
        G.need(game, "write_record", "record files")(args.record, record)
    if args.json:
        print(json.dumps(record))
        return 0
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
    O.add_game(p)
    O.add_players(p)
    O.add_agents(p)
    O.add_seed(p, help="the game's seed (the agents' seeds derive from it and their seats)")
    O.add_materials(p)
    O.add_rules(p)
    p.add_argument("--record", metavar="FILE",
                   help="write the game record (docs/rules.md) here (default: not written)")
    O.add_json(p, "the game record (not the summary)")
