"""The report's calibration against real play: how long the simulated games last in turns
per player and what players spend their actions on, beside what is known of real games
(`analysis.metrics.calibration.REAL_PLAY`), per cell, or per skill level and cell in a
study with levels, with a flag where the games are far from real play.

The numbers are `analysis.metrics.calibration.Calibration` on the report's own tables
(`analyse` stores them as `calibration`, with a `level` column in a study with levels); this
module words the finding, `analysis.report.calibration_view` shows the section.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from analysis import compare as C
from analysis.metrics.calibration import FAR_RATIO
from analysis.metrics.calibration import REAL_PLAY
from analysis.report.model import Analysis

REF = REAL_PLAY["turns_per_player"]


def _where(r: Any, labels: dict[str, str], level_labels: dict[str, str]) -> str:
    """A calibration row's name: `Standard` or, with a level, `mcts · Standard`."""
    v = labels.get(str(r["variant"]), str(r["variant"]))
    level = str(r.get("level", "") or "")
    return f"{level_labels.get(level, level)} · {v}" if level else v


def _band() -> str:
    """The "close" band of turns per player at the reference's player count: `3–12`."""
    lo, hi = (REF["value"] * f for f in FAR_RATIO)
    return f"{lo:g}–{hi:g}"


def far_levels(cal: pd.DataFrame) -> list[str]:
    """The skill levels (in order) with a cell far from real play."""
    if "level" not in cal.columns:
        return []
    far = cal[cal["far"].astype(object).eq(True)]
    return list(dict.fromkeys(far["level"].astype(str)))


def calibration_finding(a: Analysis) -> C.Finding | None:
    """One sentence for the findings: the simulated length where real play has a reference
    (four players), against it, and which cells (or levels) are far from it; None when no
    cell is at a player count with a reference."""
    cal = a.tables.get("calibration")
    if cal is None:
        return None
    ref = cal[cal["reference"].notna()]
    if ref.empty:
        return None
    sk = a.skill
    levels = sk.level_labels if sk is not None else {}
    # Stated where the findings are: at the strongest level, the others' flags after it.
    shown = ref[ref["level"] == sk.headline] if sk is not None else ref
    counts = sorted(shown["n_players"].unique())
    parts = [f"{a.labels.get(str(r['variant']), str(r['variant']))} "
             f"{r['turns_per_player']:.1f}" for _, r in shown.iterrows()]
    far = ref[ref["far"].astype(object).eq(True)]
    players = " and ".join(str(n) for n in counts)
    where = f"at level {sk.label(sk.headline)}, " if sk is not None else ""
    band = f"{FAR_RATIO[0]:g}x–{FAR_RATIO[1]:g}x, {_band()} turns"
    if far.empty:
        verdict = f"every cell{' at every level' if sk is not None else ''} is within {band}"
    else:
        verdict = (f"far from it (outside {band}): "
                   + ", ".join(_where(r, a.labels, levels) for _, r in far.iterrows()))
    text = (f"Calibration: {where}{players}-player games last {'; '.join(parts)} turns per "
            f"player, against about {REF['value']:g} reported for real play "
            f"({REF['source']}); {verdict}.")
    return C.Finding(text, "calibration", far.empty, key=("calibration",))






