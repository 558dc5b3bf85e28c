"""Per game and per player: score and length distributions, winning margins, points by
source, end reasons and the anomalies a designer should look at (input: the games and
players tables of `analysis.study.StudyData`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.metrics.common import BY
from analysis.metrics.common import Sources
from analysis.metrics.common import StatError
from analysis.metrics.common import check_by
from analysis.metrics.common import check_level
from analysis.metrics.common import groups
from analysis.metrics.common import mean_ci
from analysis.metrics.common import mean_ci_columns
from analysis.metrics.common import need_columns
from analysis.metrics.common import wilson_interval
from analysis.metrics.grouping import ascending
from analysis.metrics.grouping import grouping


@dataclass(frozen=True)
class Describe:
    """Summary of numeric columns per group: mean with t interval, sd and quantiles.

    Output (long): `*by, measure, n, mean, sd, lo, hi, min, q10, q25, median, q75, q90, max`.
    """

    columns: tuple[str, ...]
    by: tuple[str, ...] = BY
    level: float = 0.95

    def __post_init__(self) -> None:
        if isinstance(self.columns, str) or not self.columns:
            raise StatError(f"Describe: columns must be a non-empty tuple of names, got "
                            f"{self.columns!r}")
        check_by("Describe", self.by)
        check_level("Describe", self.level)

    def __call__(self, df: pd.DataFrame) -> pd.DataFrame:
        need_columns("Describe", df, [*self.by, *self.columns])
        cells = grouping(df, self.by)
        # Each column cut once into its groups' values (in table order, missing ones left
        # out), instead of a copy of every group's rows.
        split = {col: cells.split(df[col].to_numpy(dtype=float, na_value=np.nan))
                 for col in self.columns}
        rows = []
        for i, key in enumerate(cells.keys):
            keys = dict(zip(self.by, key, strict=True))
            for col in self.columns:
                v = split[col][i]
                if np.isnan(v).any():
                    v = v[~np.isnan(v)]
                mean, sd, lo, hi = mean_ci(v, self.level)
                q = np.quantile(v, [0, 0.1, 0.25, 0.5, 0.75, 0.9, 1]) if len(v) else [np.nan] * 7
                rows.append({**keys, "measure": col, "n": len(v), "mean": mean, "sd": sd,
                             "lo": lo, "hi": hi, "min": q[0], "q10": q[1], "q25": q[2],
                             "median": q[3], "q75": q[4], "q90": q[5], "max": q[6]})
        return pd.DataFrame(rows)


@dataclass(frozen=True)
class Margins:
    """Per game: the winning score, the runner-up's, the margin between them and ties.

    Input: players table. Output: one row per game with `*by, game_id, seed (if present),
    winning_score, runner_up, margin, tied, mean_score`. A tie for the win has margin 0.
    """

    by: tuple[str, ...] = BY

    def __post_init__(self) -> None:
        check_by("Margins", self.by)

    def __call__(self, players: pd.DataFrame) -> pd.DataFrame:
        need_columns("Margins", players, [*self.by, "game_id", "score"])
        keys = [*self.by, "game_id"] + (["seed"] if "seed" in players.columns else [])
        size = _ordered_group_size(players, keys)
        if size:
            return self._ordered(players, keys, size)
        s = players.sort_values([*keys, "score"], ascending=[True] * len(keys) + [False])
        g = s.groupby(keys, observed=True, sort=True)["score"]
        first = g.nth(0).to_numpy()
        second = g.nth(1).to_numpy()
        out = g.size().reset_index(name="_n").drop(columns="_n")
        out["winning_score"] = first.astype(int)
        out["runner_up"] = second.astype(int)
        out["margin"] = out["winning_score"] - out["runner_up"]
        out["tied"] = out["margin"] == 0
        out["mean_score"] = g.mean().to_numpy()
        return out

    @staticmethod
    def _ordered(players: pd.DataFrame, keys: list[str], size: int) -> pd.DataFrame:
        """The same table for players already in key order with `size` rows a game (how
        runs load): no sort and no groupby, each game's scores a row of a matrix."""
        scores = players["score"].to_numpy().reshape(-1, size)
        first, second = _top_two(scores)
        out = players[keys].iloc[::size].reset_index(drop=True)
        out["winning_score"] = first.astype(int)
        out["runner_up"] = second.astype(int)
        out["margin"] = out["winning_score"] - out["runner_up"]
        out["tied"] = out["margin"] == 0
        out["mean_score"] = scores.sum(axis=1, dtype=np.float64) / size
        return out


def _top_two(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's highest and second-highest value (the same when the top is tied), as
    sorting each row in descending order gives them; for integers without the sort."""
    if scores.dtype.kind != "i":
        ranked = -np.sort(-scores, axis=1)
        return ranked[:, 0], ranked[:, 1]
    # Column by column: a value above the best so far pushes the best down to second.
    first = scores[:, 0].copy()
    second = np.full(len(scores), np.iinfo(scores.dtype).min, scores.dtype)
    for j in range(1, scores.shape[1]):
        column = scores[:, j]
        np.maximum(second, np.minimum(first, column), out=second)
        np.maximum(first, column, out=first)
    return first, second


def _ordered_group_size(df: pd.DataFrame, keys: list[str]) -> int:
    """k when the rows are sorted by `keys` (ascending; categories by their codes, as the
    sort and the groupby order them) and every game has exactly k >= 2 rows; else 0, and
    the general path decides (missing keys, float keys, mixed player counts, any order)."""
    n = len(df)
    if n < 2:
        return 0
    cols = []
    for key in keys:
        col = df[key]
        if isinstance(col.dtype, pd.CategoricalDtype):
            values = col.cat.codes.to_numpy()
            if (values < 0).any():
                return 0
        else:
            values = col.to_numpy()
            if values.dtype.kind not in "iub":
                return 0
        cols.append(values)
    equal = ascending(cols)
    if equal is None:
        return 0
    sizes = np.diff(np.concatenate(([0], np.flatnonzero(~equal) + 1, [n])))
    k = int(sizes[0])
    return k if k >= 2 and (sizes == k).all() else 0


@dataclass(frozen=True)
class PointsBySource:
    """Where points come from: mean points per player by source (players table).

    Sources are the game's (`Sources`, None: the default game's): for Portobello Market the
    start score, lanes scored during play, districts, the baron's end scoring, Bobby fees
    received, and Bobby fees paid (negative); for River Market Events, Booths, Helpers,
    leftover Coins and leftover Goods. Output (long): `*by, source, mean, lo, hi, share`
    (share of the mean final score) plus `residual`: the largest |score - sum of sources|
    in the group, 0 when the books balance.
    """

    by: tuple[str, ...] = BY
    level: float = 0.95
    sources: Sources | None = None

    def __post_init__(self) -> None:
        check_by("PointsBySource", self.by)
        check_level("PointsBySource", self.level)

    def __call__(self, players: pd.DataFrame) -> pd.DataFrame:
        sources = self.sources or default_sources()
        cols = dict(sources.columns)
        need_columns("PointsBySource", players, [*self.by, "score", *cols.values()])
        # Every group's means, deviations and sizes in one grouped pass over the integer
        # columns themselves; a negative source counts against the score (the same
        # deviation).
        books = np.array(players["score"], dtype=np.int64)
        for name, col in cols.items():  # in place: no temporary column a source
            if name in sources.negative:
                books += players[col].to_numpy()
            else:
                books -= players[col].to_numpy()
        picked = ["score", *dict.fromkeys(cols.values())]
        cells = grouping(players, self.by)
        g = cells.grouped(players[picked].assign(_residual=np.abs(books)))
        means = cells.indexed(g[picked].mean())
        sds = cells.indexed(g[list(cols.values())].std())
        sizes = cells.indexed(g.size())
        resid = cells.indexed(g["_residual"].max().astype(float))
        means = means.rename(columns={col: name for name, col in cols.items()})
        sds = sds.rename(columns={col: name for name, col in cols.items()})
        for name in sources.negative:
            means[name] = -means[name]
        names = list(sources.names)
        if means.empty:
            return pd.DataFrame(columns=[*self.by, "source", "mean", "lo", "hi", "share",
                                         "residual"])
        # One row per group and source, groups in order and the sources in theirs; the
        # group keys as plain values (as a loop over the groups would give them).
        k = len(names)
        out = pd.DataFrame([key if isinstance(key, tuple) else (key,)
                            for key in means.index for _ in names], columns=list(self.by))
        out["source"] = names * len(means)
        mean = means[names].to_numpy().ravel()
        out["mean"] = mean
        out["lo"], out["hi"] = mean_ci_columns(mean, sds[names].to_numpy().ravel(),
                                               np.repeat(sizes.to_numpy(), k), self.level)
        total = np.repeat(means["score"].to_numpy(), k)
        with np.errstate(invalid="ignore", divide="ignore"):
            out["share"] = np.where(total != 0, mean / total, np.nan)
        out["residual"] = np.repeat(resid.to_numpy(), k)
        return out


@dataclass(frozen=True)
class Proportions:
    """Shares of a categorical column's values per group with Wilson intervals.

    Output: `*by, column, value, count, total, share, lo, hi` (every value seen anywhere is
    listed in every group, with count 0 where absent). Used for end reasons.
    """

    column: str
    by: tuple[str, ...] = BY
    level: float = 0.95

    def __post_init__(self) -> None:
        if not isinstance(self.column, str) or not self.column:
            raise StatError(f"Proportions: column must be a column name, got {self.column!r}")
        check_by("Proportions", self.by)
        check_level("Proportions", self.level)

    def __call__(self, df: pd.DataFrame) -> pd.DataFrame:
        need_columns("Proportions", df, [*self.by, self.column])
        values = sorted(df[self.column].astype(str).unique())
        rows = []
        for key, grp in groups(df, self.by):
            keys = dict(zip(self.by, key if isinstance(key, tuple) else (key,), strict=True))
            counts = grp[self.column].astype(str).value_counts()
            for v in values:
                rows.append({**keys, "column": self.column, "value": v,
                             "count": int(counts.get(v, 0)), "total": len(grp)})
        out = pd.DataFrame(rows)
        out["share"] = out["count"] / out["total"]
        out["lo"], out["hi"] = wilson_interval(out["count"], out["total"], self.level)
        return out


@dataclass(frozen=True)
class Anomalies:
    """Games a designer should look at: round-limit games, the game's own anomalous endings
    (`ends`: end reason -> kind, Portobello Market's exhausted boards), negative scores,
    books that do not balance (the game's point `sources`, when the players table has them
    all) (input: games and players; `ends` and `sources` None: the default game's).

    Output: `*by, kind, games, share, examples` (up to five `game_id (seed)` strings).
    Kinds with no games are left out.
    """

    by: tuple[str, ...] = BY
    examples: int = 5
    sources: Sources | None = None
    ends: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        check_by("Anomalies", self.by)
        if not isinstance(self.examples, int) or self.examples < 0:
            raise StatError(f"Anomalies: examples must be a non-negative integer, got "
                            f"{self.examples!r}")

    def __call__(self, games: pd.DataFrame, players: pd.DataFrame) -> pd.DataFrame:
        need_columns("Anomalies", games, [*self.by, "game_id", "seed", "end_reason"])
        need_columns("Anomalies", players, [*self.by, "game_id", "score"])
        keys = [*self.by, "game_id"]
        flags = games[[*keys, "seed"]].copy()
        flags["round limit reached"] = games["end_reason"] == "round_limit"
        ends = default_ends() if self.ends is None else self.ends
        for reason, kind in ends.items():
            flags[kind] = games["end_reason"] == reason
        flags["negative score"] = _games_with(flags, players[players["score"] < 0], keys)
        sources = self.sources or default_sources()
        if sources.columns and {col for _, col in sources.columns} <= set(players.columns):
            resid = players["score"].copy()
            for name, col in sources.columns:
                resid = resid + players[col] if name in sources.negative else \
                    resid - players[col]
            flags["score does not add up"] = _games_with(flags, players[resid != 0], keys)
        kinds = [c for c in flags.columns if c not in (*keys, "seed")]
        cells = grouping(flags, self.by)
        ids, seeds = flags["game_id"].to_numpy(), flags["seed"].to_numpy()
        rows = []
        for key, grp in zip(cells.keys, cells.split(np.arange(len(flags))), strict=True):
            for kind in kinds:
                hit = grp[flags[kind].to_numpy()[grp]]
                if len(hit):
                    ex = ", ".join(f"{g} (seed {s})" for g, s in
                                   zip(ids[hit[: self.examples]], seeds[hit[: self.examples]],
                                       strict=True))
                    rows.append({**dict(zip(self.by, key, strict=True)), "kind": kind,
                                 "games": len(hit), "share": len(hit) / len(grp),
                                 "examples": ex})
        return pd.DataFrame(rows, columns=[*self.by, "kind", "games", "share", "examples"])


def default_sources() -> Sources:
    """The default game's point sources (`analysis.facets`): what a statistic reads when
    it is given none."""
    from analysis.facets import sources
    from sim.games.registry import default_game

    found = sources(default_game())
    return found if found is not None else Sources(())


def default_ends() -> Mapping[str, str]:
    """The default game's anomalous end reasons (`analysis.facets`)."""
    from analysis.facets import declared
    from sim.games.registry import default_game

    return dict(declared(default_game(), "ANOMALOUS_ENDS", {}))


def _games_with(games: pd.DataFrame, rows: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """Whether each game (a row of `games`) has a row in `rows` (some players' rows),
    matched on `keys`; without such rows (the usual case) no game needs matching."""
    if rows.empty:
        return np.zeros(len(games), bool)
    found = rows[keys].drop_duplicates().assign(_found=True)
    merged = games[keys].merge(found, on=keys, how="left")
    return merged["_found"].astype("boolean").fillna(False).to_numpy(bool)
