"""Rules switches in a study spec: presets and `rules` tables, values by player count, and
sweeps, turned into the `Variant`s a study compares.

Any rules switch but `players` (which the study's player counts decide) may be set by the
study (top-level `preset` and `rules`) or by a variant. A switch whose rulebook value
depends on the player count (the game's `COUNT_DEFAULTS`, `analysis.facets`: Portobello
Market's `stalls_per_player`) may also be a table by player count, `{2 = 28, 3 = 18, 4 =
14}`, since one number rarely suits every count. A sweep (`sweep = { stalls_per_player = [12,
14, 16] }`, one or two switches) makes one variant per value (or per combination of the two
switches' values) on top of each explicit variant; each is named after its values, so the
report can draw every measure against the swept value. The switches and presets are the
study's game's (`sim.games.registry`): the default game's unless the spec names another
(`game = NAME`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from analysis.facets import count_defaults
from analysis.facets import played_value
from sim.core.errors import PortobelloError
from sim.core.errors import quote
from sim.games.registry import default_game
from sim.games.registry import kind

CELL_KEYS = ("players",)  # decided by the cell (the study's player counts), never by a variant
MAX_SWEEP_KEYS = 2


class StudyError(PortobelloError):
    """A study spec or study folder that cannot be used (names file, field and reason)."""


def err(source: str, fld: str | None, reason: str) -> StudyError:
    """A StudyError naming the spec file and field."""
    return StudyError(reason, source=source, field=fld)


def is_int(v: Any) -> bool:
    """An integer, not a boolean (TOML's true would pass isinstance(v, int))."""
    return isinstance(v, int) and not isinstance(v, bool)


def per_player_keys(game: str) -> tuple[str, ...]:
    """The game's switches that may be a table by player count: those whose rulebook value
    depends on it (`analysis.facets.count_defaults`)."""
    return tuple(count_defaults(game))


def at_players(switches: Mapping[str, Any], players: int, game: str) -> dict[str, Any]:
    """The switches at one player count: a table by player count gives its entry."""
    out = dict(switches)
    for key in per_player_keys(game):
        value = out.get(key)
        if isinstance(value, Mapping):
            out[key] = value[players]
    return out


def effective(rules: Any, game: str) -> Any:
    """Rules with every switch whose rulebook value depends on the player count spelled
    out (Portobello Market's stall count), so an explicit standard value (16 stalls at four
    players) and the default (none given) compare equal: they play the same games (rules
    without such switches as they are)."""
    played = {key: played_value(game, rules, key) for key in count_defaults(game)}
    if not played:
        return rules
    return kind(game).rules_from_dict(played, base=rules)


@dataclass(frozen=True)
class Variant:
    """One rules reading to compare: a preset plus switches (players come from the cell).

    `sweep` holds the swept switches' values of a variant made by a sweep (empty
    otherwise) and `base` the name of the explicit variant it was made from ("" when the
    spec has no variants)."""

    name: str
    label: str
    description: str
    switches: Mapping[str, Any]
    sweep: Mapping[str, Any] = field(default_factory=dict)
    base: str = ""
    game: str = field(default_factory=default_game)

    def rules(self, players: int, base: Any) -> Any:
        """This variant's switches over `base` (its game's rules), at a player count."""
        return kind(self.game).rules_from_dict(
            {**at_players(self.switches, players, self.game), "players": players}, base=base,
            source=f"variant {self.name}")


def per_player_table(value: Any, players: Sequence[int], source: str, fld: str) -> Any:
    """A switch value that may be a table by player count: the table with integer keys
    (every study player count present; other counts from 2 to 4 are allowed and unused,
    so one table fits studies of any counts), anything else unchanged."""
    if not isinstance(value, Mapping):
        return value
    out: dict[int, Any] = {}
    for key, v in value.items():
        try:
            n = int(key)
        except (TypeError, ValueError):
            n = 0
        if not 2 <= n <= 4 or isinstance(key, bool):
            raise err(source, fld, f"a table by player count needs keys 2, 3 or 4, got {key!r}")
        out[n] = v
    missing = [n for n in players if n not in out]
    if missing:
        raise err(source, fld, f"no value for {', '.join(map(str, missing))} players (the "
                               f"study's player counts are {list(players)})")
    return dict(sorted(out.items()))


def parse_switches(raw: Mapping[str, Any], players: Sequence[int], source: str,
                   where: str, game: str = "") -> dict[str, Any]:
    """A preset name plus a `rules` table (at the top level or in a variant, `where` is the
    field prefix), merged into one dict of switches of `game` (the default game when none
    is named); a table by player count is checked against the study's player counts."""
    switches: dict[str, Any] = {}
    game = game or default_game()
    g = kind(game)
    name = raw.get("preset")
    if name is not None:
        if str(name) not in g.presets:
            raise err(source, f"{where}preset", f"unknown preset {quote(name)} (presets: "
                                                f"{', '.join(g.presets)})")
        switches.update(g.presets[str(name)])
    rules = raw.get("rules", {})
    if not isinstance(rules, Mapping):
        raise err(source, f"{where}rules", "must be a table of rules switches")
    for key, value in rules.items():
        fld = f"{where}rules.{key}"
        if key not in g.rule_keys:
            raise err(source, fld, f"unknown rules switch (switches: "
                                   f"{', '.join(g.rule_keys)})")
        if key in CELL_KEYS:
            raise err(source, fld, "is set by the study's player counts, not by a variant")
        switches[key] = (per_player_table(value, players, source, fld)
                         if key in per_player_keys(game) else value)
    return switches


def _count_keys(value: Mapping[Any, Any]) -> bool:
    """Whether a table is keyed by player count (integers, or their text after JSON)."""
    return all(is_int(k) or (isinstance(k, str) and k.isdigit()) for k in value)


def value_text(value: Any) -> str:
    """A switch value as a label shows it: `14`, `3,3,2,2`, `3p 18, 4p 14`, `true`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        if _count_keys(value):
            return ", ".join(f"{k}p {value_text(v)}" for k, v in value.items())
        return ", ".join(f"{k} {value_text(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ",".join(value_text(v) for v in value)
    return str(value)


def value_slug(value: Any) -> str:
    """A switch value as part of a variant (and run folder) name: letters, digits, - and _
    only (`14`, `3-3-2-2`, `3p18-4p14`, `citizen6-aristocrat4`)."""
    if isinstance(value, Mapping):
        unit = "p" if _count_keys(value) else ""
        text = "-".join(f"{k}{unit}{value_slug(v)}" for k, v in value.items())
    elif isinstance(value, list | tuple):
        text = "-".join(value_slug(v) for v in value)
    else:
        text = value_text(value)
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "none"


@dataclass(frozen=True)
class Sweep:
    """One or two switches and the values each takes; `points()` is every combination,
    the first switch outermost (it is the x axis of the report's sweep figures)."""

    keys: tuple[str, ...]
    values: tuple[tuple[Any, ...], ...]

    def points(self) -> list[dict[str, Any]]:
        """Every combination of values, as {switch: value}, in spec order."""
        return [dict(zip(self.keys, combo, strict=True))
                for combo in itertools.product(*self.values)]

    def to_dict(self) -> dict[str, Any]:
        """Plain data for study.json: the switches in order and their values."""
        return {"keys": list(self.keys),
                "values": {k: list(v) for k, v in zip(self.keys, self.values, strict=True)}}


def point_name(point: Mapping[str, Any]) -> str:
    """A sweep point's variant name: `stalls_per_player-14`, two switches joined by `__`."""
    return "__".join(f"{k}-{value_slug(v)}" for k, v in point.items())


def point_label(point: Mapping[str, Any]) -> str:
    """A sweep point's label: `stalls_per_player 14 · neutral_stack 1,1,2,2`."""
    return " · ".join(f"{k} {value_text(v)}" for k, v in point.items())


def parse_sweep(raw: Any, players: Sequence[int], source: str, game: str = "") -> Sweep:
    """Validate the `sweep` table: one or two rules switches (not players) of `game` (the
    default game when none is named), each with a list of at least two distinct values (a
    stall count may be a table by player count)."""
    game = game or default_game()
    example = "e.g. sweep = { stalls_per_player = [12, 14, 16] }"
    if not isinstance(raw, Mapping) or not 1 <= len(raw) <= MAX_SWEEP_KEYS:
        raise err(source, "sweep", f"must be a table of one or two rules switches, each with "
                                   f"a list of values ({example}), got {raw!r}")
    keys: list[str] = []
    values: list[tuple[Any, ...]] = []
    for key, vals in raw.items():
        fld = f"sweep.{key}"
        rule_keys = kind(game).rule_keys
        if key not in rule_keys:
            raise err(source, fld, f"unknown rules switch (switches: {', '.join(rule_keys)})")
        if key in CELL_KEYS:
            raise err(source, fld, "is set by the study's player counts, not by a sweep")
        if not isinstance(vals, list) or len(vals) < 2:
            raise err(source, fld, f"must be a list of at least two values ({example}), got "
                                   f"{vals!r}")
        checked = [per_player_table(v, players, source, f"{fld}[{i}]")
                   if key in per_player_keys(game) else v for i, v in enumerate(vals)]
        slugs = [value_slug(v) for v in checked]
        for i, s in enumerate(slugs):
            if s in slugs[:i]:
                raise err(source, f"{fld}[{i}]", f"value {value_text(checked[i])} is given "
                                                 "twice")
        keys.append(key)
        values.append(tuple(checked))
    return Sweep(tuple(keys), tuple(values))


def sweep_variants(variants: Sequence[Variant], sweep: Sweep) -> list[Variant]:
    """A sweep applied on top of each explicit variant: one variant per (variant, point).

    Without explicit variants (one unnamed variant of the study's own rules) a point's
    variant is named after its values alone (`stalls_per_player-14`), else after the
    variant and the values (`known_stalls_per_player-14`)."""
    out = []
    for v in variants:
        for point in sweep.points():
            name, label = point_name(point), point_label(point)
            if v.name:
                name, label = f"{v.name}_{name}", f"{v.label} · {label}"
            out.append(Variant(name=name, label=label, description=v.description,
                               switches={**v.switches, **point}, sweep=point, base=v.name,
                               game=v.game))
    return out


def default_point(variants: Sequence[Variant], base: str, players: Sequence[int]) -> str:
    """The swept variant of explicit variant `base` that plays the rules `base` plays
    without the sweep (e.g. stalls_per_player 16 in a 4-player study), the baseline of a
    sweep; the first point when no value gives those rules."""
    mine = [v for v in variants if v.base == base]
    plain = {k: v for k, v in mine[0].switches.items() if k not in mine[0].sweep}
    name = mine[0].game
    game = kind(name)
    for v in mine:
        try:
            if all(effective(v.rules(n, game.default_rules()), name) == effective(
                    game.rules_from_dict({**at_players(plain, n, name), "players": n}), name)
                   for n in players):
                return v.name
        except PortobelloError:
            continue
    return mine[0].name
