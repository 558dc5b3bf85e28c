"""How simulated games compare with real play: length in turns per player and what players
spend their actions on (input: the games and players tables of `analysis.study.StudyData`).

Agents that play nothing like people make findings about the game that may not hold for
people. Little is known of real play, and all of it is in `REAL_PLAY` below, with where it
comes from; a cell (or a skill level) whose games last less than half or more than twice
the reported length (`FAR_RATIO`) is flagged as far from real play.

Actions are what a player spends a turn on: each stall placed and each customer placed
uses one of the actions a played token gives, and scoring a district uses the whole turn,
counted here as one action. Bobby moves cost points, not actions, and are left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis.metrics.common import BY
from analysis.metrics.common import check_by
from analysis.metrics.common import check_level
from analysis.metrics.common import mean_ci
from analysis.metrics.common import need_columns
from analysis.metrics.grouping import grouping

# What is known of real play, in one place. Each entry: the number, the player counts it is
# about, and its source. Only turns per player can be compared with simulated games; the
# playing time is shown beside them for context (minutes depend on the people at the table).
REAL_PLAY: dict[str, dict[str, Any]] = {
    # "A reviewer reports that a 4-player game lasts about six turns per player": the facts
    # from public reviews in the project's source notes (seeds/README.md).
    "turns_per_player": {"value": 6.0, "players": (4,),
                         "source": "a public review of the game, as the project's source "
                                   "notes report it"},
    # The playing time printed on the game's box, as the project's issue on strong play
    # reports it.
    "minutes": {"value": 35.0, "players": (2, 3, 4),
                "source": "the game's box"},
}
# A cell is far from real play when its mean turns per player is below FAR_RATIO[0] or above
# FAR_RATIO[1] times the reference (3 to 12 turns per player at four players).
FAR_RATIO: tuple[float, float] = (0.5, 2.0)
ACTIONS: dict[str, str] = {"stalls": "stalls_placed", "customers": "customers_placed",
                           "districts": "districts_scored"}


def reference_turns(players: int) -> float | None:
    """The reported turns per player of a real game at this player count (None: unknown)."""
    ref = REAL_PLAY["turns_per_player"]
    return float(ref["value"]) if players in ref["players"] else None


def far_from_real_play(turns_per_player: float, players: int) -> bool | None:
    """Whether a mean length in turns per player is far from real play (`FAR_RATIO` of the
    reference); None when there is no reference at this player count."""
    ref = reference_turns(players)
    if ref is None or np.isnan(turns_per_player):
        return None
    ratio = turns_per_player / ref
    return bool(ratio < FAR_RATIO[0] or ratio > FAR_RATIO[1])


@dataclass(frozen=True)
class Calibration:
    """Game length in turns per player and the share of actions on stalls, customers and
    districts, per group, beside the reference of real play.

    Output per group: `games, turns_per_player, tpp_lo, tpp_hi` (mean turns per player with
    its t interval; every game counts, round-limit games too, since they are part of how
    the agents play), `rounds` (mean), `<action>_per_player` (mean per player and game) and
    `<action>_share` (of the three kinds together) for stalls, customers and districts,
    `round_limit_share`, `reference` (turns per player reported for real play at that
    player count, NaN if none), `ratio` (turns per player / reference) and `far` (True,
    False, or None without a reference).
    """

    by: tuple[str, ...] = BY
    level: float = 0.95

    def __post_init__(self) -> None:
        check_by("Calibration", self.by)
        check_level("Calibration", self.level)

    def __call__(self, games: pd.DataFrame, players: pd.DataFrame) -> pd.DataFrame:
        need_columns("Calibration", games, [*self.by, "game_id", "turns", "rounds",
                                            "end_reason", "n_players"])
        need_columns("Calibration", players, [*self.by, *ACTIONS.values()])
        cells = grouping(players, self.by)
        acts = cells.indexed(cells.grouped(players[list(ACTIONS.values())])
                             .agg(["sum", "mean"]))
        rows = []
        cells = grouping(games, self.by)
        # The games' columns cut into their groups once, not a copy of each group's rows.
        split = {col: cells.split(values) for col, values in (
            ("n_players", games["n_players"].to_numpy()),
            ("turns", games["turns"].to_numpy(dtype=float)),
            ("rounds", games["rounds"].to_numpy()),
            ("round_limit", (games["end_reason"].astype(str) == "round_limit").to_numpy()))}
        for i, key in enumerate(cells.keys):
            n = int(split["n_players"][i][0])
            tpp = split["turns"][i] / n
            mean, _, lo, hi = mean_ci(tpp, self.level)
            row: dict[str, Any] = {**dict(zip(self.by, key, strict=True)), "games": len(tpp),
                                   "turns_per_player": mean, "tpp_lo": lo, "tpp_hi": hi,
                                   "rounds": float(pd.Series(split["rounds"][i]).mean()),
                                   "round_limit_share": float(
                                       pd.Series(split["round_limit"][i]).mean())}
            a = acts.loc[key]
            total = sum(float(a[(col, "sum")]) for col in ACTIONS.values())
            for name, col in ACTIONS.items():
                row[f"{name}_per_player"] = float(a[(col, "mean")])
                row[f"{name}_share"] = float(a[(col, "sum")]) / total if total else np.nan
            ref = reference_turns(n)
            row["reference"] = np.nan if ref is None else ref
            row["ratio"] = np.nan if ref is None else mean / ref
            row["far"] = far_from_real_play(mean, n)
            rows.append(row)
        return pd.DataFrame(rows)
