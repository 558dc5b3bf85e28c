"""The board: squares, lanes and districts, loaded from TOML and compiled to integer indices.

A board is immutable and shared by every game played on it. Loading validates it against
docs/rules.md ("Board file") and refuses a bad one with a message naming the offending id.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from sim.core.errors import BoardError
from sim.core.errors import quote
from sim.core.files import read_document

BOARDS_DIR = Path(__file__).resolve().parents[3] / "data" / "boards"

Square = int
Lane = int
District = int


@dataclass(frozen=True, eq=False)
class Board:
    """A validated board in index form (ids are kept for files and people)."""

    name: str
    description: str
    square_ids: tuple[str, ...]
    lane_ids: tuple[str, ...]
    district_ids: tuple[str, ...]
    lane_ends: tuple[tuple[Square, Square], ...]
    lane_spots: tuple[tuple[int, ...], ...]
    district_lanes: tuple[tuple[Lane, ...], ...]
    layout: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    source: str = "<dict>"
    # Derived tables, filled in __post_init__.
    lane_len: tuple[int, ...] = ()
    lane_districts: tuple[tuple[District, ...], ...] = ()
    district_neighbours: tuple[tuple[tuple[District, Lane], ...], ...] = ()
    square_lanes: tuple[tuple[Lane, ...], ...] = ()
    lane_offset: tuple[int, ...] = ()
    total_spots: int = 0

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "lane_len", tuple(len(s) for s in self.lane_spots))
        lane_districts: list[list[int]] = [[] for _ in self.lane_ids]
        for d, lanes in enumerate(self.district_lanes):
            for lane in lanes:
                lane_districts[lane].append(d)
        set_(self, "lane_districts", tuple(tuple(x) for x in lane_districts))
        neighbours: list[list[tuple[int, int]]] = [[] for _ in self.district_ids]
        for lane, ds in enumerate(lane_districts):
            if len(ds) == 2:
                a, b = ds
                neighbours[a].append((b, lane))
                neighbours[b].append((a, lane))
        set_(self, "district_neighbours", tuple(tuple(sorted(n)) for n in neighbours))
        square_lanes: list[list[int]] = [[] for _ in self.square_ids]
        for lane, (a, b) in enumerate(self.lane_ends):
            square_lanes[a].append(lane)
            square_lanes[b].append(lane)
        set_(self, "square_lanes", tuple(tuple(x) for x in square_lanes))
        offsets, total = [], 0
        for n in self.lane_len:
            offsets.append(total)
            total += n
        set_(self, "lane_offset", tuple(offsets))
        set_(self, "total_spots", total)

    @property
    def n_squares(self) -> int:
        return len(self.square_ids)

    @property
    def n_lanes(self) -> int:
        return len(self.lane_ids)

    @property
    def n_districts(self) -> int:
        return len(self.district_ids)

    def lane_index(self, lane_id: str) -> Lane:
        return self.lane_ids.index(lane_id)

    def square_index(self, square_id: str) -> Square:
        return self.square_ids.index(square_id)

    def district_index(self, district_id: str) -> District:
        return self.district_ids.index(district_id)

    def to_dict(self) -> dict[str, Any]:
        """The board's content in board-file form (the layout table only when it has one)."""
        out: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "squares": list(self.square_ids),
            "lanes": [
                {
                    "id": self.lane_ids[i],
                    "ends": [self.square_ids[a], self.square_ids[b]],
                    "spots": list(self.lane_spots[i]),
                }
                for i, (a, b) in enumerate(self.lane_ends)
            ],
            "districts": [
                {"id": self.district_ids[d], "lanes": [self.lane_ids[x] for x in lanes]}
                for d, lanes in enumerate(self.district_lanes)
            ],
        }
        return out

    @property
    def content_hash(self) -> str:
        """A hash of the playable content (not name, description or layout)."""
        content = self.to_dict()
        del content["name"], content["description"]
        blob = json.dumps(content, sort_keys=True, separators=(",", ":")).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def _need(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str,
          source: str) -> Any:
    if key not in data:
        raise BoardError(f"missing field '{key}'", source=source, field=where)
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise BoardError(f"'{key}' must be a {names}, got {quote(value)}", source=source,
                         field=where)
    return value


# What the engines and the action encoding can hold (docs/rules.md, "Limits"): an action
# names a district in 8 bits, a lane and its end in 16.
LIMITS = {"squares": 10_000, "lanes": 10_000, "districts": 255, "spots per lane": 1_000,
          "spot value": 1_000}




def _at_most(count: int, what: str, where: str, source: str) -> None:
    if count > LIMITS[what]:
        raise BoardError(f"{count:,} {what}, more than the {LIMITS[what]:,} a board may have",
                         source=source, field=where)


def board_from_dict(data: Mapping[str, Any], source: str = "<dict>") -> Board:
    """Validate a board given as the parsed TOML table and compile it."""
    if not isinstance(data, Mapping):
        raise BoardError("a board must be a table", source=source)
    known = {"name", "description", "squares", "lanes", "districts", "layout"}
    for key in data:
        if key not in known:
            raise BoardError(f"unknown field '{key}'", source=source, field=key)
    name = _need(data, "name", str, "name", source)
    description = data.get("description", "")
    if not isinstance(description, str):
        raise BoardError("'description' must be a string", source=source, field="description")
    squares = _need(data, "squares", list, "squares", source)
    square_index: dict[str, int] = {}
    for s in squares:
        if not isinstance(s, str) or not s:
            raise BoardError(f"square id {quote(s)} is not a non-empty string", source=source,
                             field="squares")
        if s in square_index:
            raise BoardError(f"duplicate square id {s}", source=source, field="squares")
        square_index[s] = len(square_index)
    if len(squares) < 2:
        raise BoardError("a board needs at least two squares", source=source, field="squares")
    _at_most(len(squares), "squares", "squares", source)

    lanes = _need(data, "lanes", list, "lanes", source)
    if not lanes:
        raise BoardError("a board needs at least one lane", source=source, field="lanes")
    _at_most(len(lanes), "lanes", "lanes", source)
    lane_index: dict[str, int] = {}
    lane_ends: list[tuple[int, int]] = []
    lane_spots: list[tuple[int, ...]] = []
    for i, lane in enumerate(lanes):
        where = f"lanes[{i}]"
        if not isinstance(lane, Mapping):
            raise BoardError("a lane must be a table", source=source, field=where)
        for key in lane:
            if key not in ("id", "ends", "spots"):
                raise BoardError(f"unknown field '{key}'", source=source, field=where)
        lid = _need(lane, "id", str, where, source)
        where = f"lane {lid}"
        if lid in lane_index:
            raise BoardError(f"duplicate lane id {lid}", source=source, field=where)
        ends = _need(lane, "ends", list, where, source)
        if len(ends) != 2:
            raise BoardError(f"lane {lid} must have exactly two ends, got {len(ends)}",
                             source=source, field=where)
        for e in ends:
            if not isinstance(e, str) or e not in square_index:
                raise BoardError(f"lane {lid} ends at unknown square {quote(e)}", source=source,
                                 field=where)
        if ends[0] == ends[1]:
            raise BoardError(f"lane {lid} has both ends at the same square {ends[0]}",
                             source=source, field=where)
        spots = _need(lane, "spots", list, where, source)
        if not spots:
            raise BoardError(f"lane {lid} has no spots", source=source, field=where)
        _at_most(len(spots), "spots per lane", where, source)
        for v in spots:
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise BoardError(f"lane {lid} has a spot value {quote(v)} that is not a "
                                 "positive integer", source=source, field=where)
            if v > LIMITS["spot value"]:
                raise BoardError(f"lane {lid} has a spot value {v}, more than the "
                                 f"{LIMITS['spot value']:,} a board may print", source=source,
                                 field=where)
        lane_index[lid] = len(lane_index)
        lane_ends.append((square_index[ends[0]], square_index[ends[1]]))
        lane_spots.append(tuple(spots))

    districts = _need(data, "districts", list, "districts", source)
    if not districts:
        raise BoardError("a board needs at least one district", source=source,
                         field="districts")
    _at_most(len(districts), "districts", "districts", source)
    district_index: dict[str, int] = {}
    district_lanes: list[tuple[int, ...]] = []
    lane_users: list[list[str]] = [[] for _ in lane_index]
    for i, district in enumerate(districts):
        where = f"districts[{i}]"
        if not isinstance(district, Mapping):
            raise BoardError("a district must be a table", source=source, field=where)
        for key in district:
            if key not in ("id", "lanes"):
                raise BoardError(f"unknown field '{key}'", source=source, field=where)
        did = _need(district, "id", str, where, source)
        where = f"district {did}"
        if did in district_index:
            raise BoardError(f"duplicate district id {did}", source=source, field=where)
        dl = _need(district, "lanes", list, where, source)
        if not dl:
            raise BoardError(f"district {did} has no lanes", source=source, field=where)
        seen: set[str] = set()
        for lid in dl:
            if not isinstance(lid, str) or lid not in lane_index:
                raise BoardError(f"district {did} lists unknown lane {quote(lid)}", source=source,
                                 field=where)
            if lid in seen:
                raise BoardError(f"district {did} lists lane {lid} twice", source=source,
                                 field=where)
            seen.add(lid)
            lane_users[lane_index[lid]].append(did)
        district_index[did] = len(district_index)
        district_lanes.append(tuple(lane_index[x] for x in dl))

    lane_ids = list(lane_index)
    for li, users in enumerate(lane_users):
        if not users:
            raise BoardError(f"lane {lane_ids[li]} is in no district", source=source,
                             field=f"lane {lane_ids[li]}")
        if len(users) > 2:
            raise BoardError(f"lane {lane_ids[li]} is in more than two districts "
                             f"({', '.join(users)})", source=source, field=f"lane {lane_ids[li]}")
    shared: dict[tuple[str, str], str] = {}
    for li, users in enumerate(lane_users):
        if len(users) == 2:
            pair = (min(users), max(users))
            if pair in shared:
                raise BoardError(f"districts {pair[0]} and {pair[1]} share more than one lane "
                                 f"({shared[pair]}, {lane_ids[li]})", source=source,
                                 field=f"district {pair[0]}")
            shared[pair] = lane_ids[li]
    # The district graph must be connected so that the Bobby can reach every district.
    district_ids = list(district_index)
    adjacency: dict[str, set[str]] = {d: set() for d in district_ids}
    for a, b in shared:
        adjacency[a].add(b)
        adjacency[b].add(a)
    reached = {district_ids[0]}
    todo = [district_ids[0]]
    while todo:
        for nxt in adjacency[todo.pop()]:
            if nxt not in reached:
                reached.add(nxt)
                todo.append(nxt)
    if len(reached) != len(district_ids):
        cut = next(d for d in district_ids if d not in reached)
        raise BoardError(f"the district graph is not connected: district {cut} cannot be "
                         f"reached from {district_ids[0]}", source=source,
                         field=f"district {cut}")

    layout = _layout(data.get("layout"), square_index, district_index, source)
    return Board(
        name=name,
        description=description,
        square_ids=tuple(square_index),
        lane_ids=tuple(lane_ids),
        district_ids=tuple(district_ids),
        lane_ends=tuple(lane_ends),
        lane_spots=tuple(lane_spots),
        district_lanes=tuple(district_lanes),
        layout=layout,
        source=source,
    )


def _layout(raw: Any, squares: Mapping[str, int], districts: Mapping[str, int],
            source: str) -> dict[str, tuple[float, float]]:
    """Optional drawing coordinates: `[layout.squares]` and `[layout.districts]` tables."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise BoardError("'layout' must be a table", source=source, field="layout")
    out: dict[str, tuple[float, float]] = {}
    for part, ids in (("squares", squares), ("districts", districts)):
        table = raw.get(part, {})
        if not isinstance(table, Mapping):
            raise BoardError(f"'layout.{part}' must be a table", source=source, field="layout")
        for key, xy in table.items():
            if key not in ids:
                raise BoardError(f"layout names unknown {part[:-1]} {quote(key)}", source=source,
                                 field=f"layout.{part}")
            if (not isinstance(xy, list) or len(xy) != 2
                    or not all(isinstance(v, int | float) and not isinstance(v, bool)
                               for v in xy)):
                raise BoardError(f"layout of {key} must be [x, y] numbers, got {quote(xy)}",
                                 source=source, field=f"layout.{part}")
            out[key] = (float(xy[0]), float(xy[1]))
    for key in raw:
        if key not in ("squares", "districts"):
            raise BoardError(f"unknown field '{key}'", source=source, field="layout")
    return out


def resolve_board_path(name_or_path: str | Path, base_dir: Path | None = None) -> Path:
    """A shipped board's name (`standard`) or a path, relative paths against `base_dir`."""
    text = str(name_or_path)
    shipped = BOARDS_DIR / f"{text}.toml"
    if "/" not in text and "\\" not in text and not text.endswith(".toml") and shipped.exists():
        return shipped
    path = Path(text)
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    return path


def load_board(name_or_path: str | Path = "standard", base_dir: Path | None = None, *,
               quote_content: bool = True) -> Board:
    """Load and validate a board by shipped name or by path (`quote_content` off: a TOML
    error says nothing of what the file holds)."""
    path = resolve_board_path(name_or_path, base_dir)
    source = str(path)
    if not path.exists():
        shipped = ", ".join(sorted(p.stem for p in BOARDS_DIR.glob("*.toml")))
        text = str(name_or_path)
        if "/" not in text and not text.endswith(".toml"):
            raise BoardError(f"no shipped board named {quote(text)} and no such file (shipped "
                             f"boards: {shipped})", source=source)
        raise BoardError(f"no such board file (shipped boards: {shipped})", source=source)
    data = read_document(path, "toml", BoardError, "board", quote_content=quote_content)
    return board_from_dict(data, source=source)
