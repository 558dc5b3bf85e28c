"""The first compile on two cores: a helper process compiles the evaluator and the planner
(and the learned agent's network) while the command's own process compiles the engine, the
random agent and the game loop.

numba compiles a function when a caller first needs it, depth first, in one process, so a
cold compile of the heuristic's games is one long chain (about 34 s here). Most of it splits
in two: the game loop reaches the planner late, after the engine and the random agent, and
the planner needs only part of the engine. A second process that compiles the planner's
functions from its leaves up writes each one to numba's disk cache; when the first process
reaches one, numba loads it from that cache instead of compiling it again.

numba compiles a function for the argument types it is called with, so the helper needs
them before any caller exists: `compile_order.txt` (next to the compiled agents) lists the
planner's and evaluator's functions with their types, in the order a cold compile finished
them (leaves first). `python -m sim.games.portobello.compile_order` writes it again from a
cold compile in a scratch cache (after a change of those functions' arguments); a test
holds each line to its function's parameters. A line that no longer fits costs only the time it
saves: the command's own process compiles whatever the cache lacks.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import sim.games.portobello.agents.compiled as _compiled

ORDER_FILE = Path(_compiled.__file__).with_name("compile_order.txt")
# The modules the helper compiles: the evaluator and the planner (not the planner's front,
# `planner.py`, which the game loop reaches early), and for the learned agent its features,
# network and choice with the search's parts they use.
PLANNER_MODULES = frozenset({"eval_cache", "eval_terms", "eval_deltas", "evaluate", "plan_work",
                             "plan_pick", "plan_bobby", "plan_options", "plan_turn"})
NETWORK_MODULES = frozenset({"plan_step", "mcts", "features", "network", "expert"})
_PACKAGE = "sim.games.portobello.agents.compiled."


def helps(module: str, networks: bool = True) -> bool:
    """Whether the helper compiles this module's functions (for the learned agent's games
    too, or for the planner's only)."""
    name = module[len(_PACKAGE):] if module.startswith(_PACKAGE) else ""
    return name in PLANNER_MODULES or (networks and name in NETWORK_MODULES)


def planned(path: Path = ORDER_FILE) -> Iterator[tuple[str, str, str]]:
    """The file's entries: (module, function, argument types as numba writes them)."""
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            module, name, types = line.split(" ", 2)
            yield module, name, types


def argument_types(text: str) -> tuple[Any, ...]:
    """An entry's argument types, read back with numba's own type names."""
    from numba.core import types

    value = eval(text, {"__builtins__": {}}, dict(vars(types)))  # numba's own reprs of types
    if not isinstance(value, tuple):
        raise ValueError(f"not a tuple of types: {text[:60]}")
    return value


def compile_planned(path: Path = ORDER_FILE, networks: bool = False) -> int:
    """Compile the entries for the planner's games (or the learned agent's too), each into
    numba's disk cache; the number compiled. An entry that no longer fits its function is
    passed over."""
    import importlib

    done = 0
    for module, name, types in planned(path):
        if not helps(module, networks):
            continue
        try:
            getattr(importlib.import_module(module), name).compile(argument_types(types))
            done += 1
        except Exception:  # a stale entry: the command's own process compiles it
            continue
    return done


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def start_helper(networks: bool = False) -> subprocess.Popen[bytes] | None:
    """The helper process (for the learned agent's games too, or the planner's only),
    started when there is a second CPU for it and numba compiles at all (None otherwise).
    Its output is discarded: it only fills the cache."""
    import numba

    if usable_cpus() < 2 or numba.config.DISABLE_JIT:
        return None
    try:
        return subprocess.Popen([sys.executable, "-m", "sim.games.portobello.precompile",
                                 *(["--networks"] if networks else [])],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    except OSError:
        return None


def stop_helper(helper: subprocess.Popen[bytes] | None) -> None:
    """Once the command's own compile is done the helper has nothing left to give: stop it
    (numba writes each cache file whole, under a new name, so nothing is left half
    written)."""
    if helper is None:
        return
    if helper.poll() is None:
        helper.terminate()
    try:
        helper.wait(timeout=10)
    except subprocess.TimeoutExpired:
        helper.kill()
        helper.wait()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m sim.games.portobello.precompile",
        description="Compile the evaluator and planner into the cache (the helper of a "
                    "first compile; `python -m sim.games.portobello.compile_order` records "
                    "the order they compile in).")
    parser.add_argument("--networks", action="store_true",
                        help="the learned agent's functions too")
    args = parser.parse_args(argv)
    compile_planned(networks=args.networks)


if __name__ == "__main__":
    main()
