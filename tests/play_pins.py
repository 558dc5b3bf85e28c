"""Each game's play version pinned to its golden games (tests/golden/play_versions.json).

A run's identity holds its game's play version (`GameKind.play_version`), not a hash of
files, so moving or tidying the code keeps every run resumable. The version must then change
whenever play does: a game's golden games (Portobello Market's action logs, River Market's
tables) are pinned to the version they were recorded under, a recorded cell may change only
under a new version, and tests/test_play_version.py checks the pin.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

PINS = Path(__file__).parent / "golden" / "play_versions.json"


def golden_digest(golden: Path) -> str:
    """A short hash of a golden file's cells (whatever their order)."""
    cells = sorted(json.dumps(c, sort_keys=True) for c in json.loads(golden.read_text())["cells"])
    return hashlib.sha256("\n".join(cells).encode()).hexdigest()[:16]


def pinned() -> dict[str, Any]:
    return json.loads(PINS.read_text()) if PINS.exists() else {}


def check_recording(game: str, version: str, before: list[dict[str, Any]],
                    after: list[dict[str, Any]]) -> None:
    """Refuse a recording that changes an already recorded cell under the same play version:
    that is a change of play, and a run of the old play must not be finished by the new."""
    if pinned().get(game, {}).get("version") != version:
        return
    key = ("lineup", "preset", "players")
    old = {tuple(c[k] for k in key): c["hash"] for c in before}
    changed = [k for c in after if old.get(k := tuple(c[k2] for k2 in key), c["hash"]) != c["hash"]]
    if changed:
        raise SystemExit(f"{game}: play changed in {changed} under play version {version}: give "
                         "the game a new play_version before recording")


def pin(game: str, version: str, golden: Path) -> None:
    """Pin `golden` to the play version it was recorded under."""
    pins = pinned() | {game: {"version": version, "golden": golden_digest(golden)}}
    PINS.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n")
