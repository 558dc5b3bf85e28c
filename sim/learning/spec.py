"""Training specs: the TOML of `portobello agents train`, checked field by field so that a
mistake names the file, the field and the reason before any game is played.

    name = "expert-3p"              # the training's name (its folder by default)
    players = 3
    board = "standard"              # a shipped board or a board file (default standard)
    presets = ["standard", "known-order"]   # rules the games are spread over, in turn
    variants = [{ neutral_stack = [1, 1, 1, 1, 2, 2, 3, 3] }]  # more rules, each a preset
                                    # (`preset = ...`, standard by default) and switches
    start_bonus = { low = -10, high = 20, share = 0.5 }  # optional: in this share of each
                                    # rule set's games, each later seat starts with a bonus
                                    # drawn from low..high on top of the rules' start score
    teacher = "fastmcts:iterations=100"     # the search whose choices are learned
    seed = 1
    rounds = 3                      # rounds of expert iteration
    games = 200                     # teacher-labelled games per round
    hidden = [64, 64]               # the network's hidden layers
    epochs = 40                     # passes over the data at each fit
    fits = 5                        # networks fitted with different seeds, averaged
    mix = 0.5                       # weight of the real outcome in the chosen option's target
    eval_games = 200                # games of the model against the heuristic per round
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sim.core.errors import PortobelloError
from sim.core.errors import quote
from sim.core.files import read_document
from sim.games.portobello.agents.registry import make_agent
from sim.games.portobello.agents.registry import parse_spec
from sim.games.portobello.board import Board
from sim.games.portobello.board import load_board
from sim.games.portobello.rules import PRESETS
from sim.games.portobello.rules import Rules
from sim.games.portobello.rules import preset
from sim.games.portobello.rules import rules_from_dict

KEYS = ("name", "players", "board", "presets", "variants", "start_bonus", "teacher", "seed",
        "rounds", "games", "hidden", "epochs", "fits", "mix", "eval_games")
BONUS_KEYS = ("low", "high", "share")
TEACHERS = ("fastmcts", "mcts")  # the agents whose choices a training learns: the search
BONUS_LIMIT = 50  # a bonus of more than this many points is no compensation a study asks


@dataclass(frozen=True)
class StartBonus:
    """Start scores spread over a training's games, so that the learned agent has seen the
    leads a start-score compensation gives (a tuning varies them; without it, a network
    trained at a few start scores plays erratically between them)."""

    low: int
    high: int
    share: float

    def apply(self, rules: Rules, seed: int) -> Rules:
        """The rules of the game of `seed`: in `share` of the games, each later seat's start
        score raised by a bonus drawn from low..high; the same seed, the same rules."""
        rng = np.random.default_rng(seed ^ 0x5B0B)
        if rng.random() >= self.share:
            return rules
        base = rules.seat_start_scores
        return rules.with_changes(start_scores=(base[0], *(
            v + int(rng.integers(self.low, self.high + 1)) for v in base[1:])))

    def to_dict(self) -> dict[str, Any]:
        return {"low": self.low, "high": self.high, "share": self.share}


class TrainingError(PortobelloError):
    """A training spec or folder that cannot be used."""


@dataclass(frozen=True)
class TrainSpec:
    """A checked training spec."""

    name: str
    players: int
    board: Board
    board_ref: str
    presets: tuple[str, ...]  # the rule sets' names: presets, then the variants' tables
    teacher: str
    seed: int
    rounds: int
    games: int
    hidden: tuple[int, ...]
    epochs: int
    fits: int
    mix: float
    eval_games: int
    text: str = ""
    variants: tuple[tuple[str, Rules], ...] = ()  # (name, rules) of each variant table
    start_bonus: StartBonus | None = None

    def rules(self, name: str) -> Rules:
        for key, rules in self.variants:
            if key == name:
                return rules
        return preset(name, players=self.players)

    def identity(self) -> dict[str, Any]:
        """What decides the training's games and models (not how it runs)."""
        out = {"players": self.players, "board": self.board.content_hash,
               "presets": list(self.presets), "teacher": self.teacher, "seed": self.seed,
               "games": self.games, "hidden": list(self.hidden), "epochs": self.epochs,
               "fits": self.fits, "mix": self.mix, "eval_games": self.eval_games}
        if self.start_bonus is not None:  # absent, the identity of trainings before it
            out["start_bonus"] = self.start_bonus.to_dict()
        return out


def _int(data: Mapping[str, Any], key: str, default: int, low: int, high: int,
         source: str, table: str = "") -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise TrainingError(f"must be a whole number from {low} to {high:,}, got {value!r}",
                            source=source, field=f"{table}.{key}" if table else key)
    return value


def spec_from_dict(data: Any, source: str, text: str = "") -> TrainSpec:
    """A checked spec from parsed TOML."""
    if not isinstance(data, Mapping):
        raise TrainingError("must be a TOML table", source=source)
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise TrainingError(f"unknown field (fields: {', '.join(KEYS)})", source=source,
                            field=unknown[0])
    name = data.get("name")
    if not isinstance(name, str) or not name.strip() or "/" in name:
        raise TrainingError("must be a name without '/'", source=source, field="name")
    players = _int(data, "players", 0, 2, 4, source)
    board_ref = data.get("board", "standard")
    if not isinstance(board_ref, str):
        raise TrainingError("must be a board name or file", source=source, field="board")
    try:
        board = load_board(board_ref)
    except PortobelloError as exc:
        raise TrainingError(exc.reason, source=source, field="board") from None
    presets = data.get("presets", ["standard"])
    if not isinstance(presets, list) or not presets or any(p not in PRESETS for p in presets):
        raise TrainingError(f"must be a list of presets from {', '.join(PRESETS)}",
                            source=source, field="presets")
    variants = _variants(data.get("variants", []), players, source)
    teacher = _teacher(data.get("teacher", "fastmcts:iterations=100"), source)
    hidden = data.get("hidden", [64, 64])
    if not isinstance(hidden, list) or not hidden or any(
            isinstance(h, bool) or not isinstance(h, int) or not 1 <= h <= 1024
            for h in hidden):
        raise TrainingError("must be a list of layer sizes from 1 to 1024", source=source,
                            field="hidden")
    mix = data.get("mix", 0.5)
    if isinstance(mix, bool) or not isinstance(mix, int | float) or not 0 <= mix <= 1:
        raise TrainingError(f"must be a number from 0 to 1, got {mix!r}", source=source,
                            field="mix")
    spec = TrainSpec(name=name, players=players, board=board, board_ref=board_ref,
                     presets=(*presets, *(name for name, _ in variants)),
                     variants=variants, teacher=teacher,
                     start_bonus=_start_bonus(data.get("start_bonus"), source),
                     seed=_int(data, "seed", 1, 0, 2**62, source),
                     rounds=_int(data, "rounds", 3, 1, 1000, source),
                     games=_int(data, "games", 200, 1, 10_000_000, source),
                     hidden=tuple(hidden), epochs=_int(data, "epochs", 40, 1, 10_000, source),
                     fits=_int(data, "fits", 5, 1, 64, source),
                     mix=float(mix), eval_games=_int(data, "eval_games", 200, 0, 10_000_000,
                                                     source), text=text)
    for name in spec.presets:
        try:
            spec.rules(name).check_board(board)
        except PortobelloError as exc:
            raise TrainingError(exc.reason, source=source,
                                field="variants" if name.startswith("{") else "presets"
                                ) from None
    return spec


def _teacher(teacher: Any, source: str) -> str:
    """The teacher's agent spec once it is known to be a search the agents accept: a spec
    the agents refuse (an unknown agent or parameter, a budget of 0) is refused here,
    naming the spec file and its `teacher` field, before any game is played."""
    try:
        name = parse_spec(teacher)[0] if isinstance(teacher, str) else None
        if name in TEACHERS:
            make_agent(teacher)  # values only the search itself checks
    except PortobelloError as exc:
        raise TrainingError(exc.reason, source=source, field="teacher") from None
    if name not in TEACHERS:
        raise TrainingError(f"must be a search agent spec (fastmcts:...), got {quote(teacher)}",
                            source=source, field="teacher")
    return teacher


def _start_bonus(data: Any, source: str) -> StartBonus | None:
    if data is None:
        return None
    field = "start_bonus"
    if not isinstance(data, Mapping):
        raise TrainingError("must be a table { low = ..., high = ..., share = ... }",
                            source=source, field=field)
    unknown = sorted(set(data) - set(BONUS_KEYS))
    if unknown:
        raise TrainingError(f"unknown field (fields: {', '.join(BONUS_KEYS)})", source=source,
                            field=f"{field}.{unknown[0]}")
    low = _int(data, "low", 0, -BONUS_LIMIT, BONUS_LIMIT, source, field)
    high = _int(data, "high", 0, low, BONUS_LIMIT, source, field)
    share = data.get("share", 1.0)
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share <= 1:
        raise TrainingError(f"must be a number above 0 and at most 1, got {share!r}",
                            source=source, field=f"{field}.share")
    return StartBonus(low, high, float(share))


def _variants(data: Any, players: int, source: str) -> tuple[tuple[str, Rules], ...]:
    """Each variant table's name (its canonical JSON) and rules: its preset (standard by
    default) with its switches on top, at the spec's player count."""
    if not isinstance(data, list) or not all(isinstance(v, Mapping) for v in data):
        raise TrainingError("must be a list of rules tables", source=source, field="variants")
    out = []
    for i, table in enumerate(data):
        base = table.get("preset", "standard")
        if base not in PRESETS:
            raise TrainingError(f"must be a preset from {', '.join(PRESETS)}", source=source,
                                field=f"variants[{i}].preset")
        switches = {k: v for k, v in table.items() if k != "preset"}
        if "players" in switches:
            raise TrainingError("the spec's players field sets the player count",
                                source=source, field=f"variants[{i}].players")
        try:
            rules = rules_from_dict(switches, base=preset(base, players=players))
        except PortobelloError as exc:
            raise TrainingError(exc.reason, source=source,
                                field=f"variants[{i}].{exc.field}" if exc.field
                                else f"variants[{i}]") from None
        out.append((json.dumps(dict(table), sort_keys=True, separators=(",", ":")), rules))
    return tuple(out)


def load_spec(path: str | Path) -> TrainSpec:
    data = read_document(path, "toml", TrainingError, "training spec")
    return spec_from_dict(data, str(path), Path(path).read_text(encoding="utf-8"))
