"""`portobello view`: one game as a self-contained HTML page to step through."""

from __future__ import annotations

import argparse
from typing import Any

from sim.cli import options as O


def cmd_view(args: argparse.Namespace) -> int:
    """Replay the game (a record file, or `--game ID` of a run folder) and write its page."""
    from analysis.view.page import check_out
    from analysis.view.page import write_page
    from analysis.view.source import game_source

    O.check_out(args, args.out)
    check_out(args.out)
    if args.game is None and is_river_record(args.target):
        from sim.games.river.view import write_river_page

        steps = write_river_page(args.target, args.out)
        print(f"{args.out}: {steps - 1} actions of the River Market game in {args.target}; "
              "open it in a browser (arrow keys step through the game)")
        return 0
    src = game_source(args.target, args.game)
    steps = write_page(src, args.out)
    print(f"{args.out}: {steps - 1} actions of {src.label}; open it in a browser "
          "(arrow keys step through the game)")
    return 0


def is_river_record(target: str) -> bool:
    """Whether `target` is a River Market record (docs/river-market.md): a JSON file whose
    format says so. Anything else goes the Portobello Market way, which says what is wrong."""
    from pathlib import Path

    from sim.core.files import parse_json
    from sim.games.river.records import FORMAT

    path = Path(target)
    if not path.is_file() or path.stat().st_size > 50_000_000:
        return False
    try:
        data = parse_json(path.read_text(encoding="utf-8"))  # long numbers left unread
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and data.get("format") == FORMAT


def add_parser(subparsers: Any) -> None:
    """Register `portobello view`."""
    p = O.add_command(subparsers, "view", "write a game as an HTML page to step through",
                      cmd_view, description="Write one game as a self-contained HTML page "
                      "(no network; it opens from disk): the board with the stalls in seat "
                      "colours, the customers, the baron, the Bobby and the district tokens, "
                      "each seat's score, tokens and stalls left, and the game action by "
                      "action in words, scorings marked. Step with the buttons, the slider "
                      "or the arrow keys. The game is a record file (docs/rules.md), or game "
                      "ID of a run folder written by `simulate --records`. A River Market "
                      "record (docs/river-market.md) gets its own page: the river's rows, "
                      "pawns, owners and attendees, each player's resources, houses, hand "
                      "(every hand or one seat's view) and Helpers, the score part by part.")
    p.add_argument("target", metavar="RECORD|RUN_DIR",
                   help="game record JSON file, or a run folder kept with --records")
    p.add_argument("--game", type=O.Integer(0, "a game id (an integer of at least 0)"),
                   default=None, metavar="ID",
                   help="the game of the run folder to view (game ids start at 0; default: none, "
                   "for a record file)")
    O.add_out(p, "FILE", "the HTML page to write", required=True)
