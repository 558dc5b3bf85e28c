"""Actions as small integers, `kind << SHIFT | argument`: the one module that encodes and
decodes them.

Agents and search handle plain ints (cheap to hash and compare); the JSON dicts of a record
exist only at the record boundary (`sim.games.portobello.records`). The kinds are the codes of
`sim.games.portobello.codes`. Every function here is plain integer arithmetic, so the compiled rules
and agents compile these same functions with numba (`sim.games.portobello.compiled.actions`) instead
of repeating the bit layout.
"""

from __future__ import annotations

from sim.games.portobello.codes import CHANCE_DRAW
from sim.games.portobello.codes import DRAW_CUSTOMER
from sim.games.portobello.codes import END_TURN
from sim.games.portobello.codes import KIND_CODES
from sim.games.portobello.codes import KIND_NAMES
from sim.games.portobello.codes import MASK
from sim.games.portobello.codes import MOVE_BOBBY
from sim.games.portobello.codes import PLACE_BOBBY
from sim.games.portobello.codes import PLACE_CUSTOMER
from sim.games.portobello.codes import PLACE_STALL
from sim.games.portobello.codes import PLAY_TOKEN
from sim.games.portobello.codes import SCORE_DISTRICT
from sim.games.portobello.codes import SHIFT

Action = int

CHANCE = CHANCE_DRAW  # the kind of the chance player's action
END = END_TURN << SHIFT
DRAW = DRAW_CUSTOMER << SHIFT

__all__ = [
    "CHANCE", "DRAW", "DRAW_CUSTOMER", "END", "END_TURN", "KIND_CODES", "KIND_NAMES", "MASK",
    "MOVE_BOBBY", "PLACE_BOBBY", "PLACE_CUSTOMER", "PLACE_STALL", "PLAY_TOKEN",
    "SCORE_DISTRICT", "SHIFT", "Action",
]


# -- the two halves ----------------------------------------------------------------------------
def kind(action: Action) -> int:
    return action >> SHIFT


def arg(action: Action) -> int:
    return action & MASK


# -- encoding ----------------------------------------------------------------------------------
def place_bobby(district: int) -> Action:
    return PLACE_BOBBY << SHIFT | district


def play_token(value: int, neutral: int = 0) -> Action:
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
    return CHANCE_DRAW << SHIFT | customer


# -- decoding the arguments (of the action itself, or of its `arg`) ------------------------------
def token_value(action: Action) -> int:
    """The token value of a play_token."""
    return (action & MASK) >> 1


def token_neutral(action: Action) -> int:
    """1 when a play_token asks for a neutral token."""
    return action & 1


def district_value(action: Action) -> int:
    """The token value of a score_district."""
    return (action & MASK) >> 8


def district_of(action: Action) -> int:
    """The district of a score_district."""
    return action & 255


def stall_lane(action: Action) -> int:
    """The lane of a place_stall."""
    return (action & MASK) >> 1


def stall_end(action: Action) -> int:
    """The end a place_stall builds from (0: ends[0], 1: ends[1])."""
    return action & 1


def describe(action: Action) -> str:
    """A short readable form, e.g. `place_stall(lane=3, end=0)`."""
    k = kind(action)
    if k == PLAY_TOKEN:
        return f"play_token(value={token_value(action)}, neutral={bool(token_neutral(action))})"
    if k == SCORE_DISTRICT:
        return f"score_district(value={district_value(action)}, district={district_of(action)})"
    if k == PLACE_STALL:
        return f"place_stall(lane={stall_lane(action)}, end={stall_end(action)})"
    if k == END_TURN:
        return "end_turn()"
    if k < len(KIND_NAMES):
        return f"{KIND_NAMES[k]}({arg(action)})"
    return f"unknown({action})"
