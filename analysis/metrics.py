"""Statistics of study tables: small callables from DataFrame to DataFrame.

Each statistic is a frozen dataclass of parameters, checked at construction (the message
names the class, the parameter and the allowed values), called on a pandas DataFrame and
returning a new one; it keeps no other state. The input tables are those of
`analysis.study.StudyData` (`games`, `players`, `events`, each with `variant` and
`n_players`); every statistic groups by `by` (default variant and player count).

Intervals are 95% by default. Win shares use the Wilson score interval on the mean share:
a game counts as one trial and a k-way tie gives each winner 1/k, so a seat's wins are the
sum of its shares over n games. Means use the t interval.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as st

BY: tuple[str, ...] = ("variant", "n_players")
SOURCES: tuple[str, ...] = ("start", "lanes", "districts", "baron", "bobby received",
                            "bobby paid")
SOURCE_COLUMNS: dict[str, str] = {"lanes": "lane_points", "districts": "district_points",
                                  "baron": "baron_points", "bobby received": "bobby_received",
                                  "bobby paid": "bobby_paid"}


class StatError(ValueError):
    """A statistic built with a bad parameter, or called on a table that lacks a column."""


# -- helpers ----------------------------------------------------------------------------------
def z_value(level: float) -> float:
    """Two-sided normal quantile for a confidence level (1.96 for 0.95)."""
    return float(st.norm.ppf(0.5 + level / 2))


def wilson_interval(successes: Any, n: Any, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a proportion `successes / n` (successes may be fractional)."""
    x = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    z = z_value(level)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = x / m
        denom = 1 + z * z / m
        centre = (p + z * z / (2 * m)) / denom
        half = z / denom * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m))
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def _check_level(owner: str, level: float) -> None:
    if not isinstance(level, float | int) or not 0 < level < 1:
        raise StatError(f"{owner}: level must be a number between 0 and 1, got {level!r}")


def _check_by(owner: str, by: Sequence[str]) -> None:
    if isinstance(by, str) or not all(isinstance(b, str) for b in by):
        raise StatError(f"{owner}: by must be a tuple of column names, got {by!r}")


def _need(owner: str, df: pd.DataFrame, columns: Sequence[str]) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise StatError(f"{owner}: the table has no column(s) {', '.join(missing)} "
                        f"(columns: {', '.join(map(str, df.columns))})")


def _groups(df: pd.DataFrame, by: Sequence[str]) -> Any:
    return df.groupby(list(by), observed=True, sort=True)


def _mean_ci(values: np.ndarray, level: float) -> tuple[float, float, float, float]:
    """Mean, standard deviation and the t interval of the mean."""
    n = len(values)
    mean = float(np.mean(values)) if n else float("nan")
    sd = float(np.std(values, ddof=1)) if n > 1 else float("nan")
    if n > 1 and sd > 0:
        half = float(st.t.ppf(0.5 + level / 2, n - 1)) * sd / np.sqrt(n)
    else:
        half = 0.0 if n > 1 else float("nan")
    return mean, sd, mean - half, mean + half


# -- win shares and seats ---------------------------------------------------------------------
@dataclass(frozen=True)
class WinShare:
    """Win share by seat with Wilson intervals (input: players table).

    Output: `*by, seat, games, wins, share, lo, hi, half_width, fair` where `wins` is the
    sum of win shares, `share = wins / games` and `fair = 1 / n_players`.
    """

    by: tuple[str, ...] = BY
    level: float = 0.95

    def __post_init__(self) -> None:
        _check_by("WinShare", self.by)
        _check_level("WinShare", self.level)

    def __call__(self, players: pd.DataFrame) -> pd.DataFrame:
        _need("WinShare", players, [*self.by, "seat", "win_share", "n_players"])
        g = _groups(players, [*self.by, "seat"])
        extra = {} if "n_players" in self.by else {"n_players": ("n_players", "first")}
        out = g.agg(games=("win_share", "size"), wins=("win_share", "sum"),
                    **extra).reset_index()
        out["share"] = out["wins"] / out["games"]
        out["lo"], out["hi"] = wilson_interval(out["wins"], out["games"], self.level)
        out["half_width"] = (out["hi"] - out["lo"]) / 2
        out["fair"] = 1.0 / out["n_players"].astype(float)
        cols = [*self.by, "seat", "games", "wins", "share", "lo", "hi", "half_width", "fair"]
        return out[cols]


@dataclass(frozen=True)
class SeatBalance:
    """Are the seats equal? A chi-square goodness-of-fit test of wins by seat (players table).

    Each game has one unit of win share split among its winners, so the seats' summed
    shares are counts of a multinomial with equal probabilities under balance. Output per
    group: `games, seats, chi2, dof, p_value, best_seat, best_share, worst_seat, worst_share,
    spread` (best minus worst share).
    """

    by: tuple[str, ...] = BY

    def __post_init__(self) -> None:
        _check_by("SeatBalance", self.by)

    def __call__(self, players: pd.DataFrame) -> pd.DataFrame:
        _need("SeatBalance", players, [*self.by, "seat", "win_share", "game_id"])
        rows = []
        for key, grp in _groups(players, self.by):
            wins = grp.groupby("seat")["win_share"].sum().sort_index()
            games = grp["game_id"].nunique()
            k = len(wins)
            expected = games / k
            chi2 = float(((wins - expected) ** 2 / expected).sum())
            p = float(st.chi2.sf(chi2, k - 1))
            share = wins / games
            rows.append({**dict(zip(self.by, key if isinstance(key, tuple) else (key,),
                                    strict=True)),
                         "games": games, "seats": k, "chi2": chi2, "dof": k - 1, "p_value": p,
                         "best_seat": int(share.idxmax()), "best_share": float(share.max()),
                         "worst_seat": int(share.idxmin()), "worst_share": float(share.min()),
                         "spread": float(share.max() - share.min())})
        return pd.DataFrame(rows)


@dataclass(frozen=True)
class FirstPlayerAdvantage:
    """Seat 0's win share against the fair share 1/n (players table).

    Output per group: `games, share, lo, hi, fair, advantage, adv_lo, adv_hi, z, p_value`:
    the advantage is share - fair with the Wilson interval shifted by fair; the test is the
    one-sample score z test of the share against fair (two-sided).
    """

    by: tuple[str, ...] = BY
    level: float = 0.95
    seat: int = 0

    def __post_init__(self) -> None:
        _check_by("FirstPlayerAdvantage", self.by)
        _check_level("FirstPlayerAdvantage", self.level)
        if not isinstance(self.seat, int) or self.seat < 0:
            raise StatError(f"FirstPlayerAdvantage: seat must be a seat number (0 or more), "
                            f"got {self.seat!r}")

    def __call__(self, players: pd.DataFrame) -> pd.DataFrame:
        ws = WinShare(by=self.by, level=self.level)(players)
        out = ws[ws["seat"] == self.seat].drop(columns=["seat", "wins", "half_width"])
        out = out.reset_index(drop=True)
        out["advantage"] = out["share"] - out["fair"]
        out["adv_lo"] = out["lo"] - out["fair"]
        out["adv_hi"] = out["hi"] - out["fair"]
        se0 = np.sqrt(out["fair"] * (1 - out["fair"]) / out["games"])
        out["z"] = out["advantage"] / se0
        out["p_value"] = 2 * st.norm.sf(np.abs(out["z"]))
        return out


# -- distributions ----------------------------------------------------------------------------
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
        _check_by("Describe", self.by)
        _check_level("Describe", self.level)

    def __call__(self, df: pd.DataFrame) -> pd.DataFrame:
        _need("Describe", df, [*self.by, *self.columns])
        rows = []
        for key, grp in _groups(df, self.by):
            keys = dict(zip(self.by, key if isinstance(key, tuple) else (key,), strict=True))
            for col in self.columns:
                v = grp[col].dropna().to_numpy(dtype=float)
                mean, sd, lo, hi = _mean_ci(v, self.level)
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
        _check_by("Margins", self.by)

    def __call__(self, players: pd.DataFrame) -> pd.DataFrame:
        _need("Margins", players, [*self.by, "game_id", "score"])
        keys = [*self.by, "game_id"] + (["seed"] if "seed" in players.columns else [])
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


@dataclass(frozen=True)
class PointsBySource:
    """Where points come from: mean points per player by source (players table).

    Sources: the start score, lanes scored during play, districts, the baron's end scoring,
    Bobby fees received, and Bobby fees paid (negative). Output (long): `*by, source, mean,
    lo, hi, share` (share of the mean final score) plus `residual`: the largest
    |score - sum of sources| in the group, 0 when the books balance.
    """

    by: tuple[str, ...] = BY
    level: float = 0.95

    def __post_init__(self) -> None:
        _check_by("PointsBySource", self.by)
        _check_level("PointsBySource", self.level)

    def __call__(self, players: pd.DataFrame) -> pd.DataFrame:
        _need("PointsBySource", players, [*self.by, "score", "start_score",
                                          *SOURCE_COLUMNS.values()])
        df = players.copy()
        df["start"] = df["start_score"].astype(float)
        for name, col in SOURCE_COLUMNS.items():
            df[name] = df[col].astype(float) * (-1 if name == "bobby paid" else 1)
        df["_residual"] = (df["score"] - df[list(SOURCES)].sum(axis=1)).abs()
        rows = []
        for key, grp in _groups(df, self.by):
            keys = dict(zip(self.by, key if isinstance(key, tuple) else (key,), strict=True))
            total = float(grp["score"].mean())
            resid = float(grp["_residual"].max())
            for source in SOURCES:
                mean, _, lo, hi = _mean_ci(grp[source].to_numpy(), self.level)
                rows.append({**keys, "source": source, "mean": mean, "lo": lo, "hi": hi,
                             "share": mean / total if total else float("nan"),
                             "residual": resid})
        return pd.DataFrame(rows)


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
        _check_by("Proportions", self.by)
        _check_level("Proportions", self.level)

    def __call__(self, df: pd.DataFrame) -> pd.DataFrame:
        _need("Proportions", df, [*self.by, self.column])
        values = sorted(df[self.column].astype(str).unique())
        rows = []
        for key, grp in _groups(df, self.by):
            keys = dict(zip(self.by, key if isinstance(key, tuple) else (key,), strict=True))
            counts = grp[self.column].astype(str).value_counts()
            for v in values:
                rows.append({**keys, "column": self.column, "value": v,
                             "count": int(counts.get(v, 0)), "total": len(grp)})
        out = pd.DataFrame(rows)
        out["share"] = out["count"] / out["total"]
        out["lo"], out["hi"] = wilson_interval(out["count"], out["total"], self.level)
        return out


# -- events: districts, lanes, spots, customers -----------------------------------------------
@dataclass(frozen=True)
class DistrictTiming:
    """When districts are scored and with which token (input: events, and games for length).

    Output per group and token value: `scorings, per_player_game` (scorings per player and
    game), `mean_round, q25_round, median_round, q75_round, mean_fraction` (round divided by
    the game's rounds: 0 early, 1 at the end), `mean_points, mean_stalls`.
    """

    by: tuple[str, ...] = BY

    def __post_init__(self) -> None:
        _check_by("DistrictTiming", self.by)

    def scorings(self, events: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
        """One row per district scoring with `fraction` = round / game rounds."""
        _need("DistrictTiming", events, [*self.by, "game_id", "action", "round", "value",
                                         "points"])
        _need("DistrictTiming", games, [*self.by, "game_id", "rounds"])
        ev = events[events["action"] == "score_district"]
        ev = ev.merge(games[[*self.by, "game_id", "rounds"]], on=[*self.by, "game_id"],
                      how="left", validate="many_to_one")
        ev = ev.assign(token=ev["value"].astype(int), fraction=ev["round"] / ev["rounds"],
                       stalls=ev["points"] / ev["value"])
        return ev

    def __call__(self, events: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
        ev = self.scorings(events, games)
        n_games = _groups(games, self.by).agg(games=("game_id", "size"),
                                              _n=("n_players", "first"))
        rows = []
        for key, grp in _groups(ev, [*self.by, "token"]):
            keys = dict(zip([*self.by, "token"], key, strict=True))
            gkey = key[:-1] if len(self.by) > 1 else key[0]
            ng = n_games.loc[gkey]
            q = np.quantile(grp["round"], [0.25, 0.5, 0.75])
            rows.append({**keys, "scorings": len(grp),
                         "per_player_game": len(grp) / (ng["games"] * ng["_n"]),
                         "mean_round": grp["round"].mean(), "q25_round": q[0],
                         "median_round": q[1], "q75_round": q[2],
                         "mean_fraction": grp["fraction"].mean(),
                         "mean_points": grp["points"].mean(), "mean_stalls": grp["stalls"].mean()})
        return pd.DataFrame(rows)


@dataclass(frozen=True)
class LaneUsage:
    """Stalls and points per lane (input: events with place_stall and score_lane rows).

    Output per group and lane: `stalls_per_game, scored_share` (share of games in which the
    lane was scored, during play or by the baron), `points_per_game` (all players' points
    from the lane per game), `mean_multiplier` (when scored) and `points_per_stall`.
    """

    by: tuple[str, ...] = BY
    lanes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check_by("LaneUsage", self.by)

    def __call__(self, events: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
        _need("LaneUsage", events, [*self.by, "game_id", "action", "lane", "points", "value"])
        n_games = _groups(games, self.by)["game_id"].size()
        stalls = events[events["action"] == "place_stall"]
        scored = events[events["action"].isin(["score_lane", "score_lane_baron"])]
        s_count = stalls.groupby([*self.by, "lane"], observed=True).size()
        pts = scored.groupby([*self.by, "lane"], observed=True)["points"].sum()
        # One scoring of a lane writes one row per seat that scored: count lane-games.
        lane_games = scored.drop_duplicates([*self.by, "game_id", "lane"])
        n_scored = lane_games.groupby([*self.by, "lane"], observed=True).size()
        mult = lane_games.groupby([*self.by, "lane"], observed=True)["value"].mean()
        lanes = list(self.lanes) or sorted(set(events["lane"].dropna().astype(str)))
        rows = []
        for gkey, ng in n_games.items():
            keys = dict(zip(self.by, gkey if isinstance(gkey, tuple) else (gkey,), strict=True))
            t = gkey if isinstance(gkey, tuple) else (gkey,)
            for lane in lanes:
                k = (*t, lane)
                ns = float(s_count.get(k, 0))
                p = float(pts.get(k, 0))
                rows.append({**keys, "lane": lane, "stalls_per_game": ns / ng,
                             "scored_share": float(n_scored.get(k, 0)) / ng,
                             "points_per_game": p / ng,
                             "mean_multiplier": float(mult.get(k, np.nan)),
                             "points_per_stall": p / ns if ns else float("nan")})
        return pd.DataFrame(rows)


@dataclass(frozen=True)
class SpotUsage:
    """Stalls by printed spot value (input: events with place_stall rows).

    Output per group and spot value: `stalls, share` (of all stalls placed in the group).
    """

    by: tuple[str, ...] = BY

    def __post_init__(self) -> None:
        _check_by("SpotUsage", self.by)

    def __call__(self, events: pd.DataFrame) -> pd.DataFrame:
        _need("SpotUsage", events, [*self.by, "action", "value"])
        ev = events[events["action"] == "place_stall"]
        out = ev.groupby([*self.by, "value"], observed=True).size().reset_index(name="stalls")
        out = out.rename(columns={"value": "spot_value"})
        out["spot_value"] = out["spot_value"].astype(int)
        out["share"] = out["stalls"] / out.groupby(list(self.by), observed=True)[
            "stalls"].transform("sum")
        return out


@dataclass(frozen=True)
class CustomerExposure:
    """Per player and game: customers drawn, and aristocrats at the player's own lanes.

    Input: players and events (draw_customer, place_customer, place_baron, score_lane,
    score_lane_baron rows). `lane_ends` maps each lane id to its two end square ids.
    Output: the players rows (`*by, game_id, seat, win_share`) with `draws`,
    `aristocrats_drawn`, `citizens_drawn`, `aristocrat_surplus` (aristocrats minus citizens
    drawn: with a bag of equal counts its expectation is 0 whatever the number of draws, so
    it measures the luck of the draw rather than the choice to draw), `lanes_scored` (lanes
    the player scored points in) and `aristocrat_ends`: aristocrats standing at the ends of
    those lanes, counted per lane end (a lane between two aristocrats counts 2). In the drawn
    order who draws an aristocrat is luck; in the known order it is foreseen.
    """

    lane_ends: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    by: tuple[str, ...] = BY

    def __post_init__(self) -> None:
        _check_by("CustomerExposure", self.by)
        if not isinstance(self.lane_ends, Mapping) or not self.lane_ends:
            raise StatError("CustomerExposure: lane_ends must map lane ids to their two end "
                            "squares (e.g. {lane: (a, b) for ...} from the board)")

    def __call__(self, players: pd.DataFrame, events: pd.DataFrame) -> pd.DataFrame:
        keys = [*self.by, "game_id"]
        _need("CustomerExposure", players, [*keys, "seat", "win_share"])
        _need("CustomerExposure", events, [*keys, "action", "seat", "lane", "square",
                                           "customer", "points"])
        base = players[[*keys, "seat", "win_share"]].copy()
        draws = events[events["action"] == "draw_customer"]
        d = draws.assign(aristocrat=draws["customer"] == "aristocrat").groupby(
            [*keys, "seat"], observed=True).agg(draws=("aristocrat", "size"),
                                                aristocrats_drawn=("aristocrat", "sum"))
        placed = events[events["action"] == "place_customer"]
        aristo = placed[placed["customer"] == "aristocrat"]
        aristo_sq = set(zip(*(aristo[k] for k in keys), aristo["square"], strict=True))
        scored = events[events["action"].isin(["score_lane", "score_lane_baron"])
                        & (events["points"] > 0)]
        counts = []
        for row in zip(*(scored[k] for k in keys), scored["lane"], strict=True):
            gk, lane = row[:-1], row[-1]
            a, b = self.lane_ends[lane]
            counts.append(((*gk, a) in aristo_sq) + ((*gk, b) in aristo_sq))
        sc = scored[[*keys, "seat"]].assign(aristocrat_ends=counts, lanes_scored=1)
        e = sc.groupby([*keys, "seat"], observed=True)[["aristocrat_ends",
                                                         "lanes_scored"]].sum()
        out = base.merge(d.reset_index(), on=[*keys, "seat"], how="left")
        out = out.merge(e.reset_index(), on=[*keys, "seat"], how="left")
        for col in ("draws", "aristocrats_drawn", "aristocrat_ends", "lanes_scored"):
            out[col] = out[col].fillna(0).astype(int)
        out["citizens_drawn"] = out["draws"] - out["aristocrats_drawn"]
        out["aristocrat_surplus"] = out["aristocrats_drawn"] - out["citizens_drawn"]
        return out


@dataclass(frozen=True)
class ShareByLevel:
    """Win share by the level of a count column (levels at or above `cap`, and at or below
    `floor` when it is negative, pooled; levels binned by `width`).

    Output: `*by, level, order, players, share, lo, hi, fair` with the Wilson interval;
    `level` is a label ('0', '1', ..., '5+', or '0-1', '2-3', ... with width 2) and `order`
    the level's lower bound.
    """

    column: str
    cap: int = 5
    width: int = 1
    floor: int = 0
    by: tuple[str, ...] = BY
    level_ci: float = 0.95

    def __post_init__(self) -> None:
        if not isinstance(self.column, str) or not self.column:
            raise StatError(f"ShareByLevel: column must be a column name, got {self.column!r}")
        if not isinstance(self.width, int) or self.width < 1:
            raise StatError(f"ShareByLevel: width must be a positive integer, got "
                            f"{self.width!r}")
        if not isinstance(self.floor, int):
            raise StatError(f"ShareByLevel: floor must be an integer, got {self.floor!r}")
        if (not isinstance(self.cap, int) or self.cap <= self.floor
                or (self.cap - self.floor) % self.width):
            raise StatError(f"ShareByLevel: cap must be above floor ({self.floor}) by a "
                            f"positive multiple of width ({self.width}), got {self.cap!r}")
        _check_by("ShareByLevel", self.by)
        _check_level("ShareByLevel", self.level_ci)

    def __call__(self, df: pd.DataFrame) -> pd.DataFrame:
        _need("ShareByLevel", df, [*self.by, self.column, "win_share", "n_players"])
        x = df[self.column].clip(lower=self.floor, upper=self.cap).astype(int) - self.floor
        lv = (x // self.width) * self.width + self.floor
        d = df.assign(_level=lv)
        out = d.groupby([*self.by, "_level"], observed=True).agg(
            players=("win_share", "size"), wins=("win_share", "sum"),
            _n=("n_players", "first")).reset_index()
        out["share"] = out["wins"] / out["players"]
        out["lo"], out["hi"] = wilson_interval(out["wins"], out["players"], self.level_ci)
        out["fair"] = 1.0 / out["_n"]
        out["level"] = [f"{v}+" if v == self.cap else
                        f"≤{v}" if v == self.floor and self.floor < 0 else
                        str(v) if self.width == 1 else f"{v}-{v + self.width - 1}"
                        for v in out["_level"]]
        out["order"] = out["_level"]
        return out[[*self.by, "level", "order", "players", "share", "lo", "hi", "fair"]]


@dataclass(frozen=True)
class LuckEffect:
    """How much a count (e.g. aristocrats drawn) moves win share: the OLS slope with its
    interval and p-value, per group (input: a CustomerExposure table).

    Output: `*by, column, players, slope, lo, hi, p_value, r`: slope in win share per unit
    of the column (times `scale`: 2 gives the effect of swapping one citizen drawn for an
    aristocrat on `aristocrat_surplus`), r the Pearson correlation.
    """

    column: str
    by: tuple[str, ...] = BY
    level: float = 0.95
    scale: float = 1.0

    def __post_init__(self) -> None:
        if not isinstance(self.column, str) or not self.column:
            raise StatError(f"LuckEffect: column must be a column name, got {self.column!r}")
        if not isinstance(self.scale, int | float) or self.scale <= 0:
            raise StatError(f"LuckEffect: scale must be a positive number, got {self.scale!r}")
        _check_by("LuckEffect", self.by)
        _check_level("LuckEffect", self.level)

    def __call__(self, df: pd.DataFrame) -> pd.DataFrame:
        _need("LuckEffect", df, [*self.by, self.column, "win_share"])
        rows = []
        for key, grp in _groups(df, self.by):
            keys = dict(zip(self.by, key if isinstance(key, tuple) else (key,), strict=True))
            x = grp[self.column].to_numpy(dtype=float)
            y = grp["win_share"].to_numpy(dtype=float)
            if len(x) < 3 or np.ptp(x) == 0:
                rows.append({**keys, "column": self.column, "players": len(x),
                             "slope": np.nan, "lo": np.nan, "hi": np.nan, "p_value": np.nan,
                             "r": np.nan})
                continue
            res = st.linregress(x, y)
            t = float(st.t.ppf(0.5 + self.level / 2, len(x) - 2))
            k = self.scale
            rows.append({**keys, "column": self.column, "players": len(x),
                         "slope": k * res.slope, "lo": k * (res.slope - t * res.stderr),
                         "hi": k * (res.slope + t * res.stderr), "p_value": res.pvalue,
                         "r": res.rvalue})
        return pd.DataFrame(rows)


# -- anomalies --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Anomalies:
    """Games a designer should look at: round-limit games, exhausted boards, negative
    scores, books that do not balance (input: games and players).

    Output: `*by, kind, games, share, examples` (up to five `game_id (seed)` strings).
    Kinds with no games are left out.
    """

    by: tuple[str, ...] = BY
    examples: int = 5

    def __post_init__(self) -> None:
        _check_by("Anomalies", self.by)
        if not isinstance(self.examples, int) or self.examples < 0:
            raise StatError(f"Anomalies: examples must be a non-negative integer, got "
                            f"{self.examples!r}")

    def __call__(self, games: pd.DataFrame, players: pd.DataFrame) -> pd.DataFrame:
        _need("Anomalies", games, [*self.by, "game_id", "seed", "end_reason"])
        _need("Anomalies", players, [*self.by, "game_id", "score"])
        flags = games[[*self.by, "game_id", "seed"]].copy()
        flags["round limit reached"] = games["end_reason"] == "round_limit"
        flags["board exhausted"] = games["end_reason"] == "board_exhausted"
        neg = players[players["score"] < 0][[*self.by, "game_id"]].drop_duplicates()
        flags = flags.merge(neg.assign(_neg=True), on=[*self.by, "game_id"], how="left")
        flags["negative score"] = flags.pop("_neg").astype("boolean").fillna(False).astype(bool)
        if {"start_score", *SOURCE_COLUMNS.values()} <= set(players.columns):
            resid = (players["score"] - players["start_score"] - players["lane_points"]
                     - players["district_points"] - players["baron_points"]
                     - players["bobby_received"] + players["bobby_paid"])
            bad = players[resid != 0][[*self.by, "game_id"]].drop_duplicates()
            flags = flags.merge(bad.assign(_bad=True), on=[*self.by, "game_id"], how="left")
            flags["score does not add up"] = (flags.pop("_bad").astype("boolean")
                                              .fillna(False).astype(bool))
        kinds = [c for c in flags.columns if c not in (*self.by, "game_id", "seed")]
        rows = []
        for key, grp in _groups(flags, self.by):
            keys = dict(zip(self.by, key if isinstance(key, tuple) else (key,), strict=True))
            for kind in kinds:
                hit = grp[grp[kind]]
                if len(hit):
                    ex = ", ".join(f"{g} (seed {s})" for g, s in
                                   zip(hit["game_id"][: self.examples],
                                       hit["seed"][: self.examples], strict=True))
                    rows.append({**keys, "kind": kind, "games": len(hit),
                                 "share": len(hit) / len(grp), "examples": ex})
        return pd.DataFrame(rows, columns=[*self.by, "kind", "games", "share", "examples"])
