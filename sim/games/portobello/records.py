"""Game records (docs/rules.md, "Records and replay"): write, read and replay them.

This is the validating boundary: every action of a record is checked and an illegal one is
reported as `action INDEX TYPE: reason`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sim.core.errors import BoardError
from sim.core.errors import IllegalActionError
from sim.core.errors import RecordError
from sim.core.errors import RulesError
from sim.core.errors import quote
from sim.core.files import read_document
from sim.core.files import seed_out_of_range
from sim.core.outputs import atomic_write
from sim.games.portobello import actions as A
from sim.games.portobello.actions import Action
from sim.games.portobello.board import Board
from sim.games.portobello.board import load_board
from sim.games.portobello.board import resolve_board_path
from sim.games.portobello.codes import CHANCE
from sim.games.portobello.codes import CUSTOMER_CODES
from sim.games.portobello.codes import CUSTOMER_NAMES
from sim.games.portobello.codes import PLACE
from sim.games.portobello.compiled import layout as L
from sim.games.portobello.game import Game
from sim.games.portobello.rules import Rules
from sim.games.portobello.rules import rules_from_dict

FORMAT = "portobello-record/1"
GAME = "portobello-market"  # a record's optional `game` field, when it has one
ACTION_FIELDS: dict[str, tuple[str, ...]] = {
    "place_bobby": ("district",),
    "play_token": ("value", "neutral"),
    "score_district": ("value", "district"),
    "move_bobby": ("district",),
    "place_stall": ("lane", "from"),
    "draw_customer": ("customer",),
    "place_customer": ("square", "customer"),
    "end_turn": (),
}


# -- writing ---------------------------------------------------------------------------------
def actions_to_json(board: Board, log: Sequence[Action]) -> list[dict[str, Any]]:
    """The record form of a game's action log (two-step customer draws, `from` on new lanes)."""
    out: list[dict[str, Any]] = []
    started: set[int] = set()
    for action in log:
        k, a = A.kind(action), A.arg(action)
        if k == A.PLACE_BOBBY:
            out.append({"type": "place_bobby", "district": board.district_ids[a]})
        elif k == A.PLAY_TOKEN:
            obj: dict[str, Any] = {"type": "play_token", "value": A.token_value(action)}
            if A.token_neutral(action):
                obj["neutral"] = True
            out.append(obj)
        elif k == A.SCORE_DISTRICT:
            out.append({"type": "score_district", "value": A.district_value(action),
                        "district": board.district_ids[A.district_of(action)]})
        elif k == A.PLACE_STALL:
            lane, end = A.stall_lane(action), A.stall_end(action)
            obj = {"type": "place_stall", "lane": board.lane_ids[lane]}
            if lane not in started:
                started.add(lane)
                obj["from"] = board.square_ids[board.lane_ends[lane][end]]
            out.append(obj)
        elif k == A.DRAW_CUSTOMER:
            obj = {"type": "draw_customer"}
            if a:
                obj["customer"] = CUSTOMER_NAMES[a]
            out.append(obj)
        elif k == A.PLACE_CUSTOMER:
            out.append({"type": "place_customer", "square": board.square_ids[a]})
        elif k == A.MOVE_BOBBY:
            out.append({"type": "move_bobby", "district": board.district_ids[a]})
        elif k == A.END_TURN:
            out.append({"type": "end_turn"})
        else:
            raise ValueError(f"action {action} has no record form")
    return out


def record_from_game(game: Game, board_ref: str | None = None,
                     agents: Sequence[str] | None = None) -> dict[str, Any]:
    """A record (docs/rules.md) of a game played with `keep_log` on."""
    if game.log is None:
        raise ValueError("the game kept no log")
    rules = game.rules.to_dict(changed_only=True)
    rules["players"] = game.rules.players
    if game.line is not None and game.rules.customer_sequence is None:
        # Engines shuffle differently, so a known-order record carries its line.
        rules.pop("customer_order", None)
        rules["customer_sequence"] = [CUSTOMER_NAMES[c] for c in game.line]
    record: dict[str, Any] = {
        "format": FORMAT,
        "board": board_ref or game.board.name,
        "rules": rules,
        "seed": game.seed,
    }
    if agents is not None:
        record["agents"] = list(agents)
    record["actions"] = actions_to_json(game.board, game.log)
    return record


def write_record(path: str | Path, record: Mapping[str, Any]) -> None:
    """Write a record file whole (a reader never sees half of one)."""
    text = json.dumps(record, indent=None, separators=(",", ":")) + "\n"
    atomic_write(path, text.encode("utf-8"))


# -- reading ---------------------------------------------------------------------------------
def load_record(path: str | Path) -> dict[str, Any]:
    """Read a record file; malformed JSON or a wrong shape is a RecordError naming the file."""
    p = Path(path)
    data = read_document(p, "json", RecordError, "record")
    check_record_shape(data, str(p))
    return data


def check_record_shape(data: Any, source: str) -> None:
    if not isinstance(data, dict):
        raise RecordError("a record must be a JSON object", source=source)
    if data.get("format") != FORMAT:
        raise RecordError(f"format must be {quote(FORMAT)}, got {quote(data.get('format'))}",
                          source=source, field="format")
    for key in ("board", "actions"):
        if key not in data:
            raise RecordError(f"missing field '{key}'", source=source, field=key)
    if not isinstance(data["board"], str):
        raise RecordError("must be a board name or path", source=source, field="board")
    if not isinstance(data.get("rules", {}), dict):
        raise RecordError("must be an object", source=source, field="rules")
    if "game" in data and data["game"] != GAME:
        raise RecordError(f"the record says it is {quote(data['game'])}, but its format "
                          f"({FORMAT}) is Portobello Market's: must be {GAME!r}",
                          source=source, field="game")
    seed = data.get("seed", 0)
    far = seed_out_of_range(seed)
    if far is not None:
        raise RecordError(far, source=source, field="seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise RecordError(f"must be an integer, got {quote(seed)}", source=source, field="seed")
    agents = data.get("agents")
    if agents is not None and (not isinstance(agents, list)
                               or not all(isinstance(x, str) for x in agents)):
        raise RecordError("must be a list of agent names", source=source, field="agents")
    if not isinstance(data["actions"], list):
        raise RecordError("must be a list", source=source, field="actions")


def game_for_record(data: Mapping[str, Any], base_dir: Path | None = None,
                    source: str = "<record>", record_events: bool = True) -> Game:
    """A fresh game set up as the record says (board, rules, seed)."""
    try:
        board = load_board(data["board"], base_dir=base_dir, quote_content=False)
    except BoardError as exc:
        # Name the path and the reason, quote nothing from the file: a record from someone
        # else must not be able to print pieces of your files.
        path = resolve_board_path(data["board"], base_dir)
        reason = exc.reason if exc.source is None or "no such" in exc.reason or \
            exc.reason.startswith(("is ", "cannot read")) else \
            f"not a valid board file (portobello board check {path} says why)"
        raise RecordError(f"board {quote(data['board'])}: {path}: {reason}", source=source,
                          field="board") from None
    return game_on_board(data, board, source, record_events)


def game_on_board(data: Mapping[str, Any], board: Board, source: str = "<record>",
                  record_events: bool = True) -> Game:
    """A fresh game of the record on a board already at hand (its rules and seed from the
    record; a run's game is drawn on the board its manifest holds)."""
    try:
        rules = rules_from_dict(data.get("rules", {}))
        rules.check_board(board)
    except RulesError as exc:
        raise RecordError(exc.message, source=source, field="rules") from None
    return Game(board, rules, seed=data.get("seed", 0), record_events=record_events)


class _ActionError(Exception):
    pass


def _lookup(ids: Sequence[str], value: Any, what: str) -> int:
    if not isinstance(value, str):
        raise _ActionError(f"{what} must be an id string, got {quote(value)}")
    try:
        return ids.index(value)
    except ValueError:
        raise _ActionError(f"unknown {what} {quote(value)}") from None


def _int_field(obj: Mapping[str, Any], key: str) -> int:
    if key not in obj:
        raise _ActionError(f"missing field '{key}'")
    v = obj[key]
    if not isinstance(v, int) or isinstance(v, bool):
        raise _ActionError(f"'{key}' must be an integer, got {quote(v)}")
    return v


def _customer_field(obj: Mapping[str, Any]) -> int:
    c = obj.get("customer")
    if c is None:
        return 0
    if c not in ("citizen", "aristocrat"):
        raise _ActionError(f"customer must be citizen or aristocrat, got {quote(c)}")
    return CUSTOMER_CODES[c]


def parse_action(game: Game, obj: Any) -> list[Action]:
    """The engine actions one record action stands for (two for the customer shorthand)."""
    b = game.board
    if not isinstance(obj, dict):
        raise _ActionError("an action must be a JSON object")
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in ACTION_FIELDS:
        raise _ActionError(f"unknown action type {quote(kind)}")
    for key in obj:
        if key != "type" and key not in ACTION_FIELDS[kind]:
            raise _ActionError(f"unknown field '{key}'")
    if kind == "place_bobby":
        return [A.place_bobby(_lookup(b.district_ids, obj.get("district"), "district"))]
    if kind == "play_token":
        value = _int_field(obj, "value")
        neutral = obj.get("neutral", None)
        if neutral is not None and not isinstance(neutral, bool):
            raise _ActionError(f"'neutral' must be true or false, got {quote(neutral)}")
        if neutral is None:
            own_up = (value, False) in game.face_up_tokens(game.seat)
            neutral = not own_up and (value, True) in game.face_up_tokens(game.seat)
        if not 0 < value < 1 << 14:
            raise _ActionError(f"no face-up token of value {value}")
        return [A.play_token(value, neutral)]
    if kind == "score_district":
        value = _int_field(obj, "value")
        if not 0 < value < 256:
            raise _ActionError(f"a token of value {value} cannot score a district")
        return [A.score_district(value, _lookup(b.district_ids, obj.get("district"),
                                                 "district"))]
    if kind == "move_bobby":
        return [A.move_bobby(_lookup(b.district_ids, obj.get("district"), "district"))]
    if kind == "place_stall":
        lane = _lookup(b.lane_ids, obj.get("lane"), "lane")
        started = game.lane_count[lane] > 0
        if "from" in obj:
            square = _lookup(b.square_ids, obj["from"], "square")
            ends = b.lane_ends[lane]
            if square not in ends:
                raise _ActionError(f"square {obj['from']} is not an end of lane {b.lane_ids[lane]}")
            end = ends.index(square)
            if started and end != game.lane_dir[lane]:
                frm = b.square_ids[ends[game.lane_dir[lane]]]
                raise _ActionError(f"lane {b.lane_ids[lane]} is built from {frm}, "
                                   f"not {obj['from']}")
        elif started:
            end = game.lane_dir[lane]
        else:
            raise _ActionError(f"lane {b.lane_ids[lane]} is empty, so 'from' must name the "
                               "end square to build from")
        return [A.place_stall(lane, end)]
    if kind == "draw_customer":
        return [A.draw_customer(_customer_field(obj))]
    if kind == "place_customer":
        square = _lookup(b.square_ids, obj.get("square"), "square")
        if game.phase == PLACE:
            if "customer" in obj and _customer_field(obj) != game.pending:
                raise _ActionError(f"the drawn customer is {CUSTOMER_NAMES[game.pending]}, "
                                   f"not {obj['customer']}")
            return [A.place_customer(square)]
        return [A.draw_customer(_customer_field(obj)), A.place_customer(square)]
    return [A.END]


def apply_record_action(game: Game, obj: Any, index: int, rng_for_chance: bool = True) -> None:
    """Check and apply one record action; IllegalActionError names its index and type."""
    kind = obj.get("type") if isinstance(obj, dict) else None
    label = f"action {index} {kind if isinstance(kind, str) else 'unknown'}"
    try:
        engine_actions = parse_action(game, obj)
    except _ActionError as exc:
        raise IllegalActionError(f"{label}: {exc}") from None
    for action in engine_actions:
        reason = game.check(action)
        if reason is not None:
            raise IllegalActionError(f"{label}: {reason}")
        game.apply(action)
        if game.phase == CHANCE and rng_for_chance:
            # A draw that does not say what it drew: the record's seed decides.
            game.apply(game.sample_chance())


def replay(data: Mapping[str, Any], base_dir: Path | None = None,
           source: str = "<record>") -> Game:
    """Replay a record's actions on a fresh game and return the game."""
    check_record_shape(data, source)
    game = game_for_record(data, base_dir, source)
    for i, obj in enumerate(data["actions"]):
        apply_record_action(game, obj, i)
    return game


def replay_output(game: Game) -> dict[str, Any]:
    """The output of `portobello replay --json`."""
    return {
        "scores": game.scores[:],
        "winners": game.winners(),
        "finished": game.finished,
        "end_reason": game.end_reason,  # set when the end is triggered, null before
        "scored_lanes": [game.board.lane_ids[lane] for lane in game.scored_lanes],
        "round": game.round,
        "events": game.events or [],
    }


def replay_file(path: str | Path) -> tuple[Game, dict[str, Any]]:
    p = Path(path)
    data = load_record(p)
    game = replay(data, base_dir=p.resolve().parent, source=str(p))
    return game, replay_output(game)


def game_from_log(board: Board, rules: Rules, seed: int, log: Sequence[int],
             events: bool = False) -> Game:
    """The game of an action log (trusted: from an engine), replayed through `Game`; with
    `events`, its events each tagged with their turn, round and seat. The one source of
    events and records, whichever engine played the game."""
    g = Game(board, rules, seed=seed, record_events=events)
    if g.events is None:
        for action in log:
            g.apply(action)
        return g
    events, S = g.events, g.S  # `apply` changes S in place
    for action in log:
        before = len(events)
        turn, round_, seat = int(S[L.TURN]), int(S[L.ROUND]), int(S[L.SEAT])
        kind = A.kind(action)
        if kind == A.PLAY_TOKEN:
            events.append({"type": "play_token", "seat": seat, "value": A.token_value(action)})
        elif kind == A.DRAW_CUSTOMER:
            drawn = A.arg(action)
            events.append({"type": "draw_customer", "seat": seat,
                           "customer": CUSTOMER_NAMES[drawn] if drawn else None})
        g.apply(action)
        for ev in events[before:]:
            ev["turn"] = turn
            ev["round"] = round_
    return g
