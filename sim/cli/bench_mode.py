"""What a `portobello bench` mode is made of, for the modes of `sim.cli.bench` and those a
game declares in its commands facet (`bench_modes()`, `sim.cli.games`): its help line, its
flags and its command, and the two helpers every mode prints and fails through. Kept apart
from `sim.cli.bench`, which gathers the modes of every game, so a game's facet can build its
modes without importing the registry's gathering."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from functools import wraps
from typing import Any

from sim.bench import BenchError
from sim.core.errors import IllegalActionError
from sim.core.errors import PortobelloError

Command = Callable[[argparse.Namespace], int]


def bad_input_exits_2(func: Command) -> Command:
    """Any user error inside a mode becomes a BenchError (same line, exit status 2)."""

    @wraps(func)
    def wrapper(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except (BenchError, IllegalActionError):
            raise
        except PortobelloError as exc:
            raise BenchError(exc.message) from None

    return wrapper


def emit(args: argparse.Namespace, out: dict[str, Any], lines: Sequence[str]) -> int:
    """Print one JSON object with --json, else the human lines."""
    print(json.dumps(out) if args.json else "\n".join(lines))
    return 0


@dataclass(frozen=True)
class Mode:
    """One `portobello bench MODE`: its help line, its flags and its command (made from its
    parser)."""

    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    command: Callable[[argparse.ArgumentParser], Command]
