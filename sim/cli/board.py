"""`portobello board check` (validate a board file) and `portobello board show` (draw it)."""

from __future__ import annotations

import argparse
from typing import Any

from sim.cli import options as O
from sim.games.portobello.board import load_board


def cmd_board_check(args: argparse.Namespace) -> int:
    """Load the board, check it against the rules given; print its size and hash."""
    board = load_board(args.file)
    rules = O.rules_from_args(args)
    rules.check_board(board, source=str(args.file))
    print(f"{args.file}: board {board.name!r} is valid: {board.n_squares} squares, "
          f"{board.n_lanes} lanes, {board.n_districts} districts, {board.total_spots} spots "
          f"(lanes of {min(board.lane_len)}-{max(board.lane_len)}), hash {board.content_hash}")
    return 0


def cmd_board_show(args: argparse.Namespace) -> int:
    """Draw the board to --out (the format from its suffix)."""
    from analysis.draw import draw_board

    out = O.check_out(args, args.out)
    board = load_board(args.file)
    out.parent.mkdir(parents=True, exist_ok=True)
    draw_board(board, out)
    print(f"wrote {out}")
    return 0


def add_parser(subparsers: Any) -> None:
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
