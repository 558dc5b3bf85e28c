"""The report of a fairness tuning: what makes the seats fair, confirmed or not.

`build_fairness_report(summary, out)` writes `out/index.html` (self-contained: figures
embedded), `out/summary.json` and the recommended rules files (`out/rules/<cell>.toml`),
replacing an earlier report whole (`sim.core.outputs.replace_folder`). The page leads
with one verdict per cell (the recommendation, every seat's confirmed share and interval
against 1/n, and the checks with other agents); then per cell
the seat shares against each knob, the confirmation table and the search history. A
recommendation whose confirmed intervals exclude 1/n is shown as not confirmed, in red.

A tuning of several levels of play (the summary's `levels`, cheapest first) shows every
level's shares wherever a setting's confirmed shares are shown (the answer, the headline,
the confirmation table), says where no setting is fair at every level and which compromise
is best (its worst gap and the level it is at), and how the settings raced through the
levels: the games it saved, and where and why each setting stopped.

Any game's tuning: the summary's `game` (the default game when absent) gives the
title and the material (board, River Market's cards), and each row's seat values say what
the seat bonus is (`start_scores`: every seat's start score; River Market's `seat_coins`:
every seat's extra Coins).
"""

from __future__ import annotations

import html
import json
import shutil
import time
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jinja2

from analysis import plots as P
from analysis.facets import seat_bonus_of
from analysis.facets import seat_bonuses
from analysis.report.advice import FAIRNESS_RULE
from analysis.report.advice import box_html
from analysis.report.advice import fairness_advice
from analysis.report.fairness_figures import confirmation_figure
from analysis.report.fairness_figures import history_figure
from analysis.report.fairness_figures import profile_figure
from analysis.report.fairness_next import next_steps
from analysis.report.page import _img
from analysis.report.page import _version
from analysis.report.page import _write_text
from analysis.report.page import table_html
from analysis.report.table import Row
from analysis.report.table import Table
from sim.core.outputs import replace_folder
from sim.games.registry import default_game
from sim.games.registry import kind

TEMPLATE = "fairness.html.j2"
Cell = Mapping[str, Any]


def seat_values(row: Mapping[str, Any]) -> tuple[str, str]:
    """What a row's seat values are called and the values, e.g. (`extra Coins`, `0, 1, 2`):
    its game's seat bonus (`analysis.facets.SeatBonus`, the knob of
    `sim.tuning.fairness.knobs` that helps one seat)."""
    bonus = seat_bonus_of(row)
    return bonus.words, ", ".join(map(str, row[bonus.key]))


def share_text(row: Mapping[str, Any], seat: int) -> str:
    lo, hi = row["intervals"][seat]
    return f"{row['shares'][seat]:.3f} [{lo:.3f}, {hi:.3f}]"


def _seat_cells(row: Mapping[str, Any], n: int) -> list[tuple[str, str]]:
    return [(share_text(row, s), "num") for s in range(n)]


def verdict(row: Mapping[str, Any]) -> str:
    return "fair" if row["fair"] else "not fair"


def level_rows(row: Mapping[str, Any], agents: str) -> list[tuple[str, Mapping[str, Any]]]:
    """A row's games by level of play, (agents, that level's row) each: every level of a row
    of several, else the row itself, played by `agents`."""
    if "levels" in row:
        return [(lv["agents"], lv) for lv in row["levels"]]
    return [(agents, row)]


def lineup_text(agents: Sequence[str]) -> str:
    """A line-up as the report names it: each agent once (`heuristic`, not twice)."""
    return ", ".join(dict.fromkeys(agents))


def headline_table(cells: Sequence[Cell]) -> Table:
    """One row per cell: the verdict, the recommendation and its confirmed shares (the
    games are the spec's confirm.games, stated in the page's header). The setting's own
    column is left out when every knob is a seat bonus: the seat values (start scores,
    extra Coins) say it."""
    n_max = max(c["players"] for c in cells)
    bonuses = seat_bonuses()
    labelled = any(d["switch"] not in bonuses for c in cells for d in c["dimensions"])
    leveled = any("levels" in c for c in cells)  # a row per level, its agents and worst gap
    column = seat_values(cells[0]["recommended"])[0]
    headers = ["cell", "verdict", *(["recommended"] if labelled else []), column,
               *(["agents"] if leveled else []), *(f"seat {s}" for s in range(n_max)),
               *(["worst gap"] if leveled else [])]
    rows = []
    for c in cells:
        rec = c["recommended"]
        text = "confirmed fair" if rec["confirmed"] else "NOT confirmed"
        if "levels" in c:
            text += " at every level"
        for k, (who, row) in enumerate(level_rows(rec, lineup_text(c["agents"]))):
            first = k == 0
            seats = _seat_cells(row, c["players"]) + [("", "txt")] * (n_max - c["players"])
            label = [(rec["label"] if first else "", "txt wrap")] if labelled else []
            rows.append(Row(((c["key"], "txt"), (text if first else "", "txt"), *label,
                             (seat_values(rec)[1] if first else "", "txt"),
                             *([(who, "txt")] if leveled else []), *seats,
                             *([(f"{rec['gap']:.3f}" if first else "", "num")]
                               if leveled else [])),
                            highlight=not rec["confirmed"]))
    return Table(tuple(headers), tuple(rows))


def confirmation_table(cell: Cell) -> Table:
    """The confirmed settings and the rules as given, on the confirmation's fresh seeds,
    then the checks with other agents."""
    n = cell["players"]
    headers = ["setting", "agents", *(f"seat {s}" for s in range(n)), "target", "games",
               "verdict"]
    agents = lineup_text(cell["agents"])
    rows = []
    entries = [(r, agents, r.get("chosen", False)) for r in cell["confirmation"]]
    entries.append((cell["baseline"]["confirm"], agents, False))
    entries += [(r, lineup_text(r["agents"]), False) for r in cell["checks"]]
    for r, who, chosen in entries:
        label = r["label"] + (" (recommended)" if chosen else "")
        for k, (level, lv) in enumerate(level_rows(r, who)):  # a row a level of play
            rows.append(Row(((label if k == 0 else "", "txt wrap"), (level, "txt"),
                             *_seat_cells(lv, n), (f"{lv['target']:.4f}", "num"),
                             (f"{lv['games']:,}", "num"), (verdict(lv), "txt")),
                            highlight=chosen))
    return Table(tuple(headers), tuple(rows))


def race_table(cell: Cell) -> Table:
    """Every setting explored, as it raced: its gap on the search's games at each level it
    played, the 95% bounds of its worst gap and its worst target there, and whether it was
    a finalist or where it stopped and why."""
    raced = cell["levels"][:-1]  # the dearest level plays the finalists alone
    headers = ["setting", *(f"gap, {a}" for a in raced), "worst gap (95% bounds)",
               "worst target", "race"]
    rows = []
    for r in cell["race"]["settings"]:
        gaps = [f"{lv['gap']:.3f}" for lv in r["levels"]]
        lo, hi = r["bounds"][-1]
        stop = r["stopped"]
        fate = "finalist" if r["finalist"] else f"stopped after {stop['after']}: {stop['text']}"
        rows.append(Row(((r["label"], "txt wrap"),
                         *((g, "num") for g in gaps + ["–"] * (len(raced) - len(gaps))),
                         (f"{lo:.3f} to {hi:.3f}", "num"), (f"{r['target']:.4f}", "num"),
                         (fate, "txt wrap")), highlight=r["finalist"]))
    return Table(tuple(headers), tuple(rows))


def saved_text(games: Mapping[str, Any]) -> str:
    """The search-seed games racing saved, against playing every setting at every level."""
    share = games["saved"] / games["every"] if games["every"] else 0.0
    return (f"Racing saved {games['saved']:,} of {games['every']:,} search-seed games "
            f"({share:.0%}) against playing every setting at every level.")


def race_text(cell: Cell) -> str:
    """How the cell's settings raced through the levels, and the games that saved."""
    race, levels = cell["race"], cell["levels"]
    by = race["games"]["by_level"]
    on = "".join(f"{lv['settings']} went on to {a}; "
                 for lv, a in zip(by[1:-1], levels[1:-1], strict=True))
    return (f"The {race['candidates']} settings explored were played with {levels[0]} on "
            f"the search's games; {on}the {race['finalists']} finalists were confirmed at "
            f"every level, {levels[-1]} playing them alone (margin {race['margin']:g}). "
            + saved_text(race["games"]) + f" The profiles and the search's history are "
            f"{levels[0]}'s games.")


def levels_html(cell: Cell) -> str:
    """The answer's sentence for a cell of several levels: every level's confirmed shares,
    the verdict (fair at every level, or the best compromise and its worst gap) and the
    rules as given at every level."""
    rec, n = cell["recommended"], cell["players"]
    parts = [f"{html.escape(lv['agents'])}: "
             + ", ".join(f"seat {i} {share_text(lv, i)}" for i in range(n))
             for lv in rec["levels"]]
    if rec["confirmed"]:
        said = '<span class="ok">confirmed fair at every level</span>'
    else:
        said = ('<span class="far">NOT fair at every level</span>: the best compromise, its '
                f"worst gap {rec['gap']:.3f} ({html.escape(rec['worst'])})")
    base = "; ".join(f"{html.escape(lv['agents'])} "
                     + ", ".join(f"{v:.3f}" for v in lv["shares"])
                     for lv in cell["baseline"]["confirm"]["levels"])
    return (f"{'; '.join(parts)}, over {rec['games']:,} fresh games each against 1/{n} = "
            f"{1 / n:.3f}: {said}. Under the rules as given the seats won {base}.")


def cell_levels(cell: Cell) -> dict[str, str]:
    """A cell's pieces of the page for several levels of play (empty for one)."""
    raced = "race" in cell
    return {"levels": levels_html(cell) if raced else "",
            "race": race_text(cell) if raced else "",
            "race_table": table_html(race_table(cell)) if raced else ""}


def page_levels(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The page's pieces for several levels of play: the agents as the header names them,
    the cells where no setting is fair at every level with their best compromise, and the
    games racing saved."""
    raced = "levels" in summary
    compromises = []
    for c in summary["cells"]:
        rec = c["recommended"]
        if "race" in c and not rec["confirmed"]:
            compromises.append(f"{c['key']}: {rec['label']} ({' '.join(seat_values(rec))}), "
                               f"worst gap {rec['gap']:.3f} ({rec['worst']})")
    return {"agents": summary["agents"] + (" (levels of play, cheapest first)" if raced
                                           else ""),
            "compromises": compromises, "saved": saved_text(summary["race"]) if raced else ""}


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
            "next": next_steps(c),
            **cell_levels(c),
            "seat_values": " ".join(seat_values(c["recommended"]))})
    env = jinja2.Environment(loader=jinja2.PackageLoader("analysis", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             undefined=jinja2.StrictUndefined)
    game = kind(summary.get("game", default_game()))
    return env.get_template(TEMPLATE).render(
        advice=box_html(fairness_advice(summary), FAIRNESS_RULE),
        s=summary, cells=per_cell, game=game.title,
        material=(game.material, summary[game.material], summary[f"{game.material}_hash"]),
        headline=table_html(headline_table(cells)),
        **page_levels(summary),
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
