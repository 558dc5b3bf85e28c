"""Who wins from which seat: win shares, the test of equal seats and the first player's
advantage (input: the players table of `analysis.study.StudyData`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as st

from analysis.metrics.common import BY
from analysis.metrics.common import StatError
from analysis.metrics.common import check_by
from analysis.metrics.common import check_level
from analysis.metrics.common import need_columns
from analysis.metrics.common import wilson_interval
from analysis.metrics.grouping import distinct_per_group
from analysis.metrics.grouping import grouping


@dataclass(frozen=True)
class WinShare:
    """Win share by seat with Wilson intervals (input: players table).

    Output: `*by, seat, games, wins, share, lo, hi, half_width, fair` where `wins` is the
    sum of win shares, `share = wins / games` and `fair = 1 / n_players`.
    """

    by: tuple[str, ...] = BY
    level: float = 0.95

    def __post_init__(self) -> None:
        check_by("WinShare", self.by)
        check_level("WinShare", self.level)

    def __call__(self, players: pd.DataFrame) -> pd.DataFrame:
        need_columns("WinShare", players, [*self.by, "seat", "win_share", "n_players"])
        seats = grouping(players, [*self.by, "seat"])
        g = seats.grouped(players[["win_share", "n_players"]])
        out = pd.DataFrame({"games": g.size(), "wins": g["win_share"].sum()})
        if "n_players" not in self.by:
            out["n_players"] = g["n_players"].first()
        out = seats.indexed(out).reset_index()
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
        check_by("SeatBalance", self.by)

    def __call__(self, players: pd.DataFrame) -> pd.DataFrame:
        need_columns("SeatBalance", players, [*self.by, "seat", "win_share", "game_id"])
        rows = []
        cells = grouping(players, self.by)
        seats = grouping(players, [*self.by, "seat"])
        seat_wins = seats.indexed(seats.grouped(players["win_share"]).sum())
        seat_cells = seats.parents(cells)
        n_games = distinct_per_group(cells, players["game_id"])
        for i, (key, games) in enumerate(zip(cells.keys, n_games, strict=True)):
            # The group's seats and their summed shares as its own groupby by seat gives
            # them: seats ascending, each a float32 sum of its rows in table order.
            wins = seat_wins[seat_cells == i]
            wins.index = wins.index.get_level_values("seat")
            games = int(games)
            k = len(wins)
            expected = games / k
            chi2 = float(((wins - expected) ** 2 / expected).sum())
            p = float(st.chi2.sf(chi2, k - 1))
            share = wins / games
            rows.append({**dict(zip(self.by, key, strict=True)),
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
        check_by("FirstPlayerAdvantage", self.by)
        check_level("FirstPlayerAdvantage", self.level)
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
