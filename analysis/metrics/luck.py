"""Customer luck: which customers each player drew and met at their own lanes, and how much
that moves win share (input: the players and events tables)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field

import numpy as np
import pandas as pd
from scipy import stats as st

from analysis.metrics.common import BY
from analysis.metrics.common import StatError
from analysis.metrics.common import check_by
from analysis.metrics.common import check_level
from analysis.metrics.common import groups
from analysis.metrics.common import need_columns
from analysis.metrics.common import wilson_interval


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
        check_by("CustomerExposure", self.by)
        if not isinstance(self.lane_ends, Mapping) or not self.lane_ends:
            raise StatError("CustomerExposure: lane_ends must map lane ids to their two end "
                            "squares (e.g. {lane: (a, b) for ...} from the board)")

    def __call__(self, players: pd.DataFrame, events: pd.DataFrame) -> pd.DataFrame:
        keys = [*self.by, "game_id"]
        need_columns("CustomerExposure", players, [*keys, "seat", "win_share"])
        need_columns("CustomerExposure", events, [*keys, "action", "seat", "lane", "square",
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
        check_by("ShareByLevel", self.by)
        check_level("ShareByLevel", self.level_ci)

    def __call__(self, df: pd.DataFrame) -> pd.DataFrame:
        need_columns("ShareByLevel", df, [*self.by, self.column, "win_share", "n_players"])
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

    Output: `*by, column, players, slope, lo, hi, p_value, r, se, dof`: slope in win share
    per unit of the column (times `scale`: 2 gives the effect of swapping one citizen drawn
    for an aristocrat on `aristocrat_surplus`), r the Pearson correlation, se and dof the
    slope's standard error and degrees of freedom (for intervals at other levels).
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
        check_by("LuckEffect", self.by)
        check_level("LuckEffect", self.level)

    def __call__(self, df: pd.DataFrame) -> pd.DataFrame:
        need_columns("LuckEffect", df, [*self.by, self.column, "win_share"])
        rows = []
        for key, grp in groups(df, self.by):
            keys = dict(zip(self.by, key if isinstance(key, tuple) else (key,), strict=True))
            x = grp[self.column].to_numpy(dtype=float)
            y = grp["win_share"].to_numpy(dtype=float)
            if len(x) < 3 or np.ptp(x) == 0:
                rows.append({**keys, "column": self.column, "players": len(x),
                             "slope": np.nan, "lo": np.nan, "hi": np.nan, "p_value": np.nan,
                             "r": np.nan, "se": np.nan, "dof": np.nan})
                continue
            res = st.linregress(x, y)
            t = float(st.t.ppf(0.5 + self.level / 2, len(x) - 2))
            k = self.scale
            rows.append({**keys, "column": self.column, "players": len(x),
                         "slope": k * res.slope, "lo": k * (res.slope - t * res.stderr),
                         "hi": k * (res.slope + t * res.stderr), "p_value": res.pvalue,
                         "r": res.rvalue, "se": k * res.stderr, "dof": len(x) - 2})
        return pd.DataFrame(rows)
