"""Why an action is illegal: the reasons the validating door (`Game.check`, `Game.play`)
gives to people and files, in the rulebook's words. Only asked once the engine has found the
action missing from its legal actions, so this never decides legality, it only explains it.
"""

from __future__ import annotations

from sim.games.portobello import actions as A
from sim.games.portobello.actions import Action
from sim.games.portobello.codes import CHANCE
from sim.games.portobello.codes import CUSTOMER_NAMES
from sim.games.portobello.codes import OVER
from sim.games.portobello.codes import PLACE
from sim.games.portobello.codes import SETUP
from sim.games.portobello.codes import TURN_START
from sim.games.portobello.position import Position


def illegal_reason(game: Position, action: Action) -> str:
    """The reason `action` is not legal in `game` now (it is not among its legal actions)."""
    k, a = A.kind(action), A.arg(action)
    b = game.board
    phase = game.phase
    if phase == OVER:
        return "the game is over"
    if phase == SETUP and k != A.PLACE_BOBBY:
        return "the Bobby must be placed before the first turn"
    if phase == PLACE and k != A.PLACE_CUSTOMER:
        return "the drawn customer must be placed on a square first"
    if phase == CHANCE and k != A.CHANCE:
        return "the drawn customer has not been revealed"
    if k == A.PLACE_BOBBY:
        if phase != SETUP:
            return "the Bobby is already on the board"
        return f"no district with index {a}"
    if k in (A.PLAY_TOKEN, A.SCORE_DISTRICT) and phase != TURN_START:
        return "a token was already played this turn"
    if k == A.PLAY_TOKEN:
        value, neutral = A.token_value(action), bool(A.token_neutral(action))
        kind = "neutral" if neutral else "own"
        return f"no face-up {kind} token of value {value}"
    if k == A.SCORE_DISTRICT:
        value, d = A.district_value(action), A.district_of(action)
        if d >= b.n_districts:
            return f"no district with index {d}"
        if value not in game.rules.district_tokens:
            return f"a token of value {value} cannot score a district"
        if game.district_scored[d] >= 0:
            return f"district {b.district_ids[d]} has already been scored"
        return f"no face-up own token of value {value}"
    if phase == TURN_START and k != A.END_TURN:
        return "the turn must begin with play_token or score_district"
    if k == A.END_TURN:
        if phase == TURN_START:
            return "the turn must begin with play_token or score_district"
        return "cannot end the turn now"
    if k == A.PLACE_STALL:
        lane, end = A.stall_lane(action), A.stall_end(action)
        if lane >= b.n_lanes:
            return f"no lane with index {lane}"
        lid = b.lane_ids[lane]
        if game.actions_left <= 0:
            return "no actions left this turn"
        if game.stalls_left[game.seat] <= 0:
            return "no stalls left"
        if lane not in b.district_lanes[game.bobby]:
            here = b.district_ids[game.bobby]
            return f"lane {lid} does not border the Bobby's district {here}"
        if game.lane_full(lane):
            return f"lane {lid} is full"
        if game.lane_dir[lane] != end:
            frm = b.square_ids[b.lane_ends[lane][game.lane_dir[lane]]]
            return f"lane {lid} is built from {frm}"
        return "not allowed"
    if k == A.DRAW_CUSTOMER:
        if game.actions_left <= 0:
            return "no actions left this turn"
        if game.customers_left <= 0:
            return "no customers left to place"
        if a and game.line is not None:
            return (f"the next customer in the line is "
                    f"{CUSTOMER_NAMES[game.next_customer()]}, not {CUSTOMER_NAMES.get(a, a)}")
        if a:
            return f"no {CUSTOMER_NAMES.get(a, a)} left in the bag"
        return "not allowed"
    if k == A.PLACE_CUSTOMER:
        if phase != PLACE:
            if game.actions_left <= 0:
                return "no actions left this turn"
            if game.customers_left <= 0:
                return "no customers left to place"
            return "no customer has been drawn (draw_customer comes first)"
        if a >= b.n_squares:
            return f"no square with index {a}"
        return f"square {b.square_ids[a]} is not empty"
    if k == A.MOVE_BOBBY:
        if a >= b.n_districts:
            return f"no district with index {a}"
        here = b.district_ids[game.bobby]
        lanes = [lane for d, lane in b.district_neighbours[game.bobby] if d == a]
        if not lanes:
            return (f"district {b.district_ids[a]} is not adjacent to the Bobby's "
                    f"district {here}")
        cost = game.move_cost(lanes[0], game.seat)[0]
        return (f"crossing lane {b.lane_ids[lanes[0]]} costs {cost} points but the score is "
                f"{game.scores[game.seat]} and scores may not go negative")
    if k == A.CHANCE:
        return "no draw is waiting for chance"
    return f"unknown action {action}"

