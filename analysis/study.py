"""Balance studies: a TOML spec of variants x player counts, run cell by cell, loaded as one.

A study spec (`data/studies/*.toml`) names the variants to compare (any rules switches, a
preset, optionally the board), the player counts, the agents, the games per cell and one
seed. Every cell is an ordinary run folder `DIR/runs/<variant>-<players>p` played by
`sim.run.runner.Run`, so a study resumes like any run. All cells use the study seed as their run
seed: game `i` has the same seed in every variant (common random numbers), so variant
differences are measured on the same deals and are not noise from different deals.

`StudyData` turns the cells' run folders into three pandas tables (games, players, events)
with the columns `variant` (ordered as in the study) and `n_players` added, which is what
`analysis.metrics`, `analysis.compare` and `analysis.report` read.
"""

from __future__ import annotations

import json
import time
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl

from analysis.load import LoadError, RunData, load_run
from sim.agents.registry import parse_spec, split_specs
from sim.engine.board import Board, load_board
from sim.engine.errors import PortobelloError
from sim.engine.rules import PRESETS, RULE_KEYS, Rules, preset, rules_from_dict
from sim.run.loop import AgentError
from sim.run.runner import Run, RunConfig

STUDY_FORMAT = "portobello-study/1"
STUDY_FILE = "study.json"
TOP_KEYS = ("name", "title", "description", "board", "players", "agents", "games", "seed",
            "shard_size", "events", "baseline", "target_half_width", "variants", "preset",
            "rules")
VARIANT_KEYS = ("name", "label", "description", "preset", "board", "rules")
CELL_KEYS = ("players", "stalls_per_player")  # decided by the cell, never by a variant


class StudyError(PortobelloError):
    """A study spec or study folder that cannot be used (names file, field and reason)."""


# -- the spec ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Variant:
    """One rules reading to compare: a preset plus switches (players come from the cell)."""

    name: str
    label: str
    description: str
    switches: Mapping[str, Any]

    def rules(self, players: int, base: Rules) -> Rules:
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
    return StudyError(reason, source=source, field=fld)


def _is_int(v: Any) -> bool:
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


# -- running ----------------------------------------------------------------------------------
@dataclass
class CellResult:
    """What happened to one cell: its folder, and an error if its run stopped."""

    key: str
    variant: str
    players: int
    path: Path
    error: str | None = None
    timings: dict[str, Any] = field(default_factory=dict)


def run_study(spec: StudySpec, out: str | Path, jobs: int = 1, quiet: bool = False,
              log: Any = None) -> list[CellResult]:
    """Run every cell into `out/runs/<variant>-<players>p` and write `out/study.json`.

    Finished shards are kept, so running again resumes. A cell whose run stops on an agent
    error (an agent that raises or breaks the rules) is recorded and the other cells still
    run; the report lists it under anomalies. Any other error (a folder holding another
    configuration, a damaged shard) stops the study.
    """
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    _check_study_folder(root, spec)
    results: list[CellResult] = []
    _write_study_json(root, spec, results, status="running")
    for cell in spec.cells():
        path = root / "runs" / cell.key
        res = CellResult(cell.key, cell.variant.name, cell.players, path)
        if log:
            log(f"{cell.key}: {cell.config.games} games, agents "
                f"{', '.join(cell.config.agents)}")
        try:
            res.timings = Run(cell.config, path).execute(jobs=jobs, quiet=quiet)
        except AgentError as exc:
            res.error = exc.message
            if log:
                log(f"{cell.key}: stopped: {exc.message}")
        results.append(res)
        _write_study_json(root, spec, results, status="running")
    _write_study_json(root, spec, results, status="complete")
    return results


def _check_study_folder(root: Path, spec: StudySpec) -> None:
    path = root / STUDY_FILE
    if path.exists():
        try:
            old = json.loads(path.read_text())
            old_name = old["spec"]["name"]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise StudyError(f"{STUDY_FILE} is not a portobello study file",
                             source=str(path)) from None
        if old_name != spec.name:
            raise StudyError(f"this folder holds study {old_name!r}, not {spec.name!r}; use "
                             "another --out", source=str(root))
    elif (root / "manifest.json").exists():
        raise StudyError("this folder is a run, not a study folder; use another --out",
                         source=str(root))


def _write_study_json(root: Path, spec: StudySpec, results: Sequence[CellResult],
                      status: str) -> None:
    from sim.run.runner import write_json_atomic

    done = {r.key: r for r in results}
    cells = []
    for cell in spec.cells():
        r = done.get(cell.key)
        cells.append({"key": cell.key, "variant": cell.variant.name, "players": cell.players,
                      "run": f"runs/{cell.key}", "run_id": cell.config.run_id,
                      "games": cell.config.games, "agents": list(cell.config.agents),
                      "status": ("pending" if r is None else "failed" if r.error
                                 else "complete"),
                      "error": r.error if r else None,
                      "timings": r.timings if r else {}})
    write_json_atomic(root / STUDY_FILE, {
        "format": STUDY_FORMAT, "status": status, "updated": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "spec": spec.to_dict(), "spec_text": spec.text, "cells": cells})


# -- loading cells ----------------------------------------------------------------------------
@dataclass
class CellRun:
    """A loaded cell: variant name and label, player count, and the run."""

    variant: str
    label: str
    players: int
    run: RunData


@dataclass
class StudyData:
    """The cells of a study (or of any runs on one board) as pandas tables.

    `games`, `players` and (when every run has it) `events` each get `variant` (ordered
    categorical, baseline first) and `n_players`; `players` also gets `start_score`.
    """

    cells: list[CellRun]
    title: str = "Balance study"
    study: dict[str, Any] | None = None
    failed: list[dict[str, Any]] = field(default_factory=list)
    _cache: dict[str, pd.DataFrame] = field(default_factory=dict)

    @property
    def variants(self) -> list[str]:
        seen: list[str] = []
        for c in self.cells:
            if c.variant not in seen:
                seen.append(c.variant)
        return seen

    @property
    def labels(self) -> dict[str, str]:
        return {c.variant: c.label for c in self.cells}

    @property
    def player_counts(self) -> list[int]:
        return sorted({c.players for c in self.cells})

    @property
    def baseline(self) -> str:
        return self.variants[0]

    @property
    def board(self) -> Board:
        return self.cells[0].run.board()

    @property
    def has_events(self) -> bool:
        return all("events" in c.run.manifest.get("tables", []) for c in self.cells)

    def _frame(self, table: str, actions: Sequence[str] | None = None) -> pd.DataFrame:
        frames = []
        for c in self.cells:
            lf = c.run.lazy(table)
            if actions is not None:
                lf = lf.filter(pl.col("action").cast(pl.String).is_in(list(actions)))
            if table == "games":
                lf = lf.drop("players")
            for col in ("action", "lane", "square", "district", "customer", "agent",
                        "end_reason", "customer_order", "neutral_stack", "board", "run_id"):
                if col in lf.collect_schema().names():
                    lf = lf.with_columns(pl.col(col).cast(pl.String))
            lf = lf.with_columns(pl.lit(c.variant).alias("variant"),
                                 pl.lit(c.players, dtype=pl.Int8).alias("n_players"))
            if table == "players":
                lf = lf.with_columns(pl.lit(c.run.rules().start_score, dtype=pl.Int16)
                                     .alias("start_score"))
            frames.append(lf)
        df = pl.concat(frames, how="vertical_relaxed").collect().to_pandas()
        df["variant"] = pd.Categorical(df["variant"], categories=self.variants, ordered=True)
        first = ["variant", "n_players"]
        return df[first + [c for c in df.columns if c not in first]]

    def games(self) -> pd.DataFrame:
        """One row per game (`n_winners` added)."""
        if "games" not in self._cache:
            df = self._frame("games")
            df["n_winners"] = df["winners"].map(len).astype("int8")
            self._cache["games"] = df
        return self._cache["games"]

    def players(self) -> pd.DataFrame:
        """One row per game and seat, with the game's seed."""
        if "players" not in self._cache:
            df = self._frame("players")
            seeds = self.games()[["variant", "n_players", "game_id", "seed"]]
            self._cache["players"] = df.merge(seeds, on=["variant", "n_players", "game_id"],
                                              how="left", validate="many_to_one")
        return self._cache["players"]

    def events(self, actions: Sequence[str] | None = None) -> pd.DataFrame:
        """Event rows (optionally only some actions); refused when a run has no events."""
        if not self.has_events:
            raise LoadError("these runs have no events table (run with events = true or "
                            "--events)")
        key = "events:" + ",".join(sorted(actions)) if actions else "events"
        if key not in self._cache:
            self._cache[key] = self._frame("events", actions)
        return self._cache[key]


def open_study(path: str | Path) -> StudyData:
    """A study folder (with study.json) as StudyData; failed cells are listed, not loaded."""
    root = Path(path)
    spath = root / STUDY_FILE
    if not spath.exists():
        raise LoadError(f"not a study folder: no {STUDY_FILE}", source=str(root))
    try:
        study = json.loads(spath.read_text())
        if study.get("format") != STUDY_FORMAT:
            raise KeyError("format")
        spec = study["spec"]
        cells_meta = study["cells"]
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError):
        raise LoadError(f"{STUDY_FILE} is not a {STUDY_FORMAT} file", source=str(spath)) from None
    labels = {v["name"]: v["label"] for v in spec["variants"]}
    cells: list[CellRun] = []
    failed: list[dict[str, Any]] = []
    for meta in cells_meta:
        if meta["status"] != "complete":
            failed.append(meta)
            continue
        run = load_run(root / meta["run"])
        cells.append(CellRun(meta["variant"], labels.get(meta["variant"], meta["variant"]),
                             int(meta["players"]), run))
    if not cells:
        raise LoadError("no complete cells in this study folder", source=str(root))
    _check_same_board(cells)
    return StudyData(cells=cells, title=str(spec.get("title", spec["name"])), study=study,
                     failed=failed)


def _check_same_board(cells: Sequence[CellRun]) -> None:
    hashes = {c.run.manifest["board"]["hash"] for c in cells}
    if len(hashes) > 1:
        names = ", ".join(sorted({f"{c.run.paths[0]}: {c.run.manifest['board']['name']} "
                                  f"({c.run.manifest['board']['hash']})" for c in cells}))
        raise LoadError(f"runs are on different boards ({names}); a report compares runs on "
                        "one board")


def _variant_key(manifest: Mapping[str, Any]) -> str:
    rules = dict(manifest["rules"])
    rules.pop("players", None)
    rules.pop("stalls_per_player", None)
    agents = sorted(set(manifest["agents"]))
    return json.dumps({"rules": rules, "agents": agents}, sort_keys=True)


def _variant_name(key: str, all_keys: Sequence[str]) -> str:
    """A short name: the switches (or agents) in which this variant differs from others."""
    mine = json.loads(key)
    others = [json.loads(k) for k in all_keys if k != key]
    default = Rules().to_dict()
    parts: list[str] = []
    for k, v in mine["rules"].items():
        if any(o["rules"].get(k) != v for o in others) or (not others and default.get(k) != v):
            if isinstance(v, list):
                v = ",".join(map(str, v))
            parts.append(f"{k}={v}")
    if any(o["agents"] != mine["agents"] for o in others):
        parts.append("agents=" + "+".join(mine["agents"]))
    return "; ".join(parts) or "standard"


def cells_from_runs(paths: Sequence[str | Path]) -> StudyData:
    """Any run folders (or study folders) on one board as StudyData.

    A study folder stands for its cells. Runs are grouped into variants by their rules
    (player count aside) and agents; a variant is named after what sets it apart, the one
    with default rules first.
    """
    if not paths:
        raise LoadError("no run folders given")
    expanded: list[Path] = []
    studies: list[StudyData] = []
    for p in map(Path, paths):
        if (p / STUDY_FILE).exists() and not (p / "manifest.json").exists():
            studies.append(open_study(p))
        else:
            expanded.append(p)
    if studies and not expanded and len(studies) == 1:
        return studies[0]
    runs = [load_run(p) for p in expanded]
    for s in studies:
        runs.extend(c.run for c in s.cells)
    _check_same_board([CellRun("", "", 0, r) for r in runs])
    keys = [_variant_key(r.manifest) for r in runs]
    distinct = list(dict.fromkeys(keys))
    default_key = next((k for k in distinct if json.loads(k)["rules"] == {
        k2: v for k2, v in Rules().to_dict().items() if k2 not in CELL_KEYS}), None)
    if default_key is not None:
        distinct.remove(default_key)
        distinct.insert(0, default_key)
    names = {k: _variant_name(k, distinct) for k in distinct}
    if default_key is not None and not any(json.loads(k)["agents"] != json.loads(
            default_key)["agents"] for k in distinct):
        names[default_key] = "standard"
    seen: dict[tuple[str, int], Path] = {}
    cells: list[CellRun] = []
    for run, key in sorted(zip(runs, keys, strict=True),
                           key=lambda rk: (distinct.index(rk[1]), rk[0].manifest["rules"]
                                           ["players"])):
        n = int(run.manifest["rules"]["players"])
        name = names[key]
        if (name, n) in seen:
            raise LoadError(f"two runs for the same variant ({name}) at {n} players: "
                            f"{seen[(name, n)]} and {run.paths[0]}; give one of them")
        seen[(name, n)] = run.paths[0]
        cells.append(CellRun(name, name, n, run))
    _check_same_board(cells)
    title = studies[0].title if studies else "Balance report"
    return StudyData(cells=cells, title=title)
