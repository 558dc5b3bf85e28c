"""Draw a board: squares, lanes with their spot values, and district ids; and the report's
lane heat maps (`lane_heat_boards`: the board once per variant, lanes coloured by a value).

Coordinates come from the board file's optional `[layout]` tables. Squares without
coordinates are placed by a small spring layout (numpy only) started from a circle, and
districts without coordinates sit at the centroid of the end squares of their lanes.

Matplotlib is used without pyplot: a `Figure` is built, saved with the Agg-based canvas
and discarded, so drawing has no global state and works on machines without a display.
The geometry and both drawings stay in one module (over 600 lines): the board picture and
the heat maps place lanes, spots and labels with the same layout functions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Circle

from sim.core.errors import PortobelloError
from sim.games.portobello.board import Board

FORMATS = ("png", "svg", "pdf")
PNG_DPI = 110
HEAT_CMAP = "viridis"

SQUARE_FACE = "#fdf6e3"
SQUARE_EDGE = "#5b4636"
LANE_COLOUR = "#9aa5b1"
DISTRICT_FACE = "#e3f0fb"
DISTRICT_EDGE = "#6a8caf"
# Spot markers coloured by printed value (1 light, 2 middle, 3+ strong).
SPOT_FACES = ("#ffffff", "#fff1c1", "#ffd27a", "#ffb347")


class DrawError(PortobelloError, ValueError):
    """Bad drawing input (heat of the wrong length, unknown image format)."""


# -- layout ----------------------------------------------------------------------------------
def _circle(n: int, radius: float = 10.0) -> np.ndarray:
    """`n` points evenly on a circle, the first at the top: the spring layout's start."""
    angles = math.pi / 2 - 2 * math.pi * np.arange(n) / max(n, 1)
    return radius * np.column_stack([np.cos(angles), np.sin(angles)])


def _spring_layout(n: int, edges: Sequence[tuple[int, int]], start: np.ndarray,
                   fixed: np.ndarray, iterations: int = 300) -> np.ndarray:
    """Fruchterman-Reingold style relaxation of the free points (deterministic)."""
    pos = start.astype(float).copy()
    if n < 2 or fixed.all():
        return pos
    span = float(np.ptp(pos, axis=0).max()) or 1.0
    k = span / math.sqrt(n)  # ideal edge length
    temp = span / 10
    edge_arr = np.array(edges, dtype=int).reshape(-1, 2)
    for _ in range(iterations):
        delta = pos[:, None, :] - pos[None, :, :]
        dist = np.linalg.norm(delta, axis=2)
        np.fill_diagonal(dist, 1.0)
        dist = np.maximum(dist, 1e-3)
        force = (delta / dist[:, :, None] * (k * k / dist)[:, :, None]).sum(axis=1)
        if len(edge_arr):
            a, b = edge_arr[:, 0], edge_arr[:, 1]
            d = pos[a] - pos[b]
            length = np.maximum(np.linalg.norm(d, axis=1), 1e-3)
            pull = d * (length / k)[:, None]
            np.add.at(force, a, -pull)
            np.add.at(force, b, pull)
        norm = np.maximum(np.linalg.norm(force, axis=1), 1e-9)
        step = force / norm[:, None] * np.minimum(norm, temp)[:, None]
        step[fixed] = 0.0
        pos += step
        temp *= 0.985
    return pos


def square_positions(board: Board) -> np.ndarray:
    """One (x, y) per square: the layout's where given, a spring layout for the rest."""
    n = board.n_squares
    given = [board.layout.get(s) for s in board.square_ids]
    fixed = np.array([xy is not None for xy in given])
    if fixed.all():
        return np.array(given, dtype=float)
    if fixed.any():
        known = np.array([xy for xy in given if xy is not None], dtype=float)
        centre = known.mean(axis=0)
        radius = max(float(np.ptp(known, axis=0).max()) / 2, 1.0) * 1.2
    else:
        centre, radius = np.zeros(2), 10.0
    start = centre + _circle(n, radius)
    for i, xy in enumerate(given):
        if xy is not None:
            start[i] = xy
    edges = sorted({tuple(sorted(e)) for e in board.lane_ends})
    pos = _spring_layout(n, edges, start, fixed)
    if not fixed.any():
        # Normalise a free layout to the same scale as the shipped layouts (radius ~10),
        # lying rather than standing (pages and screens are wider than tall).
        pos -= pos.mean(axis=0)
        if np.ptp(pos[:, 1]) > 1.05 * np.ptp(pos[:, 0]):
            pos = np.column_stack([-pos[:, 1], pos[:, 0]])
        pos *= 10.0 / max(float(np.abs(pos).max()), 1e-9)
    return pos


def district_positions(board: Board, squares: np.ndarray,
                       bends: Sequence[float] | None = None) -> np.ndarray:
    """One (x, y) per district: the layout's, else the centroid of its lanes' end squares.

    When some of its lanes are bent (lanes sharing both end squares), the district moves
    with them by their mean bend, so that districts between such lanes do not coincide.
    """
    bends = lane_bends(board) if bends is None else bends
    out = np.zeros((board.n_districts, 2))
    for d, did in enumerate(board.district_ids):
        xy = board.layout.get(did)
        if xy is not None:
            out[d] = xy
            continue
        lanes = board.district_lanes[d]
        ends = sorted({s for lane in lanes for s in board.lane_ends[lane]})
        shift = np.zeros(2)
        for lane in lanes:
            a, b = board.lane_ends[lane]
            chord_mid = (squares[a] + squares[b]) / 2
            shift += _curve(squares[a], squares[b], bends[lane], np.array([0.5]))[0] - chord_mid
        xy = squares[ends].mean(axis=0) + shift / len(lanes)
        # A district whose lanes are collinear (e.g. a single lane) would sit on a lane:
        # move it off to the side the lane id does not use.
        for lane in lanes:
            a, b = board.lane_ends[lane]
            p0, p1 = squares[a], squares[b]
            chord = p1 - p0
            length = float(np.linalg.norm(chord))
            if length == 0 or bends[lane] != 0:
                continue
            along = float(np.clip(np.dot(xy - p0, chord) / length ** 2, 0.0, 1.0))
            if np.linalg.norm(xy - (p0 + along * chord)) < 0.05 * length:
                xy = xy - np.array([-chord[1], chord[0]]) / length * 0.12 * length
                break
        out[d] = xy
    return out


def lane_bends(board: Board) -> list[float]:
    """Sideways bend of each lane as a fraction of its length (0 = straight).

    Lanes joining the same two squares are fanned out symmetrically so none overlap.
    """
    groups: dict[tuple[int, int], list[int]] = {}
    for lane, (a, b) in enumerate(board.lane_ends):
        groups.setdefault((min(a, b), max(a, b)), []).append(lane)
    bends = [0.0] * board.n_lanes
    for (lo, _hi), lanes in groups.items():
        k = len(lanes)
        for i, lane in enumerate(lanes):
            bend = (i - (k - 1) / 2) * 0.28
            # Bends are measured along the direction lo -> hi, whatever the lane's own order.
            bends[lane] = bend if board.lane_ends[lane][0] == lo else -bend
    return bends


def lane_label_positions(board: Board, bends: Sequence[float]) -> list[float]:
    """Where along each lane (fraction from ends[0]) its id goes: the middle, except that
    lanes joining the same two squares stagger their ids (bent ones near one end, the
    straight one near the other) so that they do not crowd the district between them."""
    counts: dict[tuple[int, int], int] = {}
    for a, b in board.lane_ends:
        key = (min(a, b), max(a, b))
        counts[key] = counts.get(key, 0) + 1
    out = []
    for lane, (a, b) in enumerate(board.lane_ends):
        if counts[(min(a, b), max(a, b))] == 1:
            out.append(0.5)
            continue
        near_lo = 0.3 if bends[lane] != 0 else 0.72
        out.append(near_lo if a < b else 1 - near_lo)
    return out


def _curve(p0: np.ndarray, p1: np.ndarray, bend: float, t: np.ndarray) -> np.ndarray:
    """Points at parameters t on the quadratic Bezier from p0 to p1 bent sideways by `bend`."""
    d = p1 - p0
    normal = np.array([-d[1], d[0]])
    control = (p0 + p1) / 2 + normal * bend
    t = t[:, None]
    return (1 - t) ** 2 * p0 + 2 * (1 - t) * t * control + t ** 2 * p1


def _arc_params(p0: np.ndarray, p1: np.ndarray, bend: float, u: np.ndarray) -> np.ndarray:
    """Bezier parameters at fractions `u` of the curve's arc length (evenly spaced spots)."""
    fine = np.linspace(0.0, 1.0, 201)
    pts = _curve(p0, p1, bend, fine)
    seg = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    cum = np.concatenate([[0.0], np.cumsum(seg)])
    return np.interp(u * cum[-1], cum, fine)


# -- drawing ---------------------------------------------------------------------------------
def _check_heat(board: Board, lane_heat: Sequence[float] | None) -> np.ndarray | None:
    """Lane heat as an array, refused unless one finite number per lane."""
    if lane_heat is None:
        return None
    try:
        heat = np.asarray(list(lane_heat), dtype=float)
    except (TypeError, ValueError):
        raise DrawError("lane_heat must be a sequence of numbers", field="lane_heat") from None
    if heat.shape != (board.n_lanes,):
        raise DrawError(f"lane_heat has {heat.size} values but board {board.name} has "
                        f"{board.n_lanes} lanes", field="lane_heat")
    if not np.isfinite(heat).all():
        raise DrawError("lane_heat values must be finite numbers", field="lane_heat")
    return heat


def _format_of(out: Path) -> str:
    """The image format named by the file suffix, refused before anything is drawn."""
    fmt = out.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise DrawError(f"cannot tell the image format from the suffix {out.suffix!r} "
                        f"(use one of: {', '.join('.' + f for f in FORMATS)})", source=str(out))
    return fmt


def lane_points(board: Board, t: Sequence[float] | np.ndarray) -> np.ndarray:
    """Where each lane is drawn: points at Bezier parameters `t` (0 at ends[0], 1 at
    ends[1]) of every lane, in data coordinates, shape (lanes, len(t), 2)."""
    sq = square_positions(board)
    bends = lane_bends(board)
    tt = np.asarray(t, dtype=float)
    return np.stack([_curve(sq[a], sq[b], bends[lane], tt)
                     for lane, (a, b) in enumerate(board.lane_ends)])


@dataclass(frozen=True)
class Geometry:
    """Where a board is drawn, in data coordinates: squares, lane bends, districts, the
    bounding box (`lo`, `hi`), the square radius and the extent with margins."""

    squares: np.ndarray
    bends: list[float]
    districts: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    radius: float
    lane_lengths: list[float]

    @property
    def span(self) -> float:
        """The larger side of the bounding box (sizes of spots scale with it)."""
        return float(max(self.hi - self.lo)) or 1.0

    @property
    def margin(self) -> float:
        """Room around the bounding box, so squares at its edge are drawn whole."""
        return self.radius * 2.2

    @property
    def extent(self) -> np.ndarray:
        """Width and height drawn, margins included."""
        return (self.hi - self.lo) + 2 * self.margin


def geometry(board: Board) -> Geometry:
    """The board's drawing geometry (the same for every picture of one board)."""
    sq = square_positions(board)
    bends = lane_bends(board)
    dist = district_positions(board, sq, bends)
    everything = np.vstack([sq, dist])
    lo, hi = everything.min(axis=0), everything.max(axis=0)
    span = float(max(hi - lo)) or 1.0
    lane_lengths = [float(np.linalg.norm(sq[b] - sq[a])) for a, b in board.lane_ends]
    positive = [x for x in lane_lengths if x > 0]
    typical = float(np.median(positive)) if positive else span / 4
    radius = min(0.04 * span, 0.15 * typical)
    return Geometry(sq, bends, dist, lo, hi, radius, lane_lengths)


def spot_fractions(geo: Geometry, lane: int, n: int) -> np.ndarray:
    """Where a lane's `n` spots sit, as fractions of its arc length from ends[0]: evenly
    spread between the two squares, clear of the square circles."""
    inset = min(0.45, (geo.radius * 1.7) / max(geo.lane_lengths[lane], 1e-9))
    return np.linspace(inset, 1 - inset, n) if n > 1 else np.array([0.5])


def spot_points(board: Board, geo: Geometry, lane: int) -> np.ndarray:
    """The (x, y) of each spot of `lane`, in order from ends[0] to ends[1] (data
    coordinates; the drawn board and the game viewer put spots at the same places)."""
    return lane_points_at(board, geo, lane, spot_fractions(geo, lane,
                                                           len(board.lane_spots[lane])))


def lane_points_at(board: Board, geo: Geometry, lane: int,
                   fractions: Sequence[float]) -> np.ndarray:
    """Points of `lane` at fractions of its arc length from ends[0] (data coordinates)."""
    a, b = board.lane_ends[lane]
    p0, p1, bend = geo.squares[a], geo.squares[b], geo.bends[lane]
    return _curve(p0, p1, bend, _arc_params(p0, p1, bend, np.asarray(fractions, dtype=float)))


def lane_control_point(board: Board, geo: Geometry, lane: int) -> np.ndarray:
    """The control point of the quadratic Bezier a lane is drawn as (its middle when
    straight), for drawing the same curve elsewhere (an SVG `Q` path)."""
    a, b = board.lane_ends[lane]
    p0, p1 = geo.squares[a], geo.squares[b]
    d = p1 - p0
    return (p0 + p1) / 2 + np.array([-d[1], d[0]]) * geo.bends[lane]


def _lane_frame(p0: np.ndarray, p1: np.ndarray, bend: float, u: float
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The point at fraction `u` of a lane's arc, its unit direction and unit normal."""
    t = _arc_params(p0, p1, bend, np.array([u - 0.01, u + 0.01]))
    pts = _curve(p0, p1, bend, t)
    tangent = pts[1] - pts[0]
    d = tangent / max(float(np.linalg.norm(tangent)), 1e-9)
    return pts.mean(axis=0), d, np.array([-d[1], d[0]])


def _label_room(p0: np.ndarray, p1: np.ndarray, bend: float, u: float, side: float,
                text: str, point: float, paths: Sequence[np.ndarray], lane: int) -> float:
    """How far a compact lane label placed at fraction `u`, on `side`, keeps from every
    other lane: its box (about 0.6 em a character, 8-point bold) sampled at its corners and
    along its middle."""
    mid, d, normal = _lane_frame(p0, p1, bend, u)
    centre = mid + normal * side * 9 * point
    half_len, half_h = 0.33 * 8 * point * len(text), 5 * point
    box = np.array([centre + d * x + normal * y for x in np.linspace(-half_len, half_len, 7)
                    for y in (-half_h, 0.0, half_h)])
    return min(float(np.linalg.norm(path[:, None] - box[None], axis=2).min())
               for k, path in enumerate(paths) if k != lane)


def draw_on(ax: Axes, board: Board, geo: Geometry, point: float,
            lane_colours: Sequence[Any] | None = None,
            lane_labels: Sequence[str] | None = None, compact: bool = False) -> None:
    """Draw the board into `ax` (data coordinates; `point` = data units per typographic
    point at the size it is shown). `lane_colours` colour the lanes (heat), `lane_labels`
    replace the lane ids (e.g. `L04 18.9`). `compact` is for small boards side by side:
    spots as plain dots (no printed values), larger labels relative to the board."""
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.set_xlim(geo.lo[0] - geo.margin, geo.hi[0] + geo.margin)
    ax.set_ylim(geo.lo[1] - geo.margin, geo.hi[1] + geo.margin)
    sq, bends, radius, span = geo.squares, geo.bends, geo.radius, geo.span
    label_at = lane_label_positions(board, bends)
    paths = [_curve(sq[a], sq[b], bends[lane], np.linspace(0.0, 1.0, 80))
             for lane, (a, b) in enumerate(board.lane_ends)]
    for lane, (a, b) in enumerate(board.lane_ends):
        p0, p1 = sq[a], sq[b]
        bend = bends[lane]
        length = geo.lane_lengths[lane]
        path = _curve(p0, p1, bend, np.linspace(0.0, 1.0, 60))
        if lane_colours is not None:
            colour, width = lane_colours[lane], (6.5 if compact else 5.0)
        else:
            colour, width = LANE_COLOUR, 2.5
        ax.plot(path[:, 0], path[:, 1], color=colour, lw=width, zorder=1,
                solid_capstyle="round")

        # Spots, in order from ends[0] to ends[1], spread between the two squares.
        spots = board.lane_spots[lane]
        n = len(spots)
        u = spot_fractions(geo, lane, n)
        pts = spot_points(board, geo, lane)
        if compact:
            ax.scatter(pts[:, 0], pts[:, 1], s=9, c="white", edgecolors="#333333",
                       linewidths=0.8, zorder=4)
        else:
            gap = float(u[-1] - u[0]) * length / (n - 1) if n > 1 else length
            size = float(np.clip(gap / span * 900, 7.0, 13.0))
            for (x, y), value in zip(pts, spots, strict=True):
                face = SPOT_FACES[min(value, len(SPOT_FACES) - 1)]
                ax.text(x, y, str(value), ha="center", va="center", fontsize=size * 0.62,
                        fontweight="bold", color="#333333", zorder=4,
                        bbox={"boxstyle": "circle,pad=0.18", "fc": face, "ec": "#555555",
                              "lw": 0.7})

        # Lane id beside the lane, between two spots, on the outer side of a bent lane.
        # Lanes sharing both squares put their ids at different points along them.
        text = board.lane_ids[lane] if lane_labels is None else lane_labels[lane]
        target = label_at[lane]
        candidates = np.concatenate([(u[:-1] + u[1:]) / 2, [target]])
        clearance = np.abs(candidates[:, None] - u[None, :]).min(axis=1) * length
        ok = clearance >= 11 * point
        side = 1.0 if bend >= 0 else -1.0
        if compact:
            # Boards side by side (heat maps) carry long labels (`L06 19.0`): of the places
            # between spots, on either side, the one whose label box keeps furthest from
            # every other lane, so that no label reads as a neighbour's where lanes meet.
            places = [(float(c), s) for c in (candidates[ok] if ok.any() else candidates)
                      for s in (side, -side)]
            room = [_label_room(p0, p1, bend, c, s, text, point, paths, lane)
                    for c, s in places]
            u_label, side = places[int(np.argmax(room))]
        elif ok.any():
            good = candidates[ok]
            u_label = float(good[np.argmin(np.abs(good - target))])
        else:
            u_label = float(candidates[np.argmax(clearance)])
        mid, d, normal = _lane_frame(p0, p1, bend, u_label)
        lx, ly = mid + normal * side * (radius * 0.55 if not compact else 9 * point)
        angle = math.degrees(math.atan2(d[1], d[0]))
        if angle > 90:
            angle -= 180
        elif angle < -90:
            angle += 180
        ax.text(lx, ly, text, ha="center", va="center", fontsize=8 if compact else 7,
                color="#1f2933", rotation=angle, rotation_mode="anchor", zorder=3,
                fontweight="bold" if compact else "normal",
                bbox={"boxstyle": "round,pad=0.12", "fc": "white", "ec": "none",
                      "alpha": 0.85})

    for d, (x, y) in enumerate(geo.districts):
        ax.text(x, y, board.district_ids[d], ha="center", va="center",
                fontsize=7 if compact else 9, fontweight="bold",
                color="#5a7896" if compact else "#23415f", zorder=2,
                bbox={"boxstyle": "round,pad=0.3", "fc": DISTRICT_FACE, "ec": DISTRICT_EDGE,
                      "lw": 0.8})

    for s, (x, y) in enumerate(sq):
        ax.add_patch(Circle((x, y), radius, fc=SQUARE_FACE, ec=SQUARE_EDGE, lw=1.6,
                            zorder=5))
        ax.text(x, y, board.square_ids[s], ha="center", va="center",
                fontsize=7.5 if compact else 9, fontweight="bold", color=SQUARE_EDGE, zorder=6)


def board_figure(board: Board, lane_heat: Sequence[float] | None = None,
                 title: str | None = None) -> Figure:
    """The board as a matplotlib Figure (at the PNG resolution, with its Agg canvas); its one
    Axes is in the board's data coordinates. `draw_board` saves and discards it."""
    heat = _check_heat(board, lane_heat)
    geo = geometry(board)

    # Width fixed, height following the board's proportions (plus room for the titles).
    width = 9.0
    extent = geo.extent
    height = float(np.clip(width * extent[1] / max(extent[0], 1e-9), 4.0, 9.5)) + 0.8
    fig_width = width + (1.2 if heat is not None else 0.0)
    fig = Figure(figsize=(fig_width, height), dpi=PNG_DPI, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()

    norm = cmap = None
    colours = None
    if heat is not None:
        cmap = colormaps[HEAT_CMAP]
        norm = heat_norm(heat)
        colours = [cmap(norm(h)) for h in heat]

    # Data units per typographic point (the tighter of the two directions).
    point = max(float(extent[0]) / (width * 72 * 0.9),
                float(extent[1]) / ((height - 0.8) * 72 * 0.9))
    draw_on(ax, board, geo, point, lane_colours=colours)

    if heat is not None and cmap is not None and norm is not None:
        bar = fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=ax, shrink=0.6,
                           pad=0.01)
        bar.set_label("lane heat")

    def count(n: int, what: str) -> str:
        return f"{n} {what}" if n == 1 else f"{n} {what}s"

    heading = title if title is not None else (
        f"Board {board.name}: {count(board.n_squares, 'square')}, "
        f"{count(board.n_lanes, 'lane')}, {count(board.n_districts, 'district')}, "
        f"{count(board.total_spots, 'spot')}")
    fig.suptitle(heading, fontsize=12, fontweight="bold")
    ax.set_title("circles: squares  ·  numbers: spot values (ends[0] → ends[1])  ·  "
                 "boxes: districts", fontsize=8, color="#555555")

    return fig


def heat_norm(values: Sequence[float] | np.ndarray, vmin: float | None = None,
              vmax: float | None = None) -> Normalize:
    """The colour scale of lane heat: the values' range (or the given one; a single value
    sits in the middle of a one-unit range)."""
    v = np.asarray(values, dtype=float)
    lo = float(v.min()) if vmin is None else float(vmin)
    hi = float(v.max()) if vmax is None else float(vmax)
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return Normalize(vmin=lo, vmax=hi)


def draw_board(board: Board, out: Path, lane_heat: Sequence[float] | None = None,
               title: str | None = None) -> None:
    """Draw `board` to `out` (png, svg or pdf by suffix).

    `lane_heat`, one number per lane in board order, colours the lanes with a colormap and
    adds a colorbar (for example how many points each lane scores).
    """
    out = Path(out)
    fmt = _format_of(out)
    fig = board_figure(board, lane_heat, title)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        try:
            fig.savefig(out, format=fmt, dpi=PNG_DPI if fmt == "png" else None)
        except OSError as exc:
            raise DrawError(f"cannot write: {exc}", source=str(out)) from None
    finally:
        fig.clear()


def heat_from_mapping(board: Board, values: Mapping[str, float], default: float = 0.0
                      ) -> list[float]:
    """Lane heat in board order from a `{lane id: value}` mapping (missing lanes: default)."""
    unknown = sorted(set(values) - set(board.lane_ids))
    if unknown:
        raise DrawError(f"unknown lane ids {', '.join(unknown)}", field="lane_heat")
    return [float(values.get(lid, default)) for lid in board.lane_ids]


def with_layout_of(board: Board, ref: str | Path | None) -> Board:
    """`board`, with the drawing layout of the board file `ref` names when the board has
    none of its own and that file holds the same board (same content hash).

    A run's manifest keeps the board's content but not its `[layout]` tables, so a board
    rebuilt from it would be drawn by the spring layout, turned and mirrored against
    `portobello board show` of the same file; this puts the file's layout back. Without a
    readable file of the same board, the board is returned as it is (and drawn as
    `board show` draws a board file without a layout).
    """
    if board.layout or not ref:
        return board
    from dataclasses import replace

    from sim.core.errors import PortobelloError
    from sim.games.portobello.board import load_board

    try:
        shipped = load_board(ref)
    except (PortobelloError, OSError, ValueError):
        return board
    if shipped.content_hash != board.content_hash or not shipped.layout:
        return board
    return replace(board, layout=shipped.layout)



HEAT_PAGE_WIDTH = 10.64  # inches: the report's content width (1,064 px at its 100 dpi)


def lane_heat_boards(board: Board, heats: Mapping[str, Mapping[str, float]], title: str,
                     measure: str, labels: Mapping[str, str] | None = None,
                     vmin: float | None = None, vmax: float | None = None) -> Figure:
    """The board once per variant, lanes coloured by a value per lane on ONE colour scale
    (one colour bar, `measure` naming it with its unit) and each lane labelled with its
    value, so that variants compare lane by lane (`heats`: variant -> {lane id: value}).

    Boards are drawn as `portobello board show` draws them (same layout: pass a board
    with its layout, see `with_layout_of`), two to a row, sized for the report's page
    width so their labels read at it; in the report's chart style (`analysis.plots.RC`).
    """
    from analysis.plots import RC

    with mpl.rc_context(RC):
        variants = list(heats)
        values = {v: heat_from_mapping(board, heats[v]) for v in variants}
        every = [x for v in variants for x in values[v]] or [0.0]
        norm = heat_norm(every, vmin, vmax)
        cmap = mpl.colormaps[HEAT_CMAP]
        geo = geometry(board)
        ncols = min(len(variants), 2) or 1
        nrows = -(-len(variants) // ncols)
        bar_w = 0.95
        panel_w = min((HEAT_PAGE_WIDTH - bar_w) / ncols, 6.0)
        ratio = float(geo.extent[1] / max(geo.extent[0], 1e-9))
        panel_h = panel_w * ratio + 0.35
        fig = Figure(figsize=(panel_w * ncols + bar_w, panel_h * nrows + 0.55),
                     layout="constrained")
        FigureCanvasAgg(fig)
        axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
        point = float(geo.extent[0]) / (panel_w * 72 * 0.92)
        for ax, v in zip(axes, variants, strict=False):
            lane_labels = [f"{lid} {x:.1f}" for lid, x in zip(board.lane_ids, values[v],
                                                               strict=True)]
            draw_on(ax, board, geo, point, lane_colours=[cmap(norm(x)) for x in values[v]],
                    lane_labels=lane_labels, compact=True)
            ax.set_title((labels or {}).get(v, v), fontsize=11)
        for ax in axes[len(variants):]:
            ax.set_axis_off()
        bar = fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=list(axes), shrink=0.7,
                           pad=0.01, aspect=30)
        bar.set_label(measure, fontsize=10)
        fig.suptitle(title, fontsize=11.5, fontweight="bold")
        return fig
