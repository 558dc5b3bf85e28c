"""The address of a Dask scheduler (`--scheduler`), checked before a command hands it to
Dask's client.

Dask's client trusts whatever answers at the address. A service that is not a Dask
scheduler makes it fail deep inside with a traceback, read a web server's text as the
length of a message and try to allocate exabytes, or wait without end on a server that
accepts the connection and says nothing. So a command first connects by itself, within
`--scheduler-timeout` seconds (`SCHEDULER_TIMEOUT` by default), and reads the greeting a
Dask scheduler sends at once on every new connection over TCP: its handshake, an 8-byte
length, then that many bytes of msgpack frames (a count, each frame's length, the frames),
the first of which is a mapping (its Python version, compression and pickle protocol).
Anything else is refused in one line naming the address and what answered there. Over
TLS and WebSockets the client speaks first, so only the connection is checked.
"""

from __future__ import annotations

import contextlib
import math
import socket
import struct
import time
from collections.abc import Iterator
from typing import Any

from sim.core.errors import quote
from sim.run.config import RunError

SCHEDULER_TIMEOUT = 30.0  # seconds a scheduler may take to answer, unless the flag says
MAX_SCHEDULER_TIMEOUT = 86_400.0  # a day: longer is a typo (and overflows a socket's timer)
DEFAULT_PORT = 8786  # Dask's scheduler port; 8787 is its dashboard, a web server
GREETING_LIMIT = 1 << 16  # bytes of a scheduler's greeting, at most (60 or so in practice)
WORD = struct.Struct("<Q")  # Dask's lengths and counts: unsigned 64-bit, little-endian
FIELD = "--scheduler"
# Dask's schemes whose address is HOST:PORT (the ones the toolkit can connect to first);
# only over plain TCP does the scheduler speak first.
CONNECTED_SCHEMES = ("tcp", "tls", "ws", "wss")
GREETED_SCHEMES = ("tcp",)


def timeout_problem(seconds: Any) -> str | None:
    """Why `seconds` is no `--scheduler-timeout`, or None: a number of seconds above 0 and
    at most `MAX_SCHEDULER_TIMEOUT`."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or \
            not math.isfinite(seconds) or seconds <= 0:
        return f"must be a positive number of seconds, got {quote(seconds)}"
    if seconds > MAX_SCHEDULER_TIMEOUT:
        return f"must be at most {MAX_SCHEDULER_TIMEOUT:,.0f} seconds, got {seconds:g}"
    return None


def check_scheduler(address: str, timeout: float = SCHEDULER_TIMEOUT) -> None:
    """Refuse `address` (RunError naming it, within about `timeout` seconds) unless a Dask
    scheduler answers there: a malformed address, a host that cannot be found, nothing
    listening, no connection in time and, over TCP, a server that sends nothing, closes
    the connection or sends something other than a Dask greeting."""
    scheme, host, port = parse_scheduler(address)
    if scheme not in CONNECTED_SCHEMES:
        return  # Dask's own schemes without a host and port (inproc, ucx): Dask's to check
    deadline = time.monotonic() + timeout
    with _connected(address, host, port, timeout) as sock:
        if scheme in GREETED_SCHEMES:
            _check_greeting(address, sock, deadline, timeout)


def parse_scheduler(address: str) -> tuple[str, str, int]:
    """The scheme, host and port of a scheduler address (`tcp://HOST:PORT`, or `HOST:PORT`
    for TCP); RunError when it is none."""
    from distributed.comm.addressing import parse_address
    from distributed.comm.addressing import parse_host_port
    from distributed.comm.registry import backends

    example = f"give tcp://HOST:PORT, e.g. tcp://10.0.0.5:{DEFAULT_PORT}"
    try:
        scheme, location = parse_address(address, strict=False)
    except (TypeError, ValueError) as exc:
        raise RunError(f"{quote(address)} is not a scheduler address ({exc}); {example}",
                       field=FIELD) from None
    if scheme not in backends:
        raise RunError(f"{quote(address)}: unknown scheme {quote(scheme)} (Dask's: "
                       f"{', '.join(sorted(backends))}); {example}", field=FIELD)
    if scheme not in CONNECTED_SCHEMES:
        return scheme, location, 0
    try:
        host, port = parse_host_port(location)
    except (TypeError, ValueError):
        raise RunError(f"{quote(address)} names no host and port; {example}",
                       field=FIELD) from None
    if not host:
        raise RunError(f"{quote(address)} names no host; {example}", field=FIELD)
    if not 0 < port < 1 << 16:
        raise RunError(f"{quote(address)}: {port} is no port (1 to 65535); {example}",
                       field=FIELD)
    return scheme, host, port


@contextlib.contextmanager
def _connected(address: str, host: str, port: int, timeout: float) -> Iterator[socket.socket]:
    """A TCP connection to the scheduler's host and port, closed after the block."""
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except socket.gaierror as exc:
        raise RunError(f"{address}: cannot find the host {quote(host)} ({exc.strerror}); "
                       "check the address", field=FIELD) from None
    except ConnectionRefusedError:
        raise RunError(f"{address}: nothing listens there (connection refused); start the "
                       "scheduler (dask scheduler, docs/cluster.md) or check the address",
                       field=FIELD) from None
    except TimeoutError:
        raise RunError(f"{address}: no connection within {timeout:g} s; check the address and "
                       "that its machine is reachable (--scheduler-timeout SECONDS waits "
                       "longer)", field=FIELD) from None
    except OSError as exc:
        raise RunError(f"{address}: cannot connect ({exc.strerror or exc}); check the address",
                       field=FIELD) from None
    try:
        yield sock
    finally:
        with contextlib.suppress(OSError):
            sock.close()


def _receive(sock: socket.socket, count: int, deadline: float) -> tuple[bytes, bool]:
    """Up to `count` bytes from `sock` until `deadline`, and whether the peer kept the
    connection open (False: it closed it or failed)."""
    data = bytearray()
    while len(data) < count:
        left = deadline - time.monotonic()
        if left <= 0:
            return bytes(data), True
        sock.settimeout(left)
        try:
            chunk = sock.recv(min(count - len(data), GREETING_LIMIT))
        except TimeoutError:
            return bytes(data), True
        except OSError:
            return bytes(data), False
        if not chunk:
            return bytes(data), False
        data += chunk
    return bytes(data), True


def _check_greeting(address: str, sock: socket.socket, deadline: float,
                    timeout: float) -> None:
    """Refuse the server unless the first thing it sends is a Dask handshake."""
    head, open_ = _receive(sock, WORD.size, deadline)
    if not head:
        if open_:
            raise RunError(f"{address} accepted the connection but sent nothing within "
                           f"{timeout:g} s, and a Dask scheduler greets every connection at "
                           f"once: is it a Dask scheduler's address (port {DEFAULT_PORT} by "
                           f"default; {DEFAULT_PORT + 1} is its dashboard, a web page)?",
                           field=FIELD)
        raise RunError(f"{address} closed the connection without a word: it is not a Dask "
                       "scheduler; check the address", field=FIELD)
    body = b""
    if len(head) == WORD.size:
        size = WORD.unpack(head)[0]
        if 2 * WORD.size <= size <= GREETING_LIMIT:
            body, _ = _receive(sock, size, deadline)
            if len(body) == size and _is_handshake(body):
                return
    raise RunError(f"{address} answered with something that is not the Dask protocol "
                   f"(its first bytes: {quote((head + body)[:16])}): is it a Dask scheduler's "
                   "address?", field=FIELD)


def _is_handshake(body: bytes) -> bool:
    """Whether `body` (a message's bytes after its length) is Dask's framing of a msgpack
    mapping: a frame count, the frames' lengths adding up to the rest, the first frame a
    mapping."""
    import msgpack

    count = WORD.unpack_from(body)[0]
    if not 1 <= count <= len(body) // WORD.size - 1:
        return False
    lengths = [WORD.unpack_from(body, WORD.size * (1 + i))[0] for i in range(count)]
    start = WORD.size * (1 + count)
    if start + sum(lengths) != len(body):
        return False
    try:
        first = msgpack.unpackb(body[start:start + lengths[0]], raw=False)
    except Exception:  # msgpack's many ways of saying "not msgpack"
        return False
    return isinstance(first, dict)
