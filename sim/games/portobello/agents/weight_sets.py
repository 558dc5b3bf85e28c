"""Weight sets of the heuristic evaluation: named, shipped with the toolkit, or read from a
file that `portobello agents tune` wrote.

A weight set is a TOML file whose `[weights]` table gives some or all of the evaluation's
weights (`sim.games.portobello.agents.evaluate.Weights`; a weight it leaves out keeps the classic
value). Its other tables (`[tuned]`, `[evaluation]`) say where it came from and are not read here.

Shipped sets live in `sim/games/portobello/agents/weights/`: `classic` (the hand-tuned weights every
study before self-play tuning used) and `tuned-2p`, `tuned-3p`, `tuned-4p` (self-play tuned under
the standard rules). The name `tuned`, the heuristic's default, means the tuned set of the
game's player count, so one agent spec plays well at every player count.
"""

from __future__ import annotations

import functools
import hashlib
import math
from dataclasses import dataclass
from dataclasses import replace
from pathlib import Path
from typing import Any

from sim.core.errors import PortobelloError
from sim.core.files import read_document
from sim.core.files import regular_file
from sim.games.portobello.agents.evaluate import Weights

SHIPPED = Path(__file__).resolve().parent / "weights"
DEFAULT = "tuned"  # the tuned set of the game's player count
PLAYER_COUNTS = (2, 3, 4)


class WeightSetError(PortobelloError):
    """A weight set that names no shipped set or file, or a file that is not a weight set."""


@dataclass(frozen=True)
class WeightSet:
    """Weights and where they came from (`source`: the shipped name or the file's path;
    `digest`: a hash of the file, so a run can tell when the file changed)."""

    weights: Weights
    source: str
    digest: str


def shipped_names() -> tuple[str, ...]:
    """Names that can be given as `heuristic:weights=NAME` (besides a file path)."""
    names = sorted(p.stem for p in SHIPPED.glob("*.toml"))
    return (DEFAULT, *names)


def describe(name: str) -> str:
    """A shipped set's one-line description (its `description` field)."""
    import tomllib

    data = tomllib.loads((SHIPPED / f"{name}.toml").read_text())
    return str(data.get("description", ""))


def is_path(ref: str) -> bool:
    """Whether a `weights=` value names a file rather than a shipped set."""
    return "/" in ref or ref.endswith(".toml")


def parse_weights(data: Any, source: str) -> Weights:
    """The `[weights]` table of a weight-set document, checked field by field."""
    if not isinstance(data, dict):
        raise WeightSetError("not a weight set: a TOML table is expected", source=source)
    table = data.get("weights")
    if not isinstance(table, dict) or not table:
        raise WeightSetError("no [weights] table (a weight set gives some of "
                             f"{', '.join(Weights.names())})", source=source, field="weights")
    known = Weights.names()
    values: dict[str, float] = {}
    for key, value in table.items():
        if key not in known:
            raise WeightSetError(f"unknown weight (weights: {', '.join(known)})",
                                 source=source, field=f"weights.{key}")
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value):
            raise WeightSetError("must be a finite number", source=source,
                                 field=f"weights.{key}")
        values[key] = float(value)
    return replace(classic_weights(), **values)


@functools.cache
def classic_weights() -> Weights:
    """The hand-tuned weights (`Weights()`'s defaults, pinned by the committed studies)."""
    return Weights()


@functools.lru_cache(maxsize=64)
def _read(path: str, mtime_ns: int, size: int) -> WeightSet:
    """The file at `path` (checked by `read_weight_set`), cached by its time and size."""
    p = Path(path)
    data = read_document(p, "toml", WeightSetError, "weights")
    digest = hashlib.sha256(p.read_bytes()).hexdigest()[:16]
    return WeightSet(parse_weights(data, path), path, digest)


def read_weight_set(path: str | Path) -> WeightSet:
    """A weight-set file, checked (errors name the file and the field)."""
    p = regular_file(path, WeightSetError, "weights")
    info = p.stat()
    return _read(str(path), info.st_mtime_ns, info.st_size)


def resolve(ref: str, players: int) -> WeightSet:
    """The weight set `ref` names for a game of `players`: `tuned` (that player count's
    tuned set), another shipped name, or a file path."""
    if is_path(ref):
        return read_weight_set(ref)
    name = f"{DEFAULT}-{players}p" if ref == DEFAULT else ref
    path = SHIPPED / f"{name}.toml"
    if not path.is_file():
        if ref == DEFAULT:
            raise WeightSetError(f"no tuned weights for {players} players (tuned: "
                                 f"{', '.join(f'{n}p' for n in PLAYER_COUNTS)}); give "
                                 "weights=classic or a file", field="weights")
        raise WeightSetError(f"no weight set named {ref!r} (shipped: "
                             f"{', '.join(shipped_names())}; or a .toml file)", field="weights")
    found = read_weight_set(path)
    return replace(found, source=name)


def check(ref: str) -> None:
    """Fail now when `ref` cannot name a weight set at any player count (an agent spec is
    checked before any game is played)."""
    if ref == DEFAULT:
        for n in PLAYER_COUNTS:
            resolve(ref, n)
    else:
        resolve(ref, PLAYER_COUNTS[0])
