"""Portobello Market rules engine, agents and simulation runner."""

from sim.board import Board, load_board
from sim.errors import BoardError, IllegalActionError, PortobelloError, RecordError, RulesError
from sim.game import Game
from sim.rules import Rules, load_rules

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
