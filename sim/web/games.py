"""What the play server asks of a game: its "session" facet (`GameKind.facet("session")`, the
game's front for a person playing in the browser, e.g. `sim/games/<game>/session.py`), and
the games the server offers.

The app (`sim.web.app`) holds games in play and answers the JSON API the same way for every
game; what a game in play is (its setup checked field by field, the person's move, the bots,
undo, hints, the saved record, its page) is the game's. A game without a session facet is not
offered: a new-game request naming it is one `GameError` naming the game.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any
from typing import Protocol

from sim.core.errors import PortobelloError
from sim.core.errors import quote
from sim.core.kind import GameKind
from sim.games.registry import default_game
from sim.games.registry import kind
from sim.games.registry import kinds

ROLE = "session"


class PlayError(PortobelloError):
    """A request a game in play cannot take (a bad move, a seat that is not to move, a
    hint out of turn), answered as a 4xx naming the request's field."""


class PlaySession(Protocol):
    """A game in play (what a session facet's `new_session` returns)."""

    game_id: str

    def setup(self) -> dict[str, Any]:
        """What the page needs once (the seats, their agents and colours, the material)."""
        ...

    def view(self) -> dict[str, Any]:
        """The state the page shows now (whose move, the person's options, the last moves,
        where the record was saved)."""
        ...

    def move(self, data: Any) -> object:
        """The person's move, as the request's JSON body gives it (the shape the facet's
        `MOVE` endpoint takes); an illegal one raises `IllegalActionError` in words."""
        ...

    def bot_step(self) -> str | None:
        """One move of the bot to move; None when the person (or nobody) is to move."""
        ...

    def undo(self) -> int:
        """Back to the person's previous decision; how many actions were taken back."""
        ...

    def hint(self, spec: str) -> dict[str, Any]:
        """What agent `spec` would do in the person's place."""
        ...

    def viewer(self) -> Callable[[], str]:
        """Called under the game's lock: what the viewer page of the game so far needs,
        taken now, as a function that draws the page (called outside the lock, so a
        drawing holds up no request)."""
        ...


class SessionFacet(Protocol):
    """A game's session facet module (module-level names).

    - `PAGE`: the path of its play page (`/`, `/river`); the default game's page is also
      the server's front page.
    - `MOVE`: the endpoint of the person's moves, `.../MOVE` (`click`: a click on the board;
      `act`: one of the legal actions listed); `MOVE_SHAPE` (optional): the body it takes,
      in words, for the refusal of a move sent to another game's endpoint.
    - `new_session(game_id, data, out_dir, files_dir)`: a new game from a request's fields
      (its `game` field taken out), each checked (a `SetupError` naming the field); its
      record is saved in `out_dir` when it ends; files are read from `files_dir` only.
    - `play_page(bot_delay_ms, files)`: the play page, its new-game form offering the TOML
      `files` of the server's folder where the game reads files.
    """

    PAGE: str
    MOVE: str

    def new_session(self, game_id: str, data: Mapping[str, Any], out_dir: Path,
                    files_dir: Path | None) -> PlaySession: ...

    def play_page(self, bot_delay_ms: int, files: list[str]) -> str: ...


# The endpoints of a person's move, and the request field a move sent to the wrong one names.
MOVE_FIELDS = {"click": "target", "act": "action"}


def session_facet(game: GameKind) -> Any:
    """The game's session facet (a GameError naming the game when it has none)."""
    return game.facet(ROLE)


def served_games() -> list[GameKind]:
    """The games the server offers (those with a session facet), the default game first."""
    return [g for g in kinds().values() if g.has(ROLE)]


def game_of_request(data: Mapping[str, Any]) -> GameKind:
    """The game a new-game request names (`game`; the default game when none), refused
    naming the field when it names no registered game."""
    from sim.web.setup import SetupError

    name = data.get("game", default_game())
    if not isinstance(name, str) or name not in kinds():
        raise SetupError(f"unknown game {quote(name)} (games: {', '.join(kinds())})",
                         field="game")
    return kind(name)


def pages() -> dict[str, GameKind]:
    """Each offered game's play page by its path (`PAGE`; a path taken already is not taken
    again), and the server's front page `/`: the default game's page, where it has one."""
    out: dict[str, GameKind] = {}
    for game in served_games():
        out.setdefault(str(session_facet(game).PAGE), game)
    front = next((g for g in out.values() if g.name == default_game()), None)
    if front is not None:
        out.setdefault("/", front)
    return out


def wrong_endpoint(game: GameKind, endpoint: str) -> PlayError:
    """The refusal of a move sent to an endpoint the game does not take its moves at."""
    facet: ModuleType = session_facet(game)
    shape = getattr(facet, "MOVE_SHAPE", "")
    return PlayError(f"a {game.title} game takes its moves at .../{facet.MOVE}"
                     + (f" ({shape})" if shape else ""), field=MOVE_FIELDS.get(endpoint, "body"))
