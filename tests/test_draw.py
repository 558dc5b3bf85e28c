"""Drawing boards (`sim.games.portobello.view.draw`, `portobello board show`): the pictures
are checked by their pixels (lanes in their heat colours where the lanes are drawn, squares
filled), and the checks are shown to fail on a blank or wrongly coloured picture."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.colors import Normalize
from matplotlib.colors import to_hex
from matplotlib.colors import to_rgb
from matplotlib.image import imread
from matplotlib.patches import Circle

from sim.games.portobello.board import Board
from sim.games.portobello.board import board_from_dict
from sim.games.portobello.board import load_board
from sim.games.portobello.view.draw import HEAT_CMAP
from sim.games.portobello.view.draw import LANE_COLOUR
from sim.games.portobello.view.draw import SQUARE_FACE
from sim.games.portobello.view.draw import board_figure
from sim.games.portobello.view.draw import district_positions
from sim.games.portobello.view.draw import draw_board
from sim.games.portobello.view.draw import heat_from_mapping
from sim.games.portobello.view.draw import lane_bends
from sim.games.portobello.view.draw import lane_points
from sim.games.portobello.view.draw import square_positions

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# Three lanes join A and B (allowed on user boards); no layout, so positions are computed.
TINY = {
    "name": "tiny",
    "squares": ["A", "B", "C", "D"],
    "lanes": [
        {"id": "L1", "ends": ["A", "B"], "spots": [1, 2, 3]},
        {"id": "L2", "ends": ["B", "A"], "spots": [2, 2]},
        {"id": "L3", "ends": ["A", "B"], "spots": [1]},
        {"id": "L4", "ends": ["B", "C"], "spots": [3, 1]},
        {"id": "L5", "ends": ["C", "A"], "spots": [1, 1, 2, 2]},
        {"id": "L6", "ends": ["C", "D"], "spots": [2, 1]},
        {"id": "L7", "ends": ["D", "A"], "spots": [1, 3]},
    ],
    "districts": [
        {"id": "D1", "lanes": ["L1", "L2"]},
        {"id": "D2", "lanes": ["L2", "L3"]},
        {"id": "D3", "lanes": ["L1", "L4", "L5"]},
        {"id": "D4", "lanes": ["L5", "L6", "L7"]},
    ],
}


@pytest.fixture(scope="module")
def standard() -> Board:
    return load_board("standard")


@pytest.fixture(scope="module")
def tiny() -> Board:
    return board_from_dict(TINY)


# -- reading the picture back ----------------------------------------------------------------
# A board is checked by its pixels: board_figure draws exactly what draw_board saves (same
# figure, same resolution), so it tells where each lane and square landed in the PNG.
TOL = 0.02  # per RGB channel (0-1): antialiasing aside, a lane's centre is its colour
ALONG = np.linspace(0.05, 0.95, 91)  # Bezier parameters sampled on every lane


def read_png(path: Path) -> np.ndarray:
    """The PNG's pixels as RGB floats in 0-1, shape (rows, columns, 3)."""
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC, f"{path} is not a PNG"
    assert path.stat().st_size < 600_000
    return imread(path)[..., :3]


def _pixels(ax: Axes, height: int, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the PNG pixels under data points (PNG rows count from the top)."""
    xy = ax.transData.transform(points)
    return (height - np.ceil(xy[:, 1])).astype(int), np.floor(xy[:, 0]).astype(int)


def drawn_at(board: Board, image: np.ndarray, lane_heat: list[float] | None = None,
             title: str | None = None) -> tuple[list[tuple[np.ndarray, np.ndarray]],
                                                list[tuple[np.ndarray, np.ndarray]]]:
    """Pixel positions of every lane (points along it) and every square (a ring inside it)
    in the PNG `draw_board` made with the same arguments."""
    fig = board_figure(board, lane_heat, title)
    fig.canvas.draw()
    assert fig.canvas.get_width_height() == (image.shape[1], image.shape[0])
    ax = fig.axes[0]
    height = image.shape[0]
    lanes = [_pixels(ax, height, pts) for pts in lane_points(board, ALONG)]
    angles = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    circles = [p for p in ax.patches if isinstance(p, Circle)]
    assert len(circles) == board.n_squares
    squares = [_pixels(ax, height, np.asarray(c.center) + 0.8 * c.radius
                       * np.c_[np.cos(angles), np.sin(angles)]) for c in circles]
    fig.clear()
    return lanes, squares


def share(image: np.ndarray, where: tuple[np.ndarray, np.ndarray], colour: Any) -> float:
    """Share of the pixels at `where` within TOL of `colour` (a matplotlib colour)."""
    target = np.asarray(to_rgb(colour))
    return float(np.mean(np.abs(image[where] - target).max(axis=1) < TOL))


def assert_lanes_coloured(image: np.ndarray, lanes: list[tuple[np.ndarray, np.ndarray]],
                          colours: list[Any]) -> None:
    """Each lane shows its own colour along most of its length (spots, ids and squares
    cover the rest) and nowhere another lane's colour."""
    for lane, (where, colour) in enumerate(zip(lanes, colours, strict=True)):
        assert share(image, where, colour) >= 0.4, (lane, share(image, where, colour))
        for other in {to_hex(c) for c in colours} - {to_hex(colour)}:
            assert share(image, where, other) == 0.0, (lane, other)


def assert_squares_drawn(image: np.ndarray, squares: list[tuple[np.ndarray, np.ndarray]]
                         ) -> None:
    for sq, where in enumerate(squares):
        assert share(image, where, SQUARE_FACE) >= 0.9, (sq, share(image, where, SQUARE_FACE))


def heat_colours(heat: list[float]) -> list[Any]:
    """The colour draw_board gives each lane: the colormap over the heat's range."""
    norm = Normalize(min(heat), max(heat))
    return [colormaps[HEAT_CMAP](norm(h)) for h in heat]


def plain_drawing(board: Board, out: Path) -> tuple[Any, Any, Any]:
    """Draw `board` without heat and check every lane in the plain lane colour and every
    square filled; the image and where its lanes and squares are."""
    draw_board(board, out)
    image = read_png(out)
    lanes, squares = drawn_at(board, image)
    assert_lanes_coloured(image, lanes, [LANE_COLOUR] * board.n_lanes)
    assert_squares_drawn(image, squares)
    return image, lanes, squares


def test_standard_board_png(standard: Board, tmp_path: Path) -> None:
    image, _, _ = plain_drawing(standard, tmp_path / "standard.png")
    assert (image[0, 0] == 1).all() and (image[-1, -1] == 1).all()  # white background


def test_each_lane_gets_its_heat_colour(standard: Board, tmp_path: Path) -> None:
    out = tmp_path / "sub" / "heat.png"  # missing folders are created
    heat = [float(i) for i in range(standard.n_lanes)]  # 22 distinct colours, one per lane
    draw_board(standard, out, lane_heat=heat, title="lane heat test")
    image = read_png(out)
    lanes, squares = drawn_at(standard, image, heat, "lane heat test")
    assert_lanes_coloured(image, lanes, heat_colours(heat))
    assert_squares_drawn(image, squares)


def test_other_heat_other_pixels(tiny: Board, tmp_path: Path) -> None:
    """Moving the heat from one lane to another recolours exactly those two lanes."""
    hot_l4, hot_l6 = [0.0] * tiny.n_lanes, [0.0] * tiny.n_lanes
    hot_l4[3], hot_l6[5] = 10.0, 10.0
    images = []
    for name, heat in (("l4", hot_l4), ("l6", hot_l6)):
        draw_board(tiny, tmp_path / f"{name}.png", lane_heat=heat)
        images.append(read_png(tmp_path / f"{name}.png"))
        lanes, _ = drawn_at(tiny, images[-1], heat)
        assert_lanes_coloured(images[-1], lanes, heat_colours(heat))
    hot, cold = colormaps[HEAT_CMAP](1.0), colormaps[HEAT_CMAP](0.0)
    assert share(images[0], lanes[3], hot) >= 0.4 and share(images[1], lanes[3], cold) >= 0.4
    assert share(images[0], lanes[5], cold) >= 0.4 and share(images[1], lanes[5], hot) >= 0.4
    for lane in (0, 1, 2, 4, 6):
        assert (images[0][lanes[lane]] == images[1][lanes[lane]]).all()


def test_hand_made_board_png(tiny: Board, tmp_path: Path) -> None:
    plain_drawing(tiny, tmp_path / "tiny.png")
    # Equal heat everywhere: every lane in the colormap's middle colour.
    draw_board(tiny, tmp_path / "tiny-heat.png", lane_heat=[3.0] * tiny.n_lanes)
    image = read_png(tmp_path / "tiny-heat.png")
    lanes, _ = drawn_at(tiny, image, [3.0] * tiny.n_lanes)
    assert_lanes_coloured(image, lanes, [colormaps[HEAT_CMAP](0.5)] * tiny.n_lanes)


def test_the_checks_fail_on_a_blank_or_wrong_picture(tiny: Board, tmp_path: Path) -> None:
    """The pixel checks above can fail: a blank canvas of the right size, or a board drawn
    with other heat, does not pass them."""
    heat = [float(i) for i in range(tiny.n_lanes)]
    draw_board(tiny, tmp_path / "heat.png", lane_heat=heat)
    image = read_png(tmp_path / "heat.png")
    lanes, squares = drawn_at(tiny, image, heat)
    blank = np.ones_like(image)
    with pytest.raises(AssertionError):
        assert_lanes_coloured(blank, lanes, heat_colours(heat))
    with pytest.raises(AssertionError):
        assert_squares_drawn(blank, squares)
    with pytest.raises(AssertionError):  # the heat reversed: every lane in another colour
        assert_lanes_coloured(image, lanes, heat_colours(heat[::-1]))
    with pytest.raises(AssertionError):  # no heat expected, heat drawn
        assert_lanes_coloured(image, lanes, [LANE_COLOUR] * tiny.n_lanes)


@pytest.mark.parametrize("suffix, magic", [(".svg", b"<?xml"), (".pdf", b"%PDF")])
def test_vector_formats(tiny: Board, tmp_path: Path, suffix: str, magic: bytes) -> None:
    out = tmp_path / f"tiny{suffix}"
    draw_board(tiny, out)
    assert out.read_bytes().startswith(magic)


@pytest.mark.parametrize("n_extra", [-1, 1])
def test_heat_of_wrong_length_is_refused(standard: Board, tmp_path: Path, n_extra: int) -> None:
    out = tmp_path / "bad.png"
    with pytest.raises(ValueError, match=r"lane_heat has \d+ values but board standard has 22"):
        draw_board(standard, out, lane_heat=[1.0] * (standard.n_lanes + n_extra))
    assert not out.exists()


def test_heat_must_be_finite_numbers(tiny: Board, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="finite"):
        draw_board(tiny, tmp_path / "bad.png", lane_heat=[float("nan")] * tiny.n_lanes)
    with pytest.raises(ValueError, match="numbers"):
        draw_board(tiny, tmp_path / "bad.png", lane_heat=["hot"] * tiny.n_lanes)  # type: ignore[list-item]


def test_heat_from_mapping(tiny: Board) -> None:
    assert heat_from_mapping(tiny, {"L2": 5, "L7": 1.5}) == [0, 5, 0, 0, 0, 0, 1.5]
    with pytest.raises(ValueError, match="unknown lane ids L9"):
        heat_from_mapping(tiny, {"L9": 1})


def test_unknown_format_is_refused(tiny: Board, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"suffix '\.txt'"):
        draw_board(tiny, tmp_path / "board.txt")


def test_layout_is_used_when_given(standard: Board) -> None:
    pos = square_positions(standard)
    for i, sid in enumerate(standard.square_ids):
        assert tuple(pos[i]) == standard.layout[sid]
    dist = district_positions(standard, pos)
    for d, did in enumerate(standard.district_ids):
        assert tuple(dist[d]) == standard.layout[did]


def test_computed_layout_separates_squares_and_parallel_lanes(tiny: Board) -> None:
    pos = square_positions(tiny)
    assert np.isfinite(pos).all()
    gaps = np.linalg.norm(pos[:, None] - pos[None, :], axis=2) + np.eye(len(pos)) * 1e9
    assert gaps.min() > 1.0  # no two squares on top of each other
    bends = lane_bends(tiny)
    # The three lanes between A and B get three different bends (in the A->B frame: L2 runs
    # B->A, so its sign flips), the other lanes stay straight.
    frame = [bends[0], -bends[1], bends[2]]
    assert len(set(frame)) == 3
    assert bends[3:] == [0.0] * 4
    # Districts between those lanes do not coincide although their end squares are the same.
    dist = district_positions(tiny, pos, bends)
    assert np.linalg.norm(dist[0] - dist[1]) > 0.5


def test_cli_board_show(tmp_path: Path) -> None:
    from sim.cli.command import main

    out = tmp_path / "cli.png"
    assert main(["board", "show", "standard", "--out", str(out)]) == 0
    image = read_png(out)
    lanes, squares = drawn_at(load_board("standard"), image)
    assert_lanes_coloured(image, lanes, [LANE_COLOUR] * 22)
    assert_squares_drawn(image, squares)


# -- lane-heat boards of a report -------------------------------------------------------------
def test_a_run_board_is_drawn_as_board_show_draws_it(standard: Board) -> None:
    """A board rebuilt from a run manifest has no layout; given the file it came from, it
    gets that file's layout back (same square positions as `portobello board show`)."""
    from sim.games.portobello.view.draw import with_layout_of

    rebuilt = board_from_dict(standard.to_dict())
    assert not rebuilt.layout
    assert not np.allclose(square_positions(rebuilt), square_positions(standard))
    restored = with_layout_of(rebuilt, "standard")
    assert np.array_equal(square_positions(restored), square_positions(standard))
    assert restored.content_hash == standard.content_hash
    # Another board of that name, or no file: left as it is.
    tiny = board_from_dict(TINY)
    assert with_layout_of(tiny, "standard") is tiny
    assert with_layout_of(rebuilt, "no-such-board") is rebuilt


def test_lane_heat_boards_share_one_scale(standard: Board) -> None:
    """Two variants side by side: one colour scale (the same value is the same colour in
    both boards), one colour bar naming the measure, lanes labelled with their values, and
    a figure no wider than the report's page, so its labels are shown at full size."""
    from matplotlib.text import Text

    from sim.games.portobello.view.draw import HEAT_PAGE_WIDTH
    from sim.games.portobello.view.draw import lane_heat_boards

    ids = standard.lane_ids
    heats = {"a": {lid: float(i) for i, lid in enumerate(ids)},
             "b": {lid: float(i + 5) for i, lid in enumerate(ids)}}
    fig = lane_heat_boards(standard, heats, "2 players: points", "points per game",
                           {"a": "Variant A", "b": "Variant B"})
    fig.canvas.draw()
    _, height = fig.canvas.get_width_height()
    image = np.asarray(fig.canvas.buffer_rgba())[..., :3] / 255.0
    boards = [ax for ax in fig.axes if ax.get_title() in ("Variant A", "Variant B")]
    bars = [ax for ax in fig.axes if ax.get_ylabel() == "points per game"]
    assert len(boards) == 2 and len(bars) == 1
    norm = Normalize(0.0, float(len(ids) - 1 + 5))
    renderer = fig.canvas.get_renderer()

    def uncovered(ax: Axes, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The lane's pixels that no label box covers (each label sits on its own lane)."""
        xy = ax.transData.transform(pts)
        boxes = [t.get_bbox_patch().get_window_extent(renderer) for t in ax.texts
                 if t.get_bbox_patch() is not None]
        free = np.array([not any(b.contains(x, y) for b in boxes) for x, y in xy])
        return _pixels(ax, height, pts[free])

    where = {ax.get_title(): [uncovered(ax, pts) for pts in lane_points(standard, ALONG)]
             for ax in boards}
    cmap = colormaps[HEAT_CMAP]
    for lane in range(len(ids)):
        for name, shift in (("Variant A", 0), ("Variant B", 5)):
            colour = cmap(norm(lane + shift))
            # squares and spot dots cover part of a short lane's uncovered pixels
            assert share(image, where[name][lane], colour) >= 0.25, (name, lane)
    # Same value, same colour: lane 5 of A and lane 0 of B are both 5.
    assert share(image, where["Variant B"][0], cmap(norm(5.0))) >= 0.3
    labels = [t for t in fig.findobj(Text) if t.get_text().startswith("L0")]
    assert any(t.get_text() == "L01 0.0" for t in labels)
    assert min(t.get_fontsize() for t in labels) >= 8
    assert min(t.get_fontsize() for t in fig.findobj(Text) if t.get_text()) >= 7
    assert fig.get_figwidth() <= HEAT_PAGE_WIDTH + 1e-9
    fig.clear()


def test_a_heat_maps_lane_labels_keep_clear_of_other_lanes(standard: Board) -> None:
    """On a lane heat map's board (the report shows two side by side), each lane's label
    box (`L06 19.0`) is nearer its own lane than any other lane comes to it, even where
    lanes meet at a square (a label reaching another lane reads as that lane's)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from sim.games.portobello.view.draw import draw_on
    from sim.games.portobello.view.draw import geometry
    from sim.games.portobello.view.draw import lane_points_at
    from sim.games.portobello.view.draw import with_layout_of

    board = with_layout_of(standard, "standard")
    geo = geometry(board)
    fig = Figure(figsize=(5.6, 5.6))  # one board of a report's heat map
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    labels = [f"{lid} {10 + i:.1f}" for i, lid in enumerate(board.lane_ids)]
    point = float(geo.extent[0]) / (5.6 * 72 * 0.92)
    draw_on(ax, board, geo, point, lane_labels=labels, compact=True)
    fig.canvas.draw()
    to_data = ax.transData.inverted()
    curves = [lane_points_at(board, geo, lane, np.linspace(0, 1, 600))
              for lane in range(board.n_lanes)]
    boxes = {t.get_text(): t.get_bbox_patch() for t in ax.texts if t.get_text() in labels}
    assert len(boxes) == board.n_lanes
    for lane, text in enumerate(labels):
        patch = boxes[text]
        outline = to_data.transform(patch.get_transform().transform(
            patch.get_path().interpolated(20).vertices))
        gaps = [float(np.linalg.norm(c[:, None] - outline[None], axis=2).min()) for c in curves]
        others = min(g for k, g in enumerate(gaps) if k != lane)
        assert gaps[lane] < others, (text, gaps[lane], others)
