"""The report's charts: every table of the analysis drawn (name -> matplotlib Figure, or
PNG bytes for the board), the sections' figures included. The notebooks call `figures` to
show the report's own charts."""

from __future__ import annotations

from typing import Any

from analysis import plots as P
from analysis.facets import report_facet
from analysis.facets import sources
from analysis.report.model import Analysis
from analysis.report.skill_figures import skill_figures
from analysis.report.sweep_view import sweep_figures


def figures(a: Analysis) -> dict[str, Any]:
    """The report's charts: name -> matplotlib Figure (or PNG bytes for the board)."""
    t, L = a.tables, a.labels
    data = a.data
    figs: dict[str, Any] = {
        "win_shares": P.seat_win_shares(t["win_shares"], L),
        "scores": P.score_distributions(data.players(), L),
        "margins": P.margins(t["margins_games"], L),
        "length": P.game_length(data.games(), L),
    }
    points = sources(data.game)
    if "points" in t and points is not None:
        figs["points"] = P.points_by_source(t["points"], L, points)
    figs["endings"] = P.end_reasons(t["endings"], L)
    if "comparisons" in t:
        figs["comparisons"] = P.seat_differences(t["comparisons"], L)
    if "district_scorings" in t:
        figs["districts"] = P.district_timing(t["district_scorings"], L)
    if "luck_drawn" in t:
        figs["luck_drawn"] = P.share_by_level(
            t["luck_drawn"], "aristocrats minus citizens the player drew",
            "Win share by the luck of the draw (chance in the drawn order; chosen in the "
            "known order)", L)
        figs["luck_ends"] = P.share_by_level(
            t["luck_ends"], "aristocrats at the player's scored lanes",
            "Win share by aristocrats at the player's own lanes", L)
    if "lanes" in t:
        figs.update(board_figures(a))
    figs.update(sweep_figures(a))
    figs.update(skill_figures(a))
    return figs

LANE_MEASURE = "points scored in the lane per game (all players together)"


def board_figures(a: Analysis) -> dict[str, Any]:
    """One lane-heat board figure per player count (`board_<n>p`): the variants side by
    side on one colour scale, drawn by the game's report facet (`heat_boards`) as
    `portobello board show` draws the study's board."""
    data = a.data
    lanes = a.tables["lanes"]
    ref = data.cells[0].run.manifest["board"].get("ref")
    facet = report_facet(data.game)
    assert facet is not None  # a game offers the lanes section through its facet
    out: dict[str, Any] = {}
    for n in data.player_counts:
        sub = lanes[lanes["n_players"] == n]
        heats = {v: sub[sub["variant"].astype(str) == v].set_index("lane")["points_per_game"]
                 .to_dict() for v in data.variants if (sub["variant"].astype(str) == v).any()}
        if heats:
            out[f"board_{n}p"] = facet.heat_boards(
                data.board, ref, heats, f"{n} players: {LANE_MEASURE}", "points per game",
                a.labels)
    return out
