"""A table as a report shows it, still as data: headers and rows of formatted cells
(`Table`, `Row`), a DataFrame turned into one (`frame_table`) and the number formats the
report's tables share. Knows nothing of any report."""

from __future__ import annotations

import math
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis import compare as C

Formatter = Callable[[Any], str]

@dataclass(frozen=True)
class Row:
    """One table row: (text, kind) per cell, kind `num`, `txt` or `txt wrap` (may break
    long text); `highlight` marks a significant or otherwise notable row."""

    cells: tuple[tuple[str, str], ...]
    highlight: bool = False

@dataclass(frozen=True)
class Table:
    """A table ready to show: column headers and rows of formatted cells."""

    headers: tuple[str, ...]
    rows: tuple[Row, ...]

def frame_table(df: pd.DataFrame, columns: Mapping[str, tuple[str, Formatter | None]],
                highlight: str | None = None, wrap: tuple[str, ...] = ()) -> Table:
    """Chosen columns of a DataFrame, {column: (header, formatter)} (no formatter: `str`);
    rows where the `highlight` column is true are marked; `wrap` columns may break long
    text. Numbers (not booleans) are right-aligned cells whatever their formatting."""
    rows = []
    for _, row in df.iterrows():
        cells = []
        for col, (_, fmt) in columns.items():
            v = row[col]
            text = fmt(v) if fmt else str(v)
            num = isinstance(v, int | float | np.integer | np.floating) and not isinstance(
                v, bool | np.bool_)
            cells.append((text, "num" if num else "txt wrap" if col in wrap else "txt"))
        rows.append(Row(tuple(cells), bool(highlight) and bool(row.get(highlight, False))))
    return Table(tuple(h for h, _ in columns.values()), tuple(rows))

def _pct(x: float) -> str:
    """A share as a percentage with one decimal (empty when missing)."""
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"

def _ci(lo: float, hi: float, pct: bool = True) -> str:
    """An interval: `40.1–45.3%` for shares, `1.20 to 3.40` otherwise."""
    if pct:
        return f"{100 * lo:.1f}–{100 * hi:.1f}%"
    return f"{lo:.2f} to {hi:.2f}"

def _p(x: float) -> str:
    """A p-value to three decimals (more near 0.05, so its label can be read off it),
    `<0.001` below that, `–` when missing."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return C.p_text(float(x))

def _level(x: float) -> str:
    """A confidence level as a percentage (`99.85%`), `–` when missing."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    text = f"{100 * x:.2f}".rstrip("0").rstrip(".")
    return f"{text}%"

def _pp_interval(lo: float, hi: float, level: float | None = None, digits: int = 1) -> str:
    """A Holm-adjusted interval of shares in pp without the unit (`-1.2 to +3.4`), with its
    confidence level when given (`... (99.2%)`); bounds near zero keep enough digits not to
    read as zero. `–` when missing."""
    if lo is None or math.isnan(lo) or math.isnan(hi):
        return "–"
    text = (f"{C.bound(lo, C.SHARE, digits, unit=False)} to "
            f"{C.bound(hi, C.SHARE, digits, unit=False)}")
    return text if level is None else f"{text} ({_level(level)})"

def _num(digits: int = 1) -> Formatter:
    """A formatter of numbers with thousands separators and `digits` decimals."""
    def f(x: Any) -> str:
        if x is None or (isinstance(x, float) and math.isnan(x)):
            return "–"
        return f"{x:,.{digits}f}"
    return f
