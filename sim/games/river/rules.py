"""River Market's rules switches: every point the rulebook leaves to the table, with the
English rulebook's reading as the default (docs/river-market.md, "Rules switches")."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import fields
from dataclasses import replace
from typing import Any

from sim.core.errors import RulesError
from sim.core.errors import quote

PLAYERS = (2, 5)  # the rulebook's player counts


@dataclass(frozen=True)
class RiverRules:
    """One River Market game's rules. `houses` None: the rulebook's count, five, or four in a
    5-player game."""

    players: int = 3
    houses: int | None = None
    hand_limit: int = 4
    start_coins: int = 4
    final_turns: int = 2  # turns each after the end is triggered
    zoom_tokens: bool = True  # everyone gets a Zoom token when the end is triggered
    mulligan: bool = True  # redraw a starting hand without a Booth until it has one
    max_turns: int = 400  # a safety stop: the game ends after this many turns in all
    # Extra starting Coins by seat, seat 0 (the start player) first, seats not listed none:
    # a designer's compensation for the later seats (not in the rulebook; `portobello tune`).
    seat_coins: tuple[int, ...] = ()

    @property
    def house_count(self) -> int:
        """Houses each player starts with (Setup 5)."""
        if self.houses is not None:
            return self.houses
        return 4 if self.players == 5 else 5

    def seat_start_coins(self) -> list[int]:
        """Each seat's starting Coins (Setup: 4 each, plus any seat's extra)."""
        extra = list(self.seat_coins) + [0] * self.players
        return [self.start_coins + extra[p] for p in range(self.players)]

    def to_dict(self, changed_only: bool = False) -> dict[str, Any]:
        """Every switch, or (`changed_only`) those differing from the rulebook's (the
        player count always kept)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["seat_coins"] = list(self.seat_coins)
        if changed_only:
            default = RiverRules().to_dict()
            out = {k: v for k, v in out.items() if k == "players" or v != default[k]}
        return out


RANGES: dict[str, tuple[int, int]] = {
    "players": PLAYERS, "houses": (1, 10), "hand_limit": (1, 8), "start_coins": (0, 20),
    "final_turns": (1, 5), "max_turns": (10, 10_000)}
SEAT_COINS = (0, 20)
FLAGS = ("zoom_tokens", "mulligan")
KEYS = tuple(f.name for f in fields(RiverRules))
# The rulebook's shorter game: one house fewer (four) at 3-4 players.
PRESETS = {"standard": {}, "short": {"houses": 4}}


def river_rules(data: Mapping[str, Any] | None = None, base: RiverRules | None = None,
                source: str | None = None) -> RiverRules:
    """Rules from plain data on top of `base`, checked key by key."""
    base = base or RiverRules()
    if not data:
        return base
    if not isinstance(data, Mapping):
        raise RulesError("rules must be a table", source=source)
    changes: dict[str, Any] = {}
    for key, value in data.items():
        if key not in KEYS:
            raise RulesError(f"unknown rules key {quote(key)} (known: {', '.join(KEYS)})",
                             source=source, field=str(key))
        if key in FLAGS:
            if not isinstance(value, bool):
                raise RulesError(f"must be true or false, got {quote(value)}", source=source,
                                 field=key)
        elif key == "houses" and value is None:
            pass
        elif key == "seat_coins":
            value = _seat_coins(value, source)
        else:
            lo, hi = RANGES[key]
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise RulesError(f"must be a whole number from {lo} to {hi}, got "
                                 f"{quote(value)}", source=source, field=key)
        changes[key] = value
    out = replace(base, **changes)
    if len(out.seat_coins) > out.players:
        raise RulesError(f"{len(out.seat_coins)} seats' extra Coins for {out.players} players",
                         source=source, field="seat_coins")
    return out


def _seat_coins(value: Any, source: str | None) -> tuple[int, ...]:
    """Extra starting Coins by seat: a list of whole numbers from 0 to 20, at most 5."""
    lo, hi = SEAT_COINS
    if (not isinstance(value, list | tuple) or len(value) > PLAYERS[1]
            or not all(isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi
                       for v in value)):
        raise RulesError(f"must be a list of at most {PLAYERS[1]} whole numbers from {lo} to "
                         f"{hi} (extra Coins by seat, seat 0 first), got {quote(value)}",
                         source=source, field="seat_coins")
    return tuple(value)


def preset(name: str) -> RiverRules:
    """A named rules set: `standard` (the rulebook's) or `short` (four houses)."""
    if name not in PRESETS:
        raise RulesError(f"unknown River Market preset {quote(name)} (presets: "
                         f"{', '.join(PRESETS)})", field="preset")
    return river_rules(PRESETS[name])
