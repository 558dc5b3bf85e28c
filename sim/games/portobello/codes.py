"""The game's codes: phases, action kinds, customers, per-player statistics and end reasons.

This is the one place these numbers are defined. The compiled rules and agents
(`sim.games.portobello.compiled`, `sim.games.portobello.agents.compiled`, where numba folds these
module-level ints into the compiled code), `Game` (`sim.games.portobello.game`), the action encoding
(`sim.games.portobello.actions`) and the tables (`sim.games.portobello.tables`) all import
them from here, so no two parts can disagree on what a number means.
"""

from __future__ import annotations

# -- phases of play ---------------------------------------------------------------------------
SETUP = 0  # the Bobby is not on the board yet
TURN_START = 1  # the seat must play a token or score a district
ACTIONS = 2  # after play_token: stalls, draws, Bobby moves, end_turn
PLACE = 3  # a drawn customer waits for its square
CHANCE = 4  # a draw from the bag waits for chance to decide the customer
OVER = 5
PHASE_NAMES = ("setup", "turn_start", "actions", "place_customer", "chance", "over")

# -- action kinds (an action is `kind << SHIFT | argument`, see sim.games.portobello.actions)
# ----------
PLACE_BOBBY = 0  # arg: district
PLAY_TOKEN = 1  # arg: value * 2 + neutral
SCORE_DISTRICT = 2  # arg: value * 256 + district
PLACE_STALL = 3  # arg: lane * 2 + end (0: built from ends[0], 1: from ends[1])
DRAW_CUSTOMER = 4  # arg: 0 (chance decides), or the customer code the draw is forced to
PLACE_CUSTOMER = 5  # arg: square
MOVE_BOBBY = 6  # arg: district (adjacent to the Bobby's)
END_TURN = 7  # arg: 0
CHANCE_DRAW = 8  # arg: customer code drawn from the bag (the chance player's action)
N_KINDS = 9
KIND_NAMES = ("place_bobby", "play_token", "score_district", "place_stall", "draw_customer",
              "place_customer", "move_bobby", "end_turn", "chance")
KIND_CODES = {name: i for i, name in enumerate(KIND_NAMES)}
SHIFT = 16
MASK = (1 << SHIFT) - 1

# -- customers (0: an empty square) -----------------------------------------------------------
NO_CUSTOMER, CITIZEN, ARISTOCRAT, BARON = 0, 1, 2, 3
N_CUSTOMER_CODES = 4  # the lane multipliers: a table of customer codes a, b at a * 4 + b
CUSTOMER_NAMES = {CITIZEN: "citizen", ARISTOCRAT: "aristocrat", BARON: "baron"}
CUSTOMER_CODES = {v: k for k, v in CUSTOMER_NAMES.items()}

# -- per-player statistics, `stats[seat * N_STATS + k]` in both engines ------------------------
STAT_NAMES = ("lane_points", "district_points", "baron_points", "bobby_paid",
              "bobby_received", "districts_scored", "stalls_placed", "customers_placed")
LANE_POINTS, DISTRICT_POINTS, BARON_POINTS, BOBBY_PAID, BOBBY_RECEIVED, DISTRICTS_SCORED, \
    STALLS_PLACED, CUSTOMERS_PLACED = range(len(STAT_NAMES))
N_STATS = len(STAT_NAMES)

# -- end reasons (code 0: no end triggered yet) ------------------------------------------------
END_REASONS: tuple[str | None, ...] = (None, "last_stall", "board_exhausted", "round_limit")
NOT_ENDED, END_LAST_STALL, END_BOARD_EXHAUSTED, END_ROUND_LIMIT = range(len(END_REASONS))
