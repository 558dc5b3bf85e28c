"""Charts of a fairness tuning (`sim.tuning.fairness`), from its summary: each seat's win
share against each knob, the confirmation before and after, and the search's history.

Colours are seats, the same seat the same colour in every chart; the dashed line is parity
(1/n); bars are 95% intervals. A tuning of several levels of play draws the recommendation
at every level, one hatching a level.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator
from matplotlib.ticker import PercentFormatter

from analysis.facets import seat_bonuses
from analysis.plots import FAIR_STYLE
from analysis.plots import PALETTE
from analysis.plots import RC
from analysis.plots import WIDTH

Cell = Mapping[str, Any]


def _seat_colour(seat: int) -> Any:
    return PALETTE[seat % len(PALETTE)]


def _value_text(value: Any) -> str:
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)


def profile_figure(cell: Cell) -> Figure | None:
    """Each seat's win share as one knob moves, the others at the recommendation: a panel
    per knob, the recommended value marked and the fair range shaded."""
    profiles = [p for p in cell["profiles"] if p["points"]]
    if not profiles:
        return None
    n = cell["players"]
    rec = cell["recommended"]["setting"]
    with mpl.rc_context(RC):
        fig = Figure(figsize=(WIDTH, 3.4))
        axes = fig.subplots(1, len(profiles), sharey=True, squeeze=False)[0]
        for ax, prof in zip(axes, profiles, strict=True):
            pts = prof["points"]
            dim = next(d for d in cell["dimensions"] if d["name"] == prof["dimension"])
            numeric = "low" in dim
            xs = np.array([p["value"] for p in pts], np.float64) if numeric else \
                np.arange(len(pts), dtype=np.float64)
            fr = prof["fair_range"]
            if numeric and fr:
                ax.axvspan(fr[0] - 0.5, fr[1] + 0.5, color="#d7f0e3", zorder=0,
                           label="fair range")
            for seat in range(n):
                mid = np.array([p["shares"][seat] for p in pts])
                lo = np.array([p["intervals"][seat][0] for p in pts])
                hi = np.array([p["intervals"][seat][1] for p in pts])
                off = (seat - (n - 1) / 2) * (0.08 if numeric else 0.06)
                ax.errorbar(xs + off, mid, yerr=[mid - lo, hi - mid], fmt="o-", ms=3.5, lw=1.2,
                            capsize=2, color=_seat_colour(seat), label=f"seat {seat}")
            ax.axhline(1 / n, **FAIR_STYLE)
            best = rec.get(prof["dimension"]) if rec else None
            if best is not None:
                bx = float(best) if numeric else float([p["value"] for p in pts].index(best))
                ax.axvline(bx, color="#555555", lw=0.9, ls=":")
            if numeric:
                ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            else:
                ax.set_xticks(xs, [_value_text(p["value"]) for p in pts], rotation=20,
                              ha="right")
            # what a seat-bonus knob's values are (its game's `analysis.facets.SeatBonus`)
            bonus = seat_bonuses().get(dim["switch"])
            unit = bonus.unit if bonus is not None else None
            ax.set_xlabel(prof["dimension"] + (f" ({unit})" if unit else ""))
            ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        axes[0].set_ylabel("win share")
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="upper center", ncol=n + 1,
                   bbox_to_anchor=(0.5, 1.0))
        fig.suptitle(f"{_title(cell)}: each seat's win share as one knob moves "
                     f"({pts[0]['games']:,} games per point)", y=0.9, fontsize=10.5,
                     fontweight="bold")
        fig.subplots_adjust(top=0.76, bottom=0.2, left=0.08, right=0.99, wspace=0.08)
    return fig


def _title(cell: Cell) -> str:
    return f"{cell['label']}, {cell['players']} players" if cell["label"] else \
        f"{cell['players']} players"


def _cell_grid(cells: Sequence[Cell], panel_height: float) -> tuple[Figure, Any]:
    """A figure with a panel per cell, three to a row; the panels left over are hidden."""
    cols = min(3, len(cells))
    rows = -(-len(cells) // cols)
    fig = Figure(figsize=(WIDTH, panel_height * rows + 0.5))
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in axes[len(cells):]:
        ax.set_visible(False)
    return fig, axes


LEVEL_HATCHES = ("", "///", "...", "xxx", "\\\\")  # a level of play's bars, cheapest first


def _bars(cell: Cell) -> list[tuple[Cell, float, str]]:
    """A panel's bar groups, (row, alpha, hatch) each: the rules as given (pale) and the
    recommendation; with several levels of play, the recommendation at each level."""
    rec = cell["recommended"]
    if "levels" in rec:
        return [(lv, 1.0, LEVEL_HATCHES[i % len(LEVEL_HATCHES)])
                for i, lv in enumerate(rec["levels"])]
    return [(cell["baseline"]["confirm"], 0.35, ""), (rec, 1.0, "")]


def confirmation_figure(cells: Sequence[Cell]) -> Figure:
    """Every seat's confirmed win share under the rules as given and under the
    recommendation (with several levels of play, the recommendation at each level), a
    panel per cell, against 1/n."""
    with mpl.rc_context(RC):
        fig, axes = _cell_grid(cells, 2.9)
        for ax, cell in zip(axes, cells, strict=False):
            n = cell["players"]
            bars = _bars(cell)
            width = 0.68 / len(bars)
            for k, (row, alpha, hatch) in enumerate(bars):
                for seat in range(n):
                    mid = row["shares"][seat]
                    lo, hi = row["intervals"][seat]
                    x = seat + (k - (len(bars) - 1) / 2) * width
                    ax.bar(x, mid, width=width * 0.94, color=_seat_colour(seat), alpha=alpha,
                           hatch=hatch, edgecolor="#ffffff" if hatch else None)
                    ax.errorbar(x, mid, yerr=[[mid - lo], [hi - mid]], color="#222222",
                                capsize=2, lw=1)
            ax.axhline(1 / n, **FAIR_STYLE)
            ax.set_xticks(range(n), [f"seat {s}" for s in range(n)])
            ok = "confirmed fair" if cell["recommended"]["confirmed"] else "NOT confirmed"
            ax.set_title(f"{_title(cell)}: {ok}", fontsize=9.5)
            ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
            ax.grid(axis="x", visible=False)
        levels = next((c["levels"] for c in cells if "levels" in c), None)
        fig.suptitle("Confirmed win shares of the recommendation at each level of play "
                     "(fresh seeds)" if levels else
                     "Confirmed win shares: pale bars the rules as given, full bars the "
                     "recommendation (fresh seeds)", fontsize=10.5, fontweight="bold")
        if levels:  # which hatching is which level, in grey (the colours are seats)
            fig.legend(handles=[Patch(facecolor="#9a9a9a", edgecolor="#ffffff",
                                      hatch=LEVEL_HATCHES[i % len(LEVEL_HATCHES)], label=a)
                                for i, a in enumerate(levels)],
                       loc="upper center", ncol=len(levels), bbox_to_anchor=(0.5, 0.955),
                       fontsize=8.5, frameon=False)
        fig.tight_layout(rect=(0, 0, 1, 0.9 if levels else 0.95))
    return fig


STAGE_COLOURS = {"search": "#0173b2", "profile": "#de8f05", "neighbourhood": "#029e73"}


def history_figure(cells: Sequence[Cell]) -> Figure:
    """The target of every setting the search played, in order, with the best so far."""
    with mpl.rc_context(RC):
        fig, axes = _cell_grid(cells, 2.5)
        for ax, cell in zip(axes, cells, strict=False):
            hist = [h for h in cell["history"] if h["stage"] != "baseline"]
            steps = np.arange(1, len(hist) + 1)
            values = np.array([h["target"] for h in hist])
            colours = [STAGE_COLOURS.get(h["stage"], "#de8f05") for h in hist]
            ax.scatter(steps, values, s=12, c=colours, zorder=3)
            ax.plot(steps, np.minimum.accumulate(values), color="#222222", lw=1.1)
            ax.set_title(f"{_title(cell)} ({cell['method']})", fontsize=9.5)
            ax.set_xlabel("setting played")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_ylim(bottom=0)
        axes[0].set_ylabel("target (lower is fairer)")
        around = any(h["stage"] == "neighbourhood" for c in cells for h in c["history"])
        fig.suptitle("What the search tried: blue the search, orange the profiles"
                     + (", green the neighbourhood" if around else "")
                     + "; the line is the best so far", fontsize=10.5, fontweight="bold")
        fig.tight_layout(rect=(0, 0, 1, 0.94))
    return fig
