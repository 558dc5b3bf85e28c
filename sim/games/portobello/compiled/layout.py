"""Board and rules as one flat int64 array `B`, and where each part of a game state lives in
the state array `S`, for the compiled engine.

The compiled path cannot read Python objects, so everything a game needs that does not
change during play (the board's lanes, districts and squares, every rules switch, and where
each table of the state lives) is packed into one array `B` by `pack`; a game state is one
int64 array `S` (`sim.games.portobello.compiled.engine.new_game`), so that copying a position is
`S.copy()`. Every field position is a module-level int, which numba folds into the compiled
code as a constant.

Three kinds of names, told apart by their prefix:

* a bare name (`N_PLAYERS`, `SEAT`) is a scalar: `B[N_PLAYERS]`, `S[SEAT]`;
* `O_` names a table of `B`: `B[O_X]` is where it starts in B, so entry i is
  `B[B[O_X] + i]`;
* `S_` names a table of `S`: `B[S_X]` is where it starts in S, so entry i is
  `S[B[S_X] + i]` (its place depends on the board and the player count, hence kept in B).

Tables in CSR form come in pairs: `X_AT` has one entry per row plus one, row r of `X` is
`B[B[O_X] + B[B[O_X_AT] + r]]` .. `B[B[O_X] + B[B[O_X_AT] + r + 1] - 1]`. n = players,
t = tokens per player, nl, ns, nd = lanes, squares, districts. Booleans are 0 / 1.

Every field is listed once, below: `HEADER` is B's header slot by slot (B's scalars, where
B's tables and S's tables start, S's length), `STATE_SCALARS` is S's scalars slot by slot;
each with what it holds and where its value comes from (a B scalar's value, a B table's
values, an S table's length, from the board and the rules). The module's names
(`N_PLAYERS`, `O_LANE_LEN`, `S_SCORES`, `SEAT`, ...) are their slots, `pack` fills B from the
listing, and the accessors the rules read the state through (`fields.py`) are generated
from it by `python -m sim.games.portobello.compiled.layout`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sim.games.portobello.board import Board
from sim.games.portobello.codes import CUSTOMER_CODES
from sim.games.portobello.codes import N_STATS
from sim.games.portobello.rules import Rules

Source = Callable[[Board, Rules], Any]


@dataclass(frozen=True)
class Field:
    """One field of the layout: a scalar of B or of S, or where a table of B or of S starts.

    `source` gives a B scalar's value, a B table's values or an S table's length, from the
    board and the rules (None: `pack` sets it, or play does for S's scalars). A table's
    `accessor` names its functions in `fields.py` and `index` their arguments; entry (i, j)
    of a two-index table is at i * stride + j, `stride` a scalar of B or a code of
    `sim.games.portobello.codes`."""

    name: str
    doc: str
    source: Source | None = None
    accessor: str = ""
    index: tuple[str, ...] = ()
    stride: str = ""

    @property
    def board_table(self) -> bool:
        return self.name.startswith("O_")

    @property
    def state_table(self) -> bool:
        return self.name.startswith("S_") and bool(self.accessor)


def _scalar(name: str, doc: str, source: Source | None = None) -> Field:
    return Field(name, doc, source)


def _table(name: str, accessor: str, index: str, doc: str, source: Source,
           stride: str = "") -> Field:
    """A table: `index` its index names, comma-separated."""
    return Field(name, doc, source, accessor, tuple(index.split(",")), stride)


def _starts(rows: Sequence[Sequence[Any]]) -> list[int]:
    """The CSR starts of `rows` (one per row, plus the end)."""
    starts = [0]
    for row in rows:
        starts.append(starts[-1] + len(row))
    return starts


def _token_max(rules: Rules) -> int:
    return max([*rules.player_tokens, *rules.neutral_stack, *rules.district_tokens])


def action_room(board: Board, rules: Rules) -> int:
    """An upper bound on the legal actions of any position (every list the compiled code
    fills is this long, so no board that loads can overflow one): the Bobby's placement,
    a customer's square, a turn's start (each token held, each district token in every
    district), or a turn's actions (both ends of every lane around the Bobby, a draw, every
    neighbouring district, the end)."""
    held = len(rules.player_tokens) + len(rules.neutral_stack)
    around = max((len(x) for x in board.district_lanes), default=0)
    neighbours = max((len(x) for x in board.district_neighbours), default=0)
    bound = max(board.n_districts, board.n_squares, held * (1 + board.n_districts),
                2 * around + neighbours + 2)
    return max(1024, bound + 16)


# B's header, slot by slot (its tables follow from slot B_HEADER on, in this order).
HEADER: tuple[Field, ...] = (
    # -- scalars of B (slots 0..19) --------------------------------------------------------
    _scalar("N_PLAYERS", "players", lambda b, r: r.players),
    _scalar("N_LANES", "lanes", lambda b, r: b.n_lanes),
    _scalar("N_SQUARES", "squares", lambda b, r: b.n_squares),
    _scalar("N_DISTRICTS", "districts", lambda b, r: b.n_districts),
    _scalar("N_SPOTS", "stall spots of all lanes", lambda b, r: b.total_spots),
    _scalar("N_TOKENS", "tokens each player starts with (t)",
            lambda b, r: len(r.player_tokens)),
    _scalar("START_STALLS", "stalls each player starts with", lambda b, r: r.stalls),
    _scalar("START_SCORE", "the start score switch (seats start from O_START_SCORES)",
            lambda b, r: r.start_score),
    _scalar("KNOWN_ORDER", "customers drawn in a known order",
            lambda b, r: r.customer_order == "known"),
    _scalar("HAS_SEQUENCE", "that order is given by the rules",
            lambda b, r: r.customer_sequence is not None),
    _scalar("WITH_BARON", "the baron is in play", lambda b, r: r.baron),
    _scalar("NEGATIVE_SCORES", "scores may go below zero", lambda b, r: r.negative_scores),
    _scalar("TIE_PAYS_BANK", "a tied leader pays the bank for the Bobby",
            lambda b, r: r.bobby_tie == "pay_bank"),
    _scalar("MAX_ROUNDS", "round limit", lambda b, r: r.max_rounds),
    _scalar("BOBBY_PLACER", "the seat that places the Bobby", lambda b, r: r.bobby_placer_seat),
    _scalar("N_CITIZENS", "citizens in the bag at the start", lambda b, r: r.bag["citizen"]),
    _scalar("N_ARISTOCRATS", "aristocrats in the bag at the start",
            lambda b, r: r.bag["aristocrat"]),
    _scalar("BAG_SIZE", "customers in the bag at the start", lambda b, r: r.bag_size),
    _scalar("N_NEUTRAL", "neutral tokens in the stack", lambda b, r: len(r.neutral_stack)),
    _scalar("TOKEN_MAX", "largest token value of any kind", lambda b, r: _token_max(r)),
    # -- where B's tables start (slots 20..39) ---------------------------------------------
    _table("O_LANE_LEN", "lane_len", "lane", "spots of each lane [nl]",
           lambda b, r: b.lane_len),
    _table("O_LANE_OFFSET", "lane_offset", "lane", "first spot of each lane [nl]",
           lambda b, r: b.lane_offset),
    _table("O_SPOT_VALUE", "spot_value", "spot", "value of each spot, lane by lane [spots]",
           lambda b, r: [v for spots in b.lane_spots for v in spots]),
    _table("O_LANE_END0", "lane_end0", "lane", "square at the lane's first end [nl]",
           lambda b, r: [a for a, _ in b.lane_ends]),
    _table("O_LANE_END1", "lane_end1", "lane", "square at the lane's other end [nl]",
           lambda b, r: [z for _, z in b.lane_ends]),
    _table("O_LANE_DISTRICT0", "lane_district0", "lane",
           "first district the lane borders (-1: none) [nl]",
           lambda b, r: [ds[0] if ds else -1 for ds in b.lane_districts]),
    _table("O_LANE_DISTRICT1", "lane_district1", "lane",
           "second district the lane borders (-1: none) [nl]",
           lambda b, r: [ds[1] if len(ds) > 1 else -1 for ds in b.lane_districts]),
    _table("O_DISTRICT_LANES_AT", "district_lanes_at", "district",
           "CSR starts of O_DISTRICT_LANES [nd + 1]", lambda b, r: _starts(b.district_lanes)),
    _table("O_DISTRICT_LANES", "district_lane", "i", "the lanes bordering each district",
           lambda b, r: [lane for row in b.district_lanes for lane in row]),
    _table("O_NEIGHBOURS_AT", "neighbours_at", "district",
           "CSR starts of O_NEIGHBOUR_DISTRICT and O_NEIGHBOUR_LANE [nd + 1]",
           lambda b, r: _starts(b.district_neighbours)),
    _table("O_NEIGHBOUR_DISTRICT", "neighbour_district", "i",
           "the districts next to each district",
           lambda b, r: [d for row in b.district_neighbours for d, _ in row]),
    _table("O_NEIGHBOUR_LANE", "neighbour_lane", "i", "the lane between them",
           lambda b, r: [lane for row in b.district_neighbours for _, lane in row]),
    _table("O_SQUARE_LANES_AT", "square_lanes_at", "square",
           "CSR starts of O_SQUARE_LANES [ns + 1]", lambda b, r: _starts(b.square_lanes)),
    _table("O_SQUARE_LANES", "square_lane", "i", "the lanes ending at each square",
           lambda b, r: [lane for row in b.square_lanes for lane in row]),
    _table("O_PLAYER_TOKENS", "player_token", "token", "a player's tokens at the start [t]",
           lambda b, r: r.player_tokens),
    _table("O_NEUTRAL_STACK", "neutral_token", "k", "the neutral tokens, first handed out first",
           lambda b, r: r.neutral_stack),
    _table("O_IS_DISTRICT_TOKEN", "is_district_token", "value",
           "whether a token of this value scores districts [TOKEN_MAX + 1]",
           lambda b, r: [v in r.district_tokens for v in range(_token_max(r) + 1)]),
    _table("O_MULTIPLIER", "multiplier", "a,b",
           "the multiplier of a lane with customers a and b at its ends (customer codes)",
           lambda b, r: r.multiplier_table(), stride="N_CUSTOMER_CODES"),
    _table("O_SEQUENCE", "sequence", "position",
           "the customer line the rules give, as codes (the baron left out)",
           lambda b, r: [CUSTOMER_CODES[c] for c in (r.customer_sequence or ())
                         if c != "baron"]),
    _table("O_LANE_INNER", "lane_inner", "lane", "the lane borders two districts [nl]",
           lambda b, r: [len(ds) == 2 for ds in b.lane_districts]),
    # -- where S's tables start (slots 40..54; each source is the table's length) -----------
    _table("S_SCORES", "score", "seat", "each seat's score [n]", lambda b, r: r.players),
    _table("S_STALLS_LEFT", "stalls_left", "seat", "stalls each seat has left [n]",
           lambda b, r: r.players),
    _table("S_TOK_VAL", "token_value", "seat,token", "token values, seat by seat (0: gone)",
           lambda b, r: r.players * len(r.player_tokens), stride="N_TOKENS"),
    _table("S_TOK_NEUTRAL", "token_neutral", "seat,token", "the token is a neutral one",
           lambda b, r: r.players * len(r.player_tokens), stride="N_TOKENS"),
    _table("S_TOK_UP", "token_up", "seat,token", "the token is face up",
           lambda b, r: r.players * len(r.player_tokens), stride="N_TOKENS"),
    _table("S_LANE_COUNT", "lane_count", "lane", "stalls in each lane", lambda b, r: b.n_lanes),
    _table("S_LANE_DIR", "lane_dir", "lane", "the end a lane is built from (-1: none)",
           lambda b, r: b.n_lanes),
    _table("S_LANE_SCORED", "lane_scored", "lane", "the lane has been scored",
           lambda b, r: b.n_lanes),
    _table("S_LANE_SEAT", "lane_stalls", "lane,seat", "stalls of each seat in each lane",
           lambda b, r: b.n_lanes * r.players, stride="N_PLAYERS"),
    _table("S_SPOT_SEAT", "spot_seat", "spot", "the seat owning each spot (-1: empty)",
           lambda b, r: b.total_spots),
    _table("S_SQUARE_CUSTOMER", "square_customer", "square",
           "the customer code on each square (0: none)", lambda b, r: b.n_squares),
    _table("S_DISTRICT_SCORED", "district_scored", "district",
           "the seat that scored each district (-1: none)", lambda b, r: b.n_districts),
    _table("S_LINE", "line", "position", "the known customer line [BAG_SIZE]",
           lambda b, r: r.bag_size),
    _table("S_SCORED_LANES", "scored_lane", "k", "the lanes in the order they scored",
           lambda b, r: b.n_lanes),
    _table("S_STATS", "stat", "seat,stat", "per-seat statistics (codes.STAT_NAMES)",
           lambda b, r: r.players * N_STATS, stride="N_STATS"),
    # -- more scalars of B (slots 55..57), and the table added last (58) ---------------------
    _scalar("S_SIZE", "the length of S (S's tables follow its scalars from S_HEADER on)"),
    _scalar("ACTION_ROOM", "the room a list of legal actions needs (at least 1024)",
            action_room),
    _scalar("MAX_STEPS", "the longest option: a Bobby path through every district, its "
            "last step", lambda b, r: b.n_districts + 2),
    _table("O_START_SCORES", "start_score", "seat", "each seat's starting score [n]",
           lambda b, r: r.seat_start_scores),
)
B_HEADER = 64  # B's tables start here

# S's scalars, slot by slot (its tables follow from slot S_HEADER on).
STATE_SCALARS: tuple[Field, ...] = (
    _scalar("SEAT", "the seat to move"),
    _scalar("ROUND", "round (from 1)"),
    _scalar("TURN", "turn (from 1; 0 before the Bobby is placed)"),
    _scalar("PHASE", "phase code (codes)"),
    _scalar("ACTIONS_LEFT", "actions left in the turn"),
    _scalar("NEUTRAL_TOP", "neutral tokens handed out so far"),
    _scalar("N_FULL_LANES", "lanes that are full"),
    _scalar("BOBBY", "the Bobby's district (-1: not placed)"),
    _scalar("BAG_CITIZENS", "citizens left in the bag"),
    _scalar("BAG_ARISTOCRATS", "aristocrats left in the bag (the slot after BAG_CITIZENS: "
            "the bag count of customer code c is S[BAG_CITIZENS + c - 1])"),
    _scalar("CUSTOMERS_LEFT", "customers left to draw"),
    _scalar("LINE_POS", "next position in the known line"),
    _scalar("PENDING", "the drawn customer waiting for a square"),
    _scalar("BARON_SQUARE", "the baron's square (-1: none yet)"),
    _scalar("END_REASON", "end reason code (0: none yet)"),
    _scalar("N_SCORED_LANES", "entries used in S_SCORED_LANES"),
    _scalar("LOG_LEN", "actions written into the record log"),
    _scalar("LOG_OVERFLOW", "1 when the log array was too short"),
)
S_HEADER = 24  # S's tables start here

# The module's names: each field's slot (`from ...layout import N_PLAYERS`).
SLOTS: dict[str, int] = {f.name: slot for slot, f in enumerate(HEADER)}
globals().update(SLOTS)
globals().update({f.name: slot for slot, f in enumerate(STATE_SCALARS)})
assert len(HEADER) <= B_HEADER and len(STATE_SCALARS) <= S_HEADER


def pack(board: Board, rules: Rules) -> np.ndarray:
    """The array B for a board and rules (checked to fit each other by the caller)."""
    rules.check_board(board)
    head = [0] * B_HEADER
    tables: list[int] = []
    size = S_HEADER  # where the next table of S starts
    for slot, f in enumerate(HEADER):
        if f.source is None:
            continue
        value = f.source(board, rules)
        if f.board_table:
            head[slot] = B_HEADER + len(tables)
            tables.extend(int(v) for v in value)
        elif f.state_table:
            head[slot] = size
            size += value
        else:
            head[slot] = int(value)
    head[SLOTS["S_SIZE"]] = size
    return np.array(head + tables, dtype=np.int64)


def state_tables(board: Board, rules: Rules) -> list[tuple[int, int]]:
    """The tables of S in their order, each as (its slot in B, its length)."""
    return [(slot, int(f.source(board, rules))) for slot, f in enumerate(HEADER)
            if f.state_table and f.source is not None]


def _docstring(text: str) -> list[str]:
    """A generated function's docstring lines, wrapped to the line length."""
    return textwrap.wrap(f'"""{text}"""', 96, initial_indent="    ", subsequent_indent="    ")


def _stride(f: Field) -> str:
    """The stride of a two-index table as code: a scalar of B, or a code."""
    return f"B[{f.stride}]" if f.stride in SLOTS else f.stride


# The tables of S as (accessor, slot name, index names, stride as code), for the tests.
STATE_FIELDS: tuple[tuple[str, str, tuple[str, ...], str], ...] = tuple(
    (f.accessor, f.name, f.index, _stride(f) if f.stride else "")
    for f in HEADER if f.state_table)
_DECORATOR = '@njit(cache=True, _nrt=False)'


def fields_source() -> str:
    """The source of `fields.py`: a getter for every table of B, and a getter, a setter
    and an adder for every table of S, named after the table (its `accessor`)."""
    tables = [f for f in HEADER if f.board_table or f.state_table]
    names = {f.name for f in tables} | {f.stride for f in tables if f.stride in SLOTS}
    codes = sorted({f.stride for f in tables if f.stride and f.stride not in SLOTS})
    lines = [
        '"""Named accessors of the state and the board: generated from the field listing of',
        "`sim.games.portobello.compiled.layout` by",
        "`python -m sim.games.portobello.compiled.layout`; do not edit.", "",
        "`lane_stalls(B, S, lane, seat)` reads what `S[B[S_LANE_SEAT] + lane * B[N_PLAYERS] +",
        "seat]` does; `set_` and `add_` write it, so the rules read like the rulebook. Each",
        "is its own small compiled function, which LLVM inlines where it is called (the same",
        "machine code as the index arithmetic); inlining them in numba's own IR instead",
        "copied the IR at every call and made the first compile about 20 s longer.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "import numpy as np",
        "from numba import njit",
        "",
        *(f"from sim.games.portobello.codes import {c}" for c in codes),
        *(f"from sim.games.portobello.compiled.layout import {s}" for s in
          sorted(names, key=str.lower)),
    ]
    for f in tables:
        args = ", ".join(f"{i}: int" for i in f.index)
        at = f"B[{f.name}] + {f.index[0]}" if len(f.index) == 1 else \
            f"B[{f.name}] + {f.index[0]} * {_stride(f)} + {f.index[1]}"
        where = ", ".join(f"`{i}`" for i in f.index)
        what = f"{f.doc[0].upper()}{f.doc[1:]}: {f.name} at {where}"
        if f.board_table:
            lines += ["", "", _DECORATOR,
                      f"def {f.accessor}(B: np.ndarray, {args}) -> int:",
                      *_docstring(f"{what}."),
                      f"    return B[np.uint64({at})]"]
            continue
        lines += ["", "", _DECORATOR,
                  f"def {f.accessor}(B: np.ndarray, S: np.ndarray, {args}) -> int:",
                  *_docstring(f"{what}."),
                  f"    return S[np.uint64({at})]",
                  "", "", _DECORATOR,
                  f"def set_{f.accessor}(B: np.ndarray, S: np.ndarray, {args}, "
                  "value: int) -> None:",
                  *_docstring(f"Set {f.accessor}: {f.name} at {where}."),
                  f"    S[np.uint64({at})] = value",
                  "", "", _DECORATOR,
                  f"def add_{f.accessor}(B: np.ndarray, S: np.ndarray, {args}, "
                  "delta: int) -> None:",
                  *_docstring(f"Add `delta` to {f.accessor}: {f.name} at {where}."),
                  f"    S[np.uint64({at})] += delta"]
    return "\n".join(lines) + "\n"


FIELDS_FILE = Path(__file__).with_name("fields.py")

if __name__ == "__main__":
    FIELDS_FILE.write_text(fields_source())
    print(f"wrote {FIELDS_FILE}")
