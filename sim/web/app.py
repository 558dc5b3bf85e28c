"""The play server: a Starlette app holding games in memory by id, one per browser tab.

JSON API (every error is a 4xx JSON object `{"error": ..., "field": ...}`, never a 500):

- `POST /api/games` a new game (`sim.web.setup` lists the fields) -> its setup and state
- `GET /api/games/{id}` the state; `POST .../click` the person's move; `POST .../bot` one bot
  move; `POST .../undo`; `POST .../hint` (`{"agent": SPEC}`) what an agent would do
- `GET /games/{id}/view` the game so far (or finished) as the viewer page
- `GET /` the play page
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict
from collections.abc import Awaitable
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.responses import JSONResponse
from starlette.responses import Response
from starlette.routing import Route

from analysis.view.page import render
from analysis.view.source import GameSource
from sim.engine.errors import IllegalActionError
from sim.engine.errors import PortobelloError
from sim.engine.game import Game
from sim.engine.records import replay
from sim.web.page import play_page
from sim.web.session import Click
from sim.web.session import PlayError
from sim.web.session import Session
from sim.web.setup import game_setup

MAX_GAMES = 200  # games kept in memory; the oldest is dropped beyond
MAX_BODY = 64 * 1024  # bytes of a request body


class Games:
    """The games in play, by id, each with a lock (a tab's requests never interleave)."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self._games: OrderedDict[str, tuple[Session, threading.Lock]] = OrderedDict()
        self._lock = threading.Lock()

    def new(self, data: Any) -> Session:
        setup = game_setup(data)
        game_id = secrets.token_hex(6)
        session = Session(game_id=game_id, board=setup.board, board_ref=setup.board_ref,
                          rules=setup.rules, seed=setup.seed, human=setup.human,
                          specs=setup.specs, out_dir=self.out_dir)
        with self._lock:
            self._games[game_id] = (session, threading.Lock())
            while len(self._games) > MAX_GAMES:
                self._games.popitem(last=False)
        return session

    def get(self, game_id: str) -> tuple[Session, threading.Lock]:
        with self._lock:
            found = self._games.get(game_id)
        if found is None:
            raise LookupError(game_id)
        return found


def _error(status: int, reason: str, field: str | None = None) -> JSONResponse:
    return JSONResponse({"error": reason, "field": field}, status_code=status)


async def _body(request: Request) -> Any:
    """The request's JSON body ({} when empty); malformed JSON is a PlayError."""
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise PlayError(f"the request body is over {MAX_BODY} bytes", field="body")
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise PlayError(f"not valid JSON ({exc})", field="body") from None


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
            raise PlayError(f"must be a non-negative integer, got {value!r:.40}", field=key)
        out[key] = value
    out["neutral"] = bool(data.get("neutral", False))
    return Click(**out)


def build_app(out_dir: str | Path = "data/runs/play", bot_delay_ms: int = 400) -> Starlette:
    """The app; finished games are saved as records in `out_dir`; the page waits
    `bot_delay_ms` before each bot move."""
    games = Games(Path(out_dir))

    def with_game(work: Callable[[Session, Any], dict[str, Any]]
                  ) -> Callable[[Request], Awaitable[Response]]:
        """A game's endpoint: find the game, read the body, run `work` under its lock in a
        worker thread (a slow bot never blocks other tabs), answer errors as 4xx."""
        async def endpoint(request: Request) -> Response:
            try:
                session, lock = games.get(request.path_params["game_id"])
            except LookupError:
                return _error(404, "no such game (it may have been closed: start a new one)",
                              "game_id")
            try:
                data = await _body(request) if request.method == "POST" else {}

                def run() -> dict[str, Any]:
                    with lock:
                        return work(session, data)
                return JSONResponse(await run_in_threadpool(run))
            except IllegalActionError as exc:
                return _error(409, exc.reason, exc.field)
            except PortobelloError as exc:
                return _error(422 if exc.field != "body" else 400, exc.reason, exc.field)
        return endpoint

    async def new_game(request: Request) -> Response:
        try:
            data = await _body(request)
            session = await run_in_threadpool(games.new, data)
        except PortobelloError as exc:
            return _error(400 if exc.field == "body" else 422, exc.reason, exc.field)
        return JSONResponse({"setup": session.setup(), "state": session.view()})

    def state(session: Session, data: Any) -> dict[str, Any]:
        return session.view()

    def click(session: Session, data: Any) -> dict[str, Any]:
        session.play(_click(data))
        return session.view()

    def bot(session: Session, data: Any) -> dict[str, Any]:
        session.bot_step()
        return session.view()

    def undo(session: Session, data: Any) -> dict[str, Any]:
        taken = session.undo()
        if not taken:
            raise PlayError("nothing to undo: you have not moved yet", field="undo")
        return session.view()

    def hint(session: Session, data: Any) -> dict[str, Any]:
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
            return _error(404, "no such game", "game_id")
        with lock:
            record = session.record()
            label = session.saved.name if session.saved else f"game {session.game_id}"

        def page() -> str:
            replay(record)  # the record as saved must replay before it is drawn
            game = Game(session.board, session.rules, seed=session.seed, record_events=True)
            return render(GameSource(record=record, label=label, game=game))
        return HTMLResponse(await run_in_threadpool(page))

    async def index(request: Request) -> Response:
        return HTMLResponse(play_page(bot_delay_ms))

    async def favicon(request: Request) -> Response:
        return Response(status_code=204)  # no icon: browsers stop asking

    async def not_found(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        return _error(status, "no such page" if status == 404 else "bad request", "path")

    routes = [
        Route("/", index),
        Route("/favicon.ico", favicon),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", with_game(state)),
        Route("/api/games/{game_id}/click", with_game(click), methods=["POST"]),
        Route("/api/games/{game_id}/bot", with_game(bot), methods=["POST"]),
        Route("/api/games/{game_id}/undo", with_game(undo), methods=["POST"]),
        Route("/api/games/{game_id}/hint", with_game(hint), methods=["POST"]),
        Route("/games/{game_id}/view", view),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: not_found})
