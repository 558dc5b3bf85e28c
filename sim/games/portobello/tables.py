"""Portobello Market's rows of the run tables: its games and players columns beside the
shared ones (`sim.core.tables`: key, material, end reason, rounds, turns, winners; seat, agent,
score, rank, win share), its events table, and a batch of finished games as arrays
(`Results`, what the engines of `sim.games.portobello.engines` give).

One place defines each table's schema, so the runner, the loaders and the docs agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from sim.core.tables import END_REASON_FIELD
from sim.core.tables import GAME_KEY_FIELDS
from sim.core.tables import MATERIAL_FIELD
from sim.core.tables import PLAYER_OUTCOME_FIELDS
from sim.core.tables import ROUNDS_FIELD
from sim.core.tables import TURNS_FIELD
from sim.core.tables import WINNERS_FIELD
from sim.core.tables import GameKeys
from sim.core.tables import dictionary
from sim.core.tables import ranks
from sim.core.tables import repeat_value
from sim.core.tables import shared_columns
from sim.core.tables import table_of
from sim.games.portobello.codes import END_REASONS
from sim.games.portobello.codes import N_STATS
from sim.games.portobello.codes import STAT_NAMES
from sim.games.portobello.game import Game
from sim.games.portobello.rules import Rules

GAMES_SCHEMA = pa.schema([
    *GAME_KEY_FIELDS,
    ("customer_order", pa.dictionary(pa.int8(), pa.string())),
    ("neutral_stack", pa.dictionary(pa.int8(), pa.string())),
    MATERIAL_FIELD,
    END_REASON_FIELD,
    ROUNDS_FIELD,
    TURNS_FIELD,
    ("baron_placed", pa.bool_()),
    WINNERS_FIELD,
])

PLAYERS_SCHEMA = pa.schema([
    *PLAYER_OUTCOME_FIELDS,
    ("stalls_placed", pa.int16()),
    ("stalls_left", pa.int16()),
    ("lane_points", pa.int32()),
    ("district_points", pa.int32()),
    ("baron_points", pa.int32()),
    ("bobby_paid", pa.int32()),
    ("bobby_received", pa.int32()),
    ("districts_scored", pa.int8()),
    ("customers_placed", pa.int16()),
])

EVENTS_SCHEMA = pa.schema([
    ("game_id", pa.int64()),
    ("turn", pa.int32()),
    ("round", pa.int16()),
    ("seat", pa.int8()),
    ("action", pa.dictionary(pa.int8(), pa.string())),
    ("lane", pa.dictionary(pa.int16(), pa.string())),
    ("square", pa.dictionary(pa.int16(), pa.string())),
    ("district", pa.dictionary(pa.int16(), pa.string())),
    ("customer", pa.dictionary(pa.int8(), pa.string())),
    ("value", pa.int16()),
    ("points", pa.int32()),
])

SCHEMAS = {"games": GAMES_SCHEMA, "players": PLAYERS_SCHEMA, "events": EVENTS_SCHEMA}


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


# -- whole batches as columns (the runner's fast road) ----------------------------------------
END_REASON_CODES = END_REASONS  # an end reason's code is its index


@dataclass
class Results:
    """A batch of finished games as arrays, one row per game: what the games and players
    tables keep, and each game's action log when asked for. The compiled batches fill it
    directly; `results_from_games` fills it from games played decision by decision."""

    n: int
    end_code: np.ndarray  # index into END_REASON_CODES
    rounds: np.ndarray
    turns: np.ndarray
    baron_square: np.ndarray
    decisions: np.ndarray
    scores: np.ndarray  # (games, n)
    stalls_left: np.ndarray  # (games, n)
    stats: np.ndarray  # (games, n, N_STATS) in STAT_NAMES order
    logs: list[list[int]] | None = None
    # (games, n, 5) per seat: decisions, seconds, slowest, CPU seconds, slowest CPU (only
    # from games played decision by decision, timed).
    timing: np.ndarray | None = None

    @property
    def end_reasons(self) -> list[str | None]:
        return [END_REASON_CODES[c] for c in self.end_code]


def concat_results(parts: Sequence[Results]) -> Results:
    """Batches of games one after the other as one batch (the games of a shard played in
    pieces on several workers): the same arrays as if one batch had played them all."""
    logs = [p.logs for p in parts]
    timing = [p.timing for p in parts]
    return Results(
        n=parts[0].n,
        **{name: np.concatenate([getattr(p, name) for p in parts])
           for name in ("end_code", "rounds", "turns", "baron_square", "decisions", "scores",
                        "stalls_left", "stats")},
        logs=None if any(x is None for x in logs) else [g for x in logs if x for g in x],
        timing=None if any(x is None for x in timing) else np.concatenate(
            [x for x in timing if x is not None]))


def results_from_games(games: Sequence[Game], decisions: Sequence[int]) -> Results:
    """The arrays of finished `Game`s (games played decision by decision)."""
    n = games[0].n if games else 0
    g = len(games)
    return Results(
        n=n,
        end_code=np.array([END_REASON_CODES.index(x.end_reason) for x in games], np.int64),
        rounds=np.array([x.round for x in games], np.int64),
        turns=np.array([x.turn for x in games], np.int64),
        baron_square=np.array([x.baron_square for x in games], np.int64),
        decisions=np.array(decisions, np.int64),
        scores=np.array([x.scores for x in games], np.int64).reshape(g, n),
        stalls_left=np.array([x.stalls_left for x in games], np.int64).reshape(g, n),
        stats=np.array([x.stats for x in games], np.int64).reshape(g, n, N_STATS),
        logs=[list(x.log) for x in games] if all(x.log is not None for x in games) else None)


def results_tables(res: Results, run_id: str, game_ids: Sequence[int], seeds: Sequence[int],
                   lineups: Sequence[Sequence[str]], rules: Rules,
                   board_name: str) -> tuple[pa.Table, pa.Table]:
    """The games and players tables of a batch (the same rows as `game_row` and
    `player_rows` give game by game)."""
    g, n = len(game_ids), res.n
    keys = GameKeys(run_id, game_ids, seeds, lineups)
    games, columns = shared_columns(keys, res.scores.reshape(g, n))
    games |= {
        "customer_order": repeat_value(rules.customer_order, g),
        "neutral_stack": repeat_value(",".join(map(str, rules.neutral_stack)), g),
        "board": repeat_value(board_name, g),
        "end_reason": dictionary(res.end_reasons),
        "rounds": res.rounds,
        "turns": res.turns,
        "baron_placed": res.baron_square >= 0,
    }
    columns["stalls_left"] = res.stalls_left.reshape(-1)
    for name in _PLAYER_STATS:
        columns[name] = res.stats[:, :, _STAT_INDEX[name]].reshape(-1)
    return table_of(games, GAMES_SCHEMA), table_of(columns, PLAYERS_SCHEMA)
