"""The engine's actions numbered densely for frameworks that want `0..N-1`.

The numbering is a table of the engine's own action codes (`sim.games.portobello.actions`) for one
board and rules, in the engine's kind order; index `i` stands for code `codes[i]`, so the
adapters translate at the boundary and the engine plays its own codes. Chance outcomes
(a customer drawn from the bag or into the known line) have their own small numbering:
0 a citizen, 1 an aristocrat.
"""

from __future__ import annotations

from sim.games.portobello import actions as A
from sim.games.portobello.board import Board
from sim.games.portobello.codes import ARISTOCRAT
from sim.games.portobello.codes import CITIZEN
from sim.games.portobello.codes import CUSTOMER_NAMES
from sim.games.portobello.rules import Rules

# Chance outcome index -> customer code, and back.
OUTCOME_CUSTOMERS = (CITIZEN, ARISTOCRAT)
CUSTOMER_OUTCOMES = {c: i for i, c in enumerate(OUTCOME_CUSTOMERS)}


class ActionTable:
    """Every action code the engine can offer on `board` under `rules`, numbered."""

    def __init__(self, board: Board, rules: Rules) -> None:
        self.board = board
        districts = range(board.n_districts)
        neutral_values = sorted(set(rules.neutral_stack))
        codes: list[int] = [A.place_bobby(d) for d in districts]
        codes += [A.play_token(v, 0) for v in sorted(set(rules.player_tokens))]
        codes += [A.play_token(v, 1) for v in neutral_values]
        codes += [A.score_district(v, d) for v in sorted(set(rules.district_tokens))
                  if v in rules.player_tokens for d in districts]
        codes += [A.place_stall(lane, end) for lane in range(board.n_lanes) for end in (0, 1)]
        codes += [A.DRAW]
        codes += [A.place_customer(s) for s in range(board.n_squares)]
        codes += [A.move_bobby(d) for d in districts]
        codes += [A.END]
        self.codes: tuple[int, ...] = tuple(codes)
        self.index: dict[int, int] = {c: i for i, c in enumerate(codes)}

    def __len__(self) -> int:
        return len(self.codes)

    def indices(self, codes: list[int]) -> list[int]:
        """The indices of engine codes, ascending (the frameworks want them sorted)."""
        index = self.index
        return sorted(index[c] for c in codes)

    def name(self, i: int) -> str:
        """The action in words, with the board's ids (`place_stall L07 from S03`)."""
        board, code = self.board, self.codes[i]
        k, a = A.kind(code), A.arg(code)
        if k == A.PLACE_BOBBY:
            return f"place_bobby {board.district_ids[a]}"
        if k == A.PLAY_TOKEN:
            neutral = " neutral" if A.token_neutral(code) else ""
            return f"play_token {A.token_value(code)}{neutral}"
        if k == A.SCORE_DISTRICT:
            district = board.district_ids[A.district_of(code)]
            return f"score_district {A.district_value(code)} {district}"
        if k == A.PLACE_STALL:
            lane, end = A.stall_lane(code), A.stall_end(code)
            return f"place_stall {board.lane_ids[lane]} from " \
                   f"{board.square_ids[board.lane_ends[lane][end]]}"
        if k == A.DRAW_CUSTOMER:
            return "draw_customer"
        if k == A.PLACE_CUSTOMER:
            return f"place_customer {board.square_ids[a]}"
        if k == A.MOVE_BOBBY:
            return f"move_bobby {board.district_ids[a]}"
        return "end_turn"


def outcome_name(outcome: int, into_line: bool) -> str:
    """A chance outcome in words: `drawn citizen`, or `line citizen` for the known line."""
    return f"{'line' if into_line else 'drawn'} {CUSTOMER_NAMES[OUTCOME_CUSTOMERS[outcome]]}"
