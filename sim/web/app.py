"""The play server: a Starlette app holding games in memory by id, one per browser tab.

JSON API (every error is a 4xx JSON object `{"error": ..., "field": ...}`, never a 500):

- `POST /api/games` a new game (`sim.web.setup` lists the fields) -> its setup and state
- `GET /api/games/{id}` the state; `POST .../click` the person's move; `POST .../bot` one bot
  move; `POST .../undo`; `POST .../hint` (`{"agent": SPEC}`) what an agent would do
- `GET /games/{id}/view` the game so far (or finished) as the viewer page
- `GET /` the play page
- River Market (`sim.games.river.session`): `POST /api/games` with `"game": "river-market"`;
  `POST .../act` (`{"action": N}`, one of the legal actions the state lists) is the
  person's move; state, bot, undo, hint and view as above; `GET /river` its play page

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

from analysis.view.page import render
from analysis.view.source import GameSource
from sim.core.errors import IllegalActionError
from sim.core.errors import PortobelloError
from sim.core.errors import quote
from sim.games.portobello.game import Game
from sim.games.portobello.kind import NAME as PORTOBELLO
from sim.games.portobello.records import replay
from sim.games.portobello.session import Click
from sim.games.portobello.session import PlayError
from sim.games.portobello.session import Session
from sim.games.river.kind import NAME as RIVER
from sim.games.river.session import RiverSession
from sim.games.river.session import river_setup
from sim.games.river.view import render as river_page
from sim.web.guard import MAX_BODY
from sim.web.guard import Guard
from sim.web.guard import RequestError
from sim.web.guard import error_response
from sim.web.guard import read_json
from sim.web.limits import MAX_SECONDS
from sim.web.page import play_page
from sim.web.page import river_play_page
from sim.web.setup import SetupError
from sim.web.setup import file_names
from sim.web.setup import game_setup

__all__ = ["MAX_BODY", "MAX_GAMES", "build_app"]

AnySession = Session | RiverSession  # a game of either game in play
MAX_GAMES = 200  # games kept in memory; the oldest is dropped beyond
LOCK_WAIT = MAX_SECONDS + 5  # seconds a request waits for its game
THINKERS = 4  # bot moves and hints computed at once (others wait; reads never do)


class Games:
    """The games in play, by id, each with a lock (a tab's requests never interleave)."""

    def __init__(self, out_dir: Path, files_dir: Path | None = None) -> None:
        self.out_dir = out_dir
        self.files_dir = files_dir
        self._games: OrderedDict[str, tuple[AnySession, threading.Lock]] = OrderedDict()
        self._lock = threading.Lock()

    def new(self, data: Any) -> AnySession:
        game_id = secrets.token_hex(6)
        session: AnySession
        if isinstance(data, dict) and data.get("game", PORTOBELLO) != PORTOBELLO:
            if data["game"] != RIVER:
                raise SetupError(f"unknown game {quote(data['game'])} (games: {PORTOBELLO}, "
                                 f"{RIVER})", field="game")
            river = river_setup(data)
            session = RiverSession(game_id=game_id, rules=river.rules, seed=river.seed,
                                   human=river.human, specs=river.specs, out_dir=self.out_dir)
        else:
            setup = game_setup({k: v for k, v in data.items() if k != "game"}
                               if isinstance(data, dict) else data, self.files_dir)
            session = Session(game_id=game_id, board=setup.board, board_ref=setup.board_ref,
                              rules=setup.rules, seed=setup.seed, human=setup.human,
                              specs=setup.specs, out_dir=self.out_dir)
        with self._lock:
            self._games[game_id] = (session, threading.Lock())
            while len(self._games) > MAX_GAMES:
                self._games.popitem(last=False)
        return session

    def __len__(self) -> int:
        with self._lock:
            return len(self._games)

    def get(self, game_id: str) -> tuple[AnySession, threading.Lock]:
        with self._lock:
            found = self._games.get(game_id)
        if found is None:
            raise LookupError(game_id)
        return found


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


def _click(data: Any) -> Click:
    if not isinstance(data, dict):
        raise PlayError("the request must be a JSON object", field="body")
    target = data.get("target")
    if not isinstance(target, str):
        raise PlayError("must name what was clicked: spot, square, district, token, draw or "
                        "end", field="target")
    out: dict[str, Any] = {"target": target}
    for key in ("index", "value"):
        value = data.get(key, 0)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**31:
            raise PlayError(f"must be an integer from 0 to {2**31 - 1}, got {quote(value)}",
                            field=key)
        out[key] = value
    out["neutral"] = bool(data.get("neutral", False))
    return Click(**out)


def build_app(out_dir: str | Path = "data/runs/play", bot_delay_ms: int = 400,
              port: int = 8765, files_dir: str | Path | None = None) -> Starlette:
    """The app serving on 127.0.0.1:`port`; finished games are saved as records in
    `out_dir`; the page waits `bot_delay_ms` before each bot move; the setup form may name
    the TOML files of `files_dir` (none without it)."""
    games = Games(Path(out_dir), Path(files_dir) if files_dir is not None else None)
    thinkers = anyio.CapacityLimiter(THINKERS)

    def with_game(work: Callable[[Any, Any], dict[str, Any]], thinks: bool = False
                  ) -> Callable[[Request], Awaitable[Response]]:
        """A game's endpoint: find the game, read the body, run `work` under its lock in a
        worker thread (a bot or a hint, `thinks`, on the thinkers' threads), answer
        errors as 4xx."""
        async def endpoint(request: Request) -> Response:
            try:
                session, lock = games.get(request.path_params["game_id"])
            except LookupError:
                return error_response(404, "no such game (it may have been closed: start a "
                                      "new one)", "game_id")
            try:
                data = await read_json(request) if request.method == "POST" else {}

                def run() -> dict[str, Any]:
                    with _held(lock):
                        return work(session, data)
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

    def state(session: AnySession, data: Any) -> dict[str, Any]:
        return session.view()

    def click(session: AnySession, data: Any) -> dict[str, Any]:
        if isinstance(session, RiverSession):
            raise PlayError("a River Market game takes its moves at .../act ({\"action\": N})",
                            field="target")
        session.play(_click(data))
        return session.view()

    def act(session: AnySession, data: Any) -> dict[str, Any]:
        if not isinstance(session, RiverSession):
            raise PlayError("a Portobello Market game takes its moves at .../click",
                            field="action")
        session.act(data)
        return session.view()

    def bot(session: AnySession, data: Any) -> dict[str, Any]:
        session.bot_step()
        return session.view()

    def undo(session: AnySession, data: Any) -> dict[str, Any]:
        taken = session.undo()
        if not taken:
            raise PlayError("nothing to undo: you have not moved yet", field="undo")
        return session.view()

    def hint(session: AnySession, data: Any) -> dict[str, Any]:
        spec = data.get("agent", "heuristic") if isinstance(data, dict) else None
        if not isinstance(spec, str) or not spec.strip():
            raise PlayError("must be an agent spec, e.g. heuristic", field="agent")
        try:
            return session.hint(spec)
        except PortobelloError as exc:
            if isinstance(exc, PlayError):
                raise
            raise PlayError(exc.reason, field="agent") from None

    async def view(request: Request) -> Response:
        try:
            session, lock = games.get(request.path_params["game_id"])
        except LookupError:
            return error_response(404, "no such game", "game_id")

        def page() -> str:
            if isinstance(session, RiverSession):
                with _held(lock):
                    start, actions = session.start, list(session.game.history)
                return river_page(start, actions, f"River Market, game {session.game_id}")
            with _held(lock):  # in a worker thread: a busy game holds up its own page only
                record = session.record()
                label = session.saved.name if session.saved else f"game {session.game_id}"
            replay(record)  # the record as saved must replay before it is drawn
            game = Game(session.board, session.rules, seed=session.seed, record_events=True)
            return render(GameSource(record=record, label=label, game=game))
        return HTMLResponse(await run_in_threadpool(page))

    async def index(request: Request) -> Response:
        return HTMLResponse(play_page(bot_delay_ms, file_names(games.files_dir)))

    async def river_index(request: Request) -> Response:
        return HTMLResponse(river_play_page(bot_delay_ms))

    async def favicon(request: Request) -> Response:
        return Response(status_code=204)  # no icon: browsers stop asking

    async def not_found(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        return error_response(status, "no such page" if status == 404 else "bad request",
                              "path")

    routes = [
        Route("/", index),
        Route("/river", river_index),
        Route("/favicon.ico", favicon),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", with_game(state)),
        Route("/api/games/{game_id}/click", with_game(click), methods=["POST"]),
        Route("/api/games/{game_id}/act", with_game(act), methods=["POST"]),
        Route("/api/games/{game_id}/bot", with_game(bot, thinks=True), methods=["POST"]),
        Route("/api/games/{game_id}/undo", with_game(undo), methods=["POST"]),
        Route("/api/games/{game_id}/hint", with_game(hint, thinks=True), methods=["POST"]),
        Route("/games/{game_id}/view", view),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: not_found},
                    middleware=[Middleware(Guard, port=port)])
    app.state.games = games  # what is in play, for whoever embeds the app
    return app
