"""`portobello replay`: replay a game record (docs/rules.md) and print its outcome."""

from __future__ import annotations

import argparse
import json
from typing import Any

from sim.cli import options as O


def cmd_replay(args: argparse.Namespace) -> int:
    """Replay the record; print its outcome (the JSON of docs/rules.md with --json)."""
    from sim.games.portobello.records import replay_file

    _, out = replay_file(args.record)
    if args.json:
        print(json.dumps(out))
        return 0
    status = f"finished ({out['end_reason']})" if out["finished"] else "not finished"
    print(f"{args.record}: {status} after round {out['round']}")
    for seat, score in enumerate(out["scores"]):
        mark = "  winner" if seat in out["winners"] else ""
        print(f"  seat {seat}: {score}{mark}")
    print(f"  scored lanes: {', '.join(out['scored_lanes']) or 'none'}")
    return 0


def add_parser(subparsers: Any) -> None:
    """Register `portobello replay`."""
    p = O.add_command(subparsers, "replay", "replay a game record and print its outcome",
                      cmd_replay, description="Replay a game record (docs/rules.md) action by "
                      "action and print its outcome. An illegal action ends in the line "
                      "`action INDEX TYPE: reason` and exit status 2.")
    p.add_argument("record", metavar="RECORD", help="game record JSON file (docs/rules.md)")
    O.add_json(p, "the JSON outcome (docs/rules.md)")
