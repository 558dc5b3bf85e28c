"""Drawing boards (`analysis.draw`, `portobello board show`)."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from analysis.draw import (
    district_positions,
    draw_board,
    heat_from_mapping,
    lane_bends,
    square_positions,
)
from sim.engine.board import Board, board_from_dict, load_board

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


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC, f"{path} is not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def assert_sane_png(path: Path) -> None:
    assert path.is_file()
    width, height = png_size(path)
    assert 300 <= width <= 2000 and 300 <= height <= 2000, (width, height)
    assert path.stat().st_size < 600_000


def test_standard_board_png(standard: Board, tmp_path: Path) -> None:
    out = tmp_path / "standard.png"
    draw_board(standard, out)
    assert_sane_png(out)


def test_standard_board_with_heat_and_title(standard: Board, tmp_path: Path) -> None:
    out = tmp_path / "sub" / "heat.png"  # missing folders are created
    draw_board(standard, out, lane_heat=[float(i) for i in range(standard.n_lanes)],
               title="lane heat test")
    assert_sane_png(out)


def test_hand_made_board_png(tiny: Board, tmp_path: Path) -> None:
    out = tmp_path / "tiny.png"
    draw_board(tiny, out)
    assert_sane_png(out)
    draw_board(tiny, tmp_path / "tiny-heat.png", lane_heat=[3.0] * tiny.n_lanes)
    assert_sane_png(tmp_path / "tiny-heat.png")


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
    from sim.cli.main import main

    out = tmp_path / "cli.png"
    assert main(["board", "show", "standard", "--out", str(out)]) == 0
    assert_sane_png(out)
