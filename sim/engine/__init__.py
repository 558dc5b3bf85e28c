"""The rules engine: board, rules switches, codes, game state, records and replay.

Everything else in the toolkit stands on this package; it imports nothing from the rest.
"""

from sim.engine.board import Board, load_board
from sim.engine.errors import (
    BoardError,
    IllegalActionError,
    PortobelloError,
    RecordError,
    RulesError,
)
from sim.engine.game import Game
from sim.engine.rules import Rules, load_rules

__all__ = [
    "Board",
    "BoardError",
    "Game",
    "IllegalActionError",
    "PortobelloError",
    "RecordError",
    "Rules",
    "RulesError",
    "load_board",
    "load_rules",
]
