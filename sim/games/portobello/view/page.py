"""The Portobello Market viewer page: one self-contained HTML file (no network, opens from
disk) holding the board's geometry, one compact state per step and a small script that
draws them.

The board comes from `sim.games.portobello.view.board`, the states from
`sim.games.portobello.view.states`; this module puts them into the template
(`analysis/templates/view.html.j2`, with what every game's page shares from
`analysis.view.page`); `analysis.view.viewer` writes the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from analysis.view.page import script_json
from analysis.view.page import seat_colours
from analysis.view.page import templates
from sim.games.portobello.codes import CUSTOMER_NAMES
from sim.games.portobello.view.board import board_json
from sim.games.portobello.view.source import GameSource
from sim.games.portobello.view.states import Step
from sim.games.portobello.view.states import replay_steps

TEMPLATE = "view.html.j2"


def page_data(src: GameSource, steps: Sequence[Step]) -> dict[str, Any]:
    """Everything the page needs, as one JSON-ready object."""
    game = src.game
    rules = game.rules
    agents = src.record.get("agents") or [""] * rules.players
    return {
        "title": src.label,
        "board": board_json(game.board),
        "players": rules.players,
        "colours": seat_colours(rules.players),
        "agents": list(agents),
        "seed": src.record.get("seed", 0),
        "customer_names": {str(k): v for k, v in CUSTOMER_NAMES.items()},
        "known_order": game.line is not None,
        "steps": [s.to_json() for s in steps],
    }


def render(src: GameSource, steps: Sequence[Step] | None = None, at_end: bool = False) -> str:
    """The page as one HTML string (the game replayed here unless `steps` are given),
    opening at the first step, or with `at_end` at the last (a game still being played)."""
    if steps is None:
        steps = replay_steps(src.game, src.record["actions"])
    data = page_data(src, steps)
    if at_end:
        data["start"] = len(steps) - 1
    return templates().get_template(TEMPLATE).render(title=src.label, data=script_json(data))

