"""Portobello Market's "report" facet (`analysis.facets.ReportFacet`): what its studies,
reports and README answers show beyond what every game's do.

Its point sources (the start score, lanes, districts, the baron's end scoring, Bobby fees
received and paid), the report sections it offers (calibration against real play; from
the events table the district timing, customer luck and lanes with the board's heat maps),
the stall count whose rulebook value depends on the player count, the README answers of
its committed reports and its exploitability probe (`sim.games.portobello.probe`).

The analysis modules it writes with are imported when first needed, so naming the facet
loads neither the report nor the engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

from sim.games.portobello.rules import DEFAULT_STALLS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from analysis.probe import Challenger
    from analysis.probe import ProbeConfig
    from analysis.report.summaries import Summaries

# -- points -----------------------------------------------------------------------------------
POINT_SOURCES = (("start", "start_score"), ("lanes", "lane_points"),
                 ("districts", "district_points"), ("baron", "baron_points"),
                 ("bobby received", "bobby_received"), ("bobby paid", "bobby_paid"))
NEGATIVE_SOURCES = ("bobby paid",)
SOURCE_COLOURS = {"start": "#bbbbbb", "lanes": "#0173b2", "districts": "#de8f05",
                  "baron": "#029e73", "bobby received": "#cc78bc", "bobby paid": "#d55e00"}
POINT_MEASURES = (("lane_points", "lane points"), ("district_points", "district points"),
                  ("baron_points", "baron points"), ("bobby_paid", "Bobby fees paid"))
POINTS_LEAD = ("Mean points per player: start score, lanes scored during play, districts, "
               "lanes scored at the end through the baron, Bobby fees received, and Bobby "
               "fees paid (to players or to nobody). They add up to the mean final score.")

# -- sections ---------------------------------------------------------------------------------
SECTIONS = frozenset({"calibration", "districts", "luck", "lanes"})
# The events the event sections read (`analysis.study.StudyData.events`).
EVENT_ACTIONS = ("score_district", "place_stall", "score_lane", "score_lane_baron",
                 "draw_customer", "place_customer", "place_baron")
TEXT_COLUMNS = ("lane", "square", "district", "customer", "customer_order", "neutral_stack")
ANOMALOUS_ENDS = {"board_exhausted": "board exhausted"}

# -- rules and agents -------------------------------------------------------------------------
COUNT_DEFAULTS = {"stalls_per_player": DEFAULT_STALLS}
# Agents that play at least as well as the tuned heuristic: the heuristic and the searches
# that use it for priors and rollouts (`analysis.study.skill.is_strong`).
STRONG_AGENTS = ("heuristic", "mcts", "fastmcts")


def start_scores(rules: Any) -> tuple[int, ...]:
    """Each seat's start score, seat 0 first (`start_scores`, else `start_score`)."""
    return tuple(rules.seat_start_scores)


def time_budget(spec: str) -> str | None:
    """An agent spec's time budget as written (`time=0.5`), None when its play depends on
    its seed alone."""
    from sim.games.portobello.agents.registry import time_budget as budget

    return budget(spec)


def play_fingerprint(spec: str, players: int) -> Any:
    """What an agent spec plays: its compiled row's kind and parameters where it has one
    (so pinned weights equal the weight set they pin), else the spec itself."""
    from sim.games.portobello.agents.registry import compiled_row

    row = compiled_row(spec, players)
    if row is None:
        return spec.strip()
    return (row.kind, tuple(float(x) for x in row.params), tuple(row.restrict))


# -- the board in the event sections ------------------------------------------------------
def lane_ids(board: Any) -> list[str]:
    """The board's lane ids, in board order."""
    return list(board.lane_ids)


def lane_ends(board: Any) -> dict[str, tuple[str, str]]:
    """Each lane id of the board with the ids of its two end squares."""
    return {board.lane_ids[i]: (board.square_ids[x], board.square_ids[y])
            for i, (x, y) in enumerate(board.lane_ends)}


def lane_spots(board: Any) -> dict[str, str]:
    """Each lane id with its printed spot values, `1-2-3`."""
    return {board.lane_ids[i]: "-".join(map(str, s)) for i, s in enumerate(board.lane_spots)}


def heat_boards(board: Any, ref: str | None, heats: Mapping[str, Mapping[str, float]],
                title: str, measure: str, labels: Mapping[str, str] | None) -> Figure:
    """The board once per variant, its lanes coloured by a value per lane on one scale,
    drawn as `portobello board show` draws the board file `ref` names."""
    from sim.games.portobello.view.draw import lane_heat_boards
    from sim.games.portobello.view.draw import with_layout_of

    return lane_heat_boards(with_layout_of(board, ref), heats, title, measure, labels)


# -- README's answers -------------------------------------------------------------------------
# The committed reports of its questions, with their places in reports/README.md.
REPORTS = {"customer-order": 1, "skill-ladder": 2, "neutral-stack": 3,
           "neutral-stack-ladder": 4, "stalls": 5, "stalls-ladder": 6, "compensation": 7,
           "compensation-search": 8, "customer-order-population": 11,
           "first-player-population": 12, "compensation-robust": 13}
REPORT_NEEDS = {"customer-order": "first_player", "skill-ladder": "skill",
                "compensation": "start_scores", "compensation-search": "start_scores"}
LADDER_OF = {"customer-order": "skill-ladder", "neutral-stack": "neutral-stack-ladder",
             "stalls": "stalls-ladder"}
POPULATION_OF = {"customer-order": "customer-order-population",
                 "skill-ladder": "customer-order-population"}


def readme_answers(summaries: Summaries) -> list[str]:
    """Its block of README's answers: the central question (does the known customer order
    change the first player's edge?), the neutral stack, the stall count, and the start
    scores that make the seats fair."""
    from analysis.report.answers import _advice_lines
    from analysis.report.answers import _laddered
    from analysis.report.answers import _notes

    lines: list[str] = []
    with summaries.showing("customer-order", "skill-ladder"):
        lines += _customer_order(summaries)
    lines += _laddered(summaries, "neutral-stack", "Does the neutral stack's order matter?",
                       "the standard stack")
    lines += _laddered(summaries, "stalls", "How many stalls at four players?",
                       "the rulebook's 16")
    # The compensation fair at every level of play when it has been tuned; else the one
    # tuned for the learned agent (both are in reports/README.md).
    for name in ("compensation-robust",) if summaries.get("compensation-robust") else (
            "compensation",):
        fr = summaries.get(name)
        if fr is None:
            continue
        with summaries.showing(name):
            cells = "; ".join(
                f"{c['label']} at {c['players']}p: {c['recommended']['start_scores']}"
                + _notes(c) for c in fr["cells"])
            lines += [f"**What start scores make the seats fair ({fr['agents']})?**", "",
                      *_advice_lines(summaries, name),
                      f"{cells} (seat 0 first; [report](reports/{name}/index.html)).", ""]
    return lines


def _customer_order(summaries: Summaries) -> list[str]:
    """The central question: the known customer order's change of the first player's share
    per player count, each with its label across the skill ladder's levels; then the first
    player's own edge across them."""
    from analysis.report.answers import _advice_lines
    from analysis.report.answers import _change
    from analysis.report.answers import _converged
    from analysis.report.answers import _games
    from analysis.report.answers import _ladder_findings
    from analysis.report.answers import _level_of
    from analysis.report.answers import _seat0_changes
    from analysis.report.answers import _top
    from analysis.report.answers import _top_level
    from analysis.report.answers import _whoever_plays

    co, lad = summaries.get("customer-order"), summaries.get("skill-ladder")
    if co is None:
        return []
    verdicts = _ladder_findings(lad)
    top = _top_level(lad)
    first = {(r["variant"], r["n_players"]): r for r in co["first_player"]}
    lines = [
        "**Does the known customer order change the first player's edge?**", "",
        *_advice_lines(summaries, "customer-order"),
        f"Measured with the {_level_of(co)} in every seat "
        "([report](reports/customer-order/index.html), "
        f"{_games(co):,} games); the label is the "
        "[skill ladder](reports/skill-ladder/index.html)'s across "
        f"{len(lad['skill']['levels']) if lad else 'several'} levels of play "
        "(robust would mean: the same direction at every level from the heuristic up); "
        "converged would mean: the next stronger level no longer moves it (the two "
        "strongest levels agree within ±2 pp).",
        "",
        "| players | first player wins, standard rules | known order changes it by "
        f"(Holm-adjusted) | skill ladder | at {top} | converged? |",
        "| --- | --- | --- | --- | --- | --- |"]
    for r in _seat0_changes(co):
        n = int(r["n_players"])
        base = first.get((r["baseline"], n))
        f = verdicts.get(("effect", n, r["variant"], "seat 0 win share"))
        share = (f"{100 * base['share']:.1f}% (fair {100 * base['fair']:.0f}%)"
                 if base else "–")
        lines.append(f"| {n} | {share} | {_change(r)} | "
                     f"**{f['label'] if f else 'not examined'}** | {_top(f)} | "
                     f"{_converged(f)} |")
    lines.append("")
    fp = [verdicts.get(("first player", n, "standard", "seat 0 win share"))
          for n in (2, 3, 4)]
    lines += _whoever_plays(summaries, "customer-order-population")
    if any(fp):
        words = ", ".join(f"{n} players: **{f['label']}** ({_top(f)} at {top}"
                          + (f"; {_converged(f)}" if f.get("convergence") else "") + ")"
                          for n, f in zip((2, 3, 4), fp, strict=True) if f)
        lines += ["**Does the first player have an edge (standard rules)?**", "",
                  *_advice_lines(summaries, "first-player-population"),
                  f"Across the skill ladder: {words}.", ""]
    lines += _whoever_plays(summaries, "first-player-population")
    return lines


# -- the exploitability probe -----------------------------------------------------------------
def check_probe(config: ProbeConfig) -> None:
    """Refuse probe input only this game's agents can judge (weights it cannot step)."""
    from sim.games.portobello.probe import check_probe as check

    check(config)


def probe_challengers(config: ProbeConfig, players: int, weights_dir: Path
                      ) -> tuple[list[Challenger], dict[str, float] | None]:
    """The probe's challengers of `config.agent` at `players` (`sim.games.portobello.probe`)
    and, when the stepped weights are not named, the pilot's ranking of the weights (None
    when they are)."""
    from sim.games.portobello.probe import probe_challengers as found

    return found(config, players, weights_dir)
