"""The rules engine: board, rules switches, codes, the compiled rules (`compiled`), the game's
readable front (`Game`), records and replay.

Everything else in the toolkit stands on this package; it imports nothing from the rest.
`Game` is imported when first asked for, so reading a board or rules never loads the
compiler.
"""

from typing import Any

from sim.core.errors import BoardError
from sim.core.errors import IllegalActionError
from sim.core.errors import PortobelloError
from sim.core.errors import RecordError
from sim.core.errors import RulesError
from sim.games.portobello.board import Board
from sim.games.portobello.board import load_board
from sim.games.portobello.kind import GAME as GAME
from sim.games.portobello.rules import Rules
from sim.games.portobello.rules import load_rules

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


def __getattr__(name: str) -> Any:
    if name == "Game":
        from sim.games.portobello.game import Game

        return Game
    raise AttributeError(f"module 'sim.games.portobello' has no attribute {name!r}")
