"""The play server on 127.0.0.1 in a thread of the test process, for the tests that talk to
it over HTTP or drive its page in a browser."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

WATCHDOG = 90  # seconds: a hung browser or server is stopped and the test fails, never hangs


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serving(app: Any, port: int) -> Iterator[None]:
    """`app` served by uvicorn on 127.0.0.1:`port` until the block ends (or the watchdog)."""
    import uvicorn

    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    watchdog = threading.Timer(WATCHDOG, lambda: setattr(srv, "should_exit", True))
    watchdog.start()
    try:
        yield
    finally:
        watchdog.cancel()
        srv.should_exit = True
        thread.join(10)


def page_data(driver: Any, name: str) -> str:
    """A value the play page keeps on its body (`data-NAME`) for tests to read: the game id,
    the actions played, whether the person is to move, whether the game is over."""
    from selenium.webdriver.common.by import By

    return driver.find_element(By.TAG_NAME, "body").get_attribute(f"data-{name}") or ""
