"""One self-contained HTML report per study: findings on top, then tables, charts, the exact
configuration and seeds, and anomalies.

- `analysis.report.content`: what to show, as data: `analyse(data)` computes every table
  and finding from a `StudyData` (the same objects the notebooks use), `figures(analysis)`
  draws the charts, `summary(analysis)` is summary.json's content;
- `analysis.report.tables`: those tables as the page shows them (headers, formatted cells,
  highlighted rows);
- `analysis.report.page`: rendering: `build_report(data, out)` writes `out/index.html`
  (figures embedded as PNG data URIs, no external files, opens offline) and
  `out/summary.json`, both atomically;
- `analysis.report.skill`: a study with skill levels, analysed level by level: the section
  "does it hold for stronger play?" and the labels of the findings (`analyse` calls it);
- `analysis.report.calibration`: the section comparing the games with real play;
- `analysis.report.provenance`: what a report or notebook shows: a reduced run of its
  spec (`reduced_run`, `report_title`), and the study folder a notebook opens
  (`locate_study`, `notebook_header`).

Every name is importable from `analysis.report` itself.
"""

from analysis.report.content import EVENT_ACTIONS
from analysis.report.content import SECTIONS
from analysis.report.content import TOPIC_TITLES
from analysis.report.content import Analysis
from analysis.report.content import analyse
from analysis.report.content import configuration
from analysis.report.content import figures
from analysis.report.content import lane_ends
from analysis.report.content import summary
from analysis.report.content import topics
from analysis.report.page import TEMPLATE
from analysis.report.page import build_report
from analysis.report.page import render
from analysis.report.page import table_html
from analysis.report.tables import Row
from analysis.report.tables import Table
from analysis.report.tables import display_tables
from analysis.report.tables import frame_table
from analysis.report.tables import headline

__all__ = ["EVENT_ACTIONS", "SECTIONS", "TEMPLATE", "TOPIC_TITLES", "Analysis", "Row", "Table",
           "analyse", "build_report", "configuration", "display_tables", "figures",
           "frame_table", "headline", "lane_ends", "render", "summary", "table_html", "topics"]
