"""Rendering a report: the jinja2 template filled with the report's content, tables as HTML
and figures as embedded PNG data URIs, into one self-contained file that opens offline.

`build_report(data, out)` writes `out/index.html`, `out/summary.json` and the games' pages
into a folder beside `out` and switches it in whole (`sim.core.outputs.replace_folder`),
so a reader, or a killed command, never leaves half a report or a mix of two.
"""

from __future__ import annotations

import base64
import html
import json
import time
from collections.abc import Mapping
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import jinja2

from analysis import plots as P
from analysis.facets import declared
from analysis.facets import sections
from analysis.metrics.advice import RULE as ADVICE_RULE
from analysis.report.advice import SETTLE
from analysis.report.advice import box_html
from analysis.report.advice import ladder_advice
from analysis.report.advice import study_advice
from analysis.report.calibration_view import calibration_context
from analysis.report.calibration_view import calibration_tables
from analysis.report.content import SECTIONS
from analysis.report.content import analyse
from analysis.report.content import configuration
from analysis.report.content import summary
from analysis.report.content import topics
from analysis.report.figures import figures
from analysis.report.ladder import with_ladder
from analysis.report.model import Analysis
from analysis.report.precision import precision_note
from analysis.report.skill_view import skill_context
from analysis.report.skill_view import skill_tables
from analysis.report.sweep_view import sweep_context
from analysis.report.sweep_view import sweep_tables
from analysis.report.table import Table
from analysis.report.tables import display_tables
from analysis.report.watch import watch_games
from analysis.study import StudyData
from sim.core.outputs import atomic_write
from sim.core.outputs import replace_folder
from sim.games.registry import kind

TEMPLATE = "report.html.j2"


def table_html(table: Table) -> str:
    """A table as HTML: escaped text, `num`/`txt` cell classes, highlighted rows `hl`."""
    heads = "".join(f"<th>{html.escape(h)}</th>" for h in table.headers)
    body = []
    for row in table.rows:
        cells = "".join(f'<td class="{kind}">{html.escape(text)}</td>'
                        for text, kind in row.cells)
        cls = ' class="hl"' if row.highlight else ""
        body.append(f"<tr{cls}>{cells}</tr>")
    return f'<table><thead><tr>{heads}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _img(data: bytes) -> str:
    """PNG bytes as a data URI, so the page needs no image files."""
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def _version() -> str:
    """The installed portobello version, for the page's footer line."""
    try:
        return metadata.version("portobello")
    except metadata.PackageNotFoundError:
        return "unknown"


def render(a: Analysis, figs: Mapping[str, Any], dpi: int = 100,
           watch: Sequence[Mapping[str, Any]] = (), advice: str = "") -> str:
    """The report as one HTML string (the only time-dependent part: the Generated line);
    `watch` lists the viewer pages written beside it (`analysis.report.watch`), `advice`
    is the box that opens it (`advice_box`)."""
    images: dict[str, str] = {}
    for name, fig in figs.items():
        data = P.shrink_png(fig) if isinstance(fig, bytes) else P.to_png(fig, dpi=dpi)
        images[name] = _img(data)
    env = jinja2.Environment(loader=jinja2.PackageLoader("analysis", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             undefined=jinja2.StrictUndefined)
    study = a.data.study or {}
    spec = study.get("spec", {})
    tables = {name: table_html(t) for name, t in display_tables(a).items()}
    tables.update({name: table_html(t) for name, t in sweep_tables(a).items()})
    tables.update({name: table_html(t) for name, t in skill_tables(a).items()})
    tables.update({name: table_html(t) for name, t in calibration_tables(a).items()})
    return env.get_template(TEMPLATE).render(
        title=a.title or a.data.title, reduced=a.reduced.sentence if a.reduced else "",
        no_comparisons=a.no_comparisons, partial=a.data.partial,
        description=spec.get("description", ""), spec=spec,
        spec_text=study.get("spec_text", ""), generated=time.strftime("%Y-%m-%d %H:%M"),
        findings=a.findings, topics=topics(a.findings), tables=tables,
        images=images, config=configuration(a),
        failed=a.data.failed, notes=a.notes, target=a.target, labels=a.labels,
        variants=a.data.variants, player_counts=a.data.player_counts,
        baseline=a.labels.get(a.data.baseline, a.data.baseline),
        board_images=[(f"{n} players", images[f"board_{n}p"]) for n in a.data.player_counts
                      if f"board_{n}p" in images],
        version=_version(), sections=SECTIONS, sweep=sweep_context(a),
        precision_note=precision_note(a.tables["precision"]),
        skill=skill_context(a), calibration=calibration_context(a), watch=list(watch),
        ladder=a.ladder, game=a.data.game, game_title=kind(a.data.game).title, advice=advice,
        offered=sections(a.data.game), material=kind(a.data.game).material.capitalize(),
        points_lead=declared(a.data.game, "POINTS_LEAD", ""))


def advice_box(s: Mapping[str, Any], ladder: str | Path | None) -> str:
    """The box of advice that opens a study's report, from its own summary and its skill
    ladder's (`analysis.report.advice`)."""
    if s.get("skill"):
        items = ladder_advice(s, SETTLE)
    else:
        lad = None
        if ladder:
            try:
                lad = json.loads((Path(ladder) / "summary.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                lad = None  # the ladder's banner already says what it could not read
        items = study_advice(s, lad if isinstance(lad, dict) else None, None, SETTLE)
    return box_html(items, ADVICE_RULE)


def _write_text(path: Path, text: str) -> None:
    """Write one of the report's files (UTF-8), whole (`atomic_write`)."""
    atomic_write(path, text.encode("utf-8"))


def build_report(data: StudyData, out: str | Path, target_half_width: float | None = None,
                 dpi: int = 100, ladder: str | Path | None = None) -> Path:
    """Write the report folder `out` (index.html, summary.json, games/), replacing any
    earlier report there whole; returns the HTML path. `ladder` (default: the study spec's
    `ladder`) is a skill ladder's report folder whose labels the findings carry."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    a = analyse(data, target_half_width)
    ladder = ladder or ((data.study or {}).get("spec") or {}).get("ladder")
    if ladder and a.skill is None:
        a = with_ladder(a, ladder, Path(out).resolve().parent / Path(out).name)
    figs = figures(a)

    s = summary(a)
    box = advice_box(s, ladder)

    def build(root: Path) -> None:
        page = render(a, figs, dpi=dpi, watch=watch_games(data, root), advice=box)
        _write_text(root / "index.html", page)
        _write_text(root / "summary.json", json.dumps(s, indent=1) + "\n")

    return replace_folder(out, build) / "index.html"
