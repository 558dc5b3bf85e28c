"""River Market's "report" facet (`analysis.facets.ReportFacet`): what its studies, reports
and README answers show beyond what every game's do.

Its point sources in the rulebook's scoring order (as its run tables define them), the
columns compared between variants, why its fairness knob (every seat's extra Coins) has a
floor and the README answers of its committed reports. It offers none of the optional
sections (its runs keep no event log) and every seat starts at 0 points.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

from sim.games.river.runs import SOURCES

if TYPE_CHECKING:
    from analysis.report.summaries import Summaries

# -- points -----------------------------------------------------------------------------------
POINT_SOURCES = tuple(SOURCES.items())
POINT_MEASURES = (("event_points", "Event points"), ("booth_points", "Booth points"),
                  ("helper_points", "Helper points"), ("coin_points", "leftover Coin points"),
                  ("goods_points", "leftover Goods points"))
POINTS_LEAD = ("Mean points per player in the rulebook's scoring order: Events attended, "
               "Booths built (printed value, bonus and stored resources), Helpers hired (the "
               "same), leftover Coins (1 per two) and leftover Goods (1 per batch of three "
               "different). They add up to the mean final score.")
SECTIONS: frozenset[str] = frozenset()
# Agents that play at least as well as its heuristic (its greedy agent is the weak one).
STRONG_AGENTS = ("heuristic", "search")

# -- fairness ---------------------------------------------------------------------------------
# Why its seat bonus (extra starting Coins, its tuning facet's) cannot go lower.
BONUS_FLOOR = "Coins cannot go below 0"

# -- README's answers -------------------------------------------------------------------------
# The committed reports of its questions, with their places in reports/README.md.
REPORTS = {"river-market": 9, "river-coins": 10}
REPORT_NEEDS = {"river-market": "first_player", "river-coins": "seat_coins"}


def readme_answers(summaries: Summaries) -> list[str]:
    """Its block of README's answers: per player count, the first player's share at the
    study's strongest level with its label across the levels, and what the shorter game
    changes; then the extra Coins its fairness tuning recommends."""
    from analysis.report.answers import _advice_lines
    from analysis.report.answers import _notes

    with summaries.showing("river-market"):
        lines = _first_player(summaries.get("river-market"), summaries)
    rc = summaries.get("river-coins")
    if rc is not None:
        with summaries.showing("river-coins"):
            cells = "; ".join(f"{c['players']}p: {c['recommended']['seat_coins']}"
                              + _notes(c) for c in rc["cells"])
            lines += [f"**What extra starting Coins make River Market's seats fair "
                      f"({rc['agents']})?**", "", *_advice_lines(summaries, "river-coins"),
                      f"{cells} (seat 0 first; [report](reports/river-coins/index.html)).", ""]
    return lines


def _first_player(rm: dict[str, Any] | None, summaries: Summaries) -> list[str]:
    """The first player's edge and the shorter game's change, per player count."""
    from analysis.report.answers import _advice_lines
    from analysis.report.answers import _change
    from analysis.report.answers import _converged
    from analysis.report.answers import _games
    from analysis.report.answers import _ladder_findings
    from analysis.report.answers import _seat0_changes
    from analysis.report.answers import _top_level

    lines: list[str] = []
    if rm is not None and rm.get("skill"):
        verdicts = _ladder_findings(rm)
        top = _top_level(rm)
        first = {(r["variant"], r["n_players"]): r for r in rm["first_player"]}
        changes = {int(r["n_players"]): r for r in _seat0_changes(rm)}
        lines += [
            "**River Market, the second game (on a reconstructed card set): does the first "
            "player have an edge, and does the rulebook's shorter game (4 houses) change "
            "it?**", "", *_advice_lines(summaries, "river-market"),
            f"Measured at {len(rm['skill']['levels'])} levels of play in every seat, "
            f"shown at the strongest, {top} ([report](reports/river-market/index.html), "
            f"{_games(rm):,} games); the labels are across its own levels.",
            "",
            f"| players | first player wins at {top} | edge across levels | the shorter "
            "game changes it by | across levels | converged? |",
            "| --- | --- | --- | --- | --- | --- |"]
        for n in sorted({int(r["n_players"]) for r in rm["first_player"]}):
            base = first.get(("standard", n))
            fp = verdicts.get(("first player", n, "standard", "seat 0 win share"))
            eff = verdicts.get(("effect", n, "short", "seat 0 win share"))
            share = (f"{100 * base['share']:.1f}% [{100 * base['adj_lo']:.1f}, "
                     f"{100 * base['adj_hi']:.1f}] (fair {100 * base['fair']:.0f}%)"
                     if base else "–")
            change = _change(changes[n]) if n in changes else "–"
            lines.append(f"| {n} | {share} | **{fp['label'] if fp else 'not examined'}** | "
                         f"{change} | **{eff['label'] if eff else 'not examined'}** | "
                         f"{_converged(fp)} |")
        lines.append("")
    return lines
