"""What happens on the board, from the events table: when districts are scored and with
which token, stalls and points per lane, and stalls by printed spot value."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.metrics.common import BY
from analysis.metrics.common import check_by
from analysis.metrics.common import groups
from analysis.metrics.common import need_columns


@dataclass(frozen=True)
class DistrictTiming:
    """When districts are scored and with which token (input: events, and games for length).

    Output per group and token value: `scorings, per_player_game` (scorings per player and
    game), `mean_round, q25_round, median_round, q75_round, mean_fraction` (round divided by
    the game's rounds: 0 early, 1 at the end), `mean_points, mean_stalls`.
    """

    by: tuple[str, ...] = BY

    def __post_init__(self) -> None:
        check_by("DistrictTiming", self.by)

    def scorings(self, events: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
        """One row per district scoring with `fraction` = round / game rounds."""
        need_columns("DistrictTiming", events, [*self.by, "game_id", "action", "round", "value",
                                                "points"])
        need_columns("DistrictTiming", games, [*self.by, "game_id", "rounds"])
        ev = events[events["action"] == "score_district"]
        ev = ev.merge(games[[*self.by, "game_id", "rounds"]], on=[*self.by, "game_id"],
                      how="left", validate="many_to_one")
        ev = ev.assign(token=ev["value"].astype(int), fraction=ev["round"] / ev["rounds"],
                       stalls=ev["points"] / ev["value"])
        return ev

    def __call__(self, events: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
        ev = self.scorings(events, games)
        n_games = groups(games, self.by).agg(games=("game_id", "size"),
                                             _n=("n_players", "first"))
        rows = []
        for key, grp in groups(ev, [*self.by, "token"]):
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
        check_by("LaneUsage", self.by)

    def __call__(self, events: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
        need_columns("LaneUsage", events, [*self.by, "game_id", "action", "lane", "points",
                                           "value"])
        n_games = groups(games, self.by)["game_id"].size()
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
        check_by("SpotUsage", self.by)

    def __call__(self, events: pd.DataFrame) -> pd.DataFrame:
        need_columns("SpotUsage", events, [*self.by, "action", "value"])
        ev = events[events["action"] == "place_stall"]
        out = ev.groupby([*self.by, "value"], observed=True).size().reset_index(name="stalls")
        out = out.rename(columns={"value": "spot_value"})
        out["spot_value"] = out["spot_value"].astype(int)
        out["share"] = out["stalls"] / out.groupby(list(self.by), observed=True)[
            "stalls"].transform("sum")
        return out
