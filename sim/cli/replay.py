"""`portobello replay`: replay a game record (docs/rules.md) and print its outcome. The game
whose record it is (the game whose viewer claims the file, `analysis.view.viewer.record_game`;
the default game for anything else, which says what is wrong) replays it (`replay_record` of
its commands facet, `sim.cli.games`)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from sim.cli import games as G
from sim.cli import options as O


def cmd_replay(args: argparse.Namespace) -> int:
    """Replay the record; print its outcome (the JSON of docs/rules.md with --json)."""
    from analysis.view.viewer import record_game

    game = record_game(args.record)
    replay = G.need(game, "replay_record", "replay of records", field="record")
    out, lines = replay(args.record)
    print(json.dumps(out) if args.json else "\n".join(lines))
    return 0


def add_parser(subparsers: Any) -> None:
    """Register `portobello replay`."""
    p = O.add_command(subparsers, "replay", "replay a game record and print its outcome",
                      cmd_replay, description="Replay a game record (docs/rules.md) action by "
                      "action and print its outcome. An illegal action ends in the line "
                      "`action INDEX TYPE: reason` and exit status 2.")
    p.add_argument("record", metavar="RECORD", help="game record JSON file (docs/rules.md)")
    O.add_json(p, "the JSON outcome (docs/rules.md)")
