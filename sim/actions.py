"""Actions as small integers: `kind << 16 | argument`.

Agents and search handle plain ints (cheap to hash and compare); the JSON dicts of SPEC §3
exist only at the record boundary (`sim.records`).
"""

from __future__ import annotations

Action = int

PLACE_BOBBY = 0  # arg: district
PLAY_TOKEN = 1  # arg: value * 2 + neutral
SCORE_DISTRICT = 2  # arg: value * 256 + district
PLACE_STALL = 3  # arg: lane * 2 + end (0: built from ends[0], 1: from ends[1])
DRAW_CUSTOMER = 4  # arg: 0 (chance decides), or the customer code the draw is forced to
PLACE_CUSTOMER = 5  # arg: square
MOVE_BOBBY = 6  # arg: district (adjacent to the Bobby's)
END_TURN = 7  # arg: 0
CHANCE = 8  # arg: customer code drawn from the bag

KIND_NAMES = (
    "place_bobby",
    "play_token",
    "score_district",
    "place_stall",
    "draw_customer",
    "place_customer",
    "move_bobby",
    "end_turn",
    "chance",
)
KIND_CODES = {name: i for i, name in enumerate(KIND_NAMES)}

SHIFT = 16
MASK = (1 << SHIFT) - 1
END = END_TURN << SHIFT
DRAW = DRAW_CUSTOMER << SHIFT


def kind(action: Action) -> int:
    return action >> SHIFT


def arg(action: Action) -> int:
    return action & MASK


def place_bobby(district: int) -> Action:
    return PLACE_BOBBY << SHIFT | district


def play_token(value: int, neutral: bool = False) -> Action:
    return PLAY_TOKEN << SHIFT | value * 2 | int(neutral)


def score_district(value: int, district: int) -> Action:
    return SCORE_DISTRICT << SHIFT | value * 256 | district


def place_stall(lane: int, end: int) -> Action:
    return PLACE_STALL << SHIFT | lane * 2 | end


def draw_customer(customer: int = 0) -> Action:
    return DRAW_CUSTOMER << SHIFT | customer


def place_customer(square: int) -> Action:
    return PLACE_CUSTOMER << SHIFT | square


def move_bobby(district: int) -> Action:
    return MOVE_BOBBY << SHIFT | district


def chance(customer: int) -> Action:
    return CHANCE << SHIFT | customer


def describe(action: Action) -> str:
    """A short readable form, e.g. `place_stall(lane=3, end=0)`."""
    k, a = kind(action), arg(action)
    if k == PLAY_TOKEN:
        return f"play_token(value={a >> 1}, neutral={bool(a & 1)})"
    if k == SCORE_DISTRICT:
        return f"score_district(value={a >> 8}, district={a & 255})"
    if k == PLACE_STALL:
        return f"place_stall(lane={a >> 1}, end={a & 1})"
    if k == END_TURN:
        return "end_turn()"
    if k < len(KIND_NAMES):
        return f"{KIND_NAMES[k]}({a})"
    return f"unknown({action})"
