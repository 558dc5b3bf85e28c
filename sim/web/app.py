"""The play server: a Starlette app holding games in play by id, one per browser tab, for
every game with a session facet (`sim.web.games`: the game's front, what a game in play is).

JSON API (every error is a 4xx JSON object `{"error": ..., "field": ...}`, never a 500):

- `POST /api/games` a new game (`"game": NAME`, the default game when not given, and the
  game's own fields, which its session facet checks) -> its setup and state
- `GET /api/games/{id}` the state; `POST .../click` or `POST .../act` the person's move (the
  endpoint the game takes its moves at: a click on the board, or one of the legal actions
  the state lists, `{"action": N}`); `POST .../bot` one bot move; `POST .../undo`;
  `POST .../hint` (`{"agent": SPEC}`) what an agent would do
- `GET /games/{id}/view` the game so far (or finished) as the game's viewer page
- `GET /` the default game's play page; each other game's at its own path (`/river`)

Only the server's own page gets in (`sim.web.guard`: its own Host, its own Origin, JSON
bodies of bounded size). A game's requests take that game's lock in a worker thread, never
on the event loop, so a slow bot or hint holds its own game only; bots and hints think
within the caps of `sim.web.limits`, on threads of their own.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
from collections import OrderedDict
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from typing import NamedTuple

import anyio
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.responses import JSONResponse
from starlette.responses import Response
from starlette.routing import Route

from sim.core.errors import IllegalActionError
from sim.core.errors import PortobelloError
from sim.core.kind import GameKind
from sim.web.games import PlayError
from sim.web.games import PlaySession
from sim.web.games import game_of_request
from sim.web.games import pages
from sim.web.games import session_facet
from sim.web.games import wrong_endpoint
from sim.web.guard import MAX_BODY
from sim.web.guard import Guard
from sim.web.guard import RequestError
from sim.web.guard import error_response
from sim.web.guard import read_json
from sim.web.limits import MAX_SECONDS
from sim.web.setup import SetupError
from sim.web.setup import file_names

__all__ = ["MAX_BODY", "MAX_GAMES", "build_app", "play_pages"]

MAX_GAMES = 200  # games kept in memory; the oldest is dropped beyond
LOCK_WAIT = MAX_SECONDS + 5  # seconds a request waits for its game
THINKERS = 4  # bot moves and hints computed at once (others wait; reads never do)


class InPlay(NamedTuple):
    """A game in play: its session, its game and its lock (a tab's requests never
    interleave)."""

    session: PlaySession
    game: GameKind
    lock: threading.Lock


class Games:
    """The games in play, by id."""

    def __init__(self, out_dir: Path, files_dir: Path | None = None) -> None:
        self.out_dir = out_dir
        self.files_dir = files_dir
        self._games: OrderedDict[str, InPlay] = OrderedDict()
        self._lock = threading.Lock()

    def new(self, data: Any) -> PlaySession:
        """A new game of the game the request names (`sim.web.games.game_of_request`), set
        up by its session facet from the request's other fields."""
        if not isinstance(data, dict):
            raise SetupError("the request must be a JSON object", field="body")
        game = game_of_request(data)
        facet = session_facet(game)
        game_id = secrets.token_hex(6)
        session = facet.new_session(game_id, {k: v for k, v in data.items() if k != "game"},
                                    self.out_dir, self.files_dir)
        with self._lock:
            self._games[game_id] = InPlay(session, game, threading.Lock())
            while len(self._games) > MAX_GAMES:
                self._games.popitem(last=False)
        return session

    def __len__(self) -> int:
        with self._lock:
            return len(self._games)

    def get(self, game_id: str) -> InPlay:
        with self._lock:
            found = self._games.get(game_id)
        if found is None:
            raise LookupError(game_id)
        return found


def play_pages() -> dict[str, str]:
    """Each offered game's play page: its title by the page's path (the default game's at
    `/` too)."""
    return {path: game.title for path, game in pages().items()}


@contextlib.contextmanager
def _held(lock: threading.Lock) -> Iterator[None]:
    """A game's lock, waited for no longer than a bot or hint may think (and a little)."""
    if not lock.acquire(timeout=LOCK_WAIT):
        raise PlayError("the game is busy with a bot move or a hint; try again",
                        field="game_id")
    try:
        yield
    finally:
        lock.release()


def build_app(out_dir: str | Path = "data/runs/play", bot_delay_ms: int = 400,
              port: int = 8765, files_dir: str | Path | None = None) -> Starlette:
    """The app serving on 127.0.0.1:`port`; finished games are saved as records in
    `out_dir`; the page waits `bot_delay_ms` before each bot move; the setup form may name
    the TOML files of `files_dir` (none without it)."""
    games = Games(Path(out_dir), Path(files_dir) if files_dir is not None else None)
    thinkers = anyio.CapacityLimiter(THINKERS)

    def with_game(work: Callable[[InPlay, Any], dict[str, Any]], thinks: bool = False
                  ) -> Callable[[Request], Awaitable[Response]]:
        """A game's endpoint: find the game, read the body, run `work` under its lock in a
        worker thread (a bot or a hint, `thinks`, on the thinkers' threads), answer
        errors as 4xx."""
        async def endpoint(request: Request) -> Response:
            try:
                found = games.get(request.path_params["game_id"])
            except LookupError:
                return error_response(404, "no such game (it may have been closed: start a "
                                      "new one)", "game_id")
            try:
                data = await read_json(request) if request.method == "POST" else {}

                def run() -> dict[str, Any]:
                    with _held(found.lock):
                        return work(found, data)
                limiter = thinkers if thinks else None
                return JSONResponse(await anyio.to_thread.run_sync(run, limiter=limiter))
            except RequestError as exc:
                return error_response(exc.status, exc.reason, exc.field)
            except IllegalActionError as exc:
                return error_response(409, exc.reason, exc.field)
            except PortobelloError as exc:
                return error_response(400 if exc.field == "body" else 422, exc.reason,
                                      exc.field)
        return endpoint

    async def new_game(request: Request) -> Response:
        try:
            data = await read_json(request)
            session = await run_in_threadpool(games.new, data)
        except RequestError as exc:
            return error_response(exc.status, exc.reason, exc.field)
        except PortobelloError as exc:
            return error_response(400 if exc.field == "body" else 422, exc.reason, exc.field)
        return JSONResponse({"setup": session.setup(), "state": session.view()})

    def state(found: InPlay, data: Any) -> dict[str, Any]:
        return found.session.view()

    def move(endpoint: str) -> Callable[[InPlay, Any], dict[str, Any]]:
        """The person's move at `.../endpoint`: the game's own, or refused naming where the
        game takes its moves."""
        def work(found: InPlay, data: Any) -> dict[str, Any]:
            if endpoint != session_facet(found.game).MOVE:
                raise wrong_endpoint(found.game, endpoint)
            found.session.move(data)
            return found.session.view()
        return work

    def bot(found: InPlay, data: Any) -> dict[str, Any]:
        found.session.bot_step()
        return found.session.view()

    def undo(found: InPlay, data: Any) -> dict[str, Any]:
        taken = found.session.undo()
        if not taken:
            raise PlayError("nothing to undo: you have not moved yet", field="undo")
        return found.session.view()

    def hint(found: InPlay, data: Any) -> dict[str, Any]:
        spec = data.get("agent", "heuristic") if isinstance(data, dict) else None
        if not isinstance(spec, str) or not spec.strip():
            raise PlayError("must be an agent spec, e.g. heuristic", field="agent")
        try:
            return found.session.hint(spec)
        except PortobelloError as exc:
            if isinstance(exc, PlayError):
                raise
            raise PlayError(exc.reason, field="agent") from None

    async def view(request: Request) -> Response:
        try:
            found = games.get(request.path_params["game_id"])
        except LookupError:
            return error_response(404, "no such game", "game_id")

        def page() -> str:
            with _held(found.lock):  # in a worker thread: a busy game holds up its own page
                draw = found.session.viewer()
            return draw()
        return HTMLResponse(await run_in_threadpool(page))

    def index(game: GameKind) -> Callable[[Request], Awaitable[Response]]:
        """A game's play page."""
        async def endpoint(request: Request) -> Response:
            return HTMLResponse(session_facet(game).play_page(bot_delay_ms,
                                                              file_names(games.files_dir)))
        return endpoint

    async def favicon(request: Request) -> Response:
        return Response(status_code=204)  # no icon: browsers stop asking

    async def not_found(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        return error_response(status, "no such page" if status == 404 else "bad request",
                              "path")

    routes = [
        *(Route(path, index(game)) for path, game in pages().items()),
        Route("/favicon.ico", favicon),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", with_game(state)),
        Route("/api/games/{game_id}/click", with_game(move("click")), methods=["POST"]),
        Route("/api/games/{game_id}/act", with_game(move("act")), methods=["POST"]),
        Route("/api/games/{game_id}/bot", with_game(bot, thinks=True), methods=["POST"]),
        Route("/api/games/{game_id}/undo", with_game(undo), methods=["POST"]),
        Route("/api/games/{game_id}/hint", with_game(hint, thinks=True), methods=["POST"]),
        Route("/games/{game_id}/view", view),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: not_found},
                    middleware=[Middleware(Guard, port=port)])
    app.state.games = games  # what is in play, for whoever embeds the app
    return app
