"""The sweep section as the page shows it: each headline measure drawn against the swept
switch, its table and its text, from what `analysis.report.sweep` computed."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import PercentFormatter

from analysis import plots as P
from analysis.facets import sources
from analysis.report.model import Analysis
from analysis.report.sweep import MEASURES
from analysis.report.sweep import sweep_table
from analysis.report.table import Table
from analysis.report.table import frame_table

STYLES = ("-", "--", ":", "-.")

MARKERS = ("o", "s", "^", "D")

MAX_SEATS = 5


def drawn_sources(df: pd.DataFrame, game: str) -> list[str]:
    """The game's point sources a sweep draws, in scoring order (the start score, the same
    for every value, left out)."""
    held = set(df.loc[df["measure"] == "points", "series"])
    points = sources(game)
    names = points.names if points is not None else ()
    return [s for s in names if s in held and s != "start"]

def _is_numeric(values: Sequence[Any]) -> bool:
    """Whether swept values can stand on a number line (not booleans, lists or tables)."""
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)

def _positions(df: pd.DataFrame, order: Sequence[str]) -> tuple[dict[str, float], list[float],
                                                               list[str]]:
    """x position of each value text, with tick positions and labels: the values
    themselves when numeric, else 0, 1, 2 in sweep order (`order`, else as the cells come)."""
    firsts = df.drop_duplicates("x_text")
    if _is_numeric(list(firsts["x"])):
        firsts = firsts.assign(_x=firsts["x"].astype(float)).sort_values("_x")
        pos = dict(zip(firsts["x_text"], firsts["_x"], strict=True))
    else:
        texts = list(firsts["x_text"])
        texts.sort(key=lambda x: list(order).index(x) if x in order else len(order))
        pos = {x: float(i) for i, x in enumerate(texts)}
    return pos, list(pos.values()), list(pos)

def _baseline_x(a: Analysis, df: pd.DataFrame, n: int) -> str | None:
    """The swept value of the baseline at a player count (marked in every panel)."""
    row = df[(df["variant"] == a.data.baseline) & (df["n_players"] == n)]
    return None if row.empty else str(row["x_text"].iloc[0])

def sweep_figure(a: Analysis, measure: str) -> Figure:
    """One measure against the swept value, one panel per player count, 95% intervals.

    Win shares: a line per seat (dashed black: the fair share 1/n); points: a line per
    source; both with one line style per group. The advantage and rounds: one line per
    group. The baseline's value is marked by a grey band."""
    df = sweep_table(a)
    assert df is not None
    df = df[df["measure"] == measure]
    info = a.data.sweep
    assert info is not None
    key = info.keys[0]
    groups = list(dict.fromkeys(df["group"]))
    with mpl.rc_context(P.RC):
        counts = sorted(df["n_players"].unique())
        fig, axes = P._facets(len(counts), height=3.8, width=max(5.6, 4.4 * len(counts)))
        series = list(dict.fromkeys(df["series"]))
        if measure == "points":
            series = [s for s in drawn_sources(df, a.data.game) if s in series]
        for ax, n in zip(axes, counts, strict=True):
            sub = df[df["n_players"] == n]
            pos, ticks, names = _positions(sub, info.order)
            span = (max(ticks) - min(ticks)) or 1.0
            lines = [(s, g) for g in groups for s in series if not sub[
                (sub["series"] == s) & (sub["group"] == g)].empty]
            for i, (s, g) in enumerate(lines):
                d = sub[(sub["series"] == s) & (sub["group"] == g)]
                x = d["x_text"].map(pos).to_numpy() + (i - (len(lines) - 1) / 2) * 0.012 * span
                order = np.argsort(x)
                y, lo, hi = (d[c].to_numpy(dtype=float)[order] for c in ("value", "lo", "hi"))
                scale = 100.0 if measure == "first player advantage" else 1.0
                colour = _colour(measure, s, series, g, groups, a.data.game)
                ax.errorbar(x[order], scale * y, yerr=P._err(scale * y, scale * lo, scale * hi),
                            color=colour, ls=STYLES[groups.index(g) % len(STYLES)],
                            marker=MARKERS[groups.index(g) % len(MARKERS)], ms=4.5,
                            capsize=3, lw=1.6)
            base = _baseline_x(a, sub, n)
            if base is not None and base in pos:
                ax.axvspan(pos[base] - 0.03 * span, pos[base] + 0.03 * span, color="#dddddd",
                           zorder=0, lw=0)
            if measure == "win share":
                ax.axhline(1 / n, **P.FAIR_STYLE)
                ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
            elif measure == "first player advantage":
                ax.axhline(0, **P.FAIR_STYLE)
            ax.set_xticks(ticks, names, rotation=0 if len("".join(names)) < 40 else 20)
            ax.set_xlim(min(ticks) - 0.08 * span, max(ticks) + 0.08 * span)
            ax.set_xlabel(key + (" (grey: baseline)" if base is not None else ""))
            ax.set_title(f"{n} players")
        axes[0].set_ylabel({"win share": "win share (95% CI)",
                            "first player advantage": "advantage (pp, 95% CI)",
                            "rounds": "mean rounds (95% CI)",
                            "points": "mean points per player (95% CI)"}[measure])
        _sweep_legend(fig, measure, series, groups, a.data.game)
        fig.suptitle(MEASURES[measure], fontsize=11, fontweight="bold")
        return fig

def _colour(measure: str, s: str, series: Sequence[str], g: str,
            groups: Sequence[str], game: str) -> Any:
    """Seats and sources by colour (groups by line style); single lines by group."""
    if measure == "points":
        points = sources(game)
        return (P.source_colours(points) if points is not None else {}).get(s, "#333333")
    if measure == "win share":
        return P.PALETTE[series.index(s) % len(P.PALETTE)]
    return P.PALETTE[groups.index(g) % len(P.PALETTE)]

def _sweep_legend(fig: Figure, measure: str, series: Sequence[str],
                  groups: Sequence[str], game: str) -> None:
    """Legend below the panels: seats or sources by colour, groups by line style."""
    handles: list[Line2D] = []
    names: list[str] = []
    if measure in ("win share", "points"):
        for s in series:
            handles.append(Line2D([], [], color=_colour(measure, s, series, "", groups, game),
                                  marker="o", lw=2))
            names.append(s + (" (first)" if s == "seat 0" else ""))
        if len(groups) > 1:
            for i, g in enumerate(groups):
                handles.append(Line2D([], [], color="#333333", ls=STYLES[i % len(STYLES)],
                                      marker=MARKERS[i % len(MARKERS)]))
                names.append(g)
    elif len(groups) > 1:
        for i, g in enumerate(groups):
            handles.append(Line2D([], [], color=P.PALETTE[i % len(P.PALETTE)],
                                  ls=STYLES[i % len(STYLES)], marker=MARKERS[i % len(MARKERS)]))
            names.append(g)
    if measure in ("win share", "first player advantage"):
        handles.append(Line2D([], [], **{k: v for k, v in P.FAIR_STYLE.items()
                                         if k != "zorder"}))
        names.append("fair share 1/n" if measure == "win share" else "no advantage")
    if handles:  # as many columns as fit the figure's width (about 1.7 in each)
        fit = max(2, int(fig.get_figwidth() / 1.7))
        rows = -(-len(handles) // fit)
        fig.legend(handles, names, loc="outside lower center",
                   ncols=-(-len(handles) // rows))

def sweep_figures(a: Analysis) -> dict[str, Figure]:
    """The section's charts by name (`sweep_<measure>`) of the measures the sweep has (a
    game without point sources has no points); none without a sweep."""
    df = sweep_table(a)
    if df is None:
        return {}
    held = set(df["measure"])
    return {f"sweep_{m.replace(' ', '_')}": sweep_figure(a, m) for m in MEASURES if m in held}

def sweep_tables(a: Analysis) -> dict[str, Table]:
    """The section's table (`sweep`): one row per cell in sweep order, with every seat's
    win share, the first player's advantage, rounds and points by source."""

    df = sweep_table(a)
    if df is None:
        return {}
    rows = []
    sources = drawn_sources(df, a.data.game)
    for (n, variant), d in df.groupby(["n_players", "variant"], sort=False):
        get = _getter(d)
        row: dict[str, Any] = {"n_players": n, "group": d["group"].iloc[0],
                               "x": d["x_text"].iloc[0], "_x": d["x"].iloc[0],
                               "baseline": "baseline" if variant == a.data.baseline else ""}
        for s in range(MAX_SEATS):
            row[f"seat {s}"] = get("win share", f"seat {s}")[0]
        adv, lo, hi = get("first player advantage", "")
        row["adv"] = f"{100 * adv:+.1f} ({100 * lo:+.1f} to {100 * hi:+.1f})"
        r, rlo, rhi = get("rounds", "")
        row["rounds"] = "–" if pd.isna(r) else f"{r:.2f} ({rlo:.2f}–{rhi:.2f})"
        for s in sources:
            row[s] = get("points", s)[0]
        rows.append(row)
    out = pd.DataFrame(rows)
    numeric = _is_numeric(list(out["_x"]))
    order = list(a.data.sweep.order) if a.data.sweep else []
    out["_o"] = (out["_x"].astype(float) if numeric else
                 out["x"].map(lambda x: order.index(x) if x in order else len(order)))
    out = out.sort_values(["n_players", "group", "_o"], kind="stable")
    pct = lambda x: "" if pd.isna(x) else f"{100 * x:.1f}%"  # noqa: E731
    num = lambda x: "" if pd.isna(x) else f"{x:.1f}"  # noqa: E731
    seats = [f"seat {s}" for s in range(MAX_SEATS) if out[f"seat {s}"].notna().any()]
    columns: dict[str, tuple[str, Any]] = {"n_players": ("players", str)}
    if out["group"].astype(bool).any():
        columns["group"] = ("line", None)
    columns |= {"x": (a.data.sweep.keys[0] if a.data.sweep else "value", None),
                "baseline": ("", None),
                **{s: (s + (" (first)" if s == "seat 0" else ""), pct) for s in seats},
                "adv": ("first player advantage, pp (95% CI)", None),
                "rounds": ("rounds (95% CI)", None),
                **{s: (s, num) for s in sources}}
    return {"sweep": frame_table(out, columns)}

def _getter(d: pd.DataFrame) -> Any:
    """A lookup of (measure, series) -> (value, lo, hi) in one cell's rows (NaN if absent)."""
    index: Mapping[tuple[str, str], tuple[float, float, float]] = {
        (r.measure, r.series): (r.value, r.lo, r.hi) for r in d.itertuples(index=False)}
    nan = (float("nan"),) * 3
    return lambda m, s: index.get((m, s), nan)

def sweep_context(a: Analysis) -> dict[str, Any] | None:
    """What the page's sweep section needs besides images and tables (None: no section)."""
    info = a.data.sweep
    df = sweep_table(a)
    if info is None or df is None:
        return None
    held = set(df["measure"])
    lines = [*(["the variant"] if any(info.bases.values()) else []), *info.keys[1:]]
    return {"key": info.keys[0], "switches": list(info.keys), "lines": " and ".join(lines),
            "baseline": a.labels.get(a.data.baseline, a.data.baseline),
            "columns": 2 if len(a.data.player_counts) == 1 else 1,
            "figures": [(f"sweep_{m.replace(' ', '_')}", title)
                        for m, title in MEASURES.items() if m in held]}
