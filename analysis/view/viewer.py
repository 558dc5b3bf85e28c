"""`portobello view` for any game: which game a record file or a run folder holds, and its
page from the game's "view" facet (`sim.core.kind.GameKind.facet`).

A game's view facet module (`sim/games/<game>/view.py`, or a package) answers `ViewFacet`:
whether a parsed record file is one of its records, and its page of a record file or of
one game of a run (`analysis.view.source.run_record`). The pages share what
`analysis.view.page` has (seat colours, the JSON script element, the controls' templates).
A game without a view facet has no viewer: asking for one is a GameError naming the game.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any
from typing import NamedTuple
from typing import Protocol

from analysis.view.page import check_out
from analysis.view.page import write_html
from analysis.view.source import RunRecord
from analysis.view.source import check_target
from analysis.view.source import run_record
from sim.core.files import parse_json
from sim.games.registry import GameKind
from sim.games.registry import default_game
from sim.games.registry import kind
from sim.games.registry import kinds

ROLE = "view"
MAX_RECORD_BYTES = 50_000_000  # a record file larger than this is no game's to look into


class Page(NamedTuple):
    """A game's page: its HTML, its number of steps (the position before the first action
    counts) and what it shows, for a message (`the game in x.json`, `run-3p game 2`)."""

    html: str
    steps: int
    label: str


class ViewFacet(Protocol):
    """What the viewer asks of a game's view facet module."""

    def is_record(self, data: Mapping[str, Any]) -> bool:
        """Whether a record file's parsed JSON is one of this game's records (by its
        `format`): a file no game claims goes to the default game, which says what is
        wrong with it."""

    def record_page(self, path: Path) -> Page:
        """The page of a record file (refused, with the reason, when it is not valid)."""

    def run_page(self, run: RunRecord) -> Page:
        """The page of one game of a run folder, replayed on the run's own material."""


def view_facet(game: GameKind) -> Any:
    """The game's view facet (a GameError naming the game when it has none)."""
    return game.facet(ROLE)


def _parsed(path: Path) -> Any:
    """A record file's JSON (long numbers left unread), None when it cannot be read."""
    if not path.is_file() or path.stat().st_size > MAX_RECORD_BYTES:
        return None
    try:
        return parse_json(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None


def record_game(path: str | Path) -> GameKind:
    """The game whose record `path` is: the first game whose view facet claims it, else the
    default game (whose viewer then says what is wrong with the file)."""
    data = _parsed(Path(path))
    if isinstance(data, dict):
        for game in kinds().values():
            if game.has(ROLE) and view_facet(game).is_record(data):
                return game
    return kind(default_game())


def run_page(run_dir: str | Path, game_id: int) -> Page:
    """The page of game `game_id` of a run folder kept with `--records` (the run's game's
    view facet)."""
    record = run_record(run_dir, game_id)
    return view_facet(kind(game_of_run(record.manifest))).run_page(record)


def game_of_run(manifest: Mapping[str, Any]) -> str:
    """The game a run played (the default game when its manifest names none)."""
    return str(manifest.get("game", default_game()))


def page_of(target: str | Path, game_id: int | None) -> Page:
    """The page of a record file, or with `game_id` of a run folder's game (a folder
    without `game_id`, or a file with one, is refused with what to give instead)."""
    p = check_target(target, game_id)
    if game_id is not None:
        return run_page(p, game_id)
    return view_facet(record_game(p)).record_page(p)


def write_view(target: str | Path, game_id: int | None, out: str | Path) -> Page:
    """Replay the game and write its page to `out` whole (nothing is written when the
    record is refused); `out` is checked before any work."""
    path = check_out(out)
    page = page_of(target, game_id)
    write_html(path, page.html)
    return page
