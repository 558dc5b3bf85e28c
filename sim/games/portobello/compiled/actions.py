"""The action encoding of `sim.games.portobello.actions`, compiled: the very same functions, not a
copy.

`sim.games.portobello.actions` is the one module that knows how an action int is laid out (`kind <<
SHIFT | argument`, and how each kind packs its argument). Its functions are plain integer
arithmetic, so numba compiles them as they are; compiled code encodes and decodes actions
only through these (`A.place_stall(lane, end)`, `A.kind(a)`, `A.stall_lane(a)`, ...) and
never repeats the bit layout. The kind codes and the two argument-free actions are
re-exported under their names in `sim.games.portobello.actions`, so that compiled code reads like
Python code on `Game` (`A.kind(a) == A.PLACE_STALL`).

Each function is inlined into its callers (`inline="always"`): numba then types and
optimises it inside the caller, which gives the same machine code as the hand-written
shifts and masks. `cache=True` works on a function of another module: numba keys the cache
file on the function's own source file (`sim/games/portobello/actions.py`) and module path, so these
entries never collide with the ones of this package; a call from Python (tests) loads them
like any other cached function. The package's cache folder is named by a hash that covers
`sim/games/portobello/actions.py` too (see `sim.core.jit`), so callers compiled against
an older encoding are never reused. No function allocates, so none needs reference counts
(`_nrt=False`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba import njit

from sim.games.portobello import actions as _encoding
from sim.games.portobello.actions import DRAW
from sim.games.portobello.actions import END
from sim.games.portobello.codes import CHANCE_DRAW
from sim.games.portobello.codes import DRAW_CUSTOMER
from sim.games.portobello.codes import END_TURN
from sim.games.portobello.codes import MOVE_BOBBY
from sim.games.portobello.codes import PLACE_BOBBY
from sim.games.portobello.codes import PLACE_CUSTOMER
from sim.games.portobello.codes import PLACE_STALL
from sim.games.portobello.codes import PLAY_TOKEN
from sim.games.portobello.codes import SCORE_DISTRICT

__all__ = [
    "CHANCE_DRAW", "DRAW", "DRAW_CUSTOMER", "END", "END_TURN", "MOVE_BOBBY", "PLACE_BOBBY",
    "PLACE_CUSTOMER", "PLACE_STALL", "PLAY_TOKEN", "SCORE_DISTRICT", "arg", "chance",
    "district_of", "district_value", "draw_customer", "kind", "move_bobby", "place_bobby",
    "place_customer", "place_stall", "play_token", "score_district", "stall_end", "stall_lane",
    "token_neutral", "token_value",
]


def _compiled(function: Callable[..., int]) -> Any:
    """`function` of `sim.games.portobello.actions` as an inlined numba function."""
    return njit(cache=True, inline="always", _nrt=False)(function)


# -- the two halves ----------------------------------------------------------------------------
kind = _compiled(_encoding.kind)
arg = _compiled(_encoding.arg)

# -- encoding ----------------------------------------------------------------------------------
place_bobby = _compiled(_encoding.place_bobby)
play_token = _compiled(_encoding.play_token)
score_district = _compiled(_encoding.score_district)
place_stall = _compiled(_encoding.place_stall)
draw_customer = _compiled(_encoding.draw_customer)
place_customer = _compiled(_encoding.place_customer)
move_bobby = _compiled(_encoding.move_bobby)
chance = _compiled(_encoding.chance)

# -- decoding the arguments --------------------------------------------------------------------
token_value = _compiled(_encoding.token_value)
token_neutral = _compiled(_encoding.token_neutral)
district_value = _compiled(_encoding.district_value)
district_of = _compiled(_encoding.district_of)
stall_lane = _compiled(_encoding.stall_lane)
stall_end = _compiled(_encoding.stall_end)
