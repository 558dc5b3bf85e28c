"""What the words about a position read from it: the events of an action
(`sim.games.portobello.events`) and the reasons an action is illegal
(`sim.games.portobello.reasons`) are worked out from a `Position`, which
`sim.games.portobello.game.Game` is. Typed against this protocol rather than `Game`, those
modules stand below the game's front, which imports them (no import cycle).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from sim.games.portobello.board import Board
from sim.games.portobello.rules import Rules


class Position(Protocol):
    """A position of a game as its readable front shows it (`Game`'s fields and queries)."""

    board: Board
    rules: Rules
    n: int  # players
    B: np.ndarray  # the board and rules packed (`sim.games.portobello.compiled.layout`)
    S: np.ndarray  # the compiled state
    seat: int
    phase: int
    bobby: int
    pending: int
    baron_square: int
    actions_left: int
    customers_left: int
    n_scored_lanes: int
    scores: list[int]
    stalls_left: list[int]
    lane_dir: list[int]
    square_customer: list[int]
    district_scored: list[int]

    @property
    def end_reason(self) -> str | None: ...

    @property
    def line(self) -> tuple[int, ...] | None: ...

    def scored_lanes_from(self, first: int) -> list[int]: ...

    def winners(self) -> list[int]: ...

    def stat(self, seat: int, name: str) -> int: ...

    def next_spot(self, lane: int, end: int) -> int: ...

    def lane_full(self, lane: int) -> bool: ...

    def next_customer(self) -> int: ...

    def move_cost(self, lane: int, mover: int) -> tuple[int, list[int]]: ...
