"""The report of a fairness tuning: what makes the seats fair, confirmed or not.

`build_fairness_report(summary, out)` writes `out/index.html` (self-contained: figures
embedded), `out/summary.json` and the recommended rules files (`out/rules/<cell>.toml`),
replacing an earlier report whole (`sim.engine.outputs.replace_folder`). The page leads
with one verdict per cell (the recommendation, every seat's confirmed share and interval
against 1/n, and the checks with other agents); then per cell
the seat shares against each knob, the confirmation table and the search history. A
recommendation whose confirmed intervals exclude 1/n is shown as not confirmed, in red.

Either game's tuning: the summary's `game` (Portobello Market when absent) gives the
title and the material (board, River Market's cards), and each row's seat values say what
the seat bonus is (`start_scores`: every seat's start score; River Market's `seat_coins`:
every seat's extra Coins).
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jinja2

from analysis import plots as P
from analysis.report.fairness_figures import confirmation_figure
from analysis.report.fairness_figures import history_figure
from analysis.report.fairness_figures import profile_figure
from analysis.report.page import _img
from analysis.report.page import _version
from analysis.report.page import _write_text
from analysis.report.page import table_html
from analysis.report.table import Row
from analysis.report.table import Table
from sim.engine.outputs import replace_folder
from sim.run.seam import PORTOBELLO
from sim.run.seam import kind

TEMPLATE = "fairness.html.j2"
Cell = Mapping[str, Any]
# Each game's seat bonus (`sim.tuning.fairness.knobs`): the rows' key of every seat's value,
# and what the report calls those values.
SEAT_VALUES = {"start_scores": "start scores", "seat_coins": "extra Coins"}


def seat_values(row: Mapping[str, Any]) -> tuple[str, str]:
    """What a row's seat values are called and the values, e.g. (`extra Coins`, `0, 1, 2`)."""
    key = next((k for k in SEAT_VALUES if k in row), "start_scores")
    return SEAT_VALUES[key], ", ".join(map(str, row[key]))


def share_text(row: Mapping[str, Any], seat: int) -> str:
    lo, hi = row["intervals"][seat]
    return f"{row['shares'][seat]:.3f} [{lo:.3f}, {hi:.3f}]"


def _seat_cells(row: Mapping[str, Any], n: int) -> list[tuple[str, str]]:
    return [(share_text(row, s), "num") for s in range(n)]


def verdict(row: Mapping[str, Any]) -> str:
    return "fair" if row["fair"] else "not fair"


def headline_table(cells: Sequence[Cell]) -> Table:
    """One row per cell: the verdict, the recommendation and its confirmed shares (the
    games are the spec's confirm.games, stated in the page's header). The setting's own
    column is left out when every knob is a seat bonus: the seat values (start scores,
    extra Coins) say it."""
    n_max = max(c["players"] for c in cells)
    labelled = any(d["switch"] not in SEAT_VALUES for c in cells for d in c["dimensions"])
    column = seat_values(cells[0]["recommended"])[0]
    headers = ["cell", "verdict", *(["recommended"] if labelled else []), column,
               *(f"seat {s}" for s in range(n_max))]
    rows = []
    for c in cells:
        rec = c["recommended"]
        seats = _seat_cells(rec, c["players"]) + [("", "txt")] * (n_max - c["players"])
        label = [(rec["label"], "txt wrap")] if labelled else []
        rows.append(Row(((c["key"], "txt"),
                         ("confirmed fair" if rec["confirmed"] else "NOT confirmed", "txt"),
                         *label, (seat_values(rec)[1], "txt"), *seats),
                        highlight=not rec["confirmed"]))
    return Table(tuple(headers), tuple(rows))


def confirmation_table(cell: Cell) -> Table:
    """The confirmed settings and the rules as given, on the confirmation's fresh seeds,
    then the checks with other agents."""
    n = cell["players"]
    headers = ["setting", "agents", *(f"seat {s}" for s in range(n)), "target", "games",
               "verdict"]
    agents = ", ".join(dict.fromkeys(cell["agents"]))
    rows = []
    entries = [(r, agents, r.get("chosen", False)) for r in cell["confirmation"]]
    entries.append((cell["baseline"]["confirm"], agents, False))
    entries += [(r, ", ".join(dict.fromkeys(r["agents"])), False) for r in cell["checks"]]
    for r, who, chosen in entries:
        label = r["label"] + (" (recommended)" if chosen else "")
        rows.append(Row(((label, "txt wrap"), (who, "txt"), *_seat_cells(r, n),
                         (f"{r['target']:.4f}", "num"), (f"{r['games']:,}", "num"),
                         (verdict(r), "txt")), highlight=chosen))
    return Table(tuple(headers), tuple(rows))


def history_table(cell: Cell) -> Table:
    n = cell["players"]
    headers = ["#", "stage", "setting", *(f"seat {s}" for s in range(n)), "rounds",
               "target"]
    best = min(h["target"] for h in cell["history"])
    rows = [Row(((str(h["step"]), "num"), (h["stage"], "txt"), (h["label"], "txt"),
                 *_seat_cells(h, n), (f"{h['rounds']:.1f}", "num"),
                 (f"{h['target']:.4f}", "num")), highlight=h["target"] == best)
            for h in cell["history"]]
    return Table(tuple(headers), tuple(rows))


def fair_range_text(cell: Cell) -> list[str]:
    """One sentence per knob: where the seats stay within their intervals of 1/n."""
    out = []
    for p in cell["profiles"]:
        fr = p["fair_range"]
        if fr is None or fr == []:
            out.append(f"{p['dimension']}: no value of the profile keeps every seat's interval "
                       "around 1/n")
        elif isinstance(fr, list) and len(fr) == 2 and all(isinstance(v, int) for v in fr):
            span = f"{fr[0]:+d}" if fr[0] == fr[1] else f"{fr[0]:+d} to {fr[1]:+d}"
            out.append(f"{p['dimension']}: {span} keeps every seat's interval around 1/n")
        else:
            out.append(f"{p['dimension']}: fair with "
                       + "; ".join(",".join(map(str, v)) if isinstance(v, list) else str(v)
                                   for v in fr))
    return out


def render(summary: Mapping[str, Any], dpi: int = 100) -> str:
    """The report page as one HTML string."""
    cells = summary["cells"]
    images: dict[str, str] = {"confirmation": _img(P.to_png(confirmation_figure(cells), dpi)),
                              "history": _img(P.to_png(history_figure(cells), dpi))}
    per_cell = []
    for c in cells:
        fig = profile_figure(c)
        per_cell.append({
            "cell": c, "profile": _img(P.to_png(fig, dpi)) if fig is not None else "",
            "confirmation": table_html(confirmation_table(c)),
            "history": table_html(history_table(c)), "fair_ranges": fair_range_text(c),
            "seat_values": " ".join(seat_values(c["recommended"]))})
    env = jinja2.Environment(loader=jinja2.PackageLoader("analysis", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             undefined=jinja2.StrictUndefined)
    game = kind(summary.get("game", PORTOBELLO))
    return env.get_template(TEMPLATE).render(
        s=summary, cells=per_cell, game=game.title,
        material=(game.material, summary[game.material], summary[f"{game.material}_hash"]),
        headline=table_html(headline_table(cells)),
        images=images, generated=time.strftime("%Y-%m-%d %H:%M"), version=_version(),
        unconfirmed=[c["key"] for c in cells if not c["recommended"]["confirmed"]],
        checks_failed=[c["key"] for c in cells if any(not k["fair"] for k in c["checks"])])


def build_fairness_report(summary: Mapping[str, Any], out: str | Path,
                          rules_dir: Path | None = None, dpi: int = 100) -> Path:
    """Write the report folder `out` (index.html, summary.json, rules/), replacing any
    earlier report there whole; returns the HTML path."""
    import matplotlib

    matplotlib.use("Agg", force=False)

    def build(root: Path) -> None:
        if rules_dir is not None and rules_dir.is_dir():
            (root / "rules").mkdir()
            for c in summary["cells"]:
                src = rules_dir / f"{c['key']}.toml"
                if src.exists():
                    shutil.copyfile(src, root / "rules" / src.name)
        _write_text(root / "index.html", render(summary, dpi))
        _write_text(root / "summary.json", json.dumps(summary, indent=1) + "\n")

    return replace_folder(out, build) / "index.html"
