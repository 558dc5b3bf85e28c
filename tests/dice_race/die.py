"""Dice Race's material: a die, its faces in order (the first face loses the turn)."""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.core.errors import BoardError

BUILT_IN = {"d6": (1, 2, 3, 4, 5, 6), "d8": (1, 2, 3, 4, 5, 6, 7, 8)}


@dataclass(frozen=True)
class Die:
    name: str
    faces: tuple[int, ...]

    @property
    def content_hash(self) -> str:
        blob = json.dumps({"faces": list(self.faces)}).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "faces": list(self.faces)}


def die_from_dict(data: Mapping[str, Any], source: str) -> Die:
    faces = data.get("faces")
    if (not isinstance(faces, list) or not 2 <= len(faces) <= 20
            or not all(isinstance(f, int) and not isinstance(f, bool) and 0 <= f <= 100
                       for f in faces)):
        raise BoardError("must be a list of 2 to 20 whole numbers from 0 to 100",
                         source=source, field="faces")
    return Die(str(data.get("name", Path(source).stem)), tuple(faces))


def load_die(ref: str, base_dir: Path | None = None) -> Die:
    """A built-in die by name, or a TOML file of faces."""
    if ref in BUILT_IN:
        return Die(ref, BUILT_IN[ref])
    path = Path(ref)
    if base_dir is not None and not path.is_absolute() and not path.exists():
        path = base_dir / path
    try:
        data = tomllib.loads(path.read_text())
    except OSError as exc:
        raise BoardError(f"cannot read the die ({exc.strerror}); built in: "
                         f"{', '.join(BUILT_IN)}", source=ref) from None
    except tomllib.TOMLDecodeError as exc:
        raise BoardError(f"not TOML: {exc}", source=ref) from None
    return die_from_dict(data, str(path))
