"""`--scheduler` pointing at a service that is not a Dask scheduler: through the real
command, each is one line naming the address and what answered there, within the time
`--scheduler-timeout` gives, never a traceback, a hang or Dask reading text as the length
of a message (an allocation of exabytes); a real scheduler still passes the check."""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path

import pytest

from sim.core.errors import PortobelloError
from sim.run.execution import Execution
from sim.run.scheduler import check_scheduler

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 3  # the --scheduler-timeout the commands get
# Seconds to the one line beyond the same command refused at once (an address where nothing
# listens): the timeout and some slack, far below the 30 s a default timeout would take,
# so the bound holds on a loaded machine too.
SLACK = 10.0
WITHIN = 60.0  # the subprocess's own guard, a third of it


def _listening() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    return sock


def _serve(sock: socket.socket, answer: Callable[[socket.socket], None]) -> None:
    """Accept connections until `sock` is closed; `answer` each (keeping it open)."""
    held = []
    with contextlib.suppress(OSError):
        while True:
            conn, _ = sock.accept()
            held.append(conn)
            with contextlib.suppress(OSError):
                answer(conn)


def _random_bytes(conn: socket.socket) -> None:
    conn.sendall(os.urandom(4096))


def _nothing(conn: socket.socket) -> None:
    """Accept, and never say a word."""


@contextlib.contextmanager
def _socket_server(answer: Callable[[socket.socket], None]) -> Iterator[str]:
    sock = _listening()
    thread = threading.Thread(target=_serve, args=(sock, answer), daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)  # wakes the thread's accept
        sock.close()


@contextlib.contextmanager
def _web_server() -> Iterator[str]:
    """A web server (Python's own), which answers only once asked."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             http.server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


SERVERS: dict[str, Callable[[], contextlib.AbstractContextManager[str]]] = {
    "random bytes": lambda: _socket_server(_random_bytes),
    "a web server": _web_server,
    "silence": lambda: _socket_server(_nothing),
}
REASONS = {
    "random bytes": "answered with something that is not the Dask protocol",
    "a web server": f"sent nothing within {TIMEOUT} s",
    "silence": f"sent nothing within {TIMEOUT} s",
}


@pytest.mark.parametrize("server", list(SERVERS))
def test_a_service_that_is_no_scheduler_is_one_line_in_bounded_time(
        server: str, tmp_path: Path) -> None:
    def simulate(address: str, out: str) -> tuple[subprocess.CompletedProcess[str], float]:
        start = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "sim.cli", "simulate", "--games", "10", "--players", "2",
             "--agents", "random", "--scheduler", address, "--scheduler-timeout",
             str(TIMEOUT), "--out", str(tmp_path / out), "--quiet"],
            capture_output=True, text=True, timeout=3 * WITHIN, cwd=ROOT)
        return done, time.monotonic() - start

    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    refused, at_once = simulate(f"tcp://127.0.0.1:{closed.getsockname()[1]}", "refused")
    closed.close()
    assert refused.returncode == 1, refused.stderr
    with SERVERS[server]() as address:
        done, seconds = simulate(address, "run")
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 1, done.stderr
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert lines[0].startswith("portobello: error: --scheduler: ")
    assert address in lines[0] and REASONS[server] in lines[0], lines[0]
    assert seconds < at_once + TIMEOUT + SLACK, (seconds, at_once)


def test_a_scheduler_passes_and_what_is_not_one_is_refused_by_name() -> None:
    from distributed import Scheduler

    async def probe() -> None:
        async with Scheduler(host="127.0.0.1", port=0, dashboard=False) as scheduler:
            await asyncio.to_thread(check_scheduler, scheduler.address, 10)
            plain = scheduler.address.removeprefix("tcp://")  # Dask's default scheme
            await asyncio.to_thread(check_scheduler, plain, 10)

    asyncio.run(probe())
    with socket.socket() as unused:  # a port of this machine nothing listens on
        unused.bind(("127.0.0.1", 0))
        closed = f"tcp://127.0.0.1:{unused.getsockname()[1]}"
    for bad, reason in ((closed, "nothing listens there"),
                        ("nonsense", "names no host and port"),
                        ("http://127.0.0.1:8786", "unknown scheme 'http'"),
                        ("tcp://127.0.0.1:99999", "99999 is no port")):
        with pytest.raises(PortobelloError, match=reason) as caught:
            check_scheduler(bad, 2)
        assert caught.value.field == "--scheduler"


def test_the_timeout_goes_with_a_scheduler_and_is_a_positive_time() -> None:
    assert Execution(scheduler="tcp://h:8786").timeout == 30
    assert Execution(scheduler="tcp://h:8786", scheduler_timeout=2.5).timeout == 2.5
    for execution in ({"scheduler_timeout": 5}, {"backend": "dask", "scheduler_timeout": 5},
                      {"scheduler": "tcp://h:8786", "scheduler_timeout": 0},
                      {"scheduler": "tcp://h:8786", "scheduler_timeout": float("inf")}):
        with pytest.raises(PortobelloError) as caught:
            Execution(**execution)  # type: ignore[arg-type]
        assert caught.value.field == "--scheduler-timeout"


@pytest.mark.parametrize("text", ["0", "-1", "nan", "inf", "1e300", "soon"])
def test_a_bad_timeout_is_refused_by_the_parser(text: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from sim.cli.command import main

    with pytest.raises(SystemExit) as info:
        main(["simulate", "--scheduler", "tcp://127.0.0.1:8786", "--scheduler-timeout", text])
    assert info.value.code == 2
    assert capsys.readouterr().err == (
        "portobello simulate: error: argument --scheduler-timeout: must be a positive number "
        f"of seconds, at most 86,400, got {text!r} (see --help)\n")
