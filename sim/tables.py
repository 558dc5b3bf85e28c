"""Game results as rows of the run tables (games, players, events) with compact column types.

One place defines each table's schema, so the runner, the loaders and the docs agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from sim.game import N_STATS, STAT_NAMES, Game

GAMES_SCHEMA = pa.schema([
    ("run_id", pa.dictionary(pa.int8(), pa.string())),
    ("game_id", pa.int64()),
    ("seed", pa.int64()),
    ("players", pa.int8()),
    ("customer_order", pa.dictionary(pa.int8(), pa.string())),
    ("neutral_stack", pa.dictionary(pa.int8(), pa.string())),
    ("board", pa.dictionary(pa.int8(), pa.string())),
    ("end_reason", pa.dictionary(pa.int8(), pa.string())),
    ("rounds", pa.int16()),
    ("turns", pa.int16()),
    ("baron_placed", pa.bool_()),
    ("winners", pa.list_(pa.int8())),
])

PLAYERS_SCHEMA = pa.schema([
    ("game_id", pa.int64()),
    ("seat", pa.int8()),
    ("agent", pa.dictionary(pa.int8(), pa.string())),
    ("score", pa.int16()),
    ("rank", pa.int8()),
    ("win_share", pa.float32()),
    ("stalls_placed", pa.int16()),
    ("stalls_left", pa.int16()),
    ("lane_points", pa.int16()),
    ("district_points", pa.int16()),
    ("baron_points", pa.int16()),
    ("bobby_paid", pa.int16()),
    ("bobby_received", pa.int16()),
    ("districts_scored", pa.int8()),
    ("customers_placed", pa.int8()),
])

EVENTS_SCHEMA = pa.schema([
    ("game_id", pa.int64()),
    ("turn", pa.int16()),
    ("round", pa.int16()),
    ("seat", pa.int8()),
    ("action", pa.dictionary(pa.int8(), pa.string())),
    ("lane", pa.dictionary(pa.int8(), pa.string())),
    ("square", pa.dictionary(pa.int8(), pa.string())),
    ("district", pa.dictionary(pa.int8(), pa.string())),
    ("customer", pa.dictionary(pa.int8(), pa.string())),
    ("value", pa.int16()),
    ("points", pa.int16()),
])

SCHEMAS = {"games": GAMES_SCHEMA, "players": PLAYERS_SCHEMA, "events": EVENTS_SCHEMA}


def ranks(scores: Sequence[int]) -> list[int]:
    """Competition ranks: 1 for the best score, tied scores share the better rank."""
    return [1 + sum(1 for t in scores if t > s) for s in scores]


def game_row(game: Game, run_id: str, game_id: int, board_name: str) -> dict[str, Any]:
    rules = game.rules
    return {
        "run_id": run_id,
        "game_id": game_id,
        "seed": game.seed,
        "players": game.n,
        "customer_order": rules.customer_order,
        "neutral_stack": ",".join(map(str, rules.neutral_stack)),
        "board": board_name,
        "end_reason": game.end_reason,
        "rounds": game.round,
        "turns": game.turn,
        "baron_placed": game.baron_square >= 0,
        "winners": game.winners(),
    }


_STAT_INDEX = {name: i for i, name in enumerate(STAT_NAMES)}
_PLAYER_STATS = ("stalls_placed", "lane_points", "district_points", "baron_points",
                 "bobby_paid", "bobby_received", "districts_scored", "customers_placed")


def player_rows(game: Game, game_id: int, agents: Sequence[str]) -> list[dict[str, Any]]:
    winners = game.winners()
    share = 1.0 / len(winners)
    rk = ranks(game.scores)
    rows = []
    for seat in range(game.n):
        base = seat * N_STATS
        row: dict[str, Any] = {
            "game_id": game_id,
            "seat": seat,
            "agent": agents[seat],
            "score": game.scores[seat],
            "rank": rk[seat],
            "win_share": share if seat in winners else 0.0,
            "stalls_left": game.stalls_left[seat],
        }
        for name in _PLAYER_STATS:
            row[name] = game.stats[base + _STAT_INDEX[name]]
        rows.append(row)
    return rows


def event_rows(game_id: int, events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per event and seat that gains or loses points (lane scoring splits by seat)."""
    rows: list[dict[str, Any]] = []
    for ev in events:
        kind = ev["type"]
        base = {"game_id": game_id, "turn": ev.get("turn"), "round": ev.get("round"),
                "seat": ev.get("seat"), "action": kind, "lane": ev.get("lane"),
                "square": ev.get("square"), "district": ev.get("district"),
                "customer": ev.get("customer"), "value": ev.get("value"), "points": None}
        if kind == "score_lane":
            base["value"] = ev["multiplier"]
            if ev.get("baron"):
                base["action"] = "score_lane_baron"
            scored = [(s, p) for s, p in enumerate(ev["points"]) if p]
            if not scored:
                rows.append(base | {"seat": None, "points": 0})
            for s, p in scored:
                rows.append(base | {"seat": s, "points": p})
        elif kind == "move_bobby":
            rows.append(base | {"points": -ev["paid"]})
            for s in ev["to"]:
                rows.append(base | {"action": "bobby_fee", "seat": s, "points": 1})
        elif kind == "score_district":
            rows.append(base | {"points": ev["points"]})
        elif kind == "game_over":
            continue  # the games table has the end
        else:
            rows.append(base)
    return rows


def to_table(name: str, rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=SCHEMAS[name])
