"""What precision each cell of a report reached, and, for cells played to a precision
(`analysis.study.precision`), what it cost and why they stopped.

Every cell gets a row: its widest seat half-width (from the report's own win-share table,
the interval it shows), its games, and, when its run recorded a `precision` block, the
target, the first round, the round size, the maximum and whether it stopped on target or
at the maximum. `summary.json` holds these rows under `precision`, with the stopping rule
and its measured coverage; the page shows them (and a finding) only when some cell was
played to a precision, so a report of fixed counts reads as before.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from analysis import compare as C
from analysis.study import StudyData
from analysis.study.precision import COVERAGE
from analysis.study.precision import RULE
from analysis.study.precision import RULE_ID
from analysis.study.precision import STOPPED

COLUMNS = ("variant", "n_players", "mode", "status", "target", "games", "first_games",
           "round_games", "max_games", "looks", "stopped", "half_width", "widest_seat",
           "recorded_half_width")


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _is_share(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 1


def _block(run_manifest: dict[str, Any]) -> dict[str, Any] | None:
    """A run's precision block if it is well formed (a damaged or hand-edited one is read
    as no block: the cell is then reported as a fixed count, from its own games); a
    complete block must also say where and why it stopped."""
    block = run_manifest.get("precision")
    if not isinstance(block, dict) or not _is_share(block.get("target_half_width")):
        return None
    if not all(_is_count(block.get(k)) for k in ("first_games", "round_games", "max_games")):
        return None
    if not isinstance(block.get("looks", []), list):
        return None
    if block.get("status") == "complete" and not (
            block.get("stopped") in STOPPED and _is_share(block.get("half_width"))):
        return None
    return block


def runs_target(data: StudyData) -> float | None:
    """The target every cell played to a precision shares (None: no such cell, or
    several targets): the report's target when no study spec names one."""
    targets = {b["target_half_width"] for c in data.cells
               if (b := _block(c.run.manifest)) is not None}
    return float(next(iter(targets))) if len(targets) == 1 else None


def cell_precision(data: StudyData, win_shares: pd.DataFrame) -> pd.DataFrame:
    """One row per cell (`COLUMNS`): `mode` is `precision` or `fixed`; `half_width` and
    `widest_seat` are the widest seat of the win-share table; the precision fields are
    empty for fixed cells; `status` is `complete`, or `running` for a cell whose rounds
    were interrupted; `recorded_half_width` is what the run recorded at its stop (equal to
    `half_width` for a complete cell: the same interval on the same games)."""
    rows = []
    variant = win_shares["variant"].astype(str)
    for c in data.cells:
        mine = win_shares[(variant == c.variant) & (win_shares["n_players"] == c.players)]
        widest = mine.loc[mine["half_width"].idxmax()]
        block = _block(c.run.manifest)
        row: dict[str, Any] = {
            "variant": c.variant, "n_players": c.players,
            "mode": "fixed" if block is None else "precision",
            "status": "complete" if block is None else str(block.get("status")),
            "games": int(widest["games"]), "half_width": float(widest["half_width"]),
            "widest_seat": int(widest["seat"])}
        if block is not None:
            done = block.get("status") == "complete"
            row.update({"target": float(block["target_half_width"]),
                        "first_games": int(block["first_games"]),
                        "round_games": int(block["round_games"]),
                        "max_games": int(block["max_games"]),
                        "looks": len(block.get("looks", [])),
                        "stopped": str(block["stopped"]) if done else None,
                        "recorded_half_width": float(block["half_width"]) if done else None})
        rows.append(row)
    return pd.DataFrame(rows, columns=list(COLUMNS))


def sequential(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of cells played to a precision."""
    return table[table["mode"] == "precision"]


def precision_findings(table: pd.DataFrame, labels: dict[str, str]) -> list[C.Finding]:
    """One finding on the cells played to a precision (none when there are none): how
    many met their target, after how many games, and which stopped at their maximum with
    what precision. It counts as met (green) only when every such cell met its target."""
    seq = sequential(table)
    if seq.empty:
        return []
    met = seq[seq["stopped"] == "target"]
    unmet = seq[seq["stopped"] != "target"]
    targets = sorted(set(seq["target"]))
    target = " / ".join(f"±{100 * t:.1f} pp" for t in targets)
    parts = [f"Precision on demand (rule {RULE_ID}, which stops on interval widths only: "
             f"its 95% intervals kept {100 * COVERAGE['lowest']:.1f}% coverage or more in "
             f"simulation): {len(met)} of {len(seq)} cells met their target ({target})"]
    if not met.empty:
        lo, hi = int(met["games"].min()), int(met["games"].max())
        parts[0] += f" after {lo:,} games" if lo == hi else f" after {lo:,} to {hi:,} games"
    for r in unmet.itertuples(index=False):
        label = labels.get(str(r.variant), str(r.variant))
        why = ("stopped at its maximum" if r.stopped == "maximum"
               else "has not finished its rounds")
        parts.append(f"{r.n_players} players, {label} {why} of {int(r.max_games):,} games "
                     f"with ±{100 * r.half_width:.2f} pp (seat {r.widest_seat})")
    return [C.Finding("; ".join(parts) + ".", "precision", unmet.empty)]


def precision_summary(table: pd.DataFrame) -> dict[str, Any]:
    """summary.json's `precision` block: the rule and its measured coverage (null when no
    cell was played to a precision) and every cell's row."""
    any_seq = not sequential(table).empty
    rows = table.astype({"variant": str}).astype(object).where(table.notna(), None)
    return {"rule": RULE if any_seq else None, "coverage": dict(COVERAGE) if any_seq else None,
            "cells": [{k: (v.item() if hasattr(v, "item") else v) for k, v in r.items()}
                      for r in rows.to_dict(orient="records")]}


def precision_note(table: pd.DataFrame) -> str:
    """The sentence the page shows beside the precision table and in its method list
    (empty when no cell was played to a precision)."""
    if sequential(table).empty:
        return ""
    return (f"Cells played to a precision follow the {RULE}. The stop looks only at the "
            f"intervals' widths, so the intervals shown keep their coverage: in "
            f"{COVERAGE['scenarios']} simulated scenarios of {COVERAGE['replications']:,} "
            f"cells each (2 to 4 seats, ties) their coverage was "
            f"{100 * COVERAGE['lowest']:.2f}% or more per scenario (mean "
            f"{100 * COVERAGE['mean']:.2f}%), at most {100 * COVERAGE['largest_loss']:.2f} "
            "points below that of the same interval at the same game counts drawn without "
            "stopping.")
