"""Recording `compile_order.txt`, the plan of a first compile's helper process
(`sim.games.portobello.precompile`): a cold compile of the learned agent's games (which
hold the planner's) in a scratch cache, each helper module's compile written in the order
it finished. Run it after a change of those functions' arguments:
`python -m sim.games.portobello.compile_order`. Apart from the helper, so that the helper
never imports the engine seam that starts it."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from sim.games.portobello.precompile import ORDER_FILE
from sim.games.portobello.precompile import argument_types
from sim.games.portobello.precompile import helps
from sim.games.portobello.precompile import planned

HEADER = """\
# The evaluator's, planner's and learned agent's compiled functions with their argument
# types, in the order a cold compile finished them (leaves first): what the helper process
# of a first compile compiles (`sim.games.portobello.precompile`). Written by `python -m
# sim.games.portobello.compile_order`.
"""


def _reads_back(args: tuple[Any, ...]) -> bool:
    """Whether these types read back from their text (a constant's type, such as
    `Literal[int](0)`, does not: such a version is left to the command's own process)."""
    try:
        return argument_types(repr(args)) == args
    except Exception:
        return False


def record_here(out: Path) -> int:
    """Compile the learned agent's games (which hold the planner's) in this process (its
    cache must be empty) and write the helper modules' compiles to `out` in the order they
    finished; the number written."""
    from numba.core import event

    from sim.games.portobello.engines import COMPILE_NOTICE_NETWORKS
    from sim.games.portobello.engines import compile_for

    lines: list[str] = []

    class Finished(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            pass

        def on_end(self, ev: event.Event) -> None:
            f = ev.data["dispatcher"].py_func
            args = tuple(ev.data["args"])
            if helps(f.__module__) and _reads_back(args):
                lines.append(f"{f.__module__} {f.__name__} {args!r}")

    with event.install_listener("numba:compile", Finished()):
        compile_for(COMPILE_NOTICE_NETWORKS)
    out.write_text(HEADER + "".join(f"{line}\n" for line in lines))
    return len(lines)


def record(out: Path = ORDER_FILE) -> int:
    """`record_here` in a child process with a scratch cache, so that every function is
    compiled (a warm cache would load the game loop whole, its callees unseen)."""
    with tempfile.TemporaryDirectory(prefix="portobello-order-") as tmp:
        env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
        env["XDG_CACHE_HOME"] = tmp
        subprocess.run([sys.executable, "-m", "sim.games.portobello.compile_order",
                        "--record-here", str(out)], env=env, check=True)
    return sum(1 for _ in planned(out))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m sim.games.portobello.compile_order",
        description=f"Write {ORDER_FILE.name} again from a cold compile.")
    parser.add_argument("--record-here", type=Path, metavar="FILE", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.record_here:
        record_here(args.record_here)
    else:
        print(f"{record()} entries written to {ORDER_FILE}")


if __name__ == "__main__":
    main()
