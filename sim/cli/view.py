"""`portobello view`: one game as a self-contained HTML page to step through, drawn by the
game's viewer (its "view" facet, `analysis.view.viewer`): the game whose record file it is,
or the game a run folder played."""

from __future__ import annotations

import argparse
from typing import Any

from sim.cli import options as O


def cmd_view(args: argparse.Namespace) -> int:
    """Replay the game (a record file, or `--game ID` of a run folder) and write its page."""
    from analysis.view.viewer import write_view

    O.check_out(args, args.out)
    page = write_view(args.target, args.game, args.out)
    print(f"{args.out}: {page.steps - 1} actions of {page.label}; open it in a browser "
          "(arrow keys step through the game)")
    return 0


def add_parser(subparsers: Any) -> None:
    """Register `portobello view`."""
    p = O.add_command(subparsers, "view", "write a game as an HTML page to step through",
                      cmd_view, description="Write one game as a self-contained HTML page "
                      "(no network; it opens from disk): the game's own drawing of every "
                      "position (a board with the stalls in seat colours, the customers, the "
                      "baron, the Bobby and the district tokens; a river's rows, pawns, "
                      "owners and attendees, each player's resources, houses, hand and "
                      "Helpers), each seat's score, and the game action by action in words. "
                      "Step with the buttons, the slider or the arrow keys. The game is a "
                      "record file (docs/rules.md; a game's own page in docs/), or game ID of "
                      "a run folder written by `simulate --records`.")
    p.add_argument("target", metavar="RECORD|RUN_DIR",
                   help="game record JSON file, or a run folder kept with --records")
    p.add_argument("--game", type=O.Integer(0, "a game id (an integer of at least 0)"),
                   default=None, metavar="ID",
                   help="the game of the run folder to view (game ids start at 0; default: none, "
                   "for a record file)")
    O.add_out(p, "FILE", "the HTML page to write", required=True)
