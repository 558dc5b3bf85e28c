"""Board and rules as one flat int64 array `B`, and where each part of a game state lives in
the state array `S`, for the compiled engine.

The compiled path cannot read Python objects, so everything a game needs that does not
change during play (the board's lanes, districts and squares, every rules switch, and where
each table of the state lives) is packed into one array `B` by `pack`; a game state is one
int64 array `S` (`sim.games.portobello.compiled.engine.new_game`), so that copying a position is
`S.copy()`. Every field position below is a module-level int, which
numba folds into the compiled code as a constant.

Three kinds of names, told apart by their prefix:

* a bare name (`N_PLAYERS`, `SEAT`) is a scalar: `B[N_PLAYERS]`, `S[SEAT]`;
* `O_` names a table of `B`: `B[O_X]` is where it starts in B, so entry i is
  `B[B[O_X] + i]`;
* `S_` names a table of `S`: `B[S_X]` is where it starts in S, so entry i is
  `S[B[S_X] + i]` (its place depends on the board and the player count, hence kept in B).

Tables in CSR form come in pairs: `X_AT` has one entry per row plus one, row r of `X` is
`B[B[O_X] + B[B[O_X_AT] + r]]` .. `B[B[O_X] + B[B[O_X_AT] + r + 1] - 1]`. n = players,
t = tokens per player, nl, ns, nd = lanes, squares, districts. Booleans are 0 / 1.

Scalars of B (slots 0..19), from `Board` and `Rules`:

    N_PLAYERS         players                                   rules.players
    N_LANES           lanes                                     board.n_lanes
    N_SQUARES         squares                                   board.n_squares
    N_DISTRICTS       districts                                 board.n_districts
    N_SPOTS           stall spots of all lanes                  board.total_spots
    N_TOKENS          tokens each player starts with (t)        len(rules.player_tokens)
    START_STALLS      stalls each player starts with            rules.stalls
    START_SCORE       the start score switch (seats start from  rules.start_score
                      O_START_SCORES)
    KNOWN_ORDER       customers drawn in a known order          rules.customer_order == "known"
    HAS_SEQUENCE      that order is given by the rules          rules.customer_sequence set
    WITH_BARON        the baron is in play                      rules.baron
    NEGATIVE_SCORES   scores may go below zero                  rules.negative_scores
    TIE_PAYS_BANK     a tied leader pays the bank for the Bobby rules.bobby_tie == "pay_bank"
    MAX_ROUNDS        round limit                               rules.max_rounds
    BOBBY_PLACER      the seat that places the Bobby            rules.bobby_placer_seat
    N_CITIZENS        citizens in the bag at the start          rules.bag["citizen"]
    N_ARISTOCRATS     aristocrats in the bag at the start       rules.bag["aristocrat"]
    BAG_SIZE          customers in the bag at the start         rules.bag_size
    N_NEUTRAL         neutral tokens in the stack               len(rules.neutral_stack)
    TOKEN_MAX         largest token value of any kind           max of all token tuples

Tables of B (their offsets in slots 20..39):

    O_LANE_LEN            [nl]      spots of each lane                board.lane_len
    O_LANE_OFFSET         [nl]      first spot of each lane           board.lane_offset
    O_SPOT_VALUE          [spots]   value of each spot, lane by lane  board.lane_spots
    O_LANE_END0           [nl]      square at the lane's first end    board.lane_ends[l][0]
    O_LANE_END1           [nl]      square at the lane's other end    board.lane_ends[l][1]
    O_LANE_DISTRICT0      [nl]      first district it borders (-1)    board.lane_districts
    O_LANE_DISTRICT1      [nl]      second district it borders (-1)   board.lane_districts
    O_LANE_INNER          [nl]      it borders two districts          len(lane_districts) == 2
    O_DISTRICT_LANES_AT   [nd + 1]  CSR starts of ...                 board.district_lanes
    O_DISTRICT_LANES      [..]      ... the lanes bordering district d
    O_NEIGHBOURS_AT       [nd + 1]  CSR starts of ...                 board.district_neighbours
    O_NEIGHBOUR_DISTRICT  [..]      ... the districts next to d, and
    O_NEIGHBOUR_LANE      [..]      ... the lane between them
    O_SQUARE_LANES_AT     [ns + 1]  CSR starts of ...                 board.square_lanes
    O_SQUARE_LANES        [..]      ... the lanes ending at square s
    O_PLAYER_TOKENS       [t]       a player's tokens at the start    rules.player_tokens
    O_NEUTRAL_STACK       [..]      neutral tokens, first handed out  rules.neutral_stack
    O_IS_DISTRICT_TOKEN   [TOKEN_MAX + 1]  value v scores districts   v in rules.district_tokens
    O_MULTIPLIER          [16]      lane multiplier of ends (a, b)    rules.multiplier_table()
                                    at a * 4 + b (customer codes)
    O_SEQUENCE            [..]      the given customer line, codes    rules.customer_sequence
                                    (baron left out)
    O_START_SCORES        [n]       each seat's starting score        rules.seat_start_scores
                                    (slot 58)

Where the tables of S start (slots 40..54; S_SIZE, slot 55, is the length of S; B's own
tables start at B_HEADER = 64):

    S_SCORES            [n]       each seat's score                   game.scores
    S_STALLS_LEFT       [n]       stalls each seat has left           game.stalls_left
    S_TOK_VAL           [n * t]   token values, seat by seat (0: gone) game.tok_val
    S_TOK_NEUTRAL       [n * t]   the token is a neutral one          game.tok_neutral
    S_TOK_UP            [n * t]   the token is face up                game.tok_up
    S_LANE_COUNT        [nl]      stalls in each lane                 game.lane_count
    S_LANE_DIR          [nl]      end a lane is built from (-1: none) game.lane_dir
    S_LANE_SCORED       [nl]      the lane has been scored            game.lane_scored
    S_LANE_SEAT         [nl * n]  stalls of seat p in lane l, l * n + p  game.lane_seat
    S_SPOT_SEAT         [spots]   seat owning each spot (-1: empty)   game.spot_seat
    S_SQUARE_CUSTOMER   [ns]      customer code on each square (0)    game.square_customer
    S_DISTRICT_SCORED   [nd]      seat that scored district (-1)      game.district_scored
    S_LINE              [BAG_SIZE]  the known customer line           game.line
    S_SCORED_LANES      [nl]      lanes in the order they scored      game.scored_lanes
    S_STATS             [n * N_STATS]  per-seat statistics            game.stats

Scalars of S (slots 0..17, then room up to S_HEADER):

    SEAT              the seat to move                              game.seat
    ROUND             round (from 1)                                game.round
    TURN              turn (from 1; 0 before the Bobby is placed)   game.turn
    PHASE             phase code (codes)                            game.phase
    ACTIONS_LEFT      actions left in the turn                      game.actions_left
    NEUTRAL_TOP       neutral tokens handed out so far              game.neutral_top
    N_FULL_LANES      lanes that are full                           game.n_full
    BOBBY             the Bobby's district (-1: not placed)         game.bobby
    BAG_CITIZENS      citizens left in the bag                      game.bag[1]
    BAG_ARISTOCRATS   aristocrats left in the bag (the slot after   game.bag[2]
                      BAG_CITIZENS: the bag count of customer code c
                      is S[BAG_CITIZENS + c - 1])
    CUSTOMERS_LEFT    customers left to draw                        game.customers_left
    LINE_POS          next position in the known line               game.line_pos
    PENDING           the drawn customer waiting for a square       game.pending
    BARON_SQUARE      the baron's square (-1: none yet)             game.baron_square
    END_REASON        end reason code (0: none yet)                 game.end_reason
    N_SCORED_LANES    entries used in S_SCORED_LANES                len(game.scored_lanes)
    LOG_LEN           actions written into the record log           len(game.log)
    LOG_OVERFLOW      1 when the log array was too short            (compiled only)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sim.games.portobello.board import Board
from sim.games.portobello.codes import CUSTOMER_CODES
from sim.games.portobello.codes import N_STATS
from sim.games.portobello.rules import Rules

# -- scalars of B (see the module docstring) ---------------------------------------------------
(N_PLAYERS, N_LANES, N_SQUARES, N_DISTRICTS, N_SPOTS, N_TOKENS, START_STALLS, START_SCORE,
 KNOWN_ORDER, HAS_SEQUENCE) = range(10)
(WITH_BARON, NEGATIVE_SCORES, TIE_PAYS_BANK, MAX_ROUNDS, BOBBY_PLACER, N_CITIZENS,
 N_ARISTOCRATS, BAG_SIZE, N_NEUTRAL, TOKEN_MAX) = range(10, 20)
# -- offsets of B's tables ---------------------------------------------------------------------
(O_LANE_LEN, O_LANE_OFFSET, O_SPOT_VALUE, O_LANE_END0, O_LANE_END1, O_LANE_DISTRICT0,
 O_LANE_DISTRICT1, O_DISTRICT_LANES_AT, O_DISTRICT_LANES, O_NEIGHBOURS_AT,
 O_NEIGHBOUR_DISTRICT, O_NEIGHBOUR_LANE, O_SQUARE_LANES_AT, O_SQUARE_LANES, O_PLAYER_TOKENS,
 O_NEUTRAL_STACK, O_IS_DISTRICT_TOKEN, O_MULTIPLIER, O_SEQUENCE, O_LANE_INNER) = range(20, 40)
# -- offsets of the state array S's tables (stored in B), and S's length -----------------------
(S_SCORES, S_STALLS_LEFT, S_TOK_VAL, S_TOK_NEUTRAL, S_TOK_UP, S_LANE_COUNT, S_LANE_DIR,
 S_LANE_SCORED, S_LANE_SEAT, S_SPOT_SEAT, S_SQUARE_CUSTOMER, S_DISTRICT_SCORED, S_LINE,
 S_SCORED_LANES, S_STATS, S_SIZE) = range(40, 56)
# The room a list of legal actions needs on this board (at least 1024), and the longest
# option: a Bobby path through every district and its last step.
ACTION_ROOM, MAX_STEPS = 56, 57
O_START_SCORES = 58  # a table of B like those above (slots 58..63 are free)
B_HEADER = 64  # B's tables start here

# -- scalars of S ------------------------------------------------------------------------------
(SEAT, ROUND, TURN, PHASE, ACTIONS_LEFT, NEUTRAL_TOP, N_FULL_LANES, BOBBY, BAG_CITIZENS,
 BAG_ARISTOCRATS, CUSTOMERS_LEFT, LINE_POS, PENDING, BARON_SQUARE, END_REASON, N_SCORED_LANES,
 LOG_LEN, LOG_OVERFLOW) = range(18)
S_HEADER = 24  # S's tables start here


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


def pack(board: Board, rules: Rules) -> np.ndarray:
    """The array B for a board and rules (checked to fit each other by the caller)."""
    rules.check_board(board)
    n, nl, ns, nd = rules.players, board.n_lanes, board.n_squares, board.n_districts
    head = [0] * B_HEADER
    tables: list[int] = []

    def table(slot: int, values: list[int]) -> None:
        head[slot] = B_HEADER + len(tables)
        tables.extend(int(v) for v in values)

    def csr(starts_slot: int, values_slot: int, rows: list[list[int]]) -> None:
        starts = [0]
        for row in rows:
            starts.append(starts[-1] + len(row))
        table(starts_slot, starts)
        table(values_slot, [v for row in rows for v in row])

    bag = rules.bag
    tokens = list(rules.player_tokens)
    stack = list(rules.neutral_stack)
    token_max = max(tokens + stack + list(rules.district_tokens))
    head[N_PLAYERS], head[N_LANES], head[N_SQUARES], head[N_DISTRICTS] = n, nl, ns, nd
    head[N_SPOTS], head[N_TOKENS] = board.total_spots, len(tokens)
    head[START_STALLS], head[START_SCORE] = rules.stalls, rules.start_score
    head[KNOWN_ORDER] = rules.customer_order == "known"
    head[HAS_SEQUENCE] = rules.customer_sequence is not None
    head[WITH_BARON], head[NEGATIVE_SCORES] = rules.baron, rules.negative_scores
    head[TIE_PAYS_BANK] = rules.bobby_tie == "pay_bank"
    head[MAX_ROUNDS], head[BOBBY_PLACER] = rules.max_rounds, rules.bobby_placer_seat
    head[N_CITIZENS], head[N_ARISTOCRATS] = bag["citizen"], bag["aristocrat"]
    head[BAG_SIZE], head[N_NEUTRAL], head[TOKEN_MAX] = rules.bag_size, len(stack), token_max

    table(O_LANE_LEN, list(board.lane_len))
    table(O_LANE_OFFSET, list(board.lane_offset))
    table(O_SPOT_VALUE, [v for spots in board.lane_spots for v in spots])
    table(O_LANE_END0, [a for a, _ in board.lane_ends])
    table(O_LANE_END1, [b for _, b in board.lane_ends])
    table(O_LANE_DISTRICT0, [ds[0] if ds else -1 for ds in board.lane_districts])
    table(O_LANE_DISTRICT1, [ds[1] if len(ds) > 1 else -1 for ds in board.lane_districts])
    table(O_LANE_INNER, [len(ds) == 2 for ds in board.lane_districts])
    csr(O_DISTRICT_LANES_AT, O_DISTRICT_LANES, [list(x) for x in board.district_lanes])
    starts = [0]
    for row in board.district_neighbours:
        starts.append(starts[-1] + len(row))
    table(O_NEIGHBOURS_AT, starts)
    table(O_NEIGHBOUR_DISTRICT, [d for row in board.district_neighbours for d, _ in row])
    table(O_NEIGHBOUR_LANE, [lane for row in board.district_neighbours for _, lane in row])
    csr(O_SQUARE_LANES_AT, O_SQUARE_LANES, [list(x) for x in board.square_lanes])
    table(O_PLAYER_TOKENS, tokens)
    table(O_NEUTRAL_STACK, stack)
    table(O_IS_DISTRICT_TOKEN, [v in rules.district_tokens for v in range(token_max + 1)])
    table(O_MULTIPLIER, list(rules.multiplier_table()))
    seq = [CUSTOMER_CODES[c] for c in (rules.customer_sequence or ()) if c != "baron"]
    table(O_SEQUENCE, seq)
    table(O_START_SCORES, list(rules.seat_start_scores))
    head[ACTION_ROOM] = action_room(board, rules)
    head[MAX_STEPS] = nd + 2

    # Where the state's tables live in S.
    size = S_HEADER
    for slot, length in state_tables(board, rules):
        head[slot] = size
        size += length
    head[S_SIZE] = size
    return np.array(head + tables, dtype=np.int64)


def state_tables(board: Board, rules: Rules) -> list[tuple[int, int]]:
    """The tables of S in their order, each as (its slot in B, its length)."""
    n, t = rules.players, len(rules.player_tokens)
    nl = board.n_lanes
    return [(S_SCORES, n), (S_STALLS_LEFT, n), (S_TOK_VAL, n * t), (S_TOK_NEUTRAL, n * t),
            (S_TOK_UP, n * t), (S_LANE_COUNT, nl), (S_LANE_DIR, nl), (S_LANE_SCORED, nl),
            (S_LANE_SEAT, nl * n), (S_SPOT_SEAT, board.total_spots),
            (S_SQUARE_CUSTOMER, board.n_squares), (S_DISTRICT_SCORED, board.n_districts),
            (S_LINE, rules.bag_size), (S_SCORED_LANES, nl), (S_STATS, n * N_STATS)]


# -- the field table: every table of S and B by name, with its index --------------------------
# (name, slot, indexes): entry (i, j) of a two-index table is at i * stride + j, its stride
# the B scalar (or number) given with the second index. `fields.py` is generated from this
# table (`python -m sim.games.portobello.compiled.layout`): the accessors the rules read the state
# through, `lane_stalls(B, S, lane, seat)` for `S[B[S_LANE_SEAT] + lane * B[N_PLAYERS] + seat]`.
STATE_FIELDS: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("score", "S_SCORES", ("seat",), ""),
    ("stalls_left", "S_STALLS_LEFT", ("seat",), ""),
    ("token_value", "S_TOK_VAL", ("seat", "token"), "B[N_TOKENS]"),
    ("token_neutral", "S_TOK_NEUTRAL", ("seat", "token"), "B[N_TOKENS]"),
    ("token_up", "S_TOK_UP", ("seat", "token"), "B[N_TOKENS]"),
    ("lane_count", "S_LANE_COUNT", ("lane",), ""),
    ("lane_dir", "S_LANE_DIR", ("lane",), ""),
    ("lane_scored", "S_LANE_SCORED", ("lane",), ""),
    ("lane_stalls", "S_LANE_SEAT", ("lane", "seat"), "B[N_PLAYERS]"),
    ("spot_seat", "S_SPOT_SEAT", ("spot",), ""),
    ("square_customer", "S_SQUARE_CUSTOMER", ("square",), ""),
    ("district_scored", "S_DISTRICT_SCORED", ("district",), ""),
    ("line", "S_LINE", ("position",), ""),
    ("scored_lane", "S_SCORED_LANES", ("k",), ""),
    ("stat", "S_STATS", ("seat", "stat"), "N_STATS"),
)
BOARD_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("lane_len", "O_LANE_LEN", "lane"),
    ("lane_offset", "O_LANE_OFFSET", "lane"),
    ("spot_value", "O_SPOT_VALUE", "spot"),
    ("lane_end0", "O_LANE_END0", "lane"),
    ("lane_end1", "O_LANE_END1", "lane"),
    ("lane_district0", "O_LANE_DISTRICT0", "lane"),
    ("lane_district1", "O_LANE_DISTRICT1", "lane"),
    ("lane_inner", "O_LANE_INNER", "lane"),
    ("district_lanes_at", "O_DISTRICT_LANES_AT", "district"),
    ("district_lane", "O_DISTRICT_LANES", "i"),
    ("neighbours_at", "O_NEIGHBOURS_AT", "district"),
    ("neighbour_district", "O_NEIGHBOUR_DISTRICT", "i"),
    ("neighbour_lane", "O_NEIGHBOUR_LANE", "i"),
    ("square_lanes_at", "O_SQUARE_LANES_AT", "square"),
    ("square_lane", "O_SQUARE_LANES", "i"),
    ("player_token", "O_PLAYER_TOKENS", "token"),
    ("neutral_token", "O_NEUTRAL_STACK", "k"),
    ("is_district_token", "O_IS_DISTRICT_TOKEN", "value"),
    ("multiplier", "O_MULTIPLIER", "ends"),
    ("sequence", "O_SEQUENCE", "position"),
    ("start_score", "O_START_SCORES", "seat"),
)
_DECORATOR = '@njit(cache=True, _nrt=False)'


def fields_source() -> str:
    """The source of `fields.py`: a getter for every table of B, and a getter, a setter
    and an adder for every table of S, named after the table (see `STATE_FIELDS`)."""
    slots = sorted({slot for _, slot, _, _ in STATE_FIELDS} | {s for _, s, _ in BOARD_FIELDS})
    lines = [
        '"""Named accessors of the state and the board: generated from the field table of',
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
        "from sim.games.portobello.codes import N_STATS",
        *(f"from sim.games.portobello.compiled.layout import {s}" for s in
          sorted({*slots, "N_PLAYERS", "N_TOKENS"}, key=str.lower)),
    ]
    for name, slot, index in BOARD_FIELDS:
        lines += ["", "", _DECORATOR,
                  f"def {name}(B: np.ndarray, {index}: int) -> int:",
                  f'    """B\'s {slot} table at `{index}`."""',
                  f"    return B[np.uint64(B[{slot}] + {index})]"]
    for name, slot, idx, stride in STATE_FIELDS:
        args = ", ".join(f"{i}: int" for i in idx)
        at = f"B[{slot}] + {idx[0]}" if len(idx) == 1 else \
            f"B[{slot}] + {idx[0]} * {stride} + {idx[1]}"
        what = f"S's {slot} table at {', '.join(f'`{i}`' for i in idx)}"
        lines += ["", "", _DECORATOR,
                  f"def {name}(B: np.ndarray, S: np.ndarray, {args}) -> int:",
                  f'    """{what}."""',
                  f"    return S[np.uint64({at})]",
                  "", "", _DECORATOR,
                  f"def set_{name}(B: np.ndarray, S: np.ndarray, {args}, value: int) -> None:",
                  f'    """Set {what}."""',
                  f"    S[np.uint64({at})] = value",
                  "", "", _DECORATOR,
                  f"def add_{name}(B: np.ndarray, S: np.ndarray, {args}, delta: int) -> None:",
                  f'    """Add `delta` to {what}."""',
                  f"    S[np.uint64({at})] += delta"]
    return "\n".join(lines) + "\n"


FIELDS_FILE = Path(__file__).with_name("fields.py")

if __name__ == "__main__":
    FIELDS_FILE.write_text(fields_source())
    print(f"wrote {FIELDS_FILE}")
