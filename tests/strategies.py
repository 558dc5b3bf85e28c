"""Hypothesis strategies: random valid boards (SPEC §2), rules that fit them, play policies.

Boards come out as plain data in SPEC §2 form (the parsed TOML table), so a test can both
compile them with `sim.games.portobello.board.board_from_dict` and write them to a file with
`board_toml`.

Three families of boards, all valid by construction:
- `triangulated_boards`: a random triangulation of a convex polygon of squares, refined by
  inserting inner squares into triangles (so the district graph gets cycles), with some
  pairs of adjacent triangles merged into one district (their shared lane removed);
- `strip_boards`: a strip or a ring of four-sided districts between two rows of squares;
- `graph_boards`: an abstract random connected district graph, with lanes between random
  squares (some squares may border no lane at all; a board may have a single district).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

Board = dict[str, Any]


# -- building blocks ---------------------------------------------------------------------------
@st.composite
def spot_lists(draw: st.DrawFn, max_len: int = 6) -> list[int]:
    """The printed values of one lane: 1 to `max_len` spots, mostly worth 1-3."""
    n = draw(st.integers(1, max_len))
    hi = draw(st.sampled_from([3, 3, 3, 5]))
    return draw(st.lists(st.integers(1, hi), min_size=n, max_size=n))


class _Builder:
    """Collects squares, lanes and districts by index, then names and shuffles them."""

    def __init__(self, draw: st.DrawFn, max_len: int = 6) -> None:
        self.draw = draw
        self.max_len = max_len
        self.n_squares = 0
        self.lanes: list[tuple[int, int, list[int]]] = []
        self.districts: list[list[int]] = []

    def square(self) -> int:
        self.n_squares += 1
        return self.n_squares - 1

    def lane(self, a: int, b: int) -> int:
        assert a != b
        if self.draw(st.booleans()):
            a, b = b, a
        self.lanes.append((a, b, self.draw(spot_lists(self.max_len))))
        return len(self.lanes) - 1

    def build(self, name: str) -> Board:
        """Drop unused lanes, give ids, shuffle every listing order."""
        draw = self.draw
        used = sorted({lane for d in self.districts for lane in d})
        lane_order = draw(st.permutations(used))
        district_order = draw(st.permutations(range(len(self.districts))))
        square_order = draw(st.permutations(range(self.n_squares)))
        square_id = {s: f"S{i + 1:02d}" for i, s in enumerate(square_order)}
        lane_id = {lane: f"L{i + 1:02d}" for i, lane in enumerate(lane_order)}
        # Listing order and id order differ now and then (scoring follows listing order).
        listing = draw(st.permutations(lane_order)) if draw(st.booleans()) else lane_order
        return {
            "name": name,
            "description": "random board made by tests/strategies.py",
            "squares": [square_id[s] for s in range(self.n_squares)],
            "lanes": [
                {"id": lane_id[lane], "ends": [square_id[self.lanes[lane][0]],
                                               square_id[self.lanes[lane][1]]],
                 "spots": list(self.lanes[lane][2])}
                for lane in listing
            ],
            "districts": [
                {"id": f"D{i + 1:02d}",
                 "lanes": [lane_id[x] for x in draw(st.permutations(self.districts[d]))]}
                for i, d in enumerate(district_order)
            ],
        }


def _shares_ok(districts: list[list[int]]) -> bool:
    """No two districts share more than one lane."""
    owners: dict[int, list[int]] = {}
    for d, lanes in enumerate(districts):
        for lane in lanes:
            owners.setdefault(lane, []).append(d)
    pairs = [tuple(sorted(ds)) for ds in owners.values() if len(ds) == 2]
    return len(pairs) == len(set(pairs))


# -- board families ----------------------------------------------------------------------------
@st.composite
def triangulated_boards(draw: st.DrawFn, max_ring: int = 8, max_inner: int = 4) -> Board:
    b = _Builder(draw)
    k = draw(st.integers(3, max_ring))
    ring = [b.square() for _ in range(k)]
    triangles: list[tuple[int, int, int]] = []

    def split(lo: int, hi: int) -> None:  # triangulate the polygon ring[lo..hi]
        if hi - lo < 2:
            return
        apex = draw(st.integers(lo + 1, hi - 1))
        triangles.append((ring[lo], ring[apex], ring[hi]))
        split(lo, apex)
        split(apex, hi)

    split(0, k - 1)
    for _ in range(draw(st.integers(0, max_inner))):
        a, c, e = triangles.pop(draw(st.integers(0, len(triangles) - 1)))
        s = b.square()
        triangles += [(a, c, s), (c, e, s), (e, a, s)]
    edges: dict[frozenset[int], int] = {}

    def edge(x: int, y: int) -> int:
        key = frozenset((x, y))
        if key not in edges:
            edges[key] = b.lane(x, y)
        return edges[key]

    districts = [[edge(x, y), edge(y, z), edge(z, x)] for x, y, z in triangles]
    for _ in range(draw(st.integers(0, 2))):
        owners: dict[int, list[int]] = {}
        for d, lanes in enumerate(districts):
            for lane in lanes:
                owners.setdefault(lane, []).append(d)
        inner = sorted(lane for lane, ds in owners.items() if len(ds) == 2)
        if not inner:
            break
        lane = draw(st.sampled_from(inner))
        d1, d2 = owners[lane]
        merged = [x for x in districts[d1] + districts[d2] if x != lane]
        trial = [ls for i, ls in enumerate(districts) if i not in (d1, d2)] + [merged]
        if _shares_ok(trial):
            districts = trial
    b.districts = districts
    return b.build("random-triangulated")


@st.composite
def strip_boards(draw: st.DrawFn, max_cells: int = 6) -> Board:
    b = _Builder(draw)
    cells = draw(st.integers(1, max_cells))
    ring = cells >= 3 and draw(st.booleans())
    m = cells if ring else cells + 1
    top = [b.square() for _ in range(m)]
    bottom = [b.square() for _ in range(m)]
    rungs = [b.lane(top[i], bottom[i]) for i in range(m)]
    for i in range(cells):
        j = (i + 1) % m
        lanes = [rungs[i], rungs[j]]
        # An outer lane may be missing (the district is then open on that side).
        if draw(st.integers(0, 4)):
            lanes.append(b.lane(top[i], top[j]))
        if draw(st.integers(0, 4)):
            lanes.append(b.lane(bottom[i], bottom[j]))
        b.districts.append(lanes)
    return b.build("random-ring" if ring else "random-strip")


@st.composite
def graph_boards(draw: st.DrawFn, max_districts: int = 7, max_squares: int = 10) -> Board:
    b = _Builder(draw)
    n_sq = draw(st.integers(2, max_squares))
    for _ in range(n_sq):
        b.square()
    nd = draw(st.integers(1, max_districts))
    districts: list[list[int]] = [[] for _ in range(nd)]
    adjacent: set[tuple[int, int]] = set()

    def any_lane() -> int:
        x = draw(st.integers(0, n_sq - 1))
        y = draw(st.integers(0, n_sq - 2))
        return b.lane(x, y if y < x else y + 1)

    def share(i: int, j: int) -> None:
        lane = any_lane()
        districts[i].append(lane)
        districts[j].append(lane)
        adjacent.add((min(i, j), max(i, j)))

    for i in range(1, nd):  # a random spanning tree keeps the graph connected
        share(i, draw(st.integers(0, i - 1)))
    if nd >= 3:
        for _ in range(draw(st.integers(0, nd))):
            i, j = sorted((draw(st.integers(0, nd - 1)), draw(st.integers(0, nd - 1))))
            if i != j and (i, j) not in adjacent:
                share(i, j)
    for d in range(nd):
        for _ in range(draw(st.integers(0 if districts[d] else 1, 2))):
            districts[d].append(any_lane())
    b.districts = districts
    return b.build("random-graph")


def boards() -> st.SearchStrategy[Board]:
    """Any random valid board in SPEC §2 form."""
    return st.one_of(triangulated_boards(), strip_boards(), graph_boards())


# -- files -------------------------------------------------------------------------------------
def board_toml(board: Board) -> str:
    """A board in SPEC §2 form written as TOML (ids are plain strings, values ints)."""
    q = json.dumps
    out = [f"name = {q(board['name'])}", f"description = {q(board.get('description', ''))}",
           f"squares = [{', '.join(q(s) for s in board['squares'])}]", ""]
    for lane in board["lanes"]:
        out += ["[[lanes]]", f"id = {q(lane['id'])}",
                f"ends = [{q(lane['ends'][0])}, {q(lane['ends'][1])}]",
                f"spots = [{', '.join(str(v) for v in lane['spots'])}]", ""]
    for d in board["districts"]:
        out += ["[[districts]]", f"id = {q(d['id'])}",
                f"lanes = [{', '.join(q(x) for x in d['lanes'])}]", ""]
    return "\n".join(out)


def total_spots(board: Board) -> int:
    return sum(len(lane["spots"]) for lane in board["lanes"])


# -- rules ---------------------------------------------------------------------------------------
@st.composite
def rules_for(draw: st.DrawFn, board: Board, max_rounds: st.SearchStrategy[int] | None = None,
              vary_tokens: bool = True) -> dict[str, Any]:
    """A rules table (for `rules_from_dict`) that fits `board`, varying every switch."""
    players = draw(st.integers(2, 4))
    n_sq = len(board["squares"])
    baron = draw(st.sampled_from([True, True, True, False]))
    total = n_sq - 1 if baron else draw(st.integers(0, n_sq))
    citizens = draw(st.integers(0, total))
    rules: dict[str, Any] = {
        "players": players,
        "customers": {"citizen": citizens, "aristocrat": total - citizens},
        "baron": baron,
        "customer_order": draw(st.sampled_from(["drawn", "known"])),
        "bobby_placer": draw(st.sampled_from(["first", "next", "last"])),
        "bobby_tie": draw(st.sampled_from(["pay_co_leaders", "pay_bank"])),
        "negative_scores": draw(st.booleans()),
        "max_rounds": draw(st.integers(1, 25) if max_rounds is None else max_rounds),
    }
    if rules["customer_order"] == "known" and draw(st.booleans()):
        line = draw(st.permutations(["citizen"] * citizens + ["aristocrat"] * (total - citizens)))
        rules["customer_sequence"] = list(line) + (["baron"] if baron and draw(st.booleans())
                                                   else [])
        del rules["customer_order"], rules["customers"]
    if draw(st.booleans()):
        spots = total_spots(board)
        rules["stalls_per_player"] = draw(st.integers(1, max(1, spots // players + 3)))
    if draw(st.booleans()):
        rules["start_score"] = draw(st.integers(0, 12))
    if draw(st.integers(0, 3)) == 0:
        rules["start_scores"] = draw(st.lists(st.integers(0, 15), min_size=players,
                                              max_size=players))
    if vary_tokens and draw(st.integers(0, 3)) == 0:
        tokens = draw(st.sampled_from([(2, 3, 4), (2, 4), (1, 2, 3, 4), (3,), (1, 5)]))
        rules["player_tokens"] = list(tokens)
        rules["district_tokens"] = list(draw(st.lists(st.sampled_from(tokens), unique=True,
                                                      max_size=2)))
        rules["neutral_stack"] = draw(st.lists(st.integers(1, 3), max_size=8))
    if draw(st.integers(0, 3)) == 0:
        rules["multipliers"] = {pair: draw(st.integers(0, 5)) for pair in
                                ("citizen-citizen", "citizen-aristocrat",
                                 "aristocrat-aristocrat", "citizen-baron", "aristocrat-baron")}
    return rules


# -- play ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Policy:
    """How a random player chooses among the legal actions (all choices seeded)."""

    seed: int
    p_move: float  # chance to move the Bobby when a move is allowed
    p_end: float  # chance to end the turn early while actions are left
    max_moves: int  # Bobby moves allowed per turn (so that turns and games end)


policies = st.builds(
    Policy,
    seed=st.integers(0, 2**32 - 1),
    p_move=st.sampled_from([0.0, 0.1, 0.3, 0.6]),
    p_end=st.sampled_from([0.0, 0.05, 0.2, 0.5]),
    max_moves=st.sampled_from([0, 1, 2, 3, 4, 6]),
)
