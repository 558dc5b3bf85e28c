"""Knobs: the rules a fairness tuning may change, and what one setting of them does to the
rules.

A knob in a tuning spec becomes one or more dimensions at a player count. A dimension is an
integer range or a list of choices:

- `start_scores` (integer, a bonus in points over the seat's start score under the fixed
  rules): `seats = "each"` gives every later seat its own dimension (`start_scores[1]`,
  `start_scores[2]`, ...: seats count from 0, the first player, as the engine's do);
  `seats = "later"` gives one, seat k getting k times it; `seats = 1` or `[1, 3]` names
  seats. A negative bonus takes points away.
- `multipliers.<pair>` (integer or choices): one customer pair's multiplier.
- any other rules switch with `choices = [...]` (`bobby_placer`, `neutral_stack`, ...) or,
  for an integer switch, `low`/`high`.

A setting is a tuple of values, one per dimension in order; `rules_for` builds its rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sim.engine.rules import Rules

START = "start_scores"
MULTIPLIER = "multipliers."


@dataclass(frozen=True)
class Dimension:
    """One value the search sets: an integer range (`low`..`high`) or a list of choices.

    `switch` is the rules switch it changes; `seats` the seats a start-score bonus goes to
    and `step` how many times each gets the value (1, or k for seat k with `seats =
    "later"`); seats count from 0."""

    name: str
    switch: str
    low: int = 0
    high: int = 0
    choices: tuple[Any, ...] = ()
    seats: tuple[int, ...] = ()
    steps: tuple[int, ...] = ()
    knob: int = 0  # the spec's knob it comes from (knobs[i]), for error messages

    @property
    def is_int(self) -> bool:
        return not self.choices

    def values(self) -> list[Any]:
        """Every value, in order (an integer range low to high)."""
        return list(range(self.low, self.high + 1)) if self.is_int else list(self.choices)

    def size(self) -> int:
        return self.high - self.low + 1 if self.is_int else len(self.choices)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "switch": self.switch}
        if self.is_int:
            out.update(low=self.low, high=self.high)
        else:
            out["choices"] = [list(c) if isinstance(c, tuple) else c for c in self.choices]
        if self.seats:
            out["seats"] = list(self.seats)
        return out


def space_size(dims: Sequence[Dimension]) -> int:
    """How many settings the dimensions make together."""
    size = 1
    for d in dims:
        size *= d.size()
    return size


def plain(value: Any) -> Any:
    """A value as JSON and TOML hold it (tuples as lists)."""
    return [plain(v) for v in value] if isinstance(value, list | tuple) else value


def changes_for(dims: Sequence[Dimension], setting: Sequence[Any], fixed: Rules
                ) -> dict[str, Any]:
    """The rules switches a setting changes over the fixed rules."""
    changes: dict[str, Any] = {}
    bonus = [0] * fixed.players
    multipliers = dict(fixed.multipliers)
    for dim, value in zip(dims, setting, strict=True):
        if dim.switch == START:
            for seat, step in zip(dim.seats, dim.steps, strict=True):
                bonus[seat] += step * int(value)
        elif dim.switch.startswith(MULTIPLIER):
            multipliers[dim.switch[len(MULTIPLIER):]] = int(value)
        else:
            changes[dim.switch] = tuple(value) if isinstance(value, list) else value
    if any(bonus):
        changes[START] = tuple(s + b for s, b in zip(fixed.seat_start_scores, bonus,
                                                     strict=True))
    if multipliers != dict(fixed.multipliers):
        changes["multipliers"] = tuple(multipliers.items())
    return changes


def rules_for(dims: Sequence[Dimension], setting: Sequence[Any], fixed: Rules) -> Rules:
    """The fixed rules with a setting applied (validated: a start score below the limits,
    say, raises RulesError)."""
    return fixed.with_changes(**changes_for(dims, setting, fixed))


def setting_label(dims: Sequence[Dimension], setting: Sequence[Any]) -> str:
    """A setting as a reader reads it: `start_scores[2] +7 · bobby_placer next`."""
    parts = []
    for dim, value in zip(dims, setting, strict=True):
        if dim.switch == START:
            parts.append(f"{dim.name} {int(value):+d}")
        else:
            text = ",".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
            parts.append(f"{dim.name} {text}")
    return " · ".join(parts) if parts else "(no knobs)"


def seat_scores_text(rules: Rules) -> str:
    """The start scores by seat, e.g. `10, 17` (every seat's)."""
    return ", ".join(map(str, rules.seat_start_scores))


def setting_dict(dims: Sequence[Dimension], setting: Sequence[Any]) -> dict[str, Any]:
    """A setting as {dimension name: value} (plain data)."""
    return {d.name: plain(v) for d, v in zip(dims, setting, strict=True)}


def setting_from(dims: Sequence[Dimension], data: Mapping[str, Any]) -> tuple[Any, ...]:
    """A setting read back from `setting_dict` form (choices as the spec gave them)."""
    out = []
    for d in dims:
        v = data[d.name]
        if not d.is_int:
            v = next(c for c in d.choices if plain(c) == v)
        out.append(v)
    return tuple(out)
