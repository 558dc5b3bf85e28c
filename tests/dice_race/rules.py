"""Dice Race's rules: players, the target score and the turn limit, with two presets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from dataclasses import dataclass
from dataclasses import fields
from dataclasses import replace
from typing import Any

from sim.core.errors import RulesError

PLAYERS = (2, 4)
RANGES = {"players": PLAYERS, "target": (5, 200), "max_turns": (1, 500)}
START = (0, 20)  # the range of a seat's extra starting points
KEYS = (*RANGES, "start")
PRESETS: dict[str, dict[str, Any]] = {"standard": {}, "short": {"target": 12}}


@dataclass(frozen=True)
class DiceRules:
    players: int = 2
    target: int = 20
    max_turns: int = 40
    start: tuple[int, ...] = ()  # extra starting points by seat, seat 0 first

    def seat_start(self) -> list[int]:
        return [(list(self.start) + [0] * self.players)[p] for p in range(self.players)]

    def to_dict(self, changed_only: bool = False) -> dict[str, Any]:
        out = asdict(self) | {"start": list(self.start)}
        if changed_only:
            default = DiceRules(players=self.players).to_dict()
            out = {k: v for k, v in out.items() if k == "players" or v != default[k]}
        return out

    def with_changes(self, **changes: Any) -> DiceRules:
        return dice_rules(changes, base=self)


assert tuple(f.name for f in fields(DiceRules)) == KEYS


def dice_rules(data: Mapping[str, Any] | None = None, base: DiceRules | None = None,
               source: str | None = None) -> DiceRules:
    """Rules from plain data on top of `base`, checked key by key."""
    base = base or DiceRules()
    if not data:
        return base
    if not isinstance(data, Mapping):
        raise RulesError("rules must be a table", source=source)
    changes = dict(data)
    for key, value in data.items():
        if key == "start":
            lo, hi = START
            if (not isinstance(value, list | tuple) or len(value) > PLAYERS[1]
                    or not all(isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi
                               for v in value)):
                raise RulesError(f"must be a list of at most {PLAYERS[1]} whole numbers from "
                                 f"{lo} to {hi}, got {value!r}", source=source, field=key)
            changes[key] = tuple(value)
            continue
        if key not in RANGES:
            raise RulesError(f"unknown rules key {key!r} (known: {', '.join(KEYS)})",
                             source=source, field=str(key))
        lo, hi = RANGES[key]
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise RulesError(f"must be a whole number from {lo} to {hi}, got {value!r}",
                             source=source, field=key)
    return replace(base, **changes)
