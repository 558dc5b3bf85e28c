"""The `portobello` command line: one module per command on shared option builders."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line (`sim.cli.command.main`); Ctrl-C while it is still loading is the
    same one line and exit status 130 as later, even when Python drops the interrupt inside
    an import (`sim.run.interrupts`)."""
    try:
        from sim.run.interrupts import ctrl_c_noted
        from sim.run.interrupts import raise_if_interrupted
        from sim.run.interrupts import stop_while_loading
    except KeyboardInterrupt:
        print("portobello: interrupted", file=sys.stderr)
        return 130
    with ctrl_c_noted():
        try:
            from sim.cli.command import main as run

            raise_if_interrupted()
        except KeyboardInterrupt:
            stop_while_loading()
        return run(argv)


__all__ = ["main"]
