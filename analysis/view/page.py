"""The viewer page: one self-contained HTML file (no network, opens from disk) holding the
board's geometry, one compact state per step and a small script that draws them.

The geometry is that of `portobello board show` (`analysis.draw.geometry`: the board's
`[layout]` tables where it has them, a spring layout elsewhere), turned into SVG pixel
coordinates here, so the page only places what Python computed.
"""

from __future__ import annotations

import colorsys
import json
import math
from collections.abc import Callable
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
from markupsafe import Markup

from analysis.draw import Geometry
from analysis.draw import geometry
from analysis.draw import lane_control_point
from analysis.draw import lane_label_positions
from analysis.draw import lane_points_at
from analysis.draw import spot_fractions
from analysis.draw import spot_points
from analysis.view.source import GameSource
from analysis.view.source import ViewError
from analysis.view.states import Step
from analysis.view.states import replay_steps
from sim.engine.board import Board
from sim.engine.codes import CUSTOMER_NAMES
from sim.engine.errors import from_os_error
from sim.run.store import atomic_write

TEMPLATE = "view.html.j2"
WIDTH = 900.0  # pixels the board's drawn extent is scaled to (the SVG scales with the page)
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


def _to_px(geo: Geometry, scale: float) -> Callable[[Sequence[float]], list[float]]:
    """Data coordinates to SVG pixels (y down), margins included."""
    def px(xy: Sequence[float]) -> list[float]:
        return [round((float(xy[0]) - geo.lo[0] + geo.margin) * scale, 1),
                round((geo.hi[1] - float(xy[1]) + geo.margin) * scale, 1)]
    return px


def _label_fraction(geo: Geometry, lane: int, n: int, target: float) -> float:
    """Where along a lane its id goes: between the two spots nearest `target` (the
    fraction `lane_label_positions` gives), so the id never covers a spot."""
    u = spot_fractions(geo, lane, n)
    if n < 2:
        return target
    gaps = (u[:-1] + u[1:]) / 2
    return float(gaps[abs(gaps - target).argmin()])


def _free_direction(board: Board, geo: Geometry, square: int) -> tuple[float, float]:
    """The unit direction (data coordinates) from a square into the widest gap between the
    lanes leaving it: where a piece beside the square covers no lane or spot."""
    angles = []
    for lane in board.square_lanes[square]:
        a, _ = board.lane_ends[lane]
        fraction = 0.05 if a == square else 0.95  # a point just off this end
        near = lane_points_at(board, geo, lane, [fraction])[0] - geo.squares[square]
        angles.append(math.atan2(near[1], near[0]))
    if not angles:
        return (0.7071, 0.7071)
    angles.sort()
    gaps = [(angles[(i + 1) % len(angles)] - angles[i]) % (2 * math.pi) or 2 * math.pi
            for i in range(len(angles))]
    i = max(range(len(gaps)), key=gaps.__getitem__)
    middle = angles[i] + gaps[i] / 2
    return (math.cos(middle), math.sin(middle))


def board_json(board: Board) -> dict[str, Any]:
    """The board as the page draws it: squares, lanes (a quadratic curve each, their spots
    with values and positions, where the id goes), districts, in SVG pixels."""
    geo = geometry(board)
    scale = WIDTH / float(geo.extent[0])
    px = _to_px(geo, scale)
    label_at = lane_label_positions(board, geo.bends)
    lanes = []
    for lane, (a, b) in enumerate(board.lane_ends):
        spots = spot_points(board, geo, lane)
        u = _label_fraction(geo, lane, len(board.lane_spots[lane]), float(label_at[lane]))
        near = lane_points_at(board, geo, lane, [max(u - 0.02, 0.0), min(u + 0.02, 1.0)])
        mid, tangent = near.mean(axis=0), near[1] - near[0]
        length = max(float((tangent ** 2).sum()) ** 0.5, 1e-9)
        side = 1.0 if geo.bends[lane] >= 0 else -1.0
        normal = [-tangent[1] / length * side, tangent[0] / length * side]
        offset = geo.radius * 0.75
        lanes.append({
            "id": board.lane_ids[lane], "ends": [a, b],
            "path": [px(geo.squares[a]), px(lane_control_point(board, geo, lane)),
                     px(geo.squares[b])],
            "spots": [{"xy": px(xy), "value": v}
                      for xy, v in zip(spots, board.lane_spots[lane], strict=True)],
            "label": px([mid[0] + normal[0] * offset, mid[1] + normal[1] * offset]),
            "offset": board.lane_offset[lane],
        })
    extent = geo.extent * scale
    return {
        "name": board.name,
        "width": round(float(extent[0]), 1), "height": round(float(extent[1]), 1),
        "radius": round(geo.radius * scale, 1),
        "squares": [{"id": sid, "xy": px(xy),
                     # Where the square's customer is drawn: beside it, between its lanes.
                     "badge": px(xy + np.array(_free_direction(board, geo, s)) * geo.radius
                                 * 1.25)}
                    for s, (sid, xy) in enumerate(zip(board.square_ids, geo.squares,
                                                      strict=True))],
        "districts": [{"id": did, "xy": px(xy), "lanes": list(board.district_lanes[d])}
                      for d, (did, xy) in enumerate(zip(board.district_ids, geo.districts,
                                                        strict=True))],
        "lanes": lanes,
        "has_layout": bool(board.layout),
    }


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


def render(src: GameSource, steps: Sequence[Step] | None = None) -> str:
    """The page as one HTML string (the game replayed here unless `steps` are given)."""
    if steps is None:
        steps = replay_steps(src.game, src.record["actions"])
    env = jinja2.Environment(loader=jinja2.PackageLoader("analysis", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             undefined=jinja2.StrictUndefined)
    data = page_data(src, steps)
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
