"""The `portobello` command line: one module per command on shared option builders."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line (`sim.cli.command.main`); Ctrl-C while it is still loading is the
    same one line and exit status 130 as later."""
    try:
        from sim.cli.command import main as run
    except KeyboardInterrupt:
        print("portobello: interrupted", file=sys.stderr)
        return 130
    return run(argv)


__all__ = ["main"]
