"""The `portobello` command line: the parser assembled from one module per command, and
`main`.

Every command module (`TOOLKIT`) registers itself with `add_parser(subparsers)`, building
its flags from `sim.cli.options`, and sets `func`, the function that runs it; a command only
one game has (a board's, a card set's) is registered the same way by that game's commands
facet (`commands()`, `sim.cli.games`). Every user error (bad file, bad flag, unknown agent)
ends in one line on stderr and a non-zero exit; tracebacks are for bugs only.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from collections.abc import Sequence
from typing import Any

from sim.cli import games as G
from sim.cli.options import Parser
from sim.cli.options import add_subcommands
from sim.core.errors import IllegalActionError
from sim.core.errors import PortobelloError
from sim.core.errors import from_os_error
from sim.games.registry import kinds
from sim.run.interrupts import came_of_ctrl_c
from sim.run.interrupts import raise_if_interrupted
from sim.run.interrupts import say_interrupted
from sim.run.interrupts import stop_while_loading

# The toolkit's commands, in the order `portobello --help` lists them (the games' own after
# `serve`).
TOOLKIT: tuple[str, ...] = ("play", "replay", "view", "serve", "rules", "simulate", "study",
                            "report", "tournament", "tune", "agents", "bench")
GAMES_AFTER = "serve"


def game_commands() -> dict[str, Callable[[Any], None]]:
    """The commands the registered games add (`commands()` of their commands facets), by
    name; a name the toolkit or an earlier game has is not taken again."""
    found: dict[str, Callable[[Any], None]] = {}
    for game in kinds().values():
        offered = G.member(game, "commands")
        for name, add in (offered() if offered is not None else {}).items():
            if name not in TOOLKIT:
                found.setdefault(name, add)
    return found


def all_commands() -> tuple[str, ...]:
    """Every command: the toolkit's, the games' after `GAMES_AFTER`."""
    cut = TOOLKIT.index(GAMES_AFTER) + 1
    return (*TOOLKIT[:cut], *game_commands(), *TOOLKIT[cut:])


COMMANDS = all_commands()
# The one thing a command writes outside its --out folder (`sim.games.portobello.compiled` places
# it).
CACHE_NOTE = ("Files: each command writes under data/runs/ unless told otherwise, except the "
              "compiled engine, cached in ~/.cache/portobello/ ($XDG_CACHE_HOME/portobello/ "
              "when set; NUMBA_CACHE_DIR overrides both), a folder per code version; `rm -rf "
              "~/.cache/portobello` clears it (when no command runs) and the next command "
              "that plays compiles again.")


def build_parser() -> argparse.ArgumentParser:
    """The whole `portobello` parser."""
    titles = [g.title for g in kinds().values()]
    parser = Parser(prog="portobello", description="Rules-variant simulation and analytics "
                    f"toolkit for board games ({', '.join(titles)}). `portobello COMMAND "
                    "--help` describes each command.", epilog=CACHE_NOTE)
    sub = add_subcommands(parser, "command")
    games = game_commands()
    for name in all_commands():
        if name in games:
            games[name](sub)
        else:
            importlib.import_module(f"sim.cli.{name}").add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line (`argv` without the program name; default `sys.argv[1:]`)."""
    try:
        try:
            args = build_parser().parse_args(argv)  # imports every command: Ctrl-C may come
            raise_if_interrupted()  # one that an import dropped
        except KeyboardInterrupt:
            stop_while_loading()
        return int(args.func(args) or 0)
    except IllegalActionError as exc:
        print(exc.message, file=sys.stderr)
        return exc.exit_code
    except PortobelloError as exc:
        print(f"portobello: error: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a full disk, a read-only folder, a missing path...
        print(f"portobello: error: {from_os_error(exc).message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        say_interrupted()
        return 130
    except Exception as exc:
        # Ctrl-C can surface as another error (`came_of_ctrl_c`): the one line all the same.
        if not came_of_ctrl_c(exc):
            raise
        say_interrupted()
        return 130

if __name__ == "__main__":
    sys.exit(main())
