"""What every game's viewer page shares: one self-contained HTML file (no network, opens
from disk) with the game's data as JSON in a script element, the seats' colours, the
templates' environment (the controls, keys and address `#step=N` are shared templates) and
writing the file whole.

Each game draws its own page (its view facet, `analysis.view.viewer`) with these.
"""

from __future__ import annotations

import colorsys
import json
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from analysis.view.source import ViewError
from sim.core.errors import from_os_error
from sim.core.outputs import atomic_write

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


def script_json(data: Any) -> Markup:
    """JSON safe inside a `<script>` element: no `<`, `>` or `&` (a board id like
    `</script>` cannot end the element early or inject markup)."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return Markup(text)


def templates() -> jinja2.Environment:
    """The viewer pages' templates (`analysis/templates`), autoescaped, strict."""
    return jinja2.Environment(loader=jinja2.PackageLoader("analysis", "templates"),
                              autoescape=jinja2.select_autoescape(["html", "j2"]),
                              undefined=jinja2.StrictUndefined)


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


def write_html(path: Path, html: str) -> None:
    """Write a page whole (`atomic_write`); a failure is a ViewError naming the file."""
    try:
        atomic_write(path, html.encode("utf-8"))
    except OSError as exc:
        raise ViewError(from_os_error(exc).reason, source=str(path)) from None
