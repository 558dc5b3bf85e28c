"""The adapters' parameters, the same names in OpenSpiel and PettingZoo, turned into a
board and rules with one clear error per bad value.

Parameters whose default is empty (`players = 0`, `customer_order = ""`,
`neutral_stack = ""`) take the rules file's value, or the rulebook's without one: a
framework fills in every default before the game sees its parameters, so an empty default
is how "not given" is told from "given"."""

from __future__ import annotations

import collections
from dataclasses import dataclass
from typing import Any

from sim.core.errors import PortobelloError
from sim.core.errors import quote
from sim.games.portobello.board import Board
from sim.games.portobello.board import load_board
from sim.games.portobello.rules import Rules
from sim.games.portobello.rules import load_rules
from sim.games.portobello.rules import rules_from_dict

RETURNS = ("win", "margin")
# Bobby moves offered per turn: far more than any path needs (the default is the board's
# diameter per action), and small enough that a game's length bound fits the frameworks'
# 32-bit integers.
MAX_BOBBY_MOVES = 1_000

# The defaults, in the order the frameworks list them.
DEFAULTS: dict[str, Any] = {
    "players": 0,
    "customer_order": "",
    "neutral_stack": "",
    "board": "standard",
    "rules": "",
    "bobby_moves": 0,
    "returns": "win",
}


class AdapterError(PortobelloError, ValueError):
    """A bad adapter parameter: names the parameter and the reason."""


@dataclass(frozen=True)
class Settings:
    """One game's setting as the adapters play it.

    `bobby_moves` bounds the Bobby moves offered in one turn (the frameworks need a finite
    game length; the rules allow any number). `returns` is `win` (each winner gets 1/k of
    a win shared by k; the returns sum to 1) or `margin` (a seat's score minus the mean of
    the others'; the returns sum to 0)."""

    board: Board
    rules: Rules
    bobby_moves: int
    returns: str

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def draws_line(self) -> bool:
        """Known order with no line given: chance draws the line before play."""
        return self.rules.customer_order == "known" and self.rules.customer_sequence is None

    @property
    def max_game_length(self) -> int:
        """A bound on the steps of a game, chance steps included: the line's draws, the
        Bobby's placement, then per turn a token, every action as a draw, its chance
        outcome and its square, the Bobby moves and the end of the turn."""
        rules = self.rules
        per_turn = 1 + 3 * max(max(rules.player_tokens), max(rules.neutral_stack, default=0)) \
            + self.bobby_moves + 1
        return rules.bag_size + 1 + rules.max_rounds * rules.players * per_turn

    @property
    def score_bound(self) -> float:
        """A bound on any score, either way: the start score, every lane at the highest
        multiplier, every district token at its highest with every stall, and one point
        for every Bobby move a game can hold."""
        rules, board = self.rules, self.board
        lanes = sum(sum(spots) for spots in board.lane_spots) \
            * max(dict(rules.multipliers).values())
        districts = max(rules.district_tokens) * rules.stalls * len(rules.district_tokens)
        moves = rules.max_rounds * rules.players * self.bobby_moves
        return float(max(rules.seat_start_scores) + lanes + districts + moves)

    @property
    def utility_bounds(self) -> tuple[float, float]:
        """(lowest, highest) return: 0 and 1 for `win`, twice the score bound either way
        for `margin`."""
        if self.returns == "win":
            return 0.0, 1.0
        return -2 * self.score_bound, 2 * self.score_bound


def default_bobby_moves(board: Board, rules: Rules) -> int:
    """The board's diameter (the longest shortest Bobby path) for every action of the
    biggest token and once more: room for a shortest path to every action's district and
    after the last. Only loops are left out, and a loop changes nothing but the scores,
    never in the mover's favour."""
    def eccentricity(start: int) -> int:
        dist = {start: 0}
        queue = collections.deque([start])
        while queue:
            d = queue.popleft()
            for other, _lane in board.district_neighbours[d]:
                if other not in dist:
                    dist[other] = dist[d] + 1
                    queue.append(other)
        return max(dist.values())

    diameter = max(eccentricity(d) for d in range(board.n_districts))
    biggest = max(max(rules.player_tokens), max(rules.neutral_stack, default=0))
    return max(1, diameter * (biggest + 1))


def _int(params: dict[str, Any], key: str, low: int, high: int | None = None) -> int:
    """An integer parameter of at least `low` (and at most `high`, where given; the rules
    check their own numbers)."""
    value = params[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise AdapterError(f"must be an integer, got {quote(value)}", field=key)
    if value < low:
        raise AdapterError(f"must be {low} or more, got {quote(value)}", field=key)
    if high is not None and value > high:
        raise AdapterError(f"must be from {low} to {high:,}, got {quote(value)}", field=key)
    return value


def _text(params: dict[str, Any], key: str) -> str:
    value = params[key]
    if not isinstance(value, str):
        raise AdapterError(f"must be a string, got {quote(value)}", field=key)
    return value.strip()


def _stack(text: str) -> list[int]:
    try:
        return [int(x) for x in text.replace(",", " ").split()]
    except ValueError:
        raise AdapterError(f"must be token values separated by spaces or commas, like "
                           f"'3 3 2 2 1 1 1 1', got {quote(text)}",
                           field="neutral_stack") from None


def settings(**params: Any) -> Settings:
    """The setting named by adapter parameters (any subset of `DEFAULTS`); unknown names
    and bad values raise AdapterError naming the parameter (or the file) and the reason."""
    unknown = sorted(set(params) - set(DEFAULTS))
    if unknown:
        raise AdapterError(f"unknown parameter {quote(unknown[0])} (parameters: "
                           f"{', '.join(DEFAULTS)})", field=unknown[0])
    values = {**DEFAULTS, **params}
    players = _int(values, "players", 0)
    rules_path = _text(values, "rules")
    base = load_rules(rules_path) if rules_path else Rules()
    changes: dict[str, Any] = {}
    if players:
        changes["players"] = players
    order = _text(values, "customer_order")
    if order:
        changes["customer_order"] = order
    stack = _text(values, "neutral_stack")
    if stack:
        changes["neutral_stack"] = _stack(stack)
    rules = rules_from_dict(changes, base=base, source="parameters") if changes else base
    board = load_board(_text(values, "board") or "standard")
    rules.check_board(board)
    returns = _text(values, "returns")
    if returns not in RETURNS:
        raise AdapterError(f"must be one of {', '.join(RETURNS)}, got {quote(returns)}",
                           field="returns")
    bobby_moves = _int(values, "bobby_moves", 0, MAX_BOBBY_MOVES) \
        or default_bobby_moves(board, rules)
    return Settings(board=board, rules=rules, bobby_moves=bobby_moves, returns=returns)
