"""River Market's heuristic weight sets (`sim.games.river.agents.WEIGHTS`): named, or read from a
file.

A weight set is a TOML file whose `[weights]` table gives some or all of the heuristic's
weights (a weight it leaves out keeps the greedy agent's value); `game`, where given, must
be `river-market` (a Portobello Market weight set is not one of these), and its other
tables (`[tuned]`, `[evaluation]`, written by `portobello agents tune --game
river-market`) say where it came from and are not read here.

Names: `greedy` (the greedy agent's weights, `GREEDY_WEIGHTS`) and the sets shipped in
`sim/games/river/weights/`: `tuned-3p`, self-play tuned at 3 players under the rulebook's rules
(docs/river-market.md has its command), the heuristic's default at every player count.
Anything with a `/` or ending in `.toml` is a file.
"""

from __future__ import annotations

import functools
import math
import tomllib
from pathlib import Path
from typing import Any

from sim.core.errors import PortobelloError
from sim.core.errors import quote
from sim.core.files import read_document
from sim.core.files import regular_file
from sim.games.river.agents import GREEDY_WEIGHTS
from sim.games.river.agents import WEIGHTS

SHIPPED = Path(__file__).resolve().parent / "weights"
GREEDY = "greedy"
DEFAULT = "tuned-3p"  # the heuristic's weights unless a spec names others
GAME = "river-market"


class RiverWeightSetError(PortobelloError, ValueError):
    """A weight set that names no River Market set or file, or a file that is not one
    (a ValueError too, as every refused River Market agent spec is)."""


def names() -> tuple[str, ...]:
    """What `heuristic:weights=NAME` accepts besides a file: `greedy` and the shipped sets."""
    return (GREEDY, *sorted(p.stem for p in SHIPPED.glob("*.toml")))


def describe(name: str) -> str:
    """A named set's one-line description (a shipped file's `description`)."""
    if name == GREEDY:
        return "the greedy agent's weights (a Good 0.3, a Coin 0.2, nothing else)"
    return str(tomllib.loads((SHIPPED / f"{name}.toml").read_text()).get("description", ""))


def is_path(ref: str) -> bool:
    """Whether a `weights=` value names a file rather than a named set."""
    return "/" in ref or ref.endswith(".toml")


def parse_weights(data: Any, source: str) -> tuple[float, ...]:
    """The weights of a weight-set document (in `WEIGHTS` order), checked field by field."""
    if not isinstance(data, dict):
        raise RiverWeightSetError("not a weight set: a TOML table is expected", source=source)
    game = data.get("game", GAME)
    if game != GAME:
        raise RiverWeightSetError(f"a weight set for {quote(game)}, not River Market "
                                  f"({GAME!r})", source=source, field="game")
    table = data.get("weights")
    if not isinstance(table, dict) or not table:
        raise RiverWeightSetError(f"no [weights] table (a River Market weight set gives some "
                                  f"of {', '.join(WEIGHTS)})", source=source, field="weights")
    values = dict(zip(WEIGHTS, GREEDY_WEIGHTS, strict=True))
    for key, value in table.items():
        if key not in values:
            raise RiverWeightSetError(f"unknown weight (River Market's heuristic weighs "
                                      f"{', '.join(WEIGHTS)})", source=source,
                                      field=f"weights.{key}")
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value):
            raise RiverWeightSetError(f"must be a finite number, got {quote(value)}",
                                      source=source, field=f"weights.{key}")
        values[key] = float(value)
    return tuple(values[k] for k in WEIGHTS)


@functools.lru_cache(maxsize=64)
def _read(path: str, mtime_ns: int, size: int) -> tuple[float, ...]:
    """The file at `path` (checked by `read_weight_set`), cached by its time and size."""
    return parse_weights(read_document(path, "toml", RiverWeightSetError, "weights"), path)


def read_weight_set(path: str | Path) -> tuple[float, ...]:
    """A weight-set file's weights, checked (errors name the file and the field)."""
    p = regular_file(path, RiverWeightSetError, "weights")
    info = p.stat()
    return _read(str(path), info.st_mtime_ns, info.st_size)


def resolve(ref: str) -> tuple[float, ...]:
    """The weights `ref` names: `greedy`, a shipped set's name, or a file path."""
    if is_path(ref):
        return read_weight_set(ref)
    if ref == GREEDY:
        return GREEDY_WEIGHTS
    path = SHIPPED / f"{ref}.toml"
    if not path.is_file():
        raise RiverWeightSetError(f"no River Market weight set named {quote(ref)} (named: "
                                  f"{', '.join(names())}; or a .toml file)", field="weights")
    return read_weight_set(path)
