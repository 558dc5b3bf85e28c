"""The viewer page: one self-contained HTML file (no network, opens from disk) holding the
board's geometry, one compact state per step and a small script that draws them.

The board comes from `analysis.view.board`, the states from `analysis.view.states`; this
module puts them into the template and writes the file.
"""

from __future__ import annotations

import colorsys
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from analysis.view.board import board_json
from analysis.view.source import GameSource
from analysis.view.source import ViewError
from analysis.view.states import Step
from analysis.view.states import replay_steps
from sim.core.errors import from_os_error
from sim.core.outputs import atomic_write
from sim.games.portobello.codes import CUSTOMER_NAMES

TEMPLATE = "view.html.j2"
# Seat colours: distinct on a light board and from the lanes' grey and the districts' blue.
SEAT_COLOURS = ("#d7263d", "#1b998b", "#f49d37", "#6a4c93", "#2e86de", "#8c564b",
                "#e056a0", "#4d7c0f")


def seat_colours(n: int) -> list[str]:
    """One colour per seat: the fixed palette, then evenly spaced hues for large games."""
    out = list(SEAT_COLOURS[:n])
    for i in range(len(out), n):
        r, g, b = colorsys.hls_to_rgb((i * 0.618034) % 1.0, 0.45, 0.65)
        out.append(f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}")
    return out


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


def script_json(data: Any) -> Markup:
    """JSON safe inside a `<script>` element: no `<`, `>` or `&` (a board id like
    `</script>` cannot end the element early or inject markup)."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return Markup(text)


def render(src: GameSource, steps: Sequence[Step] | None = None, at_end: bool = False) -> str:
    """The page as one HTML string (the game replayed here unless `steps` are given),
    opening at the first step, or with `at_end` at the last (a game still being played)."""
    if steps is None:
        steps = replay_steps(src.game, src.record["actions"])
    env = jinja2.Environment(loader=jinja2.PackageLoader("analysis", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             undefined=jinja2.StrictUndefined)
    data = page_data(src, steps)
    if at_end:
        data["start"] = len(steps) - 1
    return env.get_template(TEMPLATE).render(title=src.label, data=script_json(data))


def check_out(out: str | Path) -> Path:
    """The page's path, refused before any work when it cannot be written there (a folder,
    or a file in a folder that does not exist)."""
    path = Path(out)
    if path.is_dir():
        raise ViewError("is a folder; give the HTML file to write", source=str(path),
                        field="--out")
    if not path.parent.is_dir():
        raise ViewError(f"the folder {path.parent} does not exist", source=str(path),
                        field="--out")
    return path


def write_page(src: GameSource, out: str | Path) -> int:
    """Replay the game, render its page and write it to `out` atomically (nothing is
    written when the record has an illegal action); returns the number of steps."""
    path = check_out(out)
    steps = replay_steps(src.game, src.record["actions"])
    html = render(src, steps)
    try:
        atomic_write(path, html.encode("utf-8"))
    except OSError as exc:
        raise ViewError(from_os_error(exc).reason, source=str(path)) from None
    return len(steps)
