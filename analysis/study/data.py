"""Loading a study: the cells' run folders as one set of pandas tables (`StudyData`).

`open_study` opens a study folder through its study.json (failed cells are listed, not
loaded); `cells_from_runs` groups any run folders on one board into variants. Either way
`StudyData` gives three tables (games, players, events) with the columns `variant` (ordered
as in the study, baseline first) and `n_players` added, which is what `analysis.metrics`,
`analysis.compare` and `analysis.report` read.

A study with skill levels (`analysis.study.skill`) holds one cell per variant, level and
player count; its tables get a `level` column too, and `StudyData.at_level` gives one
level's cells as an ordinary study of variants x player counts, which every statistic
reads as before (they group by variant and player count, so levels must not be mixed).
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
import pandas as pd
import polars as pl

from analysis.facets import count_defaults
from analysis.facets import declared
from analysis.facets import played_value
from analysis.facets import start_scores
from analysis.load import LoadError
from analysis.load import RunData
from analysis.load import load_run
from analysis.study.skill import SkillInfo
from analysis.study.spec import CELL_KEYS
from analysis.study.spec import STUDY_FILE
from analysis.study.spec import STUDY_FORMAT
from analysis.study.switches import value_text
from sim.games.registry import default_game
from sim.games.registry import kind

# The shared tables' text columns (`sim.core.tables`), read as text; a game adds its own
# (`TEXT_COLUMNS` of its report facet).
TEXT_COLUMNS = ("action", "agent", "end_reason", "board", "run_id")


@dataclass
class CellRun:
    """A loaded cell: variant name and label, player count, the run, and its skill level
    ("" in a study without levels)."""

    variant: str
    label: str
    players: int
    run: RunData
    level: str = ""


@dataclass(frozen=True)
class SweepInfo:
    """The switches a study swept (the first is the x axis) and, for each variant, the
    explicit variant it was made from ("" when the study had none); the swept values of
    a cell are read from its run's rules (`sweep_value`)."""

    keys: tuple[str, ...]
    bases: Mapping[str, str]
    order: tuple[str, ...] = ()  # the first switch's values as labels show them, in order
    # variant -> switch -> its swept value as labels show it (from a study spec): a stall
    # table names its line alike in every panel, though each count plays its own entry
    points: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


def sweep_value(rules: Any, key: str, game: str = "") -> Any:
    """A switch's value in a run's rules (of `game`, the default game when none is named)
    as a sweep draws it: as the rules play it (the rulebook's stall count when none is set,
    `analysis.facets.played_value`), lists as lists."""
    return played_value(game or default_game(), rules, key)


@dataclass
class StudyData:
    """The cells of a study (or of any runs on one board) as pandas tables.

    `games`, `players` and (when every run has it) `events` each get `variant` (ordered
    categorical, baseline first) and `n_players`; `players` also gets `start_score` (its
    seat's own start).
    """

    cells: list[CellRun]
    title: str = "Balance study"
    study: dict[str, Any] | None = None
    failed: list[dict[str, Any]] = field(default_factory=list)
    sweep: SweepInfo | None = None
    _cache: dict[str, pd.DataFrame] = field(default_factory=dict)
    # Each cell's game ids and seeds, kept from reading its games table: the players table
    # takes its seeds from there instead of reading every games shard again.
    _seeds: dict[int, pl.DataFrame] = field(default_factory=dict)
    # The study's skill levels (None without levels, and in one level's data), and the
    # level this data holds when it is one level of such a study (`at_level`).
    skill: SkillInfo | None = None
    level: str = ""
    # The strongest level's saturation check (`analysis.study.skill.SaturationCheck`): its
    # complete cells, apart from the study's levels (their agents differ by seat).
    checks: list[CellRun] = field(default_factory=list)

    @property
    def levels(self) -> list[str]:
        """The skill levels with complete cells, weakest first (empty without levels)."""
        if self.skill is None:
            return []
        held = {c.level for c in self.cells}
        return [n for n in self.skill.names if n in held]

    def at_level(self, level: str) -> StudyData:
        """One skill level's cells as a study of variants x player counts (the study's
        title, spec and failed cells kept); refused for a level without complete cells."""
        cells = [c for c in self.cells if c.level == level]
        if not cells:
            raise LoadError(f"no complete cells at skill level {level!r} (levels with data: "
                            f"{', '.join(self.levels) or 'none'})")
        return StudyData(cells=cells, title=self.title, study=self.study, failed=self.failed,
                         sweep=self.sweep, level=level)

    @property
    def partial(self) -> list[str]:
        """One line per cell read from fewer games than it was run for (reports on partial
        runs, `--allow-partial`): the report says so in its header."""
        out = []
        for c in self.cells:
            if c.run.partial:
                out.append(f"{c.run.paths[0]}: {c.run.games_held:,} of "
                           f"{c.run.games_expected:,} games ({'; '.join(c.run.problems[:2])})")
        return out

    @property
    def variants(self) -> list[str]:
        """Variant names in study order, the baseline first."""
        seen: list[str] = []
        for c in self.cells:
            if c.variant not in seen:
                seen.append(c.variant)
        return seen

    @property
    def labels(self) -> dict[str, str]:
        """Variant name -> display label."""
        return {c.variant: c.label for c in self.cells}

    @property
    def player_counts(self) -> list[int]:
        """The player counts present, ascending."""
        return sorted({c.players for c in self.cells})

    @property
    def baseline(self) -> str:
        """The variant the others are compared with (the first)."""
        return self.variants[0]

    @property
    def game(self) -> str:
        """The game every cell played (`sim.games.registry`; a study plays one)."""
        return self.cells[0].run.game if self.cells else default_game()

    @property
    def board(self) -> Any:
        """The board every cell was played on (checked to be one; River Market: the card
        set)."""
        return self.cells[0].run.board()

    @property
    def has_events(self) -> bool:
        """Whether every cell's run wrote the events table."""
        return all("events" in c.run.manifest.get("tables", []) for c in self.cells)

    def _frame(self, table: str, actions: Sequence[str] | None = None) -> pd.DataFrame:
        """One table of every cell, text columns as strings (the shared ones and the
        game's), with variant and n_players."""
        text_columns = (*TEXT_COLUMNS, *declared(self.game, "TEXT_COLUMNS", ()))
        frames = []
        for i, c in enumerate(self.cells):
            lf = c.run.lazy(table)
            if actions is not None:
                lf = lf.filter(pl.col("action").cast(pl.String).is_in(list(actions)))
            if table == "games":  # the winners as a count: a list per game is big and slow
                lf = lf.drop("players").with_columns(
                    pl.col("winners").list.len().cast(pl.Int8).alias("n_winners")
                ).drop("winners")
            for col in text_columns:
                if col in lf.collect_schema().names():
                    lf = lf.with_columns(pl.col(col).cast(pl.String))
            # Variant and level as category codes: the categoricals are then made from
            # codes, without hashing a string per row.
            lf = lf.with_columns(
                pl.lit(self.variants.index(c.variant), dtype=pl.Int16).alias("variant"),
                pl.lit(c.players, dtype=pl.Int8).alias("n_players"))
            if self.skill is not None:
                lf = lf.with_columns(pl.lit(list(self.skill.names).index(c.level),
                                            dtype=pl.Int16).alias("level"))
            if table == "games":
                cell = lf.collect()
                self._seeds[i] = cell.select("game_id", "seed")
                lf = cell.lazy()
            elif table == "players":
                lf = _with_start_and_seed(lf, c, self._seeds.get(i))
            frames.append(lf)
        first = ["variant", "level", "n_players"] if self.skill is not None \
            else ["variant", "n_players"]
        whole = pl.concat(frames, how="vertical_relaxed")
        names = whole.collect_schema().names()
        # The columns in their final order before the conversion: reordering a pandas
        # frame afterwards would copy every column.
        df = _pandas(whole.select(first + [c for c in names if c not in first]).collect())
        df["variant"] = pd.Categorical.from_codes(df["variant"].to_numpy(),
                                                  categories=self.variants, ordered=True)
        if self.skill is not None:
            df["level"] = pd.Categorical.from_codes(df["level"].to_numpy(),
                                                    categories=list(self.skill.names),
                                                    ordered=True)
        return df

    def games(self) -> pd.DataFrame:
        """One row per game, the winners as their number (`n_winners`; a run's own games
        table has the list)."""
        if "games" not in self._cache:
            self._cache["games"] = self._frame("games")
        return self._cache["games"]

    def players(self) -> pd.DataFrame:
        """One row per game and seat, with the game's seed."""
        if "players" not in self._cache:
            self._cache["players"] = self._frame("players")
        return self._cache["players"]

    def release_events(self) -> None:
        """Forget the cached events tables (the largest): a report on a study with skill
        levels keeps every level's tables, but needs no level's events once analysed."""
        for key in [k for k in self._cache if k.startswith("events")]:
            del self._cache[key]

    def events(self, actions: Sequence[str] | None = None) -> pd.DataFrame:
        """Event rows (optionally only some actions); refused when a run has no events."""
        if not self.has_events:
            raise LoadError("these runs have no events table (run with events = true or "
                            "--events)")
        key = "events:" + ",".join(sorted(actions)) if actions else "events"
        if key not in self._cache:
            self._cache[key] = self._frame("events", actions)
        return self._cache[key]


def _with_start_and_seed(players: pl.LazyFrame, cell: CellRun,
                         games: pl.DataFrame | None = None) -> pl.LazyFrame:
    """A cell's players table with each seat's own start score (rules switch
    `start_scores`, seat 0 first) and its game's seed, from `games` (the cell's game ids
    and seeds; read from its games table when not given)."""
    df = players.collect()
    starts = np.asarray(start_scores(cell.run.game, cell.run.rules(), cell.players),
                        np.int32)  # the game's (River Market starts every seat at 0)
    df = df.with_columns(pl.Series("start_score", starts[df["seat"].to_numpy()]))
    if games is None:
        games = cell.run.lazy("games").select("game_id", "seed").collect()
    n = cell.players
    ids = df["game_id"].to_numpy()
    if len(ids) == n * games.height and np.array_equal(
            ids, np.repeat(games["game_id"].to_numpy(), n)):
        # A run's own order (each game's seats together, games in the same order in both
        # tables): the seeds repeat, no join needed.
        return df.with_columns(pl.Series("seed", np.repeat(games["seed"].to_numpy(), n))
                               ).lazy()
    # Otherwise joined (a game id is unique in a cell).
    return df.lazy().join(games.lazy(), on="game_id", how="left", maintain_order="left")


def _pandas(df: pl.DataFrame) -> pd.DataFrame:
    """`df.to_pandas()` column by column: each numeric column is copied once into its own
    writable array and the frame is not consolidated into a second copy, so a
    million-game table is not held twice."""
    columns = {}
    for name, dtype in df.schema.items():
        s = df.get_column(name)
        columns[name] = s.to_numpy(writable=True) if (dtype.is_numeric() or dtype == pl.Boolean) \
            and s.null_count() == 0 else s.to_pandas()
    return pd.DataFrame(columns, copy=False)


def open_study(path: str | Path, allow_partial: bool = False) -> StudyData:
    """A study folder (with study.json) as StudyData; failed cells are listed, not loaded.
    With `allow_partial`, unfinished or damaged cells are read from their whole shards."""
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
    checks: list[CellRun] = []
    failed: list[dict[str, Any]] = []
    for meta in cells_meta:
        if meta["status"] != "complete":
            failed.append(meta)
            continue
        run = load_run(root / meta["run"], allow_partial=allow_partial)
        (checks if meta.get("check") else cells).append(
            CellRun(meta["variant"], labels.get(meta["variant"], meta["variant"]),
                    int(meta["players"]), run, str(meta.get("level", ""))))
    if not cells:
        raise LoadError("no complete cells in this study folder", source=str(root))
    _check_same_board(cells)
    sweep = None
    if spec.get("sweep"):
        keys = tuple(spec["sweep"]["keys"])
        sweep = SweepInfo(keys, {v["name"]: v.get("base", "") for v in spec["variants"]},
                          tuple(value_text(x) for x in spec["sweep"]["values"][keys[0]]),
                          {v["name"]: {k: value_text(x) for k, x in v.get("sweep", {}).items()}
                           for v in spec["variants"]})
    skill = SkillInfo.from_spec(spec["skill"]) if spec.get("skill") else None
    return StudyData(cells=cells, title=str(spec.get("title", spec["name"])), study=study,
                     failed=failed, sweep=sweep, skill=skill, checks=checks)


def _check_same_board(cells: Sequence[CellRun]) -> None:
    """Refuse runs on different boards: lanes and districts would not line up."""
    hashes = {c.run.manifest["board"]["hash"] for c in cells}
    if len(hashes) > 1:
        names = ", ".join(sorted({f"{c.run.paths[0]}: {c.run.manifest['board']['name']} "
                                  f"({c.run.manifest['board']['hash']})" for c in cells}))
        raise LoadError(f"runs are on different boards ({names}); a report compares runs on "
                        "one board")


def _variant_key(manifest: Mapping[str, Any], game: str) -> str:
    """What makes a run's variant: its rules (player count aside) and its set of agents.

    Every rules switch counts, the stall count too; a switch equal to the rulebook's value
    for the run's player count (`analysis.facets.count_defaults`: the standard stall count)
    counts as unset, since it plays the same games."""
    rules = dict(manifest["rules"])
    n = rules.pop("players", None)
    for key, default in count_defaults(game).items():
        if key in rules and rules[key] == default.get(n):
            rules.pop(key)
    agents = sorted(set(manifest["agents"]))
    return json.dumps({"rules": rules, "agents": agents}, sort_keys=True)


def _differing(keys: Sequence[str], rule_keys: Sequence[str]) -> list[str]:
    """The rules switches whose value (or presence) differs between variant keys, in the
    order of the rules' fields (`rule_keys`: the game's)."""
    rules = [json.loads(k)["rules"] for k in keys]
    names = {s for r in rules for s in r}
    return [s for s in rule_keys if s in names and len({json.dumps(r.get(s)) for r in rules}) > 1]


def _variant_name(key: str, all_keys: Sequence[str], played: Mapping[str, set[Any]],
                  game: str) -> str:
    """A short name: the switches (or agents) in which this variant differs from others,
    `stalls_per_player=14; neutral_stack=1,1,2,2`. `played` are the values the variant's
    runs play of each switch whose rulebook value depends on the player count (the stall
    counts), which name a variant that leaves the switch unset."""
    mine = json.loads(key)
    others = [json.loads(k) for k in all_keys if k != key]
    g = kind(game)
    if others:
        switches = _differing(all_keys, g.rule_keys)
    else:
        default = g.default_rules().to_dict()
        switches = [s for s in g.rule_keys if s in mine["rules"]
                    and mine["rules"][s] != default.get(s)]
    parts: list[str] = []
    for k in switches:
        v = mine["rules"].get(k)
        if v is None:  # unset: the rulebook's (the stall count depends on the players)
            values = played.get(k, set())
            v = next(iter(values)) if len(values) == 1 else "standard"
        if isinstance(v, list):
            v = ",".join(map(str, v))
        elif isinstance(v, dict):
            v = ",".join(f"{a}:{b}" for a, b in v.items())
        parts.append(f"{k}={v}")
    if any(o["agents"] != mine["agents"] for o in others):
        parts.append("agents=" + "+".join(mine["agents"]))
    return "; ".join(parts) or "standard"


def _infer_sweep(distinct: Sequence[str], names: Mapping[str, str],
                 rule_keys: Sequence[str]) -> SweepInfo | None:
    """Runs that differ in one rules switch only, in three values or more, with the same
    agents, are read as a sweep of that switch (the report then draws it)."""
    if len(distinct) < 3 or len({json.dumps(json.loads(k)["agents"]) for k in distinct}) > 1:
        return None
    switches = _differing(distinct, rule_keys)
    if len(switches) != 1:
        return None
    return SweepInfo((switches[0],), {names[k]: "" for k in distinct})


def cells_from_runs(paths: Sequence[str | Path], allow_partial: bool = False) -> StudyData:
    """Any run folders (or study folders) on one board as StudyData.

    A study folder stands for its cells. Runs are grouped into variants by their rules
    (player count aside; every switch, the stall count too) and agents; a variant is named
    after what sets it apart, the one with default rules first and called `standard`
    (unless the runs differ in the stall count at one player count: then it is named after
    its count like the others, `stalls_per_player=16`). Runs differing in one switch only,
    in three values or more, also get the report's sweep section.
    """
    if not paths:
        raise LoadError("no run folders given")
    expanded: list[Path] = []
    studies: list[StudyData] = []
    for p in map(Path, paths):
        if (p / STUDY_FILE).exists() and not (p / "manifest.json").exists():
            studies.append(open_study(p, allow_partial=allow_partial))
        else:
            expanded.append(p)
    if studies and not expanded and len(studies) == 1:
        return studies[0]
    runs = [load_run(p, allow_partial=allow_partial) for p in expanded]
    for s in studies:
        runs.extend(c.run for c in s.cells)
    games = sorted({r.game for r in runs})
    if len(games) > 1:
        raise LoadError(f"runs of different games ({', '.join(games)}); a report compares "
                        "runs of one game")
    game = kind(games[0])
    _check_same_board([CellRun("", "", 0, r) for r in runs])
    keys = [_variant_key(r.manifest, game.name) for r in runs]
    distinct = list(dict.fromkeys(keys))
    default_key = next((k for k in distinct if json.loads(k)["rules"] == {
        k2: v for k2, v in game.default_rules().to_dict().items() if k2 not in CELL_KEYS}),
        None)
    if default_key is not None:
        distinct.remove(default_key)
        distinct.insert(0, default_key)
    by_count = count_defaults(game.name)  # switches whose value depends on the count
    played = {k: {s: {played_value(game.name, r.rules(), s)
                      for r, rk in zip(runs, keys, strict=True) if rk == k}
                  for s in by_count} for k in distinct}
    names = {k: _variant_name(k, distinct, played[k], game.name) for k in distinct}
    differing = _differing(distinct, game.rule_keys)
    if default_key is not None and not any(json.loads(k)["agents"] != json.loads(
            default_key)["agents"] for k in distinct) and not any(
            s in differing and len(played[default_key][s]) == 1 for s in by_count):
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
    return StudyData(cells=cells, title=title, sweep=_infer_sweep(distinct, names,
                                                                     game.rule_keys))
