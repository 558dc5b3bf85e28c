"""River Market records someone else wrote, through the real `portobello view`: a record
that says it is another game than its format, a card set named by a path (never opened:
a record reads only the card sets the toolkit ships), a seed far out of range. Each is
refused in one line naming the file, the field and the reason, with exit status 1 and no
page written; a Portobello Market record that says it is River Market's alike."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from bad_input import BASE_RECORD

from sim.games.river.game import RiverGame
from sim.games.river.records import record_of
from sim.games.river.rules import RiverRules

ROOT = Path(__file__).resolve().parent.parent
WITHIN = 60.0  # seconds: far more than a refusal takes; a read of a FIFO would hang


def river_record() -> dict[str, Any]:
    """A valid River Market record (a game at its first decision)."""
    return record_of(RiverGame.new(RiverRules(players=2), seed=3), [])


def _view(record: Path, page: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "sim.cli", "view", str(record), "--out",
                             str(page)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT)


def view_fails(record: Path, page: Path) -> str:
    """`portobello view RECORD`: exit 1, nothing on stdout, one line on stderr (returned),
    no traceback and no page."""
    proc = _view(record, page)
    out, err = proc.communicate(timeout=WITHIN)
    assert proc.returncode == 1, err
    assert out == "" and err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err and not page.exists()
    return err[:-1]


def _write(path: Path, data: dict[str, Any], seed_digits: int = 0) -> Path:
    text = json.dumps(data)
    if seed_digits:  # a number JSON can hold and Python will not even convert
        text = text.replace(f'"seed": {data["seed"]}', '"seed": ' + "9" * seed_digits)
    path.write_text(text)
    return path


def test_the_record_of_the_cases_is_drawn(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    proc = _view(_write(tmp_path / "r.json", river_record()), page)
    _, err = proc.communicate(timeout=WITHIN)
    assert proc.returncode == 0 and page.exists(), err


@pytest.mark.parametrize("change, field, reason", [
    ({"game": "portobello-market"}, "game",
     "the record says it is 'portobello-market', but its format (river-market-record/1) is "
     "River Market's: must be 'river-market'"),
    ({"game": None}, "game", "the record says it is None"),
    ({"cards": {"name": "/etc/passwd", "hash": "0"}}, "cards.name",
     "must name a card set the toolkit ships (river-market), got '/etc/passwd': a record "
     "names no file to read"),
    ({"cards": {"name": "data/cards/river-market.toml", "hash": "0"}}, "cards.name",
     "must name a card set the toolkit ships"),
], ids=["another-game", "no-game", "cards-path", "cards-shipped-path"])
def test_a_bad_river_record_is_one_line(change: dict[str, Any], field: str, reason: str,
                                        tmp_path: Path) -> None:
    path = _write(tmp_path / "r.json", river_record() | change)
    line = view_fails(path, tmp_path / "page.html")
    assert line.startswith(f"portobello: error: {path}: {field}: "), line
    assert reason in line, line
    assert "root:" not in line  # nothing of /etc/passwd


def test_a_card_set_named_by_a_path_is_never_opened(tmp_path: Path) -> None:
    """The record names a FIFO: opening it to read would wait for a writer. While the
    command runs, a writer keeps trying to open it without waiting, which succeeds only
    once a reader has it open; it never does."""
    fifo = tmp_path / "cards.toml"
    os.mkfifo(fifo)
    path = _write(tmp_path / "r.json", river_record() | {"cards": {"name": str(fifo),
                                                                  "hash": "0"}})
    page = tmp_path / "page.html"
    proc = _view(path, page)
    opened = False
    start = time.monotonic()
    while proc.poll() is None and time.monotonic() - start < WITHIN:
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            opened = True
        except OSError:  # ENXIO: no reader has it open
            pass
        time.sleep(0.005)
    if proc.poll() is None:
        proc.kill()
    _, err = proc.communicate(timeout=WITHIN)
    assert not opened
    assert proc.returncode == 1 and err.count("\n") == 1, err
    assert f"{path}: cards.name: must name a card set the toolkit ships" in err, err
    assert not page.exists()


def test_a_seed_of_5000_digits_is_out_of_range(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.json", river_record(), seed_digits=5000)
    line = view_fails(path, tmp_path / "page.html")
    assert line == (f"portobello: error: {path}: seed: out of range: a seed has at most 40 "
                    "digits, got one of 5,000 digits")


def test_a_portobello_record_that_says_it_is_river_markets_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.json", BASE_RECORD | {"game": "river-market"})
    line = view_fails(path, tmp_path / "page.html")
    assert line == (f"portobello: error: {path}: game: the record says it is 'river-market', "
                    "but its format (portobello-record/1) is Portobello Market's: must be "
                    "'portobello-market'")
