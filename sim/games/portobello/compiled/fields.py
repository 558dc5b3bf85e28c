"""Named accessors of the state and the board: generated from the field listing of
`sim.games.portobello.compiled.layout` by
`python -m sim.games.portobello.compiled.layout`; do not edit.

`lane_stalls(B, S, lane, seat)` reads what `S[B[S_LANE_SEAT] + lane * B[N_PLAYERS] +
seat]` does; `set_` and `add_` write it, so the rules read like the rulebook. Each
is its own small compiled function, which LLVM inlines where it is called (the same
machine code as the index arithmetic); inlining them in numba's own IR instead
copied the IR at every call and made the first compile about 20 s longer.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.games.portobello.codes import N_CUSTOMER_CODES
from sim.games.portobello.codes import N_STATS
from sim.games.portobello.compiled.layout import N_PLAYERS
from sim.games.portobello.compiled.layout import N_TOKENS
from sim.games.portobello.compiled.layout import O_DISTRICT_LANES
from sim.games.portobello.compiled.layout import O_DISTRICT_LANES_AT
from sim.games.portobello.compiled.layout import O_IS_DISTRICT_TOKEN
from sim.games.portobello.compiled.layout import O_LANE_DISTRICT0
from sim.games.portobello.compiled.layout import O_LANE_DISTRICT1
from sim.games.portobello.compiled.layout import O_LANE_END0
from sim.games.portobello.compiled.layout import O_LANE_END1
from sim.games.portobello.compiled.layout import O_LANE_INNER
from sim.games.portobello.compiled.layout import O_LANE_LEN
from sim.games.portobello.compiled.layout import O_LANE_OFFSET
from sim.games.portobello.compiled.layout import O_MULTIPLIER
from sim.games.portobello.compiled.layout import O_NEIGHBOUR_DISTRICT
from sim.games.portobello.compiled.layout import O_NEIGHBOUR_LANE
from sim.games.portobello.compiled.layout import O_NEIGHBOURS_AT
from sim.games.portobello.compiled.layout import O_NEUTRAL_STACK
from sim.games.portobello.compiled.layout import O_PLAYER_TOKENS
from sim.games.portobello.compiled.layout import O_SEQUENCE
from sim.games.portobello.compiled.layout import O_SPOT_VALUE
from sim.games.portobello.compiled.layout import O_SQUARE_LANES
from sim.games.portobello.compiled.layout import O_SQUARE_LANES_AT
from sim.games.portobello.compiled.layout import O_START_SCORES
from sim.games.portobello.compiled.layout import S_DISTRICT_SCORED
from sim.games.portobello.compiled.layout import S_LANE_COUNT
from sim.games.portobello.compiled.layout import S_LANE_DIR
from sim.games.portobello.compiled.layout import S_LANE_SCORED
from sim.games.portobello.compiled.layout import S_LANE_SEAT
from sim.games.portobello.compiled.layout import S_LINE
from sim.games.portobello.compiled.layout import S_SCORED_LANES
from sim.games.portobello.compiled.layout import S_SCORES
from sim.games.portobello.compiled.layout import S_SPOT_SEAT
from sim.games.portobello.compiled.layout import S_SQUARE_CUSTOMER
from sim.games.portobello.compiled.layout import S_STALLS_LEFT
from sim.games.portobello.compiled.layout import S_STATS
from sim.games.portobello.compiled.layout import S_TOK_NEUTRAL
from sim.games.portobello.compiled.layout import S_TOK_UP
from sim.games.portobello.compiled.layout import S_TOK_VAL


@njit(cache=True, _nrt=False)
def lane_len(B: np.ndarray, lane: int) -> int:
    """Spots of each lane [nl]: O_LANE_LEN at `lane`."""
    return B[np.uint64(B[O_LANE_LEN] + lane)]


@njit(cache=True, _nrt=False)
def lane_offset(B: np.ndarray, lane: int) -> int:
    """First spot of each lane [nl]: O_LANE_OFFSET at `lane`."""
    return B[np.uint64(B[O_LANE_OFFSET] + lane)]


@njit(cache=True, _nrt=False)
def spot_value(B: np.ndarray, spot: int) -> int:
    """Value of each spot, lane by lane [spots]: O_SPOT_VALUE at `spot`."""
    return B[np.uint64(B[O_SPOT_VALUE] + spot)]


@njit(cache=True, _nrt=False)
def lane_end0(B: np.ndarray, lane: int) -> int:
    """Square at the lane's first end [nl]: O_LANE_END0 at `lane`."""
    return B[np.uint64(B[O_LANE_END0] + lane)]


@njit(cache=True, _nrt=False)
def lane_end1(B: np.ndarray, lane: int) -> int:
    """Square at the lane's other end [nl]: O_LANE_END1 at `lane`."""
    return B[np.uint64(B[O_LANE_END1] + lane)]


@njit(cache=True, _nrt=False)
def lane_district0(B: np.ndarray, lane: int) -> int:
    """First district the lane borders (-1: none) [nl]: O_LANE_DISTRICT0 at `lane`."""
    return B[np.uint64(B[O_LANE_DISTRICT0] + lane)]


@njit(cache=True, _nrt=False)
def lane_district1(B: np.ndarray, lane: int) -> int:
    """Second district the lane borders (-1: none) [nl]: O_LANE_DISTRICT1 at `lane`."""
    return B[np.uint64(B[O_LANE_DISTRICT1] + lane)]


@njit(cache=True, _nrt=False)
def district_lanes_at(B: np.ndarray, district: int) -> int:
    """CSR starts of O_DISTRICT_LANES [nd + 1]: O_DISTRICT_LANES_AT at `district`."""
    return B[np.uint64(B[O_DISTRICT_LANES_AT] + district)]


@njit(cache=True, _nrt=False)
def district_lane(B: np.ndarray, i: int) -> int:
    """The lanes bordering each district: O_DISTRICT_LANES at `i`."""
    return B[np.uint64(B[O_DISTRICT_LANES] + i)]


@njit(cache=True, _nrt=False)
def neighbours_at(B: np.ndarray, district: int) -> int:
    """CSR starts of O_NEIGHBOUR_DISTRICT and O_NEIGHBOUR_LANE [nd + 1]: O_NEIGHBOURS_AT at
    `district`."""
    return B[np.uint64(B[O_NEIGHBOURS_AT] + district)]


@njit(cache=True, _nrt=False)
def neighbour_district(B: np.ndarray, i: int) -> int:
    """The districts next to each district: O_NEIGHBOUR_DISTRICT at `i`."""
    return B[np.uint64(B[O_NEIGHBOUR_DISTRICT] + i)]


@njit(cache=True, _nrt=False)
def neighbour_lane(B: np.ndarray, i: int) -> int:
    """The lane between them: O_NEIGHBOUR_LANE at `i`."""
    return B[np.uint64(B[O_NEIGHBOUR_LANE] + i)]


@njit(cache=True, _nrt=False)
def square_lanes_at(B: np.ndarray, square: int) -> int:
    """CSR starts of O_SQUARE_LANES [ns + 1]: O_SQUARE_LANES_AT at `square`."""
    return B[np.uint64(B[O_SQUARE_LANES_AT] + square)]


@njit(cache=True, _nrt=False)
def square_lane(B: np.ndarray, i: int) -> int:
    """The lanes ending at each square: O_SQUARE_LANES at `i`."""
    return B[np.uint64(B[O_SQUARE_LANES] + i)]


@njit(cache=True, _nrt=False)
def player_token(B: np.ndarray, token: int) -> int:
    """A player's tokens at the start [t]: O_PLAYER_TOKENS at `token`."""
    return B[np.uint64(B[O_PLAYER_TOKENS] + token)]


@njit(cache=True, _nrt=False)
def neutral_token(B: np.ndarray, k: int) -> int:
    """The neutral tokens, first handed out first: O_NEUTRAL_STACK at `k`."""
    return B[np.uint64(B[O_NEUTRAL_STACK] + k)]


@njit(cache=True, _nrt=False)
def is_district_token(B: np.ndarray, value: int) -> int:
    """Whether a token of this value scores districts [TOKEN_MAX + 1]: O_IS_DISTRICT_TOKEN at
    `value`."""
    return B[np.uint64(B[O_IS_DISTRICT_TOKEN] + value)]


@njit(cache=True, _nrt=False)
def multiplier(B: np.ndarray, a: int, b: int) -> int:
    """The multiplier of a lane with customers a and b at its ends (customer codes):
    O_MULTIPLIER at `a`, `b`."""
    return B[np.uint64(B[O_MULTIPLIER] + a * N_CUSTOMER_CODES + b)]


@njit(cache=True, _nrt=False)
def sequence(B: np.ndarray, position: int) -> int:
    """The customer line the rules give, as codes (the baron left out): O_SEQUENCE at
    `position`."""
    return B[np.uint64(B[O_SEQUENCE] + position)]


@njit(cache=True, _nrt=False)
def lane_inner(B: np.ndarray, lane: int) -> int:
    """The lane borders two districts [nl]: O_LANE_INNER at `lane`."""
    return B[np.uint64(B[O_LANE_INNER] + lane)]


@njit(cache=True, _nrt=False)
def score(B: np.ndarray, S: np.ndarray, seat: int) -> int:
    """Each seat's score [n]: S_SCORES at `seat`."""
    return S[np.uint64(B[S_SCORES] + seat)]


@njit(cache=True, _nrt=False)
def set_score(B: np.ndarray, S: np.ndarray, seat: int, value: int) -> None:
    """Set score: S_SCORES at `seat`."""
    S[np.uint64(B[S_SCORES] + seat)] = value


@njit(cache=True, _nrt=False)
def add_score(B: np.ndarray, S: np.ndarray, seat: int, delta: int) -> None:
    """Add `delta` to score: S_SCORES at `seat`."""
    S[np.uint64(B[S_SCORES] + seat)] += delta


@njit(cache=True, _nrt=False)
def stalls_left(B: np.ndarray, S: np.ndarray, seat: int) -> int:
    """Stalls each seat has left [n]: S_STALLS_LEFT at `seat`."""
    return S[np.uint64(B[S_STALLS_LEFT] + seat)]


@njit(cache=True, _nrt=False)
def set_stalls_left(B: np.ndarray, S: np.ndarray, seat: int, value: int) -> None:
    """Set stalls_left: S_STALLS_LEFT at `seat`."""
    S[np.uint64(B[S_STALLS_LEFT] + seat)] = value


@njit(cache=True, _nrt=False)
def add_stalls_left(B: np.ndarray, S: np.ndarray, seat: int, delta: int) -> None:
    """Add `delta` to stalls_left: S_STALLS_LEFT at `seat`."""
    S[np.uint64(B[S_STALLS_LEFT] + seat)] += delta


@njit(cache=True, _nrt=False)
def token_value(B: np.ndarray, S: np.ndarray, seat: int, token: int) -> int:
    """Token values, seat by seat (0: gone): S_TOK_VAL at `seat`, `token`."""
    return S[np.uint64(B[S_TOK_VAL] + seat * B[N_TOKENS] + token)]


@njit(cache=True, _nrt=False)
def set_token_value(B: np.ndarray, S: np.ndarray, seat: int, token: int, value: int) -> None:
    """Set token_value: S_TOK_VAL at `seat`, `token`."""
    S[np.uint64(B[S_TOK_VAL] + seat * B[N_TOKENS] + token)] = value


@njit(cache=True, _nrt=False)
def add_token_value(B: np.ndarray, S: np.ndarray, seat: int, token: int, delta: int) -> None:
    """Add `delta` to token_value: S_TOK_VAL at `seat`, `token`."""
    S[np.uint64(B[S_TOK_VAL] + seat * B[N_TOKENS] + token)] += delta


@njit(cache=True, _nrt=False)
def token_neutral(B: np.ndarray, S: np.ndarray, seat: int, token: int) -> int:
    """The token is a neutral one: S_TOK_NEUTRAL at `seat`, `token`."""
    return S[np.uint64(B[S_TOK_NEUTRAL] + seat * B[N_TOKENS] + token)]


@njit(cache=True, _nrt=False)
def set_token_neutral(B: np.ndarray, S: np.ndarray, seat: int, token: int, value: int) -> None:
    """Set token_neutral: S_TOK_NEUTRAL at `seat`, `token`."""
    S[np.uint64(B[S_TOK_NEUTRAL] + seat * B[N_TOKENS] + token)] = value


@njit(cache=True, _nrt=False)
def add_token_neutral(B: np.ndarray, S: np.ndarray, seat: int, token: int, delta: int) -> None:
    """Add `delta` to token_neutral: S_TOK_NEUTRAL at `seat`, `token`."""
    S[np.uint64(B[S_TOK_NEUTRAL] + seat * B[N_TOKENS] + token)] += delta


@njit(cache=True, _nrt=False)
def token_up(B: np.ndarray, S: np.ndarray, seat: int, token: int) -> int:
    """The token is face up: S_TOK_UP at `seat`, `token`."""
    return S[np.uint64(B[S_TOK_UP] + seat * B[N_TOKENS] + token)]


@njit(cache=True, _nrt=False)
def set_token_up(B: np.ndarray, S: np.ndarray, seat: int, token: int, value: int) -> None:
    """Set token_up: S_TOK_UP at `seat`, `token`."""
    S[np.uint64(B[S_TOK_UP] + seat * B[N_TOKENS] + token)] = value


@njit(cache=True, _nrt=False)
def add_token_up(B: np.ndarray, S: np.ndarray, seat: int, token: int, delta: int) -> None:
    """Add `delta` to token_up: S_TOK_UP at `seat`, `token`."""
    S[np.uint64(B[S_TOK_UP] + seat * B[N_TOKENS] + token)] += delta


@njit(cache=True, _nrt=False)
def lane_count(B: np.ndarray, S: np.ndarray, lane: int) -> int:
    """Stalls in each lane: S_LANE_COUNT at `lane`."""
    return S[np.uint64(B[S_LANE_COUNT] + lane)]


@njit(cache=True, _nrt=False)
def set_lane_count(B: np.ndarray, S: np.ndarray, lane: int, value: int) -> None:
    """Set lane_count: S_LANE_COUNT at `lane`."""
    S[np.uint64(B[S_LANE_COUNT] + lane)] = value


@njit(cache=True, _nrt=False)
def add_lane_count(B: np.ndarray, S: np.ndarray, lane: int, delta: int) -> None:
    """Add `delta` to lane_count: S_LANE_COUNT at `lane`."""
    S[np.uint64(B[S_LANE_COUNT] + lane)] += delta


@njit(cache=True, _nrt=False)
def lane_dir(B: np.ndarray, S: np.ndarray, lane: int) -> int:
    """The end a lane is built from (-1: none): S_LANE_DIR at `lane`."""
    return S[np.uint64(B[S_LANE_DIR] + lane)]


@njit(cache=True, _nrt=False)
def set_lane_dir(B: np.ndarray, S: np.ndarray, lane: int, value: int) -> None:
    """Set lane_dir: S_LANE_DIR at `lane`."""
    S[np.uint64(B[S_LANE_DIR] + lane)] = value


@njit(cache=True, _nrt=False)
def add_lane_dir(B: np.ndarray, S: np.ndarray, lane: int, delta: int) -> None:
    """Add `delta` to lane_dir: S_LANE_DIR at `lane`."""
    S[np.uint64(B[S_LANE_DIR] + lane)] += delta


@njit(cache=True, _nrt=False)
def lane_scored(B: np.ndarray, S: np.ndarray, lane: int) -> int:
    """The lane has been scored: S_LANE_SCORED at `lane`."""
    return S[np.uint64(B[S_LANE_SCORED] + lane)]


@njit(cache=True, _nrt=False)
def set_lane_scored(B: np.ndarray, S: np.ndarray, lane: int, value: int) -> None:
    """Set lane_scored: S_LANE_SCORED at `lane`."""
    S[np.uint64(B[S_LANE_SCORED] + lane)] = value


@njit(cache=True, _nrt=False)
def add_lane_scored(B: np.ndarray, S: np.ndarray, lane: int, delta: int) -> None:
    """Add `delta` to lane_scored: S_LANE_SCORED at `lane`."""
    S[np.uint64(B[S_LANE_SCORED] + lane)] += delta


@njit(cache=True, _nrt=False)
def lane_stalls(B: np.ndarray, S: np.ndarray, lane: int, seat: int) -> int:
    """Stalls of each seat in each lane: S_LANE_SEAT at `lane`, `seat`."""
    return S[np.uint64(B[S_LANE_SEAT] + lane * B[N_PLAYERS] + seat)]


@njit(cache=True, _nrt=False)
def set_lane_stalls(B: np.ndarray, S: np.ndarray, lane: int, seat: int, value: int) -> None:
    """Set lane_stalls: S_LANE_SEAT at `lane`, `seat`."""
    S[np.uint64(B[S_LANE_SEAT] + lane * B[N_PLAYERS] + seat)] = value


@njit(cache=True, _nrt=False)
def add_lane_stalls(B: np.ndarray, S: np.ndarray, lane: int, seat: int, delta: int) -> None:
    """Add `delta` to lane_stalls: S_LANE_SEAT at `lane`, `seat`."""
    S[np.uint64(B[S_LANE_SEAT] + lane * B[N_PLAYERS] + seat)] += delta


@njit(cache=True, _nrt=False)
def spot_seat(B: np.ndarray, S: np.ndarray, spot: int) -> int:
    """The seat owning each spot (-1: empty): S_SPOT_SEAT at `spot`."""
    return S[np.uint64(B[S_SPOT_SEAT] + spot)]


@njit(cache=True, _nrt=False)
def set_spot_seat(B: np.ndarray, S: np.ndarray, spot: int, value: int) -> None:
    """Set spot_seat: S_SPOT_SEAT at `spot`."""
    S[np.uint64(B[S_SPOT_SEAT] + spot)] = value


@njit(cache=True, _nrt=False)
def add_spot_seat(B: np.ndarray, S: np.ndarray, spot: int, delta: int) -> None:
    """Add `delta` to spot_seat: S_SPOT_SEAT at `spot`."""
    S[np.uint64(B[S_SPOT_SEAT] + spot)] += delta


@njit(cache=True, _nrt=False)
def square_customer(B: np.ndarray, S: np.ndarray, square: int) -> int:
    """The customer code on each square (0: none): S_SQUARE_CUSTOMER at `square`."""
    return S[np.uint64(B[S_SQUARE_CUSTOMER] + square)]


@njit(cache=True, _nrt=False)
def set_square_customer(B: np.ndarray, S: np.ndarray, square: int, value: int) -> None:
    """Set square_customer: S_SQUARE_CUSTOMER at `square`."""
    S[np.uint64(B[S_SQUARE_CUSTOMER] + square)] = value


@njit(cache=True, _nrt=False)
def add_square_customer(B: np.ndarray, S: np.ndarray, square: int, delta: int) -> None:
    """Add `delta` to square_customer: S_SQUARE_CUSTOMER at `square`."""
    S[np.uint64(B[S_SQUARE_CUSTOMER] + square)] += delta


@njit(cache=True, _nrt=False)
def district_scored(B: np.ndarray, S: np.ndarray, district: int) -> int:
    """The seat that scored each district (-1: none): S_DISTRICT_SCORED at `district`."""
    return S[np.uint64(B[S_DISTRICT_SCORED] + district)]


@njit(cache=True, _nrt=False)
def set_district_scored(B: np.ndarray, S: np.ndarray, district: int, value: int) -> None:
    """Set district_scored: S_DISTRICT_SCORED at `district`."""
    S[np.uint64(B[S_DISTRICT_SCORED] + district)] = value


@njit(cache=True, _nrt=False)
def add_district_scored(B: np.ndarray, S: np.ndarray, district: int, delta: int) -> None:
    """Add `delta` to district_scored: S_DISTRICT_SCORED at `district`."""
    S[np.uint64(B[S_DISTRICT_SCORED] + district)] += delta


@njit(cache=True, _nrt=False)
def line(B: np.ndarray, S: np.ndarray, position: int) -> int:
    """The known customer line [BAG_SIZE]: S_LINE at `position`."""
    return S[np.uint64(B[S_LINE] + position)]


@njit(cache=True, _nrt=False)
def set_line(B: np.ndarray, S: np.ndarray, position: int, value: int) -> None:
    """Set line: S_LINE at `position`."""
    S[np.uint64(B[S_LINE] + position)] = value


@njit(cache=True, _nrt=False)
def add_line(B: np.ndarray, S: np.ndarray, position: int, delta: int) -> None:
    """Add `delta` to line: S_LINE at `position`."""
    S[np.uint64(B[S_LINE] + position)] += delta


@njit(cache=True, _nrt=False)
def scored_lane(B: np.ndarray, S: np.ndarray, k: int) -> int:
    """The lanes in the order they scored: S_SCORED_LANES at `k`."""
    return S[np.uint64(B[S_SCORED_LANES] + k)]


@njit(cache=True, _nrt=False)
def set_scored_lane(B: np.ndarray, S: np.ndarray, k: int, value: int) -> None:
    """Set scored_lane: S_SCORED_LANES at `k`."""
    S[np.uint64(B[S_SCORED_LANES] + k)] = value


@njit(cache=True, _nrt=False)
def add_scored_lane(B: np.ndarray, S: np.ndarray, k: int, delta: int) -> None:
    """Add `delta` to scored_lane: S_SCORED_LANES at `k`."""
    S[np.uint64(B[S_SCORED_LANES] + k)] += delta


@njit(cache=True, _nrt=False)
def stat(B: np.ndarray, S: np.ndarray, seat: int, stat: int) -> int:
    """Per-seat statistics (codes.STAT_NAMES): S_STATS at `seat`, `stat`."""
    return S[np.uint64(B[S_STATS] + seat * N_STATS + stat)]


@njit(cache=True, _nrt=False)
def set_stat(B: np.ndarray, S: np.ndarray, seat: int, stat: int, value: int) -> None:
    """Set stat: S_STATS at `seat`, `stat`."""
    S[np.uint64(B[S_STATS] + seat * N_STATS + stat)] = value


@njit(cache=True, _nrt=False)
def add_stat(B: np.ndarray, S: np.ndarray, seat: int, stat: int, delta: int) -> None:
    """Add `delta` to stat: S_STATS at `seat`, `stat`."""
    S[np.uint64(B[S_STATS] + seat * N_STATS + stat)] += delta


@njit(cache=True, _nrt=False)
def start_score(B: np.ndarray, seat: int) -> int:
    """Each seat's starting score [n]: O_START_SCORES at `seat`."""
    return B[np.uint64(B[O_START_SCORES] + seat)]
