"""Games to watch: a study report links to a few viewer pages (`analysis.view`, the game's
view facet) per cell when its runs kept records, so a reader can look at the games behind
a number.

Per cell: the games the anomalies table flags (round limits, exhausted boards, negative
scores; the first two), the game with the largest winning margin, and a typical game (its
margin closest to the cell's median margin, the lowest game id on a tie). Each page is
written to `<report>/games/<cell>-game<id>.html`; a cell whose run kept no records gets
none.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from analysis import metrics as M
from analysis.facets import declared
from analysis.facets import sources
from analysis.metrics.common import Sources
from analysis.study import StudyData
from analysis.view.viewer import run_page
from sim.core.errors import PortobelloError
from sim.core.outputs import atomic_write

FOLDER = "games"
ANOMALIES_SHOWN = 2


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "cell"


def _picks(margins: pd.DataFrame, anomalies: pd.DataFrame) -> list[tuple[str, int]]:
    """(why, game id) for one cell, each game once."""
    picks: list[tuple[str, int]] = []
    for _, row in anomalies.iterrows():
        # examples read "12 (seed 345), 17 (seed 678)": the game ids come first
        for example in str(row["examples"]).split(", ")[:ANOMALIES_SHOWN]:
            picks.append((str(row["kind"]), int(example.split()[0])))
    if len(margins):
        top = margins.sort_values(["margin", "game_id"], ascending=[False, True]).iloc[0]
        picks.append((f"largest margin ({int(top['margin'])} points)", int(top["game_id"])))
        median = margins["margin"].median()
        near = margins.assign(_d=(margins["margin"] - median).abs())
        typical = near.sort_values(["_d", "game_id"]).iloc[0]
        picks.append((f"typical game (margin {int(typical['margin'])}, the median "
                      f"{median:g})", int(typical["game_id"])))
    seen: set[int] = set()
    out = []
    for why, game in picks:
        if game not in seen:
            seen.add(game)
            out.append((why, game))
    return out


def watch_games(data: StudyData, out: Path) -> list[dict[str, Any]]:
    """Write the viewer pages of every cell that kept records; one row per page."""
    players = data.players()
    margins_all = M.Margins()(players)
    anomalies_all = M.Anomalies(sources=sources(data.game) or Sources(()),
                                ends=declared(data.game, "ANOMALOUS_ENDS", {}))(data.games(),
                                                                                players)
    rows: list[dict[str, Any]] = []
    for cell in data.cells:
        run_dir = cell.run.paths[0]
        if "records" not in cell.run.manifests[0].get("tables", []):
            continue
        at = {"variant": cell.variant, "n_players": cell.players}
        m = margins_all[(margins_all["variant"] == cell.variant)
                        & (margins_all["n_players"] == cell.players)]
        a = anomalies_all[(anomalies_all["variant"] == cell.variant)
                          & (anomalies_all["n_players"] == cell.players)]
        for why, game in _picks(m, a):
            try:
                page = run_page(run_dir, game).html
            except PortobelloError:
                continue  # a damaged shard: the report still builds, without this page
            name = f"{_slug(run_dir.name)}-game{game}.html"
            (out / FOLDER).mkdir(parents=True, exist_ok=True)
            atomic_write(out / FOLDER / name, page.encode("utf-8"))
            rows.append({**at, "label": cell.label or cell.variant, "why": why, "game": game,
                         "href": f"{FOLDER}/{name}"})
    return rows
