"""Tuning specs: the TOML of a fairness tuning, validated, and the cells it stands for.

A tuning spec (`data/tuning/*.toml`) names the fixed rules (a preset, `rules`, optionally
`[[variants]]` as a study has them), the knobs the search may turn (`sim.tuning.fairness.
knobs`), the target, the agents, the player counts, the search's budget and the
confirmation, and one seed. `tuning_from_dict` / `load_tuning` check it field by field, so
a mistake is reported with the file, the field and the reason before any game is played
(every knob's extreme values are built into rules at every player count and variant).
There is one cell, one search, per variant and player count.

`agents` is one agent spec (every seat's, or one per seat at a single player count), or a
list of them, several levels of play, cheapest first: then the tuning asks for the setting
fair at every level (`sim.tuning.fairness.race`), and `search.margin` says how far from
fair a setting may be at a level and still go on to the dearer ones. A list of one is the
single spec, the same tuning. The agents and levels are checked in
`sim.tuning.fairness.levels` (with `TuningError`, re-exported here).

`game = NAME` makes it a tuning of that game (`sim.games.registry`), as a study does: its
material is named under the game's own key (`GameKind.material`), its presets, switches,
agents and player counts are the game's, and its seat bonus is the one its tuning module
names (`SEAT_BONUS`). What a game's knobs may set is its tuning
facet's (`sim.tuning.fairness.knobs.game_knobs`); a game without one cannot be tuned.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import numpy as np

from analysis.study.switches import Variant
from analysis.study.switches import is_int
from analysis.study.switches import parse_switches
from sim.core.errors import PortobelloError
from sim.core.files import read_document
from sim.games.registry import default_game
from sim.games.registry import game_of_spec
from sim.games.registry import kind
from sim.games.registry import kinds
from sim.run.config import MAX_GAMES
from sim.tuning.fairness.knobs import Dimension
from sim.tuning.fairness.knobs import GameKnobs
from sim.tuning.fairness.knobs import game_knobs
from sim.tuning.fairness.knobs import rules_for
from sim.tuning.fairness.knobs import space_size
from sim.tuning.fairness.levels import TuningError
from sim.tuning.fairness.levels import check_agents
from sim.tuning.fairness.levels import check_levels
from sim.tuning.fairness.levels import check_margin
from sim.tuning.fairness.levels import lineup_at
from sim.tuning.fairness.levels import spec_error as _err

TOP_KEYS = ("name", "title", "description", "board", "players", "agents", "seed", "preset",
            "rules", "variants", "knobs", "target", "search", "confirm", "game")


def top_keys() -> tuple[str, ...]:
    """A tuning spec's keys: `TOP_KEYS` and any other registered game's material key."""
    return tuple(dict.fromkeys([*TOP_KEYS, *(g.material for g in kinds().values())]))


VARIANT_KEYS = ("name", "label", "description", "preset", "rules")
KNOB_KEYS = ("switch", "name", "seats", "low", "high", "choices")
TARGET_KEYS = ("seat_gap", "first_player", "length", "length_goal")
SEARCH_KEYS = ("method", "budget", "games", "profile", "neighbourhood", "margin")
MAX_NEIGHBOURHOOD_SETTINGS = 400  # (2k+1)^knobs settings a neighbourhood of reach k plays
CONFIRM_KEYS = ("best", "games", "checks")
CHECK_KEYS = ("agents", "games")
METHODS = ("auto", "monotone", "surface", "grid", "optuna")
MAX_BUDGET = 10_000
MAX_VALUES = 1_000  # values of one dimension


@dataclass(frozen=True)
class Target:
    """What the search minimises: a weighted sum of the largest gap between a seat's win
    share and 1/n (`seat_gap`), the first player's gap (`first_player`) and the relative
    distance of the mean game length in rounds from `length_goal` (`length`)."""

    seat_gap: float = 1.0
    first_player: float = 0.0
    length: float = 0.0
    length_goal: float | None = None

    def values(self, shares: np.ndarray, rounds: np.ndarray) -> np.ndarray:
        """The target of each row of seat win shares (settings x seats) with its mean
        rounds: one formula for measured outcomes and for the searches' fitted ones."""
        parity = 1 / shares.shape[1]
        value = self.seat_gap * np.abs(shares - parity).max(axis=1)
        value += self.first_player * np.abs(shares[:, 0] - parity)
        if self.length and self.length_goal:
            value += self.length * np.abs(rounds - self.length_goal) / self.length_goal
        return value

    def terms(self) -> dict[str, float]:
        return {k: v for k, v in (("seat_gap", self.seat_gap),
                                  ("first_player", self.first_player),
                                  ("length", self.length)) if v}

    def text(self) -> str:
        names = {"seat_gap": "the largest seat gap from 1/n",
                 "first_player": "the first player's gap from 1/n",
                 "length": f"the mean length's relative distance from {self.length_goal} rounds"}
        parts = [f"{w:g} × {names[k]}" if w != 1 else names[k] for k, w in self.terms().items()]
        return " + ".join(parts)


@dataclass(frozen=True)
class Check:
    """A confirmation of the recommended setting with other agents (e.g. a search agent)."""

    agents: tuple[str, ...]
    games: int


@dataclass(frozen=True)
class TuneCell:
    """One search: a variant at a player count, its fixed rules, dimensions and seats."""

    variant: Variant
    players: int
    fixed: Any  # the game's rules (Portobello Market's Rules, River Market's RiverRules)
    dims: tuple[Dimension, ...]
    agents: tuple[str, ...]
    checks: tuple[Check, ...]
    levels: tuple[tuple[str, ...], ...] = ()  # every level's line-up, cheapest first, when
    # the spec lists several levels of play (() for one: `agents` alone)

    @property
    def lineups(self) -> tuple[tuple[str, ...], ...]:
        """The line-up of every level of play, cheapest first (one: `agents`)."""
        return self.levels or (self.agents,)

    @property
    def key(self) -> str:
        return f"{self.variant.name}-{self.players}p" if self.variant.name else \
            f"{self.players}p"


@dataclass(frozen=True)
class TuningSpec:
    """A validated tuning spec. `board` is the game's material (`sim.games.registry`): Portobello
    Market's board, River Market's card set; `board_ref` the spec's name or path of it."""

    name: str
    title: str
    description: str
    board: Any
    board_ref: str
    players: tuple[int, ...]
    agents: str
    seed: int
    variants: tuple[Variant, ...]
    knobs: tuple[Mapping[str, Any], ...]
    target: Target
    method: str
    budget: int
    games: int
    profile: bool
    confirm_best: int
    confirm_games: int
    checks: tuple[tuple[str, int], ...]
    source: str
    text: str
    reduced: str = ""  # the command-line flags that reduced the spec, if any
    game: str = field(default_factory=default_game)
    neighbourhood: int = 0  # after the profiles, every setting within this many steps of
    # the search's best in every knob at once (0: none)
    levels: tuple[str, ...] = ()  # every level's agent spec, cheapest first, when the spec
    # lists several (`agents` is the first); () for one level of play
    margin: float = 0.0  # racing: the worst seat gap a setting may still have at a level
    stage_budget: int | None = None  # settings each later stage (the profiles, the
    # neighbourhood) may play per cell; None: all the spec asks for (`--budget` sets it)

    @property
    def level_specs(self) -> tuple[str, ...]:
        """Every level's agent spec, cheapest first (one: `agents`)."""
        return self.levels or (self.agents,)

    def neighbourhood_size(self, knobs: int) -> int:
        """The settings a neighbourhood of this reach spans in `knobs` knobs, the best
        among them (1 when the reach is 0)."""
        return (2 * self.neighbourhood + 1) ** knobs

    @property
    def knob_game(self) -> GameKnobs:
        """What this game's knobs may set, and how (`sim.tuning.fairness.knobs`)."""
        return game_knobs(self.game)

    def cells(self) -> list[TuneCell]:
        """One cell per variant and player count, in spec order (variants outermost)."""
        out = []
        bonus = self.knob_game.bonus
        for v in self.variants:
            for n in self.players:
                fixed = v.rules(n, kind(self.game).default_rules())
                dims = tuple(d for i, k in enumerate(self.knobs)
                             for d in _dimensions(k, n, i, bonus, self.game))
                out.append(TuneCell(v, n, fixed, dims, lineup_at(self.agents, n),
                                    tuple(Check(lineup_at(a, n), g) for a, g in self.checks),
                                    tuple(lineup_at(a, n) for a in self.levels)))
        return out


def _int_field(raw: Mapping[str, Any], key: str, source: str, fld: str, default: int | None,
               low: int, high: int) -> int:
    value = raw.get(key, default)
    if value is None:
        raise _err(source, fld, "missing")
    if not is_int(value) or not low <= value <= high:
        raise _err(source, fld, f"must be an integer from {low:,} to {high:,}, got {value!r}")
    return value


def _weight(raw: Mapping[str, Any], key: str, source: str, default: float) -> float:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1e6:
        raise _err(source, f"target.{key}", f"must be a weight of 0 or more, got {value!r}")
    return float(value)


def _table(data: Mapping[str, Any], key: str, keys: Sequence[str], source: str
           ) -> Mapping[str, Any]:
    raw = data.get(key, {})
    if not isinstance(raw, Mapping):
        raise _err(source, key, f"must be a table ([{key}])")
    for k in raw:
        if k not in keys:
            raise _err(source, f"{key}.{k}", f"unknown key (keys: {', '.join(keys)})")
    return raw


def _target(data: Mapping[str, Any], source: str) -> Target:
    raw = _table(data, "target", TARGET_KEYS, source)
    t = Target(seat_gap=_weight(raw, "seat_gap", source, 0.0 if raw else 1.0),
               first_player=_weight(raw, "first_player", source, 0.0),
               length=_weight(raw, "length", source, 0.0))
    if not t.terms():
        raise _err(source, "target", "every weight is 0: give seat_gap, first_player or "
                                     "length a positive weight")
    goal = raw.get("length_goal")
    if t.length:
        if isinstance(goal, bool) or not isinstance(goal, int | float) or not 1 <= goal <= 500:
            raise _err(source, "target.length_goal", "the length term needs a goal: the mean "
                                                     f"rounds per game, 1 to 500, got {goal!r}")
        t = Target(t.seat_gap, t.first_player, t.length, float(goal))
    elif goal is not None:
        raise _err(source, "target.length_goal", "given without a length weight (target."
                                                 "length)")
    return t


def _seats(raw: Any, players: Sequence[int], source: str, fld: str) -> Any:
    if raw in ("each", "later"):
        return raw
    seats = [raw] if is_int(raw) else raw
    if not isinstance(seats, list) or not seats or not all(is_int(s) for s in seats):
        raise _err(source, fld, f'must be "each", "later", a seat number or a list of seat '
                                f"numbers, got {raw!r}")
    top = min(players)
    for s in seats:
        if not 0 <= s < top:
            raise _err(source, fld, f"seat {s} does not exist at {top} players (seats are "
                                    f"numbered from 0, the first player, as everywhere in "
                                    f"the toolkit; players = {list(players)})")
    if len(set(seats)) != len(seats):
        raise _err(source, fld, f"a seat is named twice: {seats}")
    return list(seats)


def _knob(raw: Any, players: Sequence[int], source: str, fld: str, game: GameKnobs
          ) -> dict[str, Any]:
    """One `[[knobs]]` table, checked (the rules it builds are checked per cell later)."""
    if not isinstance(raw, Mapping):
        raise _err(source, fld, "must be a table ([[knobs]])")
    for k in raw:
        if k not in KNOB_KEYS:
            raise _err(source, f"{fld}.{k}", f"unknown key (keys: {', '.join(KNOB_KEYS)})")
    switch = raw.get("switch")
    bonus = game.bonus
    if switch not in game.switches:
        other = _bonus_of_other_game(switch, game.game)
        if other:
            raise _err(source, f"{fld}.switch", f"{switch} is {other}'s seat bonus; "
                       f"{game.title}'s is {bonus} ({game.words} by seat)")
        raise _err(source, f"{fld}.switch", f"must be {game.switch_hint}, got {switch!r}")
    knob: dict[str, Any] = {"switch": switch}
    name = raw.get("name", "")
    if not isinstance(name, str):
        raise _err(source, f"{fld}.name", f"must be text, got {name!r}")
    knob["name"] = name
    if "seats" in raw and switch != bonus:
        raise _err(source, f"{fld}.seats", f"only a {bonus} knob has seats")
    has_range = "low" in raw or "high" in raw
    if has_range == ("choices" in raw):
        raise _err(source, fld, "give an integer range (low and high) or a list of choices, "
                                "one of the two")
    if has_range:
        for k in ("low", "high"):
            if not is_int(raw.get(k)) or abs(raw[k]) > 1_000_000:
                raise _err(source, f"{fld}.{k}", f"must be an integer, got {raw.get(k)!r}")
        if raw["high"] < raw["low"]:
            raise _err(source, f"{fld}.high", f"is below low ({raw['high']} < {raw['low']})")
        if raw["high"] - raw["low"] >= MAX_VALUES:
            raise _err(source, fld, f"more than {MAX_VALUES} values from low to high")
        if not game.integer(switch):
            raise _err(source, f"{fld}.low", f"{switch} is not an integer switch: give "
                                             "choices = [...]")
        if switch == bonus and game.least is not None and raw["low"] < game.least:
            raise _err(source, f"{fld}.low", f"must be {game.least} or more: a {bonus} bonus "
                       f"adds {game.words} to a seat and cannot take any away, got "
                       f"{raw['low']}")
        knob.update(low=raw["low"], high=raw["high"])
    else:
        choices = raw["choices"]
        if switch == bonus:
            raise _err(source, f"{fld}.choices", f"a {bonus} knob is a bonus range: give low "
                                                 f"and high ({game.words} added to the seat)")
        if not isinstance(choices, list) or len(choices) < 2:
            raise _err(source, f"{fld}.choices", f"must be a list of at least two values, got "
                                                 f"{choices!r}")
        if len({json.dumps(c, sort_keys=True) for c in choices}) != len(choices):
            raise _err(source, f"{fld}.choices", "a value is listed twice")
        knob["choices"] = choices
    if switch == bonus:
        knob["seats"] = _seats(raw.get("seats", "each"), players, source, f"{fld}.seats")
    return knob


def _bonus_of_other_game(switch: str, game: str) -> str | None:
    """The title of another registered game whose seat bonus `switch` is (None if none's),
    for a refusal that names both games' bonuses."""
    for other in kinds().values():
        if other.name == game or not other.has("tuning"):
            continue
        if getattr(other.facet("tuning"), "SEAT_BONUS", None) == switch:
            return other.title
    return None


def _dimensions(knob: Mapping[str, Any], n: int, index: int, bonus: str, game: str
                ) -> list[Dimension]:
    """The dimensions of knob `index` at `n` players (`bonus`: the game's seat-bonus
    switch; `game`: the game whose rules they set)."""
    switch = knob["switch"]
    label = knob.get("name") or switch
    if switch != bonus:
        choices = tuple(tuple(c) if isinstance(c, list) else c
                        for c in knob.get("choices", ()))
        return [Dimension(label, switch, knob.get("low", 0), knob.get("high", 0), choices,
                          knob=index, game=game)]
    seats = knob["seats"]
    low, high = knob["low"], knob["high"]
    if seats == "each":
        return [Dimension(f"{label}[{s}]", bonus, low, high, seats=(s,), steps=(1,),
                          knob=index, game=game) for s in range(1, n)]
    if seats == "later":
        later = tuple(range(1, n))
        return [Dimension(f"{label}[later]", bonus, low, high, seats=later, steps=later,
                          knob=index, game=game)]
    return [Dimension(f"{label}[{'+'.join(map(str, seats))}]", bonus, low, high,
                      seats=tuple(seats), steps=(1,) * len(seats), knob=index, game=game)]


def _check_fixed(spec: TuningSpec) -> None:
    """Build every variant's fixed rules at every player count: a switch out of range fails
    now, naming the spec's field (`rules.<switch>`, or the variant)."""
    default = kind(spec.game).default_rules()
    for i, v in enumerate(spec.variants):
        for n in spec.players:
            try:
                v.rules(n, default)
            except PortobelloError as exc:
                if v.name:
                    what = f"{exc.field}: {exc.reason}" if exc.field else exc.reason
                    raise _err(spec.source, f"variants[{i}]", f"at {n} players: {what}"
                               ) from None
                raise _err(spec.source, f"rules.{exc.field}" if exc.field else "rules",
                           f"at {n} players: {exc.reason}") from None


def _check_cells(spec: TuningSpec) -> None:
    """Build every knob's extreme values into rules at every cell, and check them against
    the material: a start score out of range or a stack the board cannot hold fails now."""
    check = kind(spec.game).check
    for cell in spec.cells():
        where = f" ({cell.variant.name})" if cell.variant.name else ""
        if not cell.dims:
            raise _err(spec.source, "knobs", f"no knob applies at {cell.players} players")
        for i, dim in enumerate(cell.dims):
            fld = f"knobs[{dim.knob}]"
            values = [dim.low, dim.high] if dim.is_int else list(dim.choices)
            for v in values:
                setting = [d.low if d.is_int else d.choices[0] for d in cell.dims]
                setting[i] = v
                try:
                    check(rules_for(cell.dims, setting, cell.fixed), spec.board,
                          spec.board_ref)
                except PortobelloError as exc:
                    why = f"{exc.field}: {exc.reason}" if exc.field else exc.reason
                    raise _err(spec.source, fld, f"{dim.name} = {v!r} at {cell.players} "
                                                 f"players{where}: {why}") from None
        for i, lineup in enumerate(cell.lineups):
            if len(lineup) != cell.players:
                raise _err(spec.source, f"agents[{i}]" if spec.levels else "agents",
                           f"{len(lineup)} specs for {cell.players} players")


def _switches(raw: Mapping[str, Any], players: Sequence[int], source: str, where: str,
              game: str) -> dict[str, Any]:
    """A preset and `rules` table of the game, as a study reads them (its error, as a
    tuning's)."""
    try:
        return parse_switches(raw, players, source, where, game)
    except PortobelloError as exc:
        raise _err(source, exc.field, exc.reason) from None


def _variants(data: Mapping[str, Any], players: Sequence[int], source: str, game: str
              ) -> tuple[Variant, ...]:
    base = _switches(data, players, source, "", game)
    raw = data.get("variants")
    if raw is None:
        return (Variant(name="", label="", description="", switches=base, game=game),)
    if not isinstance(raw, list) or not raw:
        raise _err(source, "variants", "must be a non-empty list of [[variants]] tables")
    out: list[Variant] = []
    for i, v in enumerate(raw):
        where = f"variants[{i}]"
        if not isinstance(v, Mapping):
            raise _err(source, where, "must be a table")
        for k in v:
            if k not in VARIANT_KEYS:
                raise _err(source, f"{where}.{k}", f"unknown key (keys: "
                                                   f"{', '.join(VARIANT_KEYS)})")
        name = v.get("name")
        if not isinstance(name, str) or not name or not all(c.isalnum() or c in "-_"
                                                            for c in name):
            raise _err(source, f"{where}.name", f"must be a name of letters, digits, - and _, "
                                                f"got {name!r}")
        if any(o.name == name for o in out):
            raise _err(source, f"{where}.name", f"duplicate variant name {name!r}")
        own = _switches(v, players, source, f"{where}.", game)
        out.append(Variant(name=name, label=str(v.get("label", name)),
                           description=str(v.get("description", "")),
                           switches={**base, **own}, game=game))
    return tuple(out)


def tuning_from_dict(data: Mapping[str, Any], source: str = "<dict>", text: str = "",
                     base_dir: Path | None = None) -> TuningSpec:
    """Validate a tuning spec; every error names the file, the field and the reason."""
    if not isinstance(data, Mapping):
        raise _err(source, None, "a tuning spec must be a TOML table")
    for key in data:
        if key not in top_keys():
            raise _err(source, key, f"unknown key (keys: {', '.join(top_keys())})")
    for key in ("name", "players", "seed", "knobs"):
        if key not in data:
            raise _err(source, key, "missing")
    try:
        game = game_of_spec(data)
        knob_game = game_knobs(game.name)
    except PortobelloError as exc:
        raise _err(source, exc.field, exc.reason) from None
    name = data["name"]
    if not isinstance(name, str) or not name or not all(c.isalnum() or c in "-_" for c in name):
        raise _err(source, "name", f"must be a non-empty name of letters, digits, - and _, "
                                   f"got {name!r}")
    players = data["players"]
    if is_int(players):
        players = [players]
    low, high = game.players
    if (not isinstance(players, list) or not players
            or not all(is_int(n) and low <= n <= high for n in players)
            or len(set(players)) != len(players)):
        raise _err(source, "players", f"must be a list of distinct player counts from {low} "
                                      f"to {high}, got {data['players']!r}")
    players = sorted(players)
    seed = data["seed"]
    if not is_int(seed) or not 0 <= seed < 2**63:
        raise _err(source, "seed", f"must be a non-negative integer, got {seed!r}")
    try:
        board_ref = str(data.get(game.material, game.default_material))
        board = game.load_material(board_ref, base_dir)
    except PortobelloError as exc:
        raise _err(source, game.material, exc.message) from None
    levels = check_levels(data.get("agents", knob_game.default_agents), players, source,
                           knob_game)
    variants = _variants(data, players, source, game.name)
    knobs_raw = data["knobs"]
    if not isinstance(knobs_raw, list) or not knobs_raw:
        raise _err(source, "knobs", "must be a non-empty list of [[knobs]] tables")
    knobs = tuple(_knob(k, players, source, f"knobs[{i}]", knob_game)
                  for i, k in enumerate(knobs_raw))
    seen: set[str] = set()
    for i, k in enumerate(knobs):
        label = k["name"] or k["switch"]
        if label in seen:
            raise _err(source, f"knobs[{i}]", f"a second knob named {label!r}: give each a "
                                              "distinct name")
        seen.add(label)
    search = _table(data, "search", SEARCH_KEYS, source)
    method = search.get("method", "auto")
    if method not in METHODS:
        raise _err(source, "search.method", f"must be one of {', '.join(METHODS)}, got "
                                            f"{method!r}")
    profile = search.get("profile", True)
    if not isinstance(profile, bool):
        raise _err(source, "search.profile", f"must be true or false, got {profile!r}")
    confirm = _table(data, "confirm", CONFIRM_KEYS, source)
    checks_raw = confirm.get("checks", [])
    if not isinstance(checks_raw, list):
        raise _err(source, "confirm.checks", "must be a list of tables {agents, games}")
    checks = []
    for i, c in enumerate(checks_raw):
        fld = f"confirm.checks[{i}]"
        if not isinstance(c, Mapping):
            raise _err(source, fld, "must be a table {agents = \"...\", games = N}")
        for k in c:
            if k not in CHECK_KEYS:
                raise _err(source, f"{fld}.{k}", f"unknown key (keys: {', '.join(CHECK_KEYS)})")
        checks.append((check_agents(c.get("agents"), players, source, f"{fld}.agents",
                                     knob_game),
                       _int_field(c, "games", source, f"{fld}.games", None, 1, MAX_GAMES)))
    spec = TuningSpec(
        name=name, title=str(data.get("title", name)),
        description=str(data.get("description", "")), board=board, board_ref=board_ref,
        players=tuple(players), agents=levels[0], seed=seed, variants=variants, knobs=knobs,
        target=_target(data, source), method=method,
        budget=_int_field(search, "budget", source, "search.budget", 40, 1, MAX_BUDGET),
        games=_int_field(search, "games", source, "search.games", 2000, 1, MAX_GAMES),
        profile=profile,
        neighbourhood=_int_field(search, "neighbourhood", source, "search.neighbourhood", 0,
                                 0, 5),
        confirm_best=_int_field(confirm, "best", source, "confirm.best", 3, 1, 50),
        confirm_games=_int_field(confirm, "games", source, "confirm.games", 10_000, 1,
                                 MAX_GAMES),
        checks=tuple(checks), source=source, text=text, game=game.name,
        levels=levels if len(levels) > 1 else (), margin=check_margin(search, levels, source))
    _check_fixed(spec)
    _check_method(spec)
    _check_cells(spec)
    return spec


def _check_method(spec: TuningSpec) -> None:
    """A search that cannot take the knobs is refused now, not after the first cells."""
    for cell in spec.cells():
        ints = all(d.is_int for d in cell.dims)
        size = space_size(cell.dims)
        why = None
        if spec.method == "monotone" and (len(cell.dims) != 1 or not ints):
            why = (f"monotone fits one integer knob; at {cell.players} players the knobs "
                   f"make {len(cell.dims)} dimension(s)")
        elif spec.method == "surface" and not ints:
            why = "surface fits integer knobs only; a knob here is a list of choices"
        elif spec.method == "surface" and size > 200_000:
            why = f"surface reads every setting and there are {size:,} at {cell.players} players"
        elif spec.method == "grid" and size > spec.budget:
            why = (f"grid plays every setting: {size:,} at {cell.players} players, over "
                   f"search.budget ({spec.budget:,})")
        if why:
            raise _err(spec.source, "search.method", f"{why} (use auto, or another method)")
        around = spec.neighbourhood_size(len(cell.dims))
        if spec.neighbourhood and around > MAX_NEIGHBOURHOOD_SETTINGS:
            raise _err(spec.source, "search.neighbourhood",
                       f"{spec.neighbourhood} steps around the best in {len(cell.dims)} "
                       f"knobs at {cell.players} players is {around:,} settings, over "
                       f"{MAX_NEIGHBOURHOOD_SETTINGS}: use a smaller reach")


def load_tuning(path: str | Path) -> TuningSpec:
    """Read and validate a tuning spec file."""
    data = read_document(path, "toml", TuningError, "tuning spec")
    p = Path(path)
    return tuning_from_dict(data, source=str(p), text=p.read_text(encoding="utf-8"),
                            base_dir=p.parent)


__all__ = ["TuneCell", "TuningError", "TuningSpec", "load_tuning",
           "tuning_from_dict"]
