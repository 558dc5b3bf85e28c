"""Shared helpers for the rules tests: tiny hand-made boards and a driver that plays
positions through the validating door `Game.play` using board ids instead of indices.

Seats are named after the rulebook's colours in component order: Red (seat 0), Yellow (1),
Green (2), Blue (3).
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Sequence
from typing import Any

from sim.games.portobello import actions as A
from sim.games.portobello.board import Board
from sim.games.portobello.board import board_from_dict
from sim.games.portobello.codes import CUSTOMER_CODES
from sim.games.portobello.game import Game
from sim.games.portobello.rules import Rules

RED, YELLOW, GREEN, BLUE = 0, 1, 2, 3


def make_board(name: str, squares: Sequence[str],
               lanes: Iterable[tuple[str, tuple[str, str], Sequence[int]]],
               districts: Iterable[tuple[str, Sequence[str]]]) -> Board:
    """A board from compact tuples: lanes as (id, (end0, end1), spots), districts as
    (id, lane ids)."""
    data: dict[str, Any] = {
        "name": name,
        "description": f"hand-made test board {name}",
        "squares": list(squares),
        "lanes": [{"id": lid, "ends": list(ends), "spots": list(spots)}
                  for lid, ends, spots in lanes],
        "districts": [{"id": did, "lanes": list(ls)} for did, ls in districts],
    }
    return board_from_dict(data, source=f"<test board {name}>")


def one_lane_board(spots: Sequence[int] = (1, 2)) -> Board:
    """Two squares A and B joined by one lane AB, inside one district D1.

    With the baron on the bag must hold exactly 1 customer (squares - 1)."""
    return make_board("one-lane", ["A", "B"], [("AB", ("A", "B"), spots)],
                      [("D1", ["AB"])])


def triangle_board() -> Board:
    """Three squares A, B, C; lanes AB [1, 2], BC [2, 2], CA [3, 1]; one district D1
    bordered by all three lanes. With the baron on the bag holds 2 customers."""
    return make_board("triangle", ["A", "B", "C"],
                      [("AB", ("A", "B"), [1, 2]), ("BC", ("B", "C"), [2, 2]),
                       ("CA", ("C", "A"), [3, 1])],
                      [("D1", ["AB", "BC", "CA"])])


def two_triangles_board(lane_order: Sequence[str] | None = None) -> Board:
    """Four squares A, B, C, D; two districts sharing lane BC::

        A ---AB--- B ---BD--- D
          \\   D1   |    D2   /
           CA      BC      DC
             \\     |     /
                   C

    D1 = [AB, BC, CA], D2 = [BC, BD, DC]; the Bobby moves between D1 and D2 by crossing
    BC (6 spots, enough for the Bobby-payment examples). `lane_order` lists the lanes in
    another file order. With the baron on the bag holds 3 customers.
    """
    lanes = {
        "AB": ("AB", ("A", "B"), [1, 2, 3]),
        "BC": ("BC", ("B", "C"), [3, 2, 1, 1, 2, 3]),
        "CA": ("CA", ("C", "A"), [2, 2]),
        "BD": ("BD", ("B", "D"), [1, 1, 1]),
        "DC": ("DC", ("D", "C"), [2, 1]),
    }
    order = lane_order or list(lanes)
    return make_board("two-triangles", ["A", "B", "C", "D"], [lanes[x] for x in order],
                      [("D1", ["AB", "BC", "CA"]), ("D2", ["BC", "BD", "DC"])])


def star_board() -> Board:
    """A centre square X joined to an outer triangle P, Q, R (the baron example)::

        lanes a = X-P [2, 2], b = X-Q [3, 1, 2, 1], c = X-R [1, 3, 1, 2],
              PQ [1], QR [1], RP [1]
        districts XPQ = [a, b, PQ], XQR = [b, c, QR], XRP = [c, a, RP]

    With the baron on the bag holds 3 customers."""
    return make_board("star", ["X", "P", "Q", "R"],
                      [("a", ("X", "P"), [2, 2]), ("b", ("X", "Q"), [3, 1, 2, 1]),
                       ("c", ("X", "R"), [1, 3, 1, 2]), ("PQ", ("P", "Q"), [1]),
                       ("QR", ("Q", "R"), [1]), ("RP", ("R", "P"), [1])],
                      [("XPQ", ["a", "b", "PQ"]), ("XQR", ["b", "c", "QR"]),
                       ("XRP", ["c", "a", "RP"])])


def bag(citizens: int, aristocrats: int) -> tuple[tuple[str, int], ...]:
    """The `customers` switch value for a bag of that many citizens and aristocrats."""
    return (("citizen", citizens), ("aristocrat", aristocrats))


class Driver:
    """Plays actions by id through `Game.play` (so every action is checked by the rules)."""

    def __init__(self, board: Board, rules: Rules | None = None, seed: int = 0,
                 bobby: str | None = None, record_events: bool = True) -> None:
        self.board = board
        self.game = Game(board, rules or Rules(), seed=seed, record_events=record_events)
        if bobby is not None:
            self.place_bobby(bobby)

    # ids -> indices
    def lane(self, lane_id: str) -> int:
        return self.board.lane_index(lane_id)

    def square(self, square_id: str) -> int:
        return self.board.square_index(square_id)

    def district(self, district_id: str) -> int:
        return self.board.district_index(district_id)

    # actions
    def place_bobby(self, district: str) -> None:
        self.game.play(A.place_bobby(self.district(district)))

    def token(self, value: int, neutral: bool = False) -> None:
        self.game.play(A.play_token(value, neutral))

    def stall(self, lane: str, frm: str | None = None) -> None:
        """Place a stall in `lane`; `frm` names the end square for an empty lane."""
        li = self.lane(lane)
        if frm is None:
            end = self.game.lane_dir[li]
            if end < 0:
                raise AssertionError(f"lane {lane} is empty: say which end to build from")
        else:
            end = self.board.lane_ends[li].index(self.square(frm))
        self.game.play(A.place_stall(li, end))

    def stall_action(self, lane: str, frm: str) -> int:
        li = self.lane(lane)
        return A.place_stall(li, self.board.lane_ends[li].index(self.square(frm)))

    def customer(self, kind: str, square: str) -> None:
        """Draw a customer of the given kind (a forced draw, as records carry) and place it."""
        self.game.play(A.draw_customer(CUSTOMER_CODES[kind]))
        self.game.play(A.place_customer(self.square(square)))

    def move(self, district: str) -> None:
        self.game.play(A.move_bobby(self.district(district)))

    def end(self) -> None:
        self.game.play(A.END)

    def pass_turn(self, value: int) -> None:
        """Play a token and end the turn at once (no actions)."""
        self.token(value)
        self.end()

    def score(self, value: int, district: str) -> None:
        self.game.play(A.score_district(value, self.district(district)))

    # queries
    @property
    def scores(self) -> list[int]:
        return self.game.scores

    def scored_lane_ids(self) -> list[str]:
        return [self.board.lane_ids[x] for x in self.game.scored_lanes]

    def stall_lanes(self) -> set[str]:
        """The lanes a stall may be placed in now."""
        return {self.board.lane_ids[A.stall_lane(a)] for a in self.game.legal_actions()
                if A.kind(a) == A.PLACE_STALL}

    def move_targets(self) -> set[str]:
        return {self.board.district_ids[A.arg(a)] for a in self.game.legal_actions()
                if A.kind(a) == A.MOVE_BOBBY}

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.game.events or [] if e["type"] == kind]
