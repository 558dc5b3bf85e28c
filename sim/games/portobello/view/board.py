"""The board as the viewer page draws it: squares, lanes, spots and districts in SVG
pixels, and where each square's customer goes.

The geometry is that of `portobello board show` (`sim.games.portobello.view.draw.geometry`:
the board's `[layout]` tables where it has them, a spring layout elsewhere), so the page
only places what Python computed and a board looks the same in the picture and in the
viewer.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from collections.abc import Sequence
from typing import Any

import numpy as np

from sim.games.portobello.board import Board
from sim.games.portobello.view.draw import Geometry
from sim.games.portobello.view.draw import geometry
from sim.games.portobello.view.draw import lane_control_point
from sim.games.portobello.view.draw import lane_label_positions
from sim.games.portobello.view.draw import lane_points_at
from sim.games.portobello.view.draw import spot_fractions
from sim.games.portobello.view.draw import spot_points

WIDTH = 900.0  # pixels the board's drawn extent is scaled to (the SVG scales with the page)


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
