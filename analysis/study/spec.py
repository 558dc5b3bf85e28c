"""Study specs: the TOML of a balance study, validated, and the cells it stands for.

A study spec (`data/studies/*.toml`) names the variants to compare (any rules switches, a
preset, optionally the board), the player counts, the agents, the games per cell and one
seed. `study_from_dict` / `load_study` check it field by field, so a mistake is reported
with the file, the field and the reason before any game is played; `StudySpec.cells()`
turns it into one `sim.run.runner.RunConfig` per variant and player count. All cells use
the study seed as their run seed: game `i` has the same seed in every variant (common random
numbers), so variant differences are measured on the same deals.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim.agents.registry import parse_spec, split_specs
from sim.engine.board import Board, load_board
from sim.engine.errors import PortobelloError
from sim.engine.rules import PRESETS, RULE_KEYS, Rules, preset, rules_from_dict
from sim.run.runner import RunConfig

# The study folder's own file, written by analysis.study.run and read by analysis.study.data.
STUDY_FORMAT = "portobello-study/1"
STUDY_FILE = "study.json"
TOP_KEYS = ("name", "title", "description", "board", "players", "agents", "games", "seed",
            "shard_size", "events", "baseline", "target_half_width", "variants", "preset",
            "rules")
VARIANT_KEYS = ("name", "label", "description", "preset", "board", "rules")
CELL_KEYS = ("players", "stalls_per_player")  # decided by the cell, never by a variant


class StudyError(PortobelloError):
    """A study spec or study folder that cannot be used (names file, field and reason)."""


@dataclass(frozen=True)
class Variant:
    """One rules reading to compare: a preset plus switches (players come from the cell)."""

    name: str
    label: str
    description: str
    switches: Mapping[str, Any]

    def rules(self, players: int, base: Rules) -> Rules:
        """This variant's switches over `base`, at a player count."""
        return rules_from_dict({**self.switches, "players": players}, base=base,
                               source=f"variant {self.name}")


@dataclass(frozen=True)
class Cell:
    """One variant at one player count: a run folder of its own."""

    variant: Variant
    players: int
    config: RunConfig

    @property
    def key(self) -> str:
        """The cell's name and run folder name, e.g. `known-3p`."""
        return f"{self.variant.name}-{self.players}p"


@dataclass(frozen=True)
class StudySpec:
    """A validated study: variants x player counts, with agents, games and the seed."""

    name: str
    title: str
    description: str
    board_ref: str
    board: Board
    variants: tuple[Variant, ...]
    players: tuple[int, ...]
    agents: Mapping[int, tuple[str, ...]]
    games: Mapping[int, int]
    seed: int
    shard_size: int = 500
    events: bool = True
    baseline: str = ""
    target_half_width: float = 0.015
    source: str = "<dict>"
    text: str = ""
    base_switches: Mapping[str, Any] = field(default_factory=dict)

    def cells(self) -> list[Cell]:
        """Every variant at every player count, in study order (variants outermost)."""
        out = []
        base = rules_from_dict(dict(self.base_switches), source=self.source)
        for v in self.variants:
            for n in self.players:
                rules = v.rules(n, base)
                config = RunConfig(board=self.board, board_ref=self.board_ref, rules=rules,
                                   agents=self.agents[n], games=self.games[n], seed=self.seed,
                                   shard_size=min(self.shard_size, self.games[n]),
                                   events=self.events)
                out.append(Cell(v, n, config))
        return out

    def with_overrides(self, games: int | None = None, agents: str | None = None) -> StudySpec:
        """The same study with fewer games or other agents (e.g. a quick demo)."""
        g = dict(self.games) if games is None else {n: games for n in self.players}
        a = dict(self.agents) if agents is None else _agents_for(agents, self.players,
                                                                 self.source, "--agents")
        return StudySpec(**{**self.__dict__, "games": g, "agents": a})

    def to_dict(self) -> dict[str, Any]:
        """The resolved spec as plain data (for study.json and the report)."""
        return {
            "name": self.name, "title": self.title, "description": self.description,
            "board": {"ref": self.board_ref, "name": self.board.name,
                      "hash": self.board.content_hash},
            "players": list(self.players),
            "agents": {str(n): list(a) for n, a in self.agents.items()},
            "games": {str(n): g for n, g in self.games.items()},
            "seed": self.seed, "shard_size": self.shard_size, "events": self.events,
            "baseline": self.baseline, "target_half_width": self.target_half_width,
            "base_rules": dict(self.base_switches),
            "variants": [{"name": v.name, "label": v.label, "description": v.description,
                          "switches": dict(v.switches)} for v in self.variants],
            "source": self.source,
        }


def _err(source: str, fld: str | None, reason: str) -> StudyError:
    """A StudyError naming the spec file and field."""
    return StudyError(reason, source=source, field=fld)


def _is_int(v: Any) -> bool:
    """An integer, not a boolean (TOML's true would pass isinstance(v, int))."""
    return isinstance(v, int) and not isinstance(v, bool)


def _per_players(value: Any, players: Sequence[int], source: str, fld: str) -> dict[int, Any]:
    """A value for every player count: one value, or a table keyed by player count."""
    if not isinstance(value, Mapping):
        return {n: value for n in players}
    out: dict[int, Any] = {}
    for key, v in value.items():
        try:
            n = int(key)
        except ValueError:
            raise _err(source, fld, f"keys must be player counts, got {key!r}") from None
        out[n] = v
    missing = [n for n in players if n not in out]
    if missing:
        raise _err(source, fld, f"no value for {', '.join(map(str, missing))} players")
    extra = sorted(set(out) - set(players))
    if extra:
        raise _err(source, fld, f"player counts {extra} are not in players = {list(players)}")
    return {n: out[n] for n in players}


def _agents_for(value: Any, players: Sequence[int], source: str, fld: str
                ) -> dict[int, tuple[str, ...]]:
    """The agent specs of every seat per player count (one spec fills every seat); each
    spec is parsed now so a typo fails before the first game."""
    out: dict[int, tuple[str, ...]] = {}
    for n, text in _per_players(value, players, source, fld).items():
        if isinstance(text, list):
            specs = [str(s) for s in text]
        elif isinstance(text, str):
            specs = split_specs(text)
        else:
            raise _err(source, fld, f"must be an agent spec string or a list of specs, got "
                                    f"{text!r}")
        if len(specs) == 1:
            specs = specs * n
        if len(specs) != n:
            raise _err(source, fld, f"{len(specs)} agent specs for {n} players: give one for "
                                    "every seat or one for all")
        for s in specs:
            try:
                parse_spec(s)
            except PortobelloError as exc:
                raise _err(source, fld, exc.reason) from None
        out[n] = tuple(specs)
    return out


def _switches(raw: Mapping[str, Any], source: str, where: str) -> dict[str, Any]:
    """A preset name plus a `rules` table, merged into one dict of switches."""
    switches: dict[str, Any] = {}
    name = raw.get("preset")
    if name is not None:
        try:
            preset(str(name))
        except PortobelloError as exc:
            raise _err(source, f"{where}preset", exc.reason) from None
        switches.update(PRESETS[str(name)])
    rules = raw.get("rules", {})
    if not isinstance(rules, Mapping):
        raise _err(source, f"{where}rules", "must be a table of rules switches")
    for key in rules:
        if key not in RULE_KEYS:
            raise _err(source, f"{where}rules.{key}", f"unknown rules switch (switches: "
                                                      f"{', '.join(RULE_KEYS)})")
        if key in CELL_KEYS:
            raise _err(source, f"{where}rules.{key}", "is set by the study's player counts, "
                                                      "not by a variant")
    switches.update(rules)
    return switches


def study_from_dict(data: Mapping[str, Any], source: str = "<dict>", text: str = "",
                    base_dir: Path | None = None) -> StudySpec:
    """Validate a study spec; every error names the file, the field and the reason."""
    if not isinstance(data, Mapping):
        raise _err(source, None, "a study must be a TOML table")
    for key in data:
        if key not in TOP_KEYS:
            raise _err(source, key, f"unknown key (keys: {', '.join(TOP_KEYS)})")
    for key in ("name", "players", "agents", "games", "seed", "variants"):
        if key not in data:
            raise _err(source, key, "missing")
    name = data["name"]
    if not isinstance(name, str) or not name or not all(c.isalnum() or c in "-_" for c in name):
        raise _err(source, "name", f"must be a non-empty name of letters, digits, - and _, "
                                   f"got {name!r}")
    players = data["players"]
    if isinstance(players, int) and not isinstance(players, bool):
        players = [players]
    if (not isinstance(players, list) or not players
            or not all(_is_int(n) and 2 <= n <= 4 for n in players)
            or len(set(players)) != len(players)):
        raise _err(source, "players", f"must be a list of distinct player counts from 2 to 4, "
                                      f"got {data['players']!r}")
    players_t = tuple(players)
    seed = data["seed"]
    if not _is_int(seed) or seed < 0:
        raise _err(source, "seed", f"must be a non-negative integer, got {seed!r}")
    games = _per_players(data["games"], players_t, source, "games")
    for n, g in games.items():
        if not _is_int(g) or g < 1:
            raise _err(source, "games", f"must be a positive integer, got {g!r} for {n} players")
    agents = _agents_for(data["agents"], players_t, source, "agents")
    for n in players_t:
        if len(set(agents[n])) > 1 and games[n] % n:
            raise _err(source, "games", f"{games[n]} games at {n} players with different "
                                        f"agents: use a multiple of {n} so every agent sits in "
                                        "every seat equally often")
    shard_size = data.get("shard_size", 500)
    if not _is_int(shard_size) or shard_size < 1:
        raise _err(source, "shard_size", f"must be a positive integer, got {shard_size!r}")
    events = data.get("events", True)
    if not isinstance(events, bool):
        raise _err(source, "events", f"must be true or false, got {events!r}")
    target = data.get("target_half_width", 0.015)
    if not isinstance(target, int | float) or isinstance(target, bool) or not 0 < target < 0.5:
        raise _err(source, "target_half_width", f"must be a number between 0 and 0.5 (e.g. "
                                                f"0.015 for ±1.5 points), got {target!r}")
    board_ref = str(data.get("board", "standard"))
    try:
        board = load_board(board_ref, base_dir=base_dir)
    except PortobelloError as exc:
        raise _err(source, "board", exc.message) from None
    base_switches = _switches(data, source, "")

    raw_variants = data["variants"]
    if not isinstance(raw_variants, list) or not raw_variants:
        raise _err(source, "variants", "must be a non-empty list of [[variants]] tables")
    variants: list[Variant] = []
    for i, raw in enumerate(raw_variants):
        where = f"variants[{i}]"
        if not isinstance(raw, Mapping):
            raise _err(source, where, "must be a table")
        for key in raw:
            if key not in VARIANT_KEYS:
                hint = ("; put rules switches under [variants.rules]" if key in RULE_KEYS
                        else "")
                raise _err(source, f"{where}.{key}", f"unknown key (keys: "
                                                     f"{', '.join(VARIANT_KEYS)}){hint}")
        vname = raw.get("name")
        if not isinstance(vname, str) or not vname or not all(c.isalnum() or c in "-_"
                                                              for c in vname):
            raise _err(source, f"{where}.name", f"must be a name of letters, digits, - and _, "
                                                f"got {vname!r}")
        if any(v.name == vname for v in variants):
            raise _err(source, f"{where}.name", f"duplicate variant name {vname!r}")
        if "board" in raw:
            try:
                vboard = load_board(str(raw["board"]), base_dir=base_dir)
            except PortobelloError as exc:
                raise _err(source, f"{where}.board", exc.message) from None
            if vboard.content_hash != board.content_hash:
                raise _err(source, f"{where}.board", f"board {raw['board']!r} differs from "
                           f"the study board {board_ref!r}; a study compares variants on one "
                           "board (run another study for another board)")
        switches = {**base_switches, **_switches(raw, source, f"{where}.")}
        variant = Variant(name=vname, label=str(raw.get("label", vname)),
                          description=str(raw.get("description", "")), switches=switches)
        base = Rules()
        for n in players_t:
            try:
                rules = variant.rules(n, base)
                rules.check_board(board, source=board_ref)
            except PortobelloError as exc:
                raise _err(source, f"{where}", f"at {n} players: {exc.message}") from None
        variants.append(variant)
    baseline = data.get("baseline", variants[0].name)
    if baseline not in [v.name for v in variants]:
        raise _err(source, "baseline", f"{baseline!r} is not a variant "
                                       f"({', '.join(v.name for v in variants)})")
    # The baseline first: tables and charts read baseline, then the others.
    ordered = tuple(sorted(variants, key=lambda v: v.name != baseline))
    spec = StudySpec(name=name, title=str(data.get("title", name)),
                     description=str(data.get("description", "")), board_ref=board_ref,
                     board=board, variants=ordered, players=players_t, agents=agents,
                     games=games, seed=seed, shard_size=shard_size, events=events,
                     baseline=baseline, target_half_width=float(target), source=source,
                     text=text, base_switches={})
    try:
        spec.cells()
    except PortobelloError as exc:
        raise _err(source, exc.field, exc.reason) from None
    return spec


def load_study(path: str | Path) -> StudySpec:
    """Read and validate a study TOML file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StudyError("no such study file", source=str(p)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise StudyError(f"cannot read: {exc}", source=str(p)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise StudyError(f"not valid TOML: {exc}", source=str(p)) from None
    return study_from_dict(data, source=str(p), text=text, base_dir=p.parent)
