"""The report's analysis as data: `Analysis` (every table and finding of one report) and
`SkillAnalysis` (a study's skill levels compared). Computed by `analysis.report.content`
and `analysis.report.skill`, shown by the views and pages above them."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from typing import Any

import pandas as pd

from analysis import compare as C
from analysis.report.provenance import Reduced
from analysis.study import StudyData


@dataclass(frozen=True)
class LadderNote:
    """What a report says of the skill ladder beside it: where the ladder is (`link`,
    relative to the report), which of its levels this report's agents play (None: none),
    the ladder's levels and label counts, and how many of this report's findings it
    examined."""

    link: str
    title: str
    level: str | None
    levels: tuple[str, ...]
    counts: dict[str, int]
    examined: int
    # The ladder's convergence at the top (`analysis.metrics.convergence`) of each finding
    # it examined, as shown, keyed as this report's findings are.
    convergence: dict[tuple[Any, ...], str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"report": self.link, "title": self.title, "level": self.level,
                "levels": list(self.levels), "counts": self.counts, "examined": self.examined}


@dataclass
class Analysis:
    """Every table and finding of a report."""

    data: StudyData
    labels: dict[str, str]
    target: float
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    findings: list[C.Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    title: str = ""  # the study's title, marked when the run is reduced
    reduced: Reduced | None = None
    # Why there is no comparisons table (one variant, or no player count in common).
    no_comparisons: str = ""
    # A study with skill levels: the section comparing them (this analysis is then the
    # strongest level's, `analysis.report.skill`).
    skill: SkillAnalysis | None = None
    # A study measured at one level of play, beside a skill ladder (`analysis.report.ladder`).
    ladder: LadderNote | None = None


@dataclass
class SkillAnalysis:
    """The section's content: the levels (with data, weakest first), each level's own
    analysis, every finding's estimate at every level (`estimates`), its size change and
    label (`findings`), and game length by level with its change (`length`)."""

    data: StudyData
    levels: list[str]
    level_labels: dict[str, str]
    level_agents: dict[str, str]
    start: int
    analyses: dict[str, Analysis]
    estimates: pd.DataFrame
    findings: pd.DataFrame
    length: pd.DataFrame
    # The strongest level's saturation check by player count (`analysis.report.skill`).
    saturation: dict[int, Any] = field(default_factory=dict)

    @property
    def headline(self) -> str:
        """The strongest level with data: the one the page's body shows."""
        return self.levels[-1]

    def label(self, level: str) -> str:
        """A level's display label."""
        return self.level_labels.get(level, level)
