"""The play pages: one HTML page per game that starts a game and plays it through the JSON
API of `sim.web.app`. Each game's session facet (`sim.web.games`) renders its own page with
`render_page`, from the templates here and the viewer's (`analysis/templates`: the viewer's
style and drawing), so a game looks the same while played and when viewed afterwards."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import jinja2

from analysis.view.page import script_json


@functools.cache
def _env() -> jinja2.Environment:
    loader = jinja2.ChoiceLoader([jinja2.PackageLoader("sim.web", "templates"),
                                  jinja2.PackageLoader("analysis", "templates")])
    return jinja2.Environment(loader=loader, autoescape=jinja2.select_autoescape(["html", "j2"]),
                              undefined=jinja2.StrictUndefined)


def render_page(template: str, choices: Mapping[str, Any]) -> str:
    """A play page: `template` (of `sim/web/templates`) with the choices its new-game form
    offers (presets, agents, files, the pause before each bot move), as JSON the page's
    script reads."""
    return _env().get_template(template).render(choices=script_json(dict(choices)))
