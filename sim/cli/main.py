"""The `portobello` command line.

Every user error (bad file, bad flag, unknown agent) ends in one line on stderr and a
non-zero exit; tracebacks are for bugs only.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from sim.agents.registry import AGENTS, make_agent, split_specs
from sim.engine.board import load_board
from sim.engine.errors import IllegalActionError, PortobelloError
from sim.engine.rules import PRESET_NOTES, Rules, load_rules, preset, rules_from_dict
from sim.run.loop import play_game

# Modules with `add_parser(subparsers, agents_help)` that add their own commands.
PLUGIN_COMMANDS: tuple[str, ...] = ("sim.cli.simulate", "sim.cli.study", "sim.cli.tournament")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def rules_from_args(args: argparse.Namespace, **overrides: Any) -> Rules:
    """Rules from --preset, then --rules FILE, then explicit flags, in that order."""
    base = preset(args.preset) if getattr(args, "preset", None) else Rules()
    if getattr(args, "rules", None):
        base = load_rules(args.rules, base=base)
    changes = {k: v for k, v in overrides.items() if v is not None}
    return rules_from_dict(changes, base=base, source="command line") if changes else base


def agent_specs(text: str, players: int) -> list[str]:
    specs = split_specs(text)
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        raise PortobelloError(f"{len(specs)} agent specs for {players} players: give one for "
                              "every seat or one for all", field="--agents")
    return specs


# -- replay ----------------------------------------------------------------------------------
def cmd_replay(args: argparse.Namespace) -> int:
    from sim.engine.records import replay_file

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


# -- board -----------------------------------------------------------------------------------
def cmd_board_check(args: argparse.Namespace) -> int:
    board = load_board(args.file)
    rules = rules_from_args(args)
    rules.check_board(board, source=str(args.file))
    print(f"{args.file}: board {board.name!r} is valid: {board.n_squares} squares, "
          f"{board.n_lanes} lanes, {board.n_districts} districts, {board.total_spots} spots "
          f"(lanes of {min(board.lane_len)}-{max(board.lane_len)}), hash {board.content_hash}")
    return 0


def cmd_board_show(args: argparse.Namespace) -> int:
    from analysis.draw import draw_board

    board = load_board(args.file)
    out = Path(args.out)
    draw_board(board, out)
    print(f"wrote {out}")
    return 0


# -- rules -----------------------------------------------------------------------------------
def cmd_rules(args: argparse.Namespace) -> int:
    if args.action == "list":
        for name, note in PRESET_NOTES.items():
            print(f"{name:16} {note}")
        return 0
    rules = rules_from_args(args)
    print(json.dumps(rules.to_dict(), indent=2))
    return 0


# -- play ------------------------------------------------------------------------------------
def cmd_play(args: argparse.Namespace) -> int:
    from sim.engine.records import record_from_game, write_record

    rules = rules_from_args(args, players=args.players)
    board = load_board(args.board)
    rules.check_board(board, source=args.board)
    specs = agent_specs(args.agents, rules.players)
    agents = [make_agent(s, seed=seat) for seat, s in enumerate(specs)]
    game, _ = play_game(board, rules, agents, args.seed)
    record = record_from_game(game, board_ref=args.board, agents=specs)
    if args.record:
        write_record(args.record, record)
    if args.json:
        print(json.dumps(record))
    else:
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


# -- parser ----------------------------------------------------------------------------------
def _add_rules_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--preset", help="named rules preset (see `portobello rules list`)")
    p.add_argument("--rules", metavar="FILE", help="rules TOML file (SPEC §3)")


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="portobello", description="Portobello Market rules-variant "
                     "simulation and analytics toolkit.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("replay", help="replay a game record and print its outcome")
    p.add_argument("record", help="game record JSON (SPEC §3)")
    p.add_argument("--json", action="store_true", help="print the SPEC JSON object")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("board", help="check or draw a board file")
    bsub = p.add_subparsers(dest="board_command", required=True, parser_class=_Parser)
    q = bsub.add_parser("check", help="validate a board file (exit 1 if invalid)")
    q.add_argument("file", help="board TOML file or shipped board name")
    _add_rules_flags(q)
    q.set_defaults(func=cmd_board_check)
    q = bsub.add_parser("show", help="draw a board to an image")
    q.add_argument("file", help="board TOML file or shipped board name")
    q.add_argument("--out", default="board.png", help="image file to write (png, svg, pdf)")
    q.set_defaults(func=cmd_board_show)

    p = sub.add_parser("rules", help="list presets or show a full rules configuration")
    p.add_argument("action", choices=["list", "show"])
    _add_rules_flags(p)
    p.set_defaults(func=cmd_rules)

    agents_help = (f"one agent spec for all seats, or one per seat separated by commas "
                   f"(agents: {', '.join(sorted(AGENTS))})")
    p = sub.add_parser("play", help="play one game between agents; print its record and scores")
    p.add_argument("--players", type=int, default=None, help="number of players (default 2)")
    p.add_argument("--agents", default="random", help=agents_help)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--board", default="standard", help="board name or TOML file")
    p.add_argument("--record", metavar="FILE", help="write the game record here")
    p.add_argument("--json", action="store_true", help="print only the record as JSON")
    _add_rules_flags(p)
    p.set_defaults(func=cmd_play)

    # `portobello bench [MODE]`: every mode lives in sim.cli.bench (`agents` is the default).
    importlib.import_module("sim.cli.bench").add_parser(sub, agents_help)

    # Commands that live in their own modules register themselves here.
    for module in PLUGIN_COMMANDS:
        importlib.import_module(module).add_parser(sub, agents_help)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except IllegalActionError as exc:
        print(exc.message, file=sys.stderr)
        return exc.exit_code
    except PortobelloError as exc:
        print(f"portobello: error: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("portobello: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
