"""What an action did, as events for records, the viewer and the web app, read off the
position before and after it.

The rules live in the compiled engine only; this module never works a rule out again. It
compares two positions: a stall is the spot that changed hands, a lane's points are the
engine's own `lane_points`, a Bobby fee is the Bobby statistics that moved, an end trigger is the
end reason that appeared. The events come in the order the rulebook has them happen (and
`scored_lanes` keeps the order the lanes were scored in).
"""

from __future__ import annotations

from typing import Any

from sim.games.portobello import actions as A
from sim.games.portobello.actions import Action
from sim.games.portobello.codes import BOBBY_PAID
from sim.games.portobello.codes import BOBBY_RECEIVED
from sim.games.portobello.codes import CUSTOMER_NAMES
from sim.games.portobello.codes import DISTRICT_POINTS
from sim.games.portobello.codes import OVER
from sim.games.portobello.codes import STAT_NAMES
from sim.games.portobello.compiled.transitions import lane_multiplier
from sim.games.portobello.compiled.transitions import lane_points
from sim.games.portobello.position import Position

Event = dict[str, Any]


def events_of(before: Position, after: Position, action: Action) -> list[Event]:
    """The events of `action`, which took the game from `before` to `after`."""
    board = after.board
    k, a = A.kind(action), A.arg(action)
    seat = before.seat
    out: list[Event] = []
    new_lanes = after.scored_lanes_from(before.n_scored_lanes)
    game_over = after.phase == OVER and before.phase != OVER
    # Only the end of a turn ends the game, and only the baron's scoring at the end scores a
    # lane in such an action: those lanes come last, after every other event of the action.
    baron_lanes = new_lanes if game_over else []
    lanes = [] if game_over else new_lanes
    if k == A.PLACE_BOBBY:
        out.append({"type": "place_bobby", "seat": before.rules.bobby_placer_seat,
                    "district": board.district_ids[a]})
    elif k == A.SCORE_DISTRICT:
        value, district = A.district_value(action), A.district_of(action)
        points = _stat_gain(before, after, seat, DISTRICT_POINTS)
        out.append({"type": "score_district", "seat": seat, "value": value,
                    "district": board.district_ids[district],
                    "stalls": points // value if value else 0, "points": points})
    elif k == A.PLACE_STALL:
        lane = A.stall_lane(action)
        spot = before.next_spot(lane, A.stall_end(action))
        out.append({"type": "place_stall", "seat": seat, "lane": board.lane_ids[lane],
                    "spot": spot, "value": board.lane_spots[lane][spot]})
        out.extend(_lane_event(after, lane, baron=False) for lane in lanes)
    elif k == A.PLACE_CUSTOMER:
        square = a
        out.append({"type": "place_customer", "seat": seat, "square": board.square_ids[square],
                    "customer": CUSTOMER_NAMES[before.pending]})
        baron = after.baron_square if before.baron_square < 0 <= after.baron_square else -1
        first = [lane for lane in lanes if baron < 0 or baron not in board.lane_ends[lane]]
        out.extend(_lane_event(after, lane, baron=False) for lane in first)
        if baron >= 0:
            out.append({"type": "place_baron", "square": board.square_ids[baron]})
            out.extend(_lane_event(after, lane, baron=False)
                       for lane in lanes if lane not in first)
    elif k == A.MOVE_BOBBY:
        lane = next(lane for d, lane in board.district_neighbours[before.bobby] if d == a)
        gainers = [p for p in range(after.n)
                   if _stat_gain(before, after, p, BOBBY_RECEIVED) > 0]
        out.append({"type": "move_bobby", "seat": seat, "district": board.district_ids[a],
                    "lane": board.lane_ids[lane],
                    "paid": _stat_gain(before, after, seat, BOBBY_PAID), "to": gainers})
    if after.end_reason is not None and before.end_reason is None \
            and after.end_reason != "round_limit":
        out.append({"type": "end_triggered", "seat": seat, "reason": after.end_reason})
    if game_over:
        out.extend(_lane_event(after, lane, baron=True) for lane in baron_lanes)
        out.append({"type": "game_over", "reason": after.end_reason, "scores": after.scores,
                    "winners": after.winners()})
    return out


def _stat_gain(before: Position, after: Position, seat: int, stat: int) -> int:
    name = STAT_NAMES[stat]
    return after.stat(seat, name) - before.stat(seat, name)


def _lane_event(after: Position, lane: int, *, baron: bool) -> Event:
    """A lane's scoring: each seat's points (`lane_points`) and the multiplier of the
    customers at its two ends (`lane_multiplier`), the engine's own readings."""
    points = [int(lane_points(after.B, after.S, lane, p)) for p in range(after.n)]
    return {"type": "score_lane", "lane": after.board.lane_ids[lane],
            "multiplier": int(lane_multiplier(after.B, after.S, lane)), "points": points,
            "baron": baron}
