"""The skill section's figures: every headline measure against skill level, one figure per
player count (`analysis.report.skill` computes what they draw: its levels, labels and
Holm-adjusted intervals; this module only draws them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import PercentFormatter

from analysis import plots as P
from analysis.report.calibration_view import calibration_figure
from analysis.report.model import Analysis
from analysis.report.model import SkillAnalysis
from analysis.report.skill import ROUNDS

# About how many characters of legend text fit across an inch of a skill figure.
LEGEND_CHARS_PER_INCH = 11.6
# Seats by colour where variants are told apart by line style: colours no variant takes
# first (variants take the palette in order), so a seat never reads as a variant.
SEAT_COLOURS = ("#222222", P.PALETTE[4], P.PALETTE[5], P.PALETTE[9], P.PALETTE[7])



def _xs(levels: Sequence[str], present: Sequence[str], i: int, k: int) -> np.ndarray:
    """x positions of levels for line i of k (a small sideways offset keeps bars apart)."""
    pos = {lv: j for j, lv in enumerate(levels)}
    return np.array([pos[lv] for lv in present], dtype=float) + (i - (k - 1) / 2) * 0.07


def _frame_axis(ax: Axes, sk: SkillAnalysis) -> None:
    """Level names on the x axis in listed order, the levels from the heuristic up shaded."""
    k = len(sk.levels)
    if sk.start > 0:
        ax.axvspan(sk.start - 0.5, k - 0.5, color="#f1f4f8", zorder=0, lw=0)
    ax.set_xticks(range(k), [sk.label(lv) for lv in sk.levels],
                  rotation=0 if sum(len(sk.label(lv)) for lv in sk.levels) < 28 else 20)
    ax.set_xlim(-0.5, k - 0.5)


def _tested(ax: Axes, d: pd.DataFrame, sk: SkillAnalysis, colour: Any, i: int, k: int,
            scale: float, ls: str = "-") -> None:
    """A tested finding against level: thin bars the 95% interval, thick pale bars the
    Holm-adjusted one; filled markers where significant (the thick bar clears 0)."""
    d = d.assign(_o=d["level"].map({lv: j for j, lv in enumerate(sk.levels)})).sort_values("_o")
    if d.empty:
        return
    x = _xs(sk.levels, list(d["level"]), i, k)
    y = scale * d["estimate"].to_numpy(dtype=float)
    ax.errorbar(x, y, yerr=P._err(y, scale * d["adj_lo"], scale * d["adj_hi"]), fmt="none",
                ecolor=colour, alpha=0.3, elinewidth=5, capsize=0)
    ax.errorbar(x, y, yerr=P._err(y, scale * d["lo"], scale * d["hi"]), fmt="none",
                ecolor=colour, elinewidth=1.2, capsize=3)
    ax.plot(x, y, color=colour, ls=ls, lw=1.4)
    sig = d["significant"].to_numpy(dtype=bool)
    ax.scatter(x[sig], y[sig], color=colour, s=34, zorder=3, edgecolors=colour)
    ax.scatter(x[~sig], y[~sig], facecolors="white", edgecolors=colour, s=34, zorder=3,
               linewidths=1.4)


def skill_figure(a: Analysis, n: int) -> Figure:
    """One player count against skill: win share by seat, the first player's advantage
    and game length (top row); with variants, each variant's effect on the first player's
    share, on the other seats' shares and on length (bottom row)."""
    sk = a.skill
    assert sk is not None
    variants = a.data.variants
    colours = P.variant_colours(variants)
    styles = ("-", "--", ":", "-.")
    others = variants[1:]
    est = sk.estimates[sk.estimates["n_players"] == n]
    rows = 2 if others else 1
    with mpl.rc_context(P.RC):
        fig = Figure(figsize=(13.0, 3.7 * rows + 0.7), layout="constrained")
        FigureCanvasAgg(fig)
        axes = fig.subplots(rows, 3, squeeze=False)
        ax = axes[0][0]
        # Every variant's seats while that stays legible, else the baseline's (the effects
        # on the seats are in the bottom row).
        shown = variants if len(variants) <= 2 else variants[:1]
        for j, v in enumerate(shown):
            for seat in range(n):
                pts = [(lv, r) for lv in sk.levels for r in sk.analyses[lv].tables["win_shares"]
                       .itertuples(index=False) if r.n_players == n and str(r.variant) == v
                       and r.seat == seat]
                if not pts:
                    continue
                x = _xs(sk.levels, [lv for lv, _ in pts], seat + j * n, n * len(shown))
                y = np.array([r.share for _, r in pts])
                ax.errorbar(x, y, yerr=P._err(y, [r.lo for _, r in pts], [r.hi for _, r in pts]),
                            color=SEAT_COLOURS[seat], ls=styles[j % 4], marker="o", ms=4,
                            capsize=2.5, lw=1.4)
        ax.axhline(1 / n, **P.FAIR_STYLE)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        ax.set_title("Win share by seat (95% CI)" if shown == variants else
                     f"Win share by seat (95% CI)\n{a.labels.get(shown[0], shown[0])}")
        ax = axes[0][1]
        fp = est[est["kind"] == "first player"]
        for j, v in enumerate(variants):
            _tested(ax, fp[fp["variant"] == v], sk, colours[v], j, len(variants), 100.0)
        ax.axhline(0, **P.FAIR_STYLE)
        ax.set_title("First player's advantage (pp)")
        ax = axes[0][2]
        length = sk.length[sk.length["n_players"] == n]
        for j, v in enumerate(variants):
            d = length[length["variant"] == v]
            d = d.assign(_o=d["level"].map({lv: i for i, lv in enumerate(sk.levels)})
                         ).sort_values("_o")
            if d.empty:
                continue
            x = _xs(sk.levels, list(d["level"]), j, len(variants))
            y = d["mean"].to_numpy(dtype=float)
            ax.errorbar(x, y, yerr=P._err(y, d["lo"], d["hi"]), color=colours[v], marker="o",
                        ms=4.5, capsize=3, lw=1.6)
        ax.set_title("Game length (mean rounds, 95% CI)")
        if others:
            eff = est[est["kind"] == "effect"]
            ax = axes[1][0]
            for j, v in enumerate(others):
                _tested(ax, eff[(eff["variant"] == v) & (eff["measure"] == "seat 0 win share")],
                        sk, colours[v], j, len(others), 100.0)
            ax.axhline(0, **P.FAIR_STYLE)
            ax.set_title("Effect on the first player's share (pp)")
            ax = axes[1][1]
            if n > 2:
                k = (n - 1) * len(others)
                for j, v in enumerate(others):
                    for seat in range(1, n):
                        _tested(ax, eff[(eff["variant"] == v)
                                        & (eff["measure"] == f"seat {seat} win share")],
                                sk, SEAT_COLOURS[seat], (seat - 1) + j * (n - 1), k, 100.0,
                                styles[j % 4])
                ax.axhline(0, **P.FAIR_STYLE)
            else:
                ax.text(0.5, 0.5, "at 2 players seat 1's share\nmirrors seat 0's",
                        ha="center", va="center", transform=ax.transAxes, color="#5f6b7a")
                ax.set_yticks([])
            ax.set_title("Effect on the other seats' shares (pp)")
            ax = axes[1][2]
            for j, v in enumerate(others):
                _tested(ax, eff[(eff["variant"] == v) & (eff["measure"] == ROUNDS)], sk,
                        colours[v], j, len(others), 1.0)
            ax.axhline(0, **P.FAIR_STYLE)
            ax.set_title("Effect on game length (rounds)")
        for row in axes:
            for ax in row:
                _frame_axis(ax, sk)
        _skill_legend(fig, a, n)
        fig.suptitle(f"{n} players: each measure against skill level (weakest first)",
                     fontsize=12, fontweight="bold")
        return fig


def _skill_legend(fig: Figure, a: Analysis, n: int) -> None:
    """Variants by colour (and line style for seats), seats by colour, the markers' meaning."""
    sk = a.skill
    assert sk is not None
    variants = a.data.variants
    colours = P.variant_colours(variants)
    styles = ("-", "--", ":", "-.")
    handles: list[Any] = []
    names: list[str] = []
    for j, v in enumerate(variants):
        handles.append(Line2D([], [], color=colours[v], marker="o", lw=2,
                              ls=styles[j % 4] if len(variants) > 1 else "-"))
        names.append(a.labels.get(v, v) + (" (baseline)" if j == 0 and len(variants) > 1
                                            else ""))
    for seat in range(n):
        handles.append(Line2D([], [], color=SEAT_COLOURS[seat], marker="o", lw=2))
        names.append(f"seat {seat}" + (" (first)" if seat == 0 else ""))
    handles += [Line2D([], [], color="#444444", marker="o", ls="none"),
                Line2D([], [], color="#444444", marker="o", ls="none", markerfacecolor="white"),
                Line2D([], [], color="#444444", lw=5, alpha=0.3)]
    names += ["significant (Holm)", "not significant", "Holm-adjusted interval"]
    if sk.start > 0:
        handles.append(Patch(color="#f1f4f8"))
        names.append(f"from the heuristic up ({sk.label(sk.levels[sk.start])} on)")
    # As many columns as the longest name leaves room for across the figure's width.
    room = int(fig.get_figwidth() * LEGEND_CHARS_PER_INCH)
    ncols = max(1, min(len(handles), 6, room // (max(map(len, names)) + 6)))
    fig.legend(handles, names, loc="outside lower center", ncols=ncols)


def skill_figures(a: Analysis) -> dict[str, Figure]:
    """The section's charts by name: `skill_<n>p` per player count and the calibration
    chart (`calibration`); none without the section."""

    sk = a.skill
    if sk is None:
        return {}
    figs: dict[str, Figure] = {f"skill_{n}p": skill_figure(a, n) for n in a.data.player_counts
                               if (sk.estimates["n_players"] == n).any()}
    if "calibration" in a.tables:
        figs["calibration"] = calibration_figure(a.tables["calibration"], sk.levels,
                                                 sk.level_labels, a.labels)
    return figs
