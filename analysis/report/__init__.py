"""One self-contained HTML report per study: findings on top, then tables, charts, the exact
configuration and seeds, and anomalies.

The modules form layers, each importing only those below it (a contract of pyproject.toml):

1. `model` (`Analysis`, `SkillAnalysis`), `table` (`Table`, `Row`, formats), `provenance`
   (a reduced run, a notebook's study), `precision` (precision on demand per cell);
2. `skill`, `sweep`, `calibration`: the sections, computed;
3. `content`: `analyse(data)`, every table and finding from a `StudyData` (the objects the
   notebooks use), and `summary(analysis)`, summary.json's content;
4. the views: `tables` (the main tables), `figures` (the charts), `skill_view`,
   `skill_figures`, `sweep_view`, `calibration_view`, `fairness_figures`, and `watch` (the
   viewer pages of a few games per cell);
5. `page`: `build_report(data, out)` writes the report folder (figures embedded as PNG data
   URIs, opens offline), replacing an earlier report whole; `fairness` writes a fairness
   tuning's report on top of it.

Every name is importable from `analysis.report` itself."""

from analysis.report.content import SECTIONS
from analysis.report.content import TOPIC_TITLES
from analysis.report.content import analyse
from analysis.report.content import configuration
from analysis.report.content import summary
from analysis.report.content import topics
from analysis.report.figures import figures
from analysis.report.model import Analysis
from analysis.report.page import TEMPLATE
from analysis.report.page import build_report
from analysis.report.page import render
from analysis.report.page import table_html
from analysis.report.table import Row
from analysis.report.table import Table
from analysis.report.table import frame_table
from analysis.report.tables import display_tables
from analysis.report.tables import headline

__all__ = ["SECTIONS", "TEMPLATE", "TOPIC_TITLES", "Analysis", "Row", "Table", "analyse",
           "build_report", "configuration", "display_tables", "figures", "frame_table",
           "headline", "render", "summary", "table_html", "topics"]
