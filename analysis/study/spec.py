"""Study specs: the TOML of a balance study, validated, and the cells it stands for.

A study spec (`data/studies/*.toml`) names the variants to compare (any rules switches, a
preset, optionally the board), optionally a sweep of one or two switches over values
(`analysis.study.switches`), the player counts, the agents, the games per cell and one
seed. `study_from_dict` / `load_study` check it field by field, so a mistake is reported
with the file, the field and the reason before any game is played; `StudySpec.cells()`
turns it into one `sim.run.runner.RunConfig` per variant and player count. All cells use
the study seed as their run seed: game `i` has the same seed in every variant (common random
numbers), so variant differences are measured on the same deals. With `max_games`, `games`
is a cell's first round and it plays on until its seats' win shares are as precise as
`target_half_width` asks (`analysis.study.precision`). A spec may give skill levels instead
of one set of agents (`skill`, `analysis.study.skill`): then there is a cell per variant,
level and player count, every level on the same seeds too. `game` names the study's game
(`sim.games.registry`; the default game when absent): `game = NAME` makes it a study of
that game, whose material is named under its own key (`GameKind.material`) and whose rules
switches, presets and player counts are its own.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from pathlib import Path
from typing import Any

from analysis.facets import EVENT_SECTIONS
from analysis.facets import sections
from analysis.facets import time_budget
from analysis.study.precision import Plan
from analysis.study.precision import parse_precision
from analysis.study.skill import SaturationCheck
from analysis.study.skill import SkillLevel
from analysis.study.skill import check_cell_keys
from analysis.study.skill import parse_saturation
from analysis.study.skill import parse_skill
from analysis.study.switches import CELL_KEYS
from analysis.study.switches import StudyError
from analysis.study.switches import Sweep
from analysis.study.switches import Variant
from analysis.study.switches import default_point
from analysis.study.switches import err as _err
from analysis.study.switches import is_int as _is_int
from analysis.study.switches import parse_sweep
from analysis.study.switches import parse_switches
from analysis.study.switches import point_label
from analysis.study.switches import sweep_variants
from sim.core.errors import PortobelloError
from sim.core.files import parse_document
from sim.core.files import regular_file
from sim.core.specs import split_specs
from sim.games.registry import default_game
from sim.games.registry import game_of_spec
from sim.games.registry import kind
from sim.games.registry import kinds
from sim.run.config import games_error
from sim.run.runner import RunConfig

# The study folder's own file, written by analysis.study.run and read by analysis.study.data.
STUDY_FORMAT = "portobello-study/1"
STUDY_FILE = "study.json"
TOP_KEYS = ("name", "title", "description", "board", "players", "agents", "games", "seed",
            "shard_size", "events", "baseline", "target_half_width", "variants", "sweep",
            "preset", "rules", "skill")
TOP_KEYS += ("max_games", "round_games")  # precision on demand: analysis.study.precision
TOP_KEYS += ("records",)  # game records kept: the report links to viewer pages
TOP_KEYS += ("ladder",)  # a skill ladder's report: its label beside each finding it examined
TOP_KEYS += ("saturation",)  # a skill ladder's doubled-budget check of its strongest level
TOP_KEYS += ("game",)  # the game (`sim.games.registry`); its material key: `top_keys`
VARIANT_KEYS = ("name", "label", "description", "preset", "board", "rules")


def top_keys() -> tuple[str, ...]:
    """A study spec's keys: `TOP_KEYS` and any other registered game's material key."""
    return tuple(dict.fromkeys([*TOP_KEYS, *(g.material for g in kinds().values())]))

__all__ = ["CELL_KEYS", "STUDY_FILE", "STUDY_FORMAT", "TOP_KEYS", "VARIANT_KEYS", "Cell",
           "StudyError", "StudySpec", "Sweep", "Variant", "load_study", "study_from_dict"]


@dataclass(frozen=True)
class Cell:
    """One variant at one player count (and skill level, if the study has levels): a run
    folder of its own."""

    variant: Variant
    players: int
    config: RunConfig
    level: str = ""
    check: str = ""  # `doubled`: the saturation check of the strongest level, not a level

    @property
    def key(self) -> str:
        """The cell's name and run folder name, e.g. `known-3p`, with a level `known-mcts-3p`,
        the strongest level's saturation check `standard-mcts-doubled-3p`."""
        if self.check:
            return f"{self.variant.name}-{self.level}-{self.check}-{self.players}p"
        if self.level:
            return f"{self.variant.name}-{self.level}-{self.players}p"
        return f"{self.variant.name}-{self.players}p"


@dataclass(frozen=True)
class StudySpec:
    """A validated study: variants x player counts, with agents, games and the seed."""

    name: str
    title: str
    description: str
    board_ref: str
    board: Any  # the study's material: its game's board (River Market: its card set)
    variants: tuple[Variant, ...]
    players: tuple[int, ...]
    agents: Mapping[int, tuple[str, ...]]
    games: Mapping[int, int]
    seed: int
    shard_size: int = 500
    events: bool = True
    records: bool = False  # keep game records, so the report links to viewable games
    baseline: str = ""
    target_half_width: float = 0.015
    source: str = "<dict>"
    text: str = ""
    base_switches: Mapping[str, Any] = field(default_factory=dict)
    sweep: Sweep | None = None
    precision: Mapping[int, Plan] | None = None  # by player count; None: fixed games
    # Skill levels, weakest first (empty: one set of agents, `agents`). With levels,
    # `agents` holds the strongest level's.
    skill: tuple[SkillLevel, ...] = ()
    # The report folder of a skill-ladder study that examined this study's question (an
    # absolute path; the report shows its labels, `analysis.report.ladder`).
    ladder: str | None = None
    # The doubled-budget check of the strongest level (`analysis.study.skill.Saturation`).
    saturation: SaturationCheck | None = None
    game: str = field(default_factory=default_game)  # `board` is then its material

    def cells(self) -> list[Cell]:
        """Every cell the study plays: `level_cells`, then the strongest level's saturation
        check (`saturation`), if any."""
        return self.level_cells() + self.check_cells()

    def check_cells(self) -> list[Cell]:
        """The saturation check's cells: the strongest level's baseline cells with the
        doubled agent in the first seat and the check's games (none without a check)."""
        sat = self.saturation
        if sat is None:
            return []
        top = self.skill[-1]
        return [replace(c, check="doubled", config=replace(
                    c.config, agents=sat.lineup(top.agents[c.players]),
                    games=sat.games[c.players]))
                for c in self.level_cells() if c.level == top.name
                and c.variant.name == self.baseline and c.players in sat.games]

    def level_cells(self) -> list[Cell]:
        """Every variant at every player count (and skill level), in study order: variants
        outermost, then levels as listed.

        The shard size is the spec's whatever the games, so a cell grown to more games
        keeps its run identity and tops up."""
        out = []
        base = kind(self.game).rules_from_dict(dict(self.base_switches), source=self.source)
        for v in self.variants:
            for level in self.skill or (None,):
                agents = level.agents if level else self.agents
                games = level.games if level else self.games
                for n in self.players:
                    rules = v.rules(n, base)
                    config = RunConfig(board=self.board, board_ref=self.board_ref,
                                       rules=rules, agents=agents[n], games=games[n],
                                       seed=self.seed, shard_size=self.shard_size,
                                       events=self.events, records=self.records,
                                       game=self.game)
                    out.append(Cell(v, n, config, level.name if level else ""))
        return out

    def with_overrides(self, games: int | None = None, agents: str | None = None,
                       players: Sequence[int] | None = None) -> StudySpec:
        """The same study with other games per cell or other agents (a quick demo, or more
        games to top a study folder up), or at some of its player counts only; other games
        are a fixed count (no precision on demand). With skill levels, `games` is every
        level's games per cell and other agents are refused: the levels are the study's
        agents."""
        if players is not None:
            spec = self._at_players(players)
            return spec.with_overrides(games, agents) if (games, agents) != (None, None) \
                else spec
        if agents is not None and self.skill:
            raise _err(self.source, "--agents", f"this study has skill levels "
                       f"({', '.join(lv.name for lv in self.skill)}), each with its own agents, "
                       "so --agents cannot replace them; edit the levels in the spec")
        g = dict(self.games) if games is None else {n: games for n in self.players}
        a = dict(self.agents) if agents is None else _agents_for(agents, self.players,
                                                                 self.source, "--agents",
                                                                 self.game)
        skill = self.skill if games is None else tuple(replace(lv, games=dict(g))
                                                       for lv in self.skill)
        p = self.precision if games is None else None
        sat = self.saturation if games is None or self.saturation is None else \
            self.saturation.with_games(g)
        return StudySpec(**{**self.__dict__, "games": g, "agents": a, "skill": skill,
                            "precision": p, "saturation": sat})

    def _at_players(self, players: Sequence[int]) -> StudySpec:
        """The study at some of its player counts (`--players`), each cell as in the full
        study (the same seeds, so its games are the full study's at those counts)."""
        unknown = sorted(set(players) - set(self.players))
        if unknown:
            plays = ", ".join(map(str, self.players))
            raise _err(self.source, "--players", f"this study plays {plays} players, not "
                       f"{', '.join(map(str, unknown))}")
        keep = tuple(n for n in self.players if n in set(players))

        def only(table: Mapping[int, Any]) -> dict[int, Any]:
            return {n: v for n, v in table.items() if n in keep}
        skill = tuple(replace(lv, agents=only(lv.agents), games=only(lv.games))
                      for lv in self.skill)
        precision = None if self.precision is None else only(self.precision)
        sat = None if self.saturation is None else replace(self.saturation,
                                                            games=only(self.saturation.games))
        return StudySpec(**{**self.__dict__, "players": keep, "games": only(self.games),
                            "agents": only(self.agents), "skill": skill,
                            "precision": precision, "saturation": sat})

    def identity(self) -> dict[str, Any]:
        """What a study folder must share with this spec to be resumed or topped up: every
        cell's rules and agents, the board, seed, shard size and tables (not the games per
        cell, nor titles and labels, which change no game)."""
        out = {**({"game": self.game} if self.game != default_game() else {}),
               "board": self.board.content_hash, "seed": self.seed,
               "shard_size": self.shard_size, "events": self.events,
               "cells": {c.key: {"rules": c.config.rules.to_dict(),
                                 "agents": list(c.config.agents)} for c in self.cells()}}
        if self.records:  # only when kept, so the folders of earlier studies still resume
            out["records"] = True
        return out

    def to_dict(self) -> dict[str, Any]:
        """The resolved spec as plain data (for study.json and the report)."""
        return {
            "name": self.name, "title": self.title, "description": self.description,
            **({"game": self.game} if self.game != default_game() else {}),
            "board": {"ref": self.board_ref, "name": self.board.name,
                      "hash": self.board.content_hash},
            "players": list(self.players),
            "agents": {str(n): list(a) for n, a in self.agents.items()},
            "games": {str(n): g for n, g in self.games.items()},
            "seed": self.seed, "shard_size": self.shard_size, "events": self.events,
            "baseline": self.baseline, "target_half_width": self.target_half_width,
            "base_rules": dict(self.base_switches),
            "sweep": self.sweep.to_dict() if self.sweep else None,
            "variants": [{"name": v.name, "label": v.label, "description": v.description,
                          "switches": dict(v.switches), "sweep": dict(v.sweep),
                          "base": v.base} for v in self.variants],
            **({"skill": [lv.to_dict() for lv in self.skill]} if self.skill else {}),
            "source": self.source,
            "precision": None if not self.precision else {
                str(n): p.to_dict() for n, p in self.precision.items()},
            "ladder": self.ladder,
            **({"saturation": self.saturation.to_dict()} if self.saturation else {}),
        }


def _ladder(data: Mapping[str, Any], source: str, base_dir: Path | None) -> str | None:
    """The `ladder` folder (relative paths against the spec's folder): a report folder
    holding summary.json, checked to exist now; its content is read by the report."""
    value = data.get("ladder")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise _err(source, "ladder", f"must be the path of a skill-ladder report folder, got "
                                     f"{value!r:.60}")
    path = Path(value)
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    if not (path / "summary.json").is_file():
        raise _err(source, "ladder", f"{value!r} holds no summary.json: give the report "
                                     "folder of a skill-ladder study")
    return str(path.resolve())


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


def _agents_for(value: Any, players: Sequence[int], source: str, fld: str,
                game: str = "") -> dict[int, tuple[str, ...]]:
    """The agent specs of every seat per player count (one spec fills every seat); each
    spec is parsed now (as an agent of `game`, the default game when none is named) so a
    typo fails before the first game."""
    game = game or default_game()
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
                kind(game).check_agent(s)
            except PortobelloError as exc:
                raise _err(source, fld, exc.reason) from None
            timed = time_budget(game, s)
            if timed:
                raise _err(source, fld, f"{s} has a time budget ({timed}); a time budget makes "
                           "the study depend on the machine (its speed and load decide the "
                           "moves), so use an iteration budget (iterations=) instead")
        out[n] = tuple(specs)
    return out


def _explicit_variants(data: Mapping[str, Any], players: Sequence[int], board: Any,
                       board_ref: str, base_switches: Mapping[str, Any], swept: Sequence[str],
                       source: str, base_dir: Path | None, game: str = ""
                       ) -> list[Variant]:
    """The `[[variants]]` tables, validated (the study's own rules when there are none: a
    spec with a sweep may leave variants out); a variant may not set a swept switch. A
    variant may name its board (a game whose material is a board), which must be the
    study's."""
    game = game or default_game()
    g = kind(game)
    if "variants" not in data:
        return [Variant(name="", label="", description="", switches=dict(base_switches),
                        game=game)]
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
                hint = ("; put rules switches under [variants.rules]" if key in g.rule_keys
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
        if "board" in raw and g.material != "board":
            raise _err(source, f"{where}.board", f"{g.title} has no board; a study "
                       f"compares variants on one {g.material_words or g.material} "
                       f"(`{g.material}`)")
        if "board" in raw:
            try:
                vboard = g.load_material(str(raw["board"]), base_dir)
            except PortobelloError as exc:
                raise _err(source, f"{where}.board", exc.message) from None
            if vboard.content_hash != board.content_hash:
                raise _err(source, f"{where}.board", f"board {raw['board']!r} differs from "
                           f"the study board {board_ref!r}; a study compares variants on one "
                           "board (run another study for another board)")
        own = parse_switches(raw, players, source, f"{where}.", game)
        for key in swept:
            if key in own:
                fld = f"{where}.rules.{key}" if key in raw.get("rules", {}) else \
                    f"{where}.preset"
                raise _err(source, fld, f"sets {key}, which the study sweeps (sweep.{key}); "
                                        "leave it to the sweep")
        variants.append(Variant(name=vname, label=str(raw.get("label", vname)),
                                description=str(raw.get("description", "")),
                                switches={**base_switches, **own}, game=game))
    return variants


def _check_rules(variant: Variant, players: Sequence[int], board: Any, board_ref: str,
                 source: str, sweep: Sweep | None, index: int) -> None:
    """Build a variant's rules at every player count and check them against the board. An
    error names the variant (`variants[1]`), or for a swept variant the sweep value whose
    switch failed (`sweep.stalls_per_player[2]`), else the variant it was made from (or
    the study's `rules` when the spec has no variants)."""
    game = kind(variant.game)
    for n in players:
        try:
            game.check(variant.rules(n, game.default_rules()), board, board_ref)
        except PortobelloError as exc:
            if sweep is None or not variant.sweep:
                raise _err(source, f"variants[{index}]", f"at {n} players: "
                                                         f"{exc.message}") from None
            if exc.field in variant.sweep:
                i = sweep.keys.index(exc.field)
                fld = f"sweep.{exc.field}[{sweep.values[i].index(variant.sweep[exc.field])}]"
                raise _err(source, fld, f"at {n} players: {exc.reason}") from None
            where = f"variants[{index}]" if variant.base else "rules"
            why = f"{exc.field}: {exc.reason}" if exc.field else exc.reason
            raise _err(source, where, f"at {n} players, with {point_label(variant.sweep)}: "
                                      f"{why}") from None


def study_from_dict(data: Mapping[str, Any], source: str = "<dict>", text: str = "",
                    base_dir: Path | None = None) -> StudySpec:
    """Validate a study spec; every error names the file, the field and the reason.

    With a `sweep`, `variants` may be left out (the study's own rules are swept); when both
    are given the sweep applies on top of each variant (variants x values)."""
    if not isinstance(data, Mapping):
        raise _err(source, None, "a study must be a TOML table")
    for key in data:
        if key not in top_keys():
            raise _err(source, key, f"unknown key (keys: {', '.join(top_keys())})")
    if "skill" in data and "agents" in data:
        raise _err(source, "skill", "replaces agents (each level names the agents of every "
                                    "seat): give agents or skill, not both")
    for key in ("name", "players", "games", "seed", *(() if "skill" in data else ("agents",))):
        if key not in data:
            raise _err(source, key, "missing")
    if "variants" not in data and "sweep" not in data:
        raise _err(source, "variants", "missing (give [[variants]], a sweep, or both)")
    try:
        game = game_of_spec(data)
    except PortobelloError as exc:
        raise _err(source, exc.field, exc.reason) from None
    agents_for = functools.partial(_agents_for, game=game.name)
    name = data["name"]
    if not isinstance(name, str) or not name or not all(c.isalnum() or c in "-_" for c in name):
        raise _err(source, "name", f"must be a non-empty name of letters, digits, - and _, "
                                   f"got {name!r}")
    players = data["players"]
    if isinstance(players, int) and not isinstance(players, bool):
        players = [players]
    low, high = game.players
    if (not isinstance(players, list) or not players
            or not all(_is_int(n) and low <= n <= high for n in players)
            or len(set(players)) != len(players)):
        raise _err(source, "players", f"must be a list of distinct player counts from {low} to "
                                      f"{high}, got {data['players']!r}")
    players_t = tuple(players)
    seed = data["seed"]
    if not _is_int(seed) or seed < 0:
        raise _err(source, "seed", f"must be a non-negative integer, got {seed!r}")
    games = _per_players(data["games"], players_t, source, "games")
    for n, g in games.items():
        problem = games_error(g)
        if problem is not None:
            raise _err(source, "games", f"{problem} for {n} players")
    skill = (parse_skill(data["skill"], players_t, games, source, agents_for, _per_players)
             if "skill" in data else ())
    agents = (dict(skill[-1].agents) if skill else
              agents_for(data["agents"], players_t, source, "agents"))
    for n in players_t:
        if not skill and len(set(agents[n])) > 1 and games[n] % n:
            raise _err(source, "games", f"{games[n]} games at {n} players with different "
                                        f"agents: use a multiple of {n} so every agent sits in "
                                        "every seat equally often")
    shard_size = data.get("shard_size", 500)
    if not _is_int(shard_size) or shard_size < 1:
        raise _err(source, "shard_size", f"must be a positive integer, got {shard_size!r}")
    # The events table by default when the game's report reads it (River Market keeps none).
    events = data.get("events", "events" in game.optional_tables
                      and any(s in sections(game.name) for s in EVENT_SECTIONS))
    if not isinstance(events, bool):
        raise _err(source, "events", f"must be true or false, got {events!r}")
    records = data.get("records", False)
    if not isinstance(records, bool):
        raise _err(source, "records", f"must be true or false, got {records!r}")
    precision = parse_precision(data, players_t, games, agents, source, _per_players)
    target = data.get("target_half_width", 0.015)
    if not isinstance(target, int | float) or isinstance(target, bool) or not 0 < target < 0.5:
        raise _err(source, "target_half_width", f"must be a number between 0 and 0.5 (e.g. "
                                                f"0.015 for ±1.5 points), got {target!r}")
    material = game.material
    board_ref = str(data.get(material, game.default_material))
    try:
        board = game.load_material(board_ref, base_dir)
    except PortobelloError as exc:
        raise _err(source, material, exc.message) from None
    sweep = (parse_sweep(data["sweep"], players_t, source, game.name) if "sweep" in data
             else None)
    swept = sweep.keys if sweep else ()
    base_switches = parse_switches(data, players_t, source, "", game.name)
    for key in swept:
        if key in base_switches:
            fld = f"rules.{key}" if key in data.get("rules", {}) else "preset"
            raise _err(source, fld, f"sets {key}, which the study sweeps (sweep.{key}); leave "
                                    "it to the sweep")
    explicit = _explicit_variants(data, players_t, board, board_ref, base_switches, swept,
                                  source, base_dir, game.name)
    # A swept study never plays its explicit variants without a swept value: check the
    # variants it plays.
    variants = explicit if sweep is None else sweep_variants(explicit, sweep)
    bases = [v.name for v in explicit]
    for i, v in enumerate(variants):
        _check_rules(v, players_t, board, board_ref, source, sweep,
                     bases.index(v.base) if v.sweep else i)
    names = [v.name for v in variants]
    baseline = data.get("baseline", explicit[0].name)
    if sweep is not None and baseline in [v.name for v in explicit]:
        baseline = default_point(variants, baseline, players_t)
    if baseline not in names:
        options = [*(v.name for v in explicit if v.name), *names] if sweep else names
        raise _err(source, "baseline", f"{baseline!r} is not a variant ({', '.join(options)})")
    # The baseline first: tables and charts read baseline, then the others.
    ordered = tuple(sorted(variants, key=lambda v: v.name != baseline))
    spec = StudySpec(name=name, title=str(data.get("title", name)),
                     description=str(data.get("description", "")), board_ref=board_ref,
                     board=board, variants=ordered, players=players_t, agents=agents,
                     games=games, seed=seed, shard_size=shard_size, events=events,
                     records=records, baseline=baseline, target_half_width=float(target),
                     source=source, text=text, base_switches={}, sweep=sweep, precision=precision,
                     skill=skill, ladder=_ladder(data, source, base_dir),
                     saturation=parse_saturation(data.get("saturation"), skill, players_t,
                                                 source, agents_for, _per_players),
                     game=game.name)
    try:
        cells = spec.cells()
    except PortobelloError as exc:
        raise _err(source, exc.field, exc.reason) from None
    check_cell_keys([(c.key, c.variant.name, c.level) for c in cells], source)
    return spec


def read_spec(path: str | Path) -> tuple[Any, str, Path]:
    """A study file's parsed TOML, its text and its path: any kind of study (an ordinary
    one, or a population study), refused in one line when it cannot be read."""
    p = regular_file(path, StudyError, "study")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise StudyError(f"cannot read: {exc}", source=str(p)) from None
    return parse_document(text, "toml", StudyError, str(p)), text, p


def load_study(path: str | Path) -> StudySpec:
    """Read and validate a study TOML file."""
    data, text, p = read_spec(path)
    return study_from_dict(data, source=str(p), text=text, base_dir=p.parent)


# -- precision on demand, cell by cell ---------------------------------------------------
def cell_plan(spec: StudySpec, cell: Cell) -> Plan | None:
    """The cell's plan (None when the study plays fixed games): the plan of its player
    count, whatever else the cell varies, except that a skill level with games of its own
    (in its line of the spec, even the study's count) plays at most that many: its cells
    stop there, or sooner once on target (an expensive search level caps its own cost)."""
    plans = getattr(spec, "precision", None)
    if not plans or cell.check:  # the saturation check plays its own fixed games
        return None
    plan = plans[cell.players]
    own = cell.config.games
    level = next((lv for lv in spec.skill if lv.name == cell.level), None)
    if level is not None and level.own_games and own < plan.maximum:
        plan = replace(plan, first=min(plan.first, own), maximum=own)
    return plan

def cell_limit(spec: StudySpec, cell: Cell) -> int:
    """The most games a cell of this spec may hold: its maximum, else its games."""
    plan = cell_plan(spec, cell)
    return cell.config.games if plan is None else plan.maximum
