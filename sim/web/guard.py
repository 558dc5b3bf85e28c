"""What the play server lets in: requests for its own address only, writes from its own
page only, and bodies of bounded size and depth.

- `Host` must be the server's own (127.0.0.1, localhost or [::1] with the port it serves): a
  page that rebinds its own name to 127.0.0.1 cannot drive the server or read its answers.
- A write (any method but GET and HEAD) must come from the server's own origin (a browser's
  `Origin` and `Sec-Fetch-Site` say where a request comes from) and carry
  `application/json`, which a foreign page cannot send without the browser asking first.
- A body is refused by its declared length before it is read, and cut at the cap while it
  streams; JSON nested too deeply, or holding an integer too long for any field, is a 400
  or 422 naming the field, never a 500.
"""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from sim.core.errors import PortobelloError
from sim.core.files import parse_json

MAX_BODY = 64 * 1024  # bytes of a request body
LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]")
READS = frozenset({"GET", "HEAD"})

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class RequestError(PortobelloError):
    """A request the server refuses before it reaches a game: the status and the field."""

    def __init__(self, status: int, reason: str, field: str) -> None:
        super().__init__(reason, field=field)
        self.status = status


def error_response(status: int, reason: str, field: str | None = None) -> JSONResponse:
    return JSONResponse({"error": reason, "field": field}, status_code=status)


def own_hosts(port: int) -> frozenset[str]:
    """The `Host` values of the server at `port` (the bare name too on port 80)."""
    hosts = {f"{name}:{port}" for name in LOCAL_NAMES}
    if port == 80:
        hosts.update(LOCAL_NAMES)
    return frozenset(hosts)


def own_origins(port: int) -> frozenset[str]:
    return frozenset(f"http://{host}" for host in own_hosts(port))


def check_request(method: str, headers: dict[str, str], port: int) -> None:
    """Refuse a request for another host, or a write from another origin or without JSON."""
    host = headers.get("host", "").lower()
    if host not in own_hosts(port):
        raise RequestError(403, f"this server answers only for 127.0.0.1:{port}, localhost:"
                           f"{port} and [::1]:{port}", "Host")
    if method in READS:
        return
    origin = headers.get("origin")
    if origin is not None and origin.lower() not in own_origins(port):
        raise RequestError(403, "a game is played from this server's own page only", "Origin")
    if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        raise RequestError(403, "a game is played from this server's own page only",
                           "Sec-Fetch-Site")
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise RequestError(415, "must be application/json", "Content-Type")


class Guard:
    """ASGI middleware: `check_request` before the app sees a request."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]],
                 port: int) -> None:
        self.app = app
        self.port = port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                       for k, v in scope["headers"]}
            try:
                check_request(scope["method"], headers, self.port)
            except RequestError as exc:
                await error_response(exc.status, exc.reason, exc.field)(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def read_json(request: Request) -> Any:
    """The request's JSON body ({} when empty), read no further than `MAX_BODY` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit() or len(declared) > 18:
            raise RequestError(400, "Content-Length must be a byte count", "Content-Length")
        if int(declared) > MAX_BODY:
            raise RequestError(413, f"the request body is over {MAX_BODY} bytes", "body")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise RequestError(413, f"the request body is over {MAX_BODY} bytes", "body")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    try:
        return parse_json(raw)
    except RecursionError:
        raise RequestError(400, "not valid JSON: nested too deeply", "body") from None
    except ValueError as exc:
        raise RequestError(400, f"not valid JSON ({str(exc)[:120]})", "body") from None
