"""Board and rules as one flat int64 array for the compiled engine.

The compiled path cannot read Python objects, so everything a game needs that does not
change during play (the board's lanes, districts and squares, every rules switch, and where
each part of the game state lives) is packed into one array `B`. Field positions are module
constants, which numba folds into the compiled code.
"""

from __future__ import annotations

import numpy as np

from sim.engine.board import Board
from sim.engine.codes import CUSTOMER_CODES
from sim.engine.rules import Rules

# -- scalars of B --------------------------------------------------------------------------
N, NL, NS, ND, NSPOT, T, STALLS, START, KNOWN, HAS_SEQ = range(10)
BARON_ON, NEG, PAY_BANK, MAX_ROUNDS, PLACER, CIT, ARI, BAG_SIZE, NSTACK, DTOK_MAX = range(10, 20)
# -- offsets of B's tables -----------------------------------------------------------------
(O_LEN, O_LOFF, O_SPOTS, O_EA, O_EB, O_LD0, O_LD1, O_DLS, O_DL, O_DNS, O_DND, O_DNL, O_SQS,
 O_SQL, O_TOK, O_STACK, O_DTOK, O_MULT, O_SEQ, O_INNER) = range(20, 40)
# -- offsets of the state array S's tables (stored in B) -----------------------------------
(S_SCORES, S_STALLS, S_TV, S_TN, S_TU, S_LC, S_LDIR, S_LSC, S_LSEAT, S_SPOT, S_SQC, S_DSC,
 S_LINE, S_SCL, S_STATS, S_SIZE) = range(40, 56)
HEADER = 64

# -- scalars of S --------------------------------------------------------------------------
(SEAT, ROUND, TURN, PHASE, ACT, NTOP, NFULL, BOBBY, BAG1, BAG2, CLEFT, LPOS, PEND, BSQ, ENDR,
 NSCL, LOGN, LOG_OVERFLOW) = range(18)
S_HEADER = 24



def pack(board: Board, rules: Rules) -> np.ndarray:
    """The array B for a board and rules (checked to fit each other by the caller)."""
    rules.check_board(board)
    n, nl, ns, nd = rules.players, board.n_lanes, board.n_squares, board.n_districts
    head = [0] * HEADER
    tables: list[int] = []

    def table(slot: int, values: list[int]) -> None:
        head[slot] = HEADER + len(tables)
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
    dtok_max = max(tokens + stack + list(rules.district_tokens))
    head[N], head[NL], head[NS], head[ND] = n, nl, ns, nd
    head[NSPOT], head[T], head[STALLS], head[START] = (board.total_spots, len(tokens),
                                                         rules.stalls, rules.start_score)
    head[KNOWN] = rules.customer_order == "known"
    head[HAS_SEQ] = rules.customer_sequence is not None
    head[BARON_ON], head[NEG] = rules.baron, rules.negative_scores
    head[PAY_BANK] = rules.bobby_tie == "pay_bank"
    head[MAX_ROUNDS], head[PLACER] = rules.max_rounds, rules.bobby_placer_seat
    head[CIT], head[ARI], head[BAG_SIZE] = bag["citizen"], bag["aristocrat"], rules.bag_size
    head[NSTACK], head[DTOK_MAX] = len(stack), dtok_max

    table(O_LEN, list(board.lane_len))
    table(O_LOFF, list(board.lane_offset))
    table(O_SPOTS, [v for spots in board.lane_spots for v in spots])
    table(O_EA, [a for a, _ in board.lane_ends])
    table(O_EB, [b for _, b in board.lane_ends])
    table(O_LD0, [ds[0] if ds else -1 for ds in board.lane_districts])
    table(O_LD1, [ds[1] if len(ds) > 1 else -1 for ds in board.lane_districts])
    table(O_INNER, [len(ds) == 2 for ds in board.lane_districts])
    csr(O_DLS, O_DL, [list(x) for x in board.district_lanes])
    starts = [0]
    for row in board.district_neighbours:
        starts.append(starts[-1] + len(row))
    table(O_DNS, starts)
    table(O_DND, [d for row in board.district_neighbours for d, _ in row])
    table(O_DNL, [lane for row in board.district_neighbours for _, lane in row])
    csr(O_SQS, O_SQL, [list(x) for x in board.square_lanes])
    table(O_TOK, tokens)
    table(O_STACK, stack)
    table(O_DTOK, [v in rules.district_tokens for v in range(dtok_max + 1)])
    table(O_MULT, list(rules.multiplier_table()))
    seq = [CUSTOMER_CODES[c] for c in (rules.customer_sequence or ()) if c != "baron"]
    table(O_SEQ, seq)

    # Where the state's tables live in S.
    size = S_HEADER
    for slot, length in ((S_SCORES, n), (S_STALLS, n), (S_TV, n * len(tokens)),
                         (S_TN, n * len(tokens)), (S_TU, n * len(tokens)), (S_LC, nl),
                         (S_LDIR, nl), (S_LSC, nl), (S_LSEAT, nl * n),
                         (S_SPOT, board.total_spots), (S_SQC, ns), (S_DSC, nd),
                         (S_LINE, rules.bag_size), (S_SCL, nl), (S_STATS, n * 8)):
        head[slot] = size
        size += length
    head[S_SIZE] = size
    return np.array(head + tables, dtype=np.int64)
