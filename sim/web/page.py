"""The play page: one HTML page that starts a game and plays it through the JSON API. It
draws the board with the viewer's drawing (`analysis/templates/_view_board.html.j2`) and
the viewer's style, so a game looks the same while played and when viewed afterwards."""

from __future__ import annotations

import functools

import jinja2

from analysis.view.page import script_json
from sim.games.portobello.agents.registry import AGENTS
from sim.games.portobello.board import BOARDS_DIR
from sim.games.portobello.rules import PRESETS

TEMPLATE = "play.html.j2"


@functools.cache
def _env() -> jinja2.Environment:
    loader = jinja2.ChoiceLoader([jinja2.PackageLoader("sim.web", "templates"),
                                  jinja2.PackageLoader("analysis", "templates")])
    return jinja2.Environment(loader=loader, autoescape=jinja2.select_autoescape(["html", "j2"]),
                              undefined=jinja2.StrictUndefined)


def play_page(bot_delay_ms: int, files: list[str] | None = None) -> str:
    """The page, with the choices its new-game form offers (the shipped boards and presets,
    and the TOML `files` the server offers as boards or rules) and the pause (milliseconds)
    before each bot move, so a person can follow what the bots do."""
    choices = {"presets": list(PRESETS), "agents": sorted(AGENTS),
               "boards": sorted(p.stem for p in BOARDS_DIR.glob("*.toml")),
               "files": list(files or []), "bot_delay": bot_delay_ms}
    return _env().get_template(TEMPLATE).render(choices=script_json(choices))


def river_play_page(bot_delay_ms: int) -> str:
    """River Market's play page (`sim.games.river.session`), with its presets and agents."""
    from sim.games.river.play import AGENTS as RIVER_AGENTS
    from sim.games.river.rules import PRESETS as RIVER_PRESETS

    choices = {"presets": list(RIVER_PRESETS), "agents": [*RIVER_AGENTS, "search:iterations=N"],
               "bot_delay": bot_delay_ms}
    return _env().get_template("river_play.html.j2").render(choices=script_json(choices))
