"""What a player observes, as a flat float tensor with named parts and as text.

Everything in Portobello Market is public: the board, every seat's tokens (face up or
down), scores and stalls, the Bobby, the neutral stack, the bag's contents and, in known
order, the line. The one thing nobody knows is what the bag gives next in drawn order, and
that is not in any state: each draw is a chance step when it happens. So every seat
observes the same facts; a seat's tensor differs only in being written from its own chair
(seat blocks in turn order from the observer, `seat` marking which chair it is).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from sim.adapters.core.actions import OUTCOME_CUSTOMERS
from sim.adapters.core.position import Position
from sim.adapters.core.settings import Settings
from sim.games.portobello.codes import BARON
from sim.games.portobello.codes import CUSTOMER_NAMES
from sim.games.portobello.codes import PHASE_NAMES

# Phases as observed: the engine's, and before them the drawing of the known line.
PHASES = ("drawing_line", *PHASE_NAMES)
SCORE_SCALE = 100.0  # scores are divided by this in the tensor (typical totals: 40 to 120)


def token_values(settings: Settings) -> tuple[int, ...]:
    rules = settings.rules
    return tuple(sorted(set(rules.player_tokens) | set(rules.neutral_stack)))


def pieces(settings: Settings, public: bool = True) -> list[tuple[str, tuple[int, ...]]]:
    """The tensor's named parts and their shapes, in order (only `seat` when `public` is
    off: no fact of the game is private to one seat)."""
    rules, board, n = settings.rules, settings.board, settings.players
    out = [("seat", (n,))]
    if not public:
        return out
    out += [
        ("to_move", (n,)),  # in turn order from the observer; zeros at chance and the end
        ("phase", (len(PHASES),)),
        ("progress", (4,)),  # round / max_rounds, actions left / 4, moves left, end triggered
        ("scores", (n,)),
        ("stalls_left", (n,)),
        ("tokens", (n, len(rules.player_tokens), len(token_values(settings)) + 2)),
        ("neutral_stack", (len(rules.neutral_stack),)),  # 1: still in the stack
        ("spots", (board.total_spots, n)),  # who holds each spot, lane by lane
        ("lane_scored", (board.n_lanes,)),
        ("customers", (board.n_squares, 3)),  # citizen, aristocrat, baron
        ("districts", (board.n_districts, n)),  # who scored the district
        ("bobby", (board.n_districts,)),
        ("bag", (2,)),  # citizens, aristocrats still to come, over the bag's size
        ("line", (rules.bag_size, 2)),  # known order: the customers still to come, in order
        ("pending", (2,)),  # a drawn customer waiting for its square
    ]
    return out


def size(settings: Settings, public: bool = True) -> int:
    return sum(int(np.prod(shape)) for _, shape in pieces(settings, public))


def views(tensor: np.ndarray, parts: list[tuple[str, tuple[int, ...]]]) -> dict[str, np.ndarray]:
    """Named, shaped views into a flat tensor (writing to a view writes the tensor)."""
    out, at = {}, 0
    for name, shape in parts:
        k = int(np.prod(shape))
        out[name] = tensor[at:at + k].reshape(shape)
        at += k
    return out


def fill(view: dict[str, np.ndarray], pos: Position, player: int) -> None:
    """Write what `player` observes in `pos` into the named views (zeroed first)."""
    for part in view.values():
        part.fill(0.0)
    settings = pos.settings
    n = settings.players
    view["seat"][player] = 1.0
    if "to_move" not in view:
        return
    rules = settings.rules
    game = pos.game

    def rel(seat: int) -> int:
        return (seat - player) % n

    if game is None:
        view["phase"][0] = 1.0
        view["scores"][:] = [rules.seat_start_scores[(player + r) % n] / SCORE_SCALE
                             for r in range(n)]
        view["stalls_left"][:] = 1.0
        left = [rules.bag[CUSTOMER_NAMES[c]] - pos.line.count(c) for c in OUTCOME_CUSTOMERS]
        view["bag"][:] = [k / rules.bag_size for k in left]
        for k, c in enumerate(pos.line):
            view["line"][k, OUTCOME_CUSTOMERS.index(c)] = 1.0
        return
    if not (game.is_over or game.is_chance):
        view["to_move"][rel(game.seat)] = 1.0
    view["phase"][1 + game.phase] = 1.0
    view["progress"][:] = [game.round / rules.max_rounds, game.actions_left / 4,
                           pos.moves_left() / settings.bobby_moves if game.phase else 1.0,
                           float(game.end_reason is not None)]
    for r in range(n):
        seat = (player + r) % n
        view["scores"][r] = game.scores[seat] / SCORE_SCALE
        view["stalls_left"][r] = game.stalls_left[seat] / rules.stalls
    values = token_values(settings)
    tokens, t = view["tokens"], game.n_tokens
    for seat in range(n):
        for k in range(t):
            i = seat * t + k
            if game.tok_val[i]:
                tokens[rel(seat), k, values.index(game.tok_val[i])] = 1.0
                tokens[rel(seat), k, -2] = float(game.tok_up[i])
                tokens[rel(seat), k, -1] = float(game.tok_neutral[i])
    view["neutral_stack"][game.neutral_top:] = 1.0
    for spot, seat in enumerate(game.spot_seat):
        if seat >= 0:
            view["spots"][spot, rel(seat)] = 1.0
    view["lane_scored"][:] = game.lane_scored
    for square, c in enumerate(game.square_customer):
        if c:
            view["customers"][square, c - 1] = 1.0
    for d, seat in enumerate(game.district_scored):
        if seat >= 0:
            view["districts"][d, rel(seat)] = 1.0
    if game.bobby >= 0:
        view["bobby"][game.bobby] = 1.0
    if game.line is None:
        view["bag"][:] = [game.bag[c] / rules.bag_size for c in OUTCOME_CUSTOMERS]
    else:
        rest = game.line[game.line_pos:]
        view["bag"][:] = [rest.count(c) / rules.bag_size for c in OUTCOME_CUSTOMERS]
        for k, c in enumerate(rest):
            view["line"][k, OUTCOME_CUSTOMERS.index(c)] = 1.0
    if game.pending and game.pending != BARON:
        view["pending"][OUTCOME_CUSTOMERS.index(game.pending)] = 1.0


def _lines(pos: Position) -> Iterator[str]:
    settings = pos.settings
    rules, board, n = settings.rules, settings.board, settings.players
    game = pos.game
    if game is None:
        drawn = " ".join(CUSTOMER_NAMES[c] for c in pos.line) or "nothing yet"
        yield f"drawing the line ({len(pos.line)} of {rules.bag_size}): {drawn}"
        return
    head = f"round {game.round}, "
    if game.is_over:
        head += f"game over ({game.end_reason}), scores {game.scores}"
    elif game.is_chance:
        head += f"chance draws a customer for seat {game.seat}"
    else:
        head += (f"seat {game.seat} to move ({PHASE_NAMES[game.phase]}, "
                 f"{game.actions_left} actions left, {pos.moves_left()} Bobby moves left)")
    if game.end_reason is not None and not game.is_over:
        head += f"; the end is triggered ({game.end_reason})"
    yield head
    for seat in range(n):
        tokens = " ".join(f"{v}{'n' if neutral else ''}{'' if up else '*'}"
                          for v, neutral, up in game.held_tokens(seat))
        yield (f"seat {seat}: {game.scores[seat]} points, {game.stalls_left[seat]} stalls, "
               f"tokens {tokens or '-'}")
    stack = " ".join(map(str, rules.neutral_stack[game.neutral_top:])) or "-"
    bobby = board.district_ids[game.bobby] if game.bobby >= 0 else "not placed"
    yield f"Bobby {bobby}; neutral stack {stack}"
    if game.line is None:
        yield f"bag: {game.bag[1]} citizens, {game.bag[2]} aristocrats"
    else:
        rest = " ".join(CUSTOMER_NAMES[c] for c in game.line[game.line_pos:]) or "-"
        yield f"line: {rest}"
    if game.pending:
        yield f"drawn, waiting for a square: {CUSTOMER_NAMES[game.pending]}"
    for lane in range(board.n_lanes):
        off, k = board.lane_offset[lane], board.lane_len[lane]
        stalls = "".join("." if s < 0 else str(s) for s in game.spot_seat[off:off + k])
        a, b = board.lane_ends[lane]
        ends = [CUSTOMER_NAMES.get(game.square_customer[x], "-")[:3] for x in (a, b)]
        scored = " scored" if game.lane_scored[lane] else ""
        yield (f"{board.lane_ids[lane]} {board.square_ids[a]}({ends[0]}) {stalls} "
               f"{board.square_ids[b]}({ends[1]}){scored}")
    scored = [f"{board.district_ids[d]} by {s}" for d, s in enumerate(game.district_scored)
              if s >= 0]
    yield f"districts scored: {', '.join(scored) or '-'}"


def text(pos: Position, player: int | None = None) -> str:
    """The position in words; with `player`, headed by whose view it is (the facts are the
    same for every seat)."""
    lines = list(_lines(pos))
    if player is not None:
        lines.insert(0, f"seat {player} observing")
    return "\n".join(lines)
