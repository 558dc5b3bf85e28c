"""Knobs: the rules a fairness tuning may change, and what one setting of them does to the
rules.

A knob in a tuning spec becomes one or more dimensions at a player count. A dimension is an
integer range or a list of choices:

- the game's seat bonus (integer, added to a seat's value under the fixed rules):
  Portobello Market's `start_scores` (points over the seat's start score; a negative bonus
  takes points away), River Market's `seat_coins` (extra starting Coins over the seat's
  extra Coins under the fixed rules, none by default; never negative, Coins cannot be).
  `seats = "each"` gives every later seat its own dimension (`start_scores[1]`,
  `start_scores[2]`, ...: seats count from 0, the first player, as the engine's do);
  `seats = "later"` gives one, seat k getting k times it; `seats = 1` or `[1, 3]` names
  seats.
- `multipliers.<pair>` (Portobello Market, integer or choices): one customer pair's
  multiplier.
- any other rules switch with `choices = [...]` (`bobby_placer`, `neutral_stack`, ...) or,
  for an integer switch (`stalls_per_player`; River Market's `houses`, `start_coins`,
  `hand_limit`, ...), `low`/`high`.

What differs between the games is asked of the game's tuning facet
(`sim.tuning.games.FairnessFacet`) and read here as one `GameKnobs`: its seat bonus, the
switches a knob may set, and how changes become its rules. A setting is a tuple of values,
one per dimension in order; `rules_for` builds its rules (the dimensions say the game).
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sim.games.registry import default_game
from sim.games.registry import kind
from sim.tuning.games import fairness_facet


@dataclass(frozen=True)
class Dimension:
    """One value the search sets: an integer range (`low`..`high`) or a list of choices.

    `switch` is the rules switch it changes; `seats` the seats a seat bonus (start score,
    extra Coins) goes to and `step` how many times each gets the value (1, or k for seat k
    with `seats = "later"`); seats count from 0."""

    name: str
    switch: str
    low: int = 0
    high: int = 0
    choices: tuple[Any, ...] = ()
    seats: tuple[int, ...] = ()
    steps: tuple[int, ...] = ()
    knob: int = 0  # the spec's knob it comes from (knobs[i]), for error messages
    game: str = ""  # the game whose rules it sets ("": the default game)

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


@dataclass(frozen=True)
class GameKnobs:
    """What one game's tuning may turn and how (a knob's switch, the seat bonus, the rules a
    setting makes), read from the game's tuning facet (`sim.tuning.games.FairnessFacet`);
    the spec and the tuning read it, never a game's rules directly.

    `bonus` is the seat-bonus switch and `seat_values(rules)` every seat's value of it, the
    base a bonus is added to (Portobello Market: every seat's start score; River Market:
    every seat's extra Coins, none unless the fixed rules give some); `least` the smallest
    bonus a knob may give (None: a negative one takes away). `words` says what a bonus is,
    `column` what the seat values are, in reports and messages."""

    game: str
    title: str
    bonus: str
    words: str
    column: str
    least: int | None
    switches: tuple[str, ...]  # every switch a knob may set, the bonus among them
    switch_hint: str  # the refusal of another switch, after "must be ..."
    default_agents: str
    seat_values: Callable[[Any], tuple[int, ...]]
    integer: Callable[[str], bool]  # whether a switch takes low and high
    apply: Callable[[Any, Mapping[str, Any]], Any]  # the fixed rules with changes, checked
    rules_file: Callable[[Any, str], str]  # the rules as the game's rules file (TOML)


def game_knobs(game: str) -> GameKnobs:
    """What the game's knobs may set, and how (GameError when it has no fairness tuning)."""
    facet = fairness_facet(game)
    return GameKnobs(game, kind(game).title, facet.SEAT_BONUS, facet.BONUS_WORDS,
                     facet.BONUS_COLUMN, facet.BONUS_LEAST, tuple(facet.KNOB_SWITCHES),
                     facet.SWITCH_HINT, facet.DEFAULT_AGENTS, facet.seat_values,
                     facet.integer_switch, facet.apply_knobs, facet.rules_file)


def dims_game(dims: Sequence[Dimension]) -> str:
    """The game whose rules the dimensions set (the default game's when none says)."""
    return next((d.game for d in dims if d.game), default_game())


def changes_for(dims: Sequence[Dimension], setting: Sequence[Any], fixed: Any
                ) -> dict[str, Any]:
    """The rules switches a setting changes over the fixed rules (the game's own knob names,
    e.g. one multiplier, are its to fold into its rules: `GameKnobs.apply`)."""
    game = game_knobs(dims_game(dims))
    changes: dict[str, Any] = {}
    bonus = [0] * fixed.players
    for dim, value in zip(dims, setting, strict=True):
        if dim.switch == game.bonus:
            for seat, step in zip(dim.seats, dim.steps, strict=True):
                bonus[seat] += step * int(value)
        else:
            changes[dim.switch] = tuple(value) if isinstance(value, list) else value
    if any(bonus):
        changes[game.bonus] = tuple(s + b for s, b in zip(game.seat_values(fixed), bonus,
                                                          strict=True))
    return changes


def rules_for(dims: Sequence[Dimension], setting: Sequence[Any], fixed: Any) -> Any:
    """The fixed rules with a setting applied (validated: a start score below the limits,
    say, raises RulesError)."""
    return game_knobs(dims_game(dims)).apply(fixed, changes_for(dims, setting, fixed))


def setting_label(dims: Sequence[Dimension], setting: Sequence[Any]) -> str:
    """A setting as a reader reads it: `start_scores[2] +7 · bobby_placer next`."""
    parts = []
    for dim, value in zip(dims, setting, strict=True):
        if dim.seats:  # a seat bonus
            parts.append(f"{dim.name} {int(value):+d}")
        else:
            text = ",".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
            parts.append(f"{dim.name} {text}")
    return " · ".join(parts) if parts else "(no knobs)"


def setting_dict(dims: Sequence[Dimension], setting: Sequence[Any]) -> dict[str, Any]:
    """A setting as {dimension name: value} (plain data)."""
    return {d.name: plain(v) for d, v in zip(dims, setting, strict=True)}
