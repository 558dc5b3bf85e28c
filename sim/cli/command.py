"""The `portobello` command line: the parser assembled from one module per command, and
`main`.

Every command module (`COMMANDS`) registers itself with `add_parser(subparsers)`, building
its flags from `sim.cli.options`, and sets `func`, the function that runs it. Every user
error (bad file, bad flag, unknown agent) ends in one line on stderr and a non-zero exit;
tracebacks are for bugs only.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from sim.cli.options import Parser
from sim.cli.options import add_subcommands
from sim.core.errors import IllegalActionError
from sim.core.errors import PortobelloError
from sim.core.errors import from_os_error
from sim.run.interrupts import came_of_ctrl_c
from sim.run.interrupts import raise_if_interrupted
from sim.run.interrupts import say_interrupted
from sim.run.interrupts import stop_while_loading

# In the order `portobello --help` lists them.
COMMANDS: tuple[str, ...] = ("play", "replay", "view", "serve", "board", "cards", "rules",
                             "simulate", "study", "report", "tournament", "tune", "agents",
                             "bench")
# The one thing a command writes outside its --out folder (`sim.games.portobello.compiled` places
# it).
CACHE_NOTE = ("Files: each command writes under data/runs/ unless told otherwise, except the "
              "compiled engine, cached in ~/.cache/portobello/ ($XDG_CACHE_HOME/portobello/ "
              "when set; NUMBA_CACHE_DIR overrides both), a folder per code version; `rm -rf "
              "~/.cache/portobello` clears it (when no command runs) and the next command "
              "that plays compiles again.")


def build_parser() -> argparse.ArgumentParser:
    """The whole `portobello` parser."""
    parser = Parser(prog="portobello", description="Portobello Market rules-variant "
                    "simulation and analytics toolkit. `portobello COMMAND --help` describes "
                    "each command.", epilog=CACHE_NOTE)
    sub = add_subcommands(parser, "command")
    for name in COMMANDS:
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
