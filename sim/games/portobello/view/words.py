"""Game actions and what they cause, in words: "seat 2 moves the Bobby D04 -> D07 across
L11, pays 1 to seat 0", "L04 scores ×3 (citizen at S02, aristocrat at S03): seat 0 5 × 3 =
15".

Each sentence is built from the game before and after one record action, the engine
actions it stood for and the events it produced, so it says exactly what the engine did
(who paid whom, which token came back as a neutral, why a lane scored).
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from sim.games.portobello import actions as A
from sim.games.portobello.codes import CUSTOMER_NAMES
from sim.games.portobello.game import Game

END_WORDS = {
    "last_stall": "a seat placed its last stall",
    "board_exhausted": "every lane is full and no customer is left",
    "round_limit": "the round limit is reached",
}


def _seats(seats: Sequence[int]) -> str:
    """`seat 0`, `seats 0 and 2`, `seats 0, 1 and 3`."""
    names = [str(s) for s in seats]
    if len(names) == 1:
        return f"seat {names[0]}"
    return f"seats {', '.join(names[:-1])} and {names[-1]}"


def _token(value: int, neutral: bool) -> str:
    return f"neutral token {value}" if neutral else f"token {value}"


def _stall_text(before: Game, after: Game, action: int) -> str:
    board = after.board
    lane, end = A.stall_lane(action), A.stall_end(action)
    spot = before.next_spot(lane, end)
    value = board.lane_spots[lane][spot]
    length = board.lane_len[lane]
    start = board.square_ids[board.lane_ends[lane][end]]
    first = " (opening it)" if before.lane_count[lane] == 0 else ""
    return (f"seat {before.seat} builds a stall on {board.lane_ids[lane]} from {start}{first}: "
            f"spot {before.lane_count[lane] + 1} of {length}, worth {value}")


def _move_text(before: Game, after: Game, event: Mapping[str, Any]) -> str:
    board = after.board
    origin = board.district_ids[before.bobby]
    text = (f"seat {before.seat} moves the Bobby {origin} -> {event['district']} "
            f"across {event['lane']}")
    paid, gainers = int(event["paid"]), list(event["to"])
    if paid == 0:
        return f"{text}, free (it has the most stalls on {event['lane']})"
    if len(gainers) == 1:
        return f"{text}, pays 1 to {_seats(gainers)}"
    if gainers:
        return f"{text}, pays 1 each to {_seats(gainers)} ({paid} in all)"
    return f"{text}, pays {paid} to the bank"


def _token_text(before: Game, after: Game, action: int) -> str:
    value, neutral = A.token_value(action), bool(A.token_neutral(action))
    return (f"seat {before.seat} plays {_token(value, neutral)}: {value} "
            f"action{'s' if value != 1 else ''} this turn")


def _district_text(before: Game, after: Game, event: Mapping[str, Any]) -> str:
    seat, value, stalls = event["seat"], event["value"], event["stalls"]
    text = (f"seat {seat} scores {event['district']} with token {value}: {value} × "
            f"{stalls} of its stalls beside it = {event['points']} points; the token stays "
            f"on {event['district']}")
    if after.neutral_top > before.neutral_top:
        got = after.rules.neutral_stack[before.neutral_top]
        text += f" and seat {seat} takes neutral token {got}"
    return text


def _end_turn_text(before: Game, after: Game) -> str:
    seat = before.seat
    text = f"seat {seat} ends the turn"
    t = before.n_tokens
    was_up = [before.tok_up[i] for i in range(seat * t, seat * t + t) if before.tok_val[i]]
    if was_up and not any(was_up):
        text += "; its tokens turn face up again"
    return text


def action_text(before: Game, after: Game, done: Sequence[int],
                events: Sequence[Mapping[str, Any]]) -> str:
    """One record action in words. `before` and `after` are the game around it, `done`
    the engine actions it stood for (two for a customer drawn and placed at once) and
    `events` what the engine reported while applying them."""
    if not done:
        return "nothing happens"
    board = after.board
    first = done[0]
    kind = A.kind(first)
    by_type = {ev["type"]: ev for ev in events}
    seat = before.seat
    if kind == A.PLACE_BOBBY:
        placer = after.rules.bobby_placer_seat
        return f"seat {placer} places the Bobby in {board.district_ids[A.arg(first)]}"
    if kind == A.PLAY_TOKEN:
        return _token_text(before, after, first)
    if kind == A.SCORE_DISTRICT:
        return _district_text(before, after, by_type["score_district"])
    if kind == A.PLACE_STALL:
        return _stall_text(before, after, first)
    if kind == A.MOVE_BOBBY:
        return _move_text(before, after, by_type["move_bobby"])
    if kind == A.DRAW_CUSTOMER:
        drawn = CUSTOMER_NAMES.get(A.arg(first), "customer")
        text = f"seat {seat} draws {'an' if drawn == 'aristocrat' else 'a'} {drawn}"
        if len(done) > 1 and A.kind(done[1]) == A.PLACE_CUSTOMER:
            text += f" and places it on {board.square_ids[A.arg(done[1])]}"
        return text
    if kind == A.PLACE_CUSTOMER:
        customer = CUSTOMER_NAMES.get(before.pending, "customer")
        return f"seat {seat} places the {customer} on {board.square_ids[A.arg(first)]}"
    if kind == A.END_TURN:
        return _end_turn_text(before, after)
    return f"seat {seat}: {A.KIND_NAMES[kind]}"


def lane_score_text(after: Game, event: Mapping[str, Any]) -> str:
    """A lane's scoring: the lane, its multiplier and why (the customers at its ends), and
    every seat's points as (spot values held) × multiplier."""
    board = after.board
    lane = board.lane_ids.index(event["lane"])
    a, b = board.lane_ends[lane]
    mult = int(event["multiplier"])
    ends = ", ".join(f"{CUSTOMER_NAMES.get(after.square_customer[s], 'nobody')} at "
                     f"{board.square_ids[s]}" for s in (a, b))
    parts = []
    for seat, points in enumerate(event["points"]):
        if points:
            held = points // mult if mult else 0
            parts.append(f"seat {seat} {held} × {mult} = {points}")
    who = ", ".join(parts) if parts else "nobody has a stall there"
    head = "baron scoring: " if event.get("baron") else ""
    return f"{head}{event['lane']} scores ×{mult} ({ends}): {who}"


def event_texts(before: Game, after: Game, events: Sequence[Mapping[str, Any]]) -> list[str]:
    """What an action caused beyond itself, in words: lane scorings, the baron arriving, the
    end being triggered, the game ending."""
    out = []
    for ev in events:
        kind = ev["type"]
        if kind == "score_lane":
            out.append(lane_score_text(after, ev))
        elif kind == "place_baron":
            out.append(f"the last customer is out: the baron comes to {ev['square']}")
        elif kind == "end_triggered":
            why = f"seat {ev['seat']} placed its last stall" \
                if ev["reason"] == "last_stall" else END_WORDS.get(ev["reason"], ev["reason"])
            out.append(f"the end is triggered ({why}): the round is played out")
        elif kind == "game_over":
            scores = ev["scores"]
            best = max(scores)
            out.append(f"game over ({END_WORDS.get(ev['reason'], ev['reason'])}): "
                       f"{_seats(ev['winners'])} win{'s' if len(ev['winners']) == 1 else ''} "
                       f"with {best} points")
    return out
