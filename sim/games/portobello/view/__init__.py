"""Portobello Market's viewer, its "view" facet (`analysis.view.viewer.ViewFacet`): the
board drawn (`draw`: the geometry `portobello board show`, the report's lane heat maps and
the pages share; `board`: it in SVG pixels), a record replayed by the engine as one state
per step (`states`), the actions in words (`words`), where a game comes from (`source`)
and its page (`page`). The play page (`sim.games.portobello.session`) draws with the same
pieces.

The facet's functions import the viewer when first called, so naming the facet (or
drawing a board with `draw`) loads neither the engine nor the run tables' readers.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

if TYPE_CHECKING:
    from analysis.view.source import RunRecord
    from analysis.view.viewer import Page


def is_record(data: Mapping[str, Any]) -> bool:
    """Whether a record file's JSON is a Portobello Market record (by its format)."""
    from sim.games.portobello.records import FORMAT

    return data.get("format") == FORMAT


def record_page(path: Path) -> Page:
    """The page of a record file (its board resolved beside the file, as `replay` does)."""
    from analysis.view.viewer import Page
    from sim.games.portobello.view.page import render
    from sim.games.portobello.view.source import from_record_file
    from sim.games.portobello.view.states import replay_steps

    src = from_record_file(path)
    steps = replay_steps(src.game, src.record["actions"])
    return Page(render(src, steps), len(steps), src.label)


def run_page(run: RunRecord) -> Page:
    """The page of one game of a run, on the run's own board."""
    from analysis.view.viewer import Page
    from sim.games.portobello.view.page import render
    from sim.games.portobello.view.source import from_run_record
    from sim.games.portobello.view.states import replay_steps

    src = from_run_record(run)
    steps = replay_steps(src.game, src.record["actions"])
    return Page(render(src, steps), len(steps), src.label)
