"""The skill section as the page shows it: the findings by level with their labels, game
length by level, and what the section's text needs, from what `analysis.report.skill`
computed."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from analysis import compare as C
from analysis.metrics.convergence import CONVERGED
from analysis.metrics.convergence import RULE as CONVERGENCE_RULE
from analysis.metrics.robustness import RULE
from analysis.report.model import Analysis
from analysis.report.skill import ROUNDS
from analysis.report.skill import SIGNIFICANCE
from analysis.report.skill import doubled_agent
from analysis.report.skill import finding_name
from analysis.report.skill import games_played
from analysis.report.skill import skill_counts
from analysis.report.table import Row
from analysis.report.table import Table

# The comparisons measures the section's chart and first table show (the others are in a
# second table): every seat's win share, and game length.
HEADLINE_EFFECTS = ("seat 0 win share", "seat 1 win share", "seat 2 win share",
                    "seat 3 win share", ROUNDS)

# -- presentation ---------------------------------------------------------------------------
def _value(x: float, kind: str) -> str:
    """A finding's estimate: shares in signed pp without the unit, others to 2 decimals."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{100 * x:+.1f}" if kind == C.SHARE else f"{x:+.2f}"

def _interval(lo: float, hi: float, kind: str) -> str:
    """An interval as `-1.2 to +3.4` (pp for shares), more digits where a bound is near 0."""
    if lo is None or math.isnan(lo) or math.isnan(hi):
        return "–"
    return f"{C.bound(lo, kind, unit=False)} to {C.bound(hi, kind, unit=False)}"

def _findings_table(a: Analysis, headline: bool) -> Table:
    """The findings with one column per level (estimate, Holm-adjusted interval, * when
    significant), the size change and the verdict; `headline`: the first player, the seats
    and the effects on them and on length, else the other effects."""

    sk = a.skill
    assert sk is not None
    f = sk.findings
    main = (f["kind"] != "effect") | f["measure"].isin(HEADLINE_EFFECTS)
    f = f[main] if headline else f[~main]
    est = {(r.kind, int(r.n_players), r.variant, r.measure, r.level): r
           for r in sk.estimates.itertuples(index=False)}
    headers = ("players", "finding", "verdict", "at the top",
               *(f"{sk.label(lv)}" for lv in sk.levels), "change (Holm)")
    rows = []
    for r in f.sort_values(["n_players"], kind="stable").itertuples(index=False):
        cells: list[tuple[str, str]] = [(str(r.n_players), "num"),
                                        (finding_name(r, a.labels), "txt"), (r.verdict, "txt"),
                                        (r.convergence_text, "txt")]
        for lv in sk.levels:
            e = est.get((r.kind, r.n_players, r.variant, r.measure, lv))
            if e is None or math.isnan(e.estimate):
                cells.append(("–", "txt"))
                continue
            cells.append((f"{_value(e.estimate, e.value_kind)} "
                          f"({_interval(e.adj_lo, e.adj_hi, e.value_kind)})"
                          + (" *" if e.significant else ""), "txt"))
        if isinstance(getattr(r, "change_diff", None), float) and not math.isnan(r.change_diff):
            cells.append((f"{_value(r.change_diff, r.value_kind)} "
                          f"({_interval(r.change_adj_lo, r.change_adj_hi, r.value_kind)})"
                          + (" *" if r.change_significant else ""), "txt"))
        else:
            cells.append(("–", "txt"))
        rows.append(Row(tuple(cells), r.label == "robust"))
    return Table(headers, tuple(rows))

def _length_table(a: Analysis) -> Table:
    """Game length by level per cell (95% CI) and its change (Holm-adjusted, * significant)."""

    sk = a.skill
    assert sk is not None
    rows = []
    for (n, v), d in sk.length.groupby(["n_players", "variant"], sort=False):
        by = {r.level: r for r in d.itertuples(index=False)}
        cells: list[tuple[str, str]] = [(str(n), "num"), (a.labels.get(v, v), "txt")]
        for lv in sk.levels:
            r = by.get(lv)
            cells.append(("–", "txt") if r is None else
                         (f"{r.mean:.2f} ({r.lo:.2f}–{r.hi:.2f})", "num"))
        first = d.iloc[0]
        if pd.notna(first.get("change_diff", np.nan)):
            sig = bool(first["change_significant"])
            word = (("longer" if first["change_diff"] > 0 else "shorter") + " with stronger play"
                    if sig else "no significant change")
            cells.append((f"{first['change_diff']:+.2f} ({first['change_adj_lo']:+.2f} to "
                          f"{first['change_adj_hi']:+.2f}){' *' if sig else ''}", "num"))
            cells.append((word, "txt"))
        else:
            cells += [("–", "txt"), ("–", "txt")]
        rows.append(Row(tuple(cells), False))
    headers = ("players", "variant", *(sk.label(lv) for lv in sk.levels),
               "change, strongest − weakest (Holm)", "")
    return Table(headers, tuple(rows))

def skill_tables(a: Analysis) -> dict[str, Table]:
    """The section's tables: `skill` (headline findings), `skill_other` (the other
    comparisons' measures) and `skill_length`; none without the section."""
    if a.skill is None:
        return {}
    return {"skill": _findings_table(a, True), "skill_other": _findings_table(a, False),
            "skill_length": _length_table(a)}

def _first_player_answers(a: Analysis) -> list[dict[str, Any]]:
    """Each variant's change in the first player's win share, per player count, at the two
    strongest levels (estimate and Holm-adjusted interval), with its skill and convergence
    labels: the study's central answer, for the page's first screen."""
    sk = a.skill
    assert sk is not None
    f = sk.findings
    f = f[(f["kind"] == "effect") & (f["measure"] == "seat 0 win share")]
    est = {(int(r.n_players), r.variant, r.level): r
           for r in sk.estimates.itertuples(index=False)
           if r.kind == "effect" and r.measure == "seat 0 win share"}
    out = []
    for r in f.sort_values(["variant", "n_players"], kind="stable").itertuples(index=False):
        at = []
        for lv in sk.levels[-2:]:
            e = est.get((int(r.n_players), r.variant, lv))
            if e is None or math.isnan(e.estimate):
                continue
            at.append(f"{sk.label(lv)} {_value(e.estimate, e.value_kind)} pp "
                      f"({_interval(e.adj_lo, e.adj_hi, e.value_kind)})")
        out.append({"players": int(r.n_players), "variant": a.labels.get(r.variant, r.variant),
                    "baseline": a.labels.get(r.baseline, r.baseline), "at": at,
                    "label": r.label, "convergence": r.convergence_text})
    return out

def skill_context(a: Analysis) -> dict[str, Any] | None:
    """What the page's section needs besides tables and images (None: no section)."""
    sk = a.skill
    if sk is None:
        return None
    info = sk.data.skill
    strong = bool(info and any(info.strong[info.names.index(lv)] for lv in sk.levels))
    levels = []
    for i, lv in enumerate(sk.levels):
        games = games_played(sk, lv)
        notes = (["from the heuristic up"] if strong and i == sk.start else []) + (
            ["shown in the report's body"] if lv == sk.headline else [])
        levels.append({"name": lv, "label": sk.label(lv), "agents": sk.level_agents[lv],
                       "upper": sk.start > 0 and i >= sk.start, "note": " · ".join(notes),
                       "games": ", ".join((f"{lo:,}" if lo == hi else f"{lo:,}–{hi:,}")
                                          + f" at {n}p" for n, (lo, hi) in games.items())})
    robust = sk.findings[sk.findings["label"] == "robust"]
    conv = sk.findings["convergence"]
    checks = [f"{n} players: {c.share.estimate:.3f} [{c.share.lo:.3f}, {c.share.hi:.3f}] "
              f"against a fair {c.fair:.3f} in {c.games:,} games ({c.state()})"
              for n, c in sorted(sk.saturation.items())]
    return {"levels": levels, "start": sk.label(sk.levels[sk.start]), "strong": strong,
            "headline": sk.label(sk.headline), "counts": skill_counts(sk),
            "robust": len(robust), "rule": RULE, "significance": SIGNIFICANCE,
            "converged": int((conv == CONVERGED).sum()), "not_converged":
            int((conv != CONVERGED).sum()), "convergence_rule": CONVERGENCE_RULE,
            "doubled": doubled_agent(sk.data), "checks": checks,
            "top_pair": (sk.label(sk.levels[-2]), sk.label(sk.levels[-1])),
            "figures": [(f"skill_{n}p", f"{n} players") for n in a.data.player_counts
                        if (sk.estimates["n_players"] == n).any()],
            "variants": len(a.data.variants), "answers": _first_player_answers(a)}
