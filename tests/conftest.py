"""Shared fixtures: the standard board, rules by player count and seeded generators.

Figures are closed after every test so a failing chart test cannot leak memory into the
next one; every generator is seeded, never the clock.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import threading
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))  # helpers, strategies, differential
# Commands default to a worker per core; the suite runs its own processes side by side, so
# its commands use one unless a test asks (tests/test_cli.py checks the default itself).
os.environ.setdefault("PORTOBELLO_JOBS", "1")

from sim.games.portobello.board import Board
from sim.games.portobello.board import load_board
from sim.games.portobello.rules import Rules
from sim.games.portobello.rules import preset


@pytest.fixture(scope="session")
def standard_board() -> Board:
    return load_board("standard")


@pytest.fixture
def make_rules() -> Callable[..., Rules]:
    """Rules of a preset at a player count: `make_rules(3, "known-order")`."""
    def make(players: int = 2, name: str = "standard", **changes: object) -> Rules:
        return preset(name).with_changes(players=players, **changes)
    return make


@pytest.fixture
def rng() -> random.Random:
    return random.Random(20261201)


@pytest.fixture
def np_rng() -> np.random.Generator:
    return np.random.default_rng(20261201)


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    if "matplotlib.pyplot" in sys.modules:
        import matplotlib.pyplot as plt

        plt.close("all")


# -- a real browser, for the viewer's and the play page's tests -------------------------------
BROWSER_TIMEOUT = 90  # seconds: a hung browser is killed and the test fails, never hangs


@pytest.fixture
def browser() -> Iterator[Any]:
    """Headless Chromium through Selenium; the test skips, with the reason, on a machine
    without chromium and chromedriver."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        pytest.skip("needs chromium and chromedriver on PATH (Debian: apt-get install "
                    "chromium chromium-driver)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (dev extra)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1400,1000"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=driver_path)
    watchdog = threading.Timer(BROWSER_TIMEOUT, service.stop)
    watchdog.start()
    driver = webdriver.Chrome(service=service, options=options)
    try:
        driver.set_page_load_timeout(30)
        driver.set_script_timeout(30)
        yield driver
    finally:
        watchdog.cancel()
        driver.quit()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The play server on a free port of 127.0.0.1 (bots 5 ms apart): its URL, and the folder
    it saves finished games in."""
    pytest.importorskip("uvicorn", reason="needs uvicorn (web extra)")
    from servers import free_port
    from servers import serving

    from sim.web.app import build_app

    out = tmp_path / "play"
    port = free_port()
    with serving(build_app(out, bot_delay_ms=5, port=port), port):
        yield f"http://127.0.0.1:{port}", out


# -- the compiled games, once before the tests --------------------------------------------
def pytest_sessionstart(session: pytest.Session) -> None:
    """On a cold cache (a fresh clone), compile the engine, the planner and the learned
    agent once, before the tests, on both cores (`sim.games.portobello.engines.compile_now`):
    otherwise each test process compiles the same functions side by side on its own first
    game."""
    if hasattr(session.config, "workerinput"):
        return  # a test process of pytest-xdist: the session's first process compiled
    from sim.games.portobello import engines

    if not engines.compiled_code_cached(planner=True, networks=True):
        engines.compile_now(lambda line: print(line, file=sys.stderr, flush=True),
                            engines.COMPILE_NOTICE_NETWORKS)


# The suite's slowest files (`pytest --durations=0`, summed by file), run first: pytest-xdist
# hands whole files to its processes in this order, so the long ones start early and the
# processes finish together instead of one waiting on the other's last long file.
SLOWEST_FIRST = ("test_cluster.py", "test_faults.py", "test_outputs.py", "test_report.py",
                 "test_openspiel_adapter.py", "test_interrupts.py", "test_cli_closing.py",
                 "test_notebooks.py", "test_skill.py", "test_properties.py", "test_runner.py",
                 "test_bench.py", "test_bad_input_cli.py", "test_river_oracle.py",
                 "test_precision_runs.py", "test_serve_river.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: k for k, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: files stay whole
