"""Game results as rows of the run tables (games, players, events) with compact column types.

One place defines each table's schema, so the runner, the loaders and the docs agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from sim.games.portobello.codes import END_REASONS
from sim.games.portobello.codes import N_STATS
from sim.games.portobello.codes import STAT_NAMES
from sim.games.portobello.game import Game
from sim.games.portobello.rules import Rules

# The columns every game's tables begin with (a game adds its own: sim.games.registry).
GAME_KEY_FIELDS = [
    ("run_id", pa.dictionary(pa.int8(), pa.string())),
    ("game_id", pa.int64()),
    ("seed", pa.int64()),
    ("players", pa.int8()),
]
PLAYER_OUTCOME_FIELDS = [
    ("game_id", pa.int64()),
    ("seat", pa.int8()),
    ("agent", pa.dictionary(pa.int8(), pa.string())),
    ("score", pa.int32()),
    ("rank", pa.int8()),
    ("win_share", pa.float32()),
]

GAMES_SCHEMA = pa.schema([
    *GAME_KEY_FIELDS,
    ("customer_order", pa.dictionary(pa.int8(), pa.string())),
    ("neutral_stack", pa.dictionary(pa.int8(), pa.string())),
    ("board", pa.dictionary(pa.int8(), pa.string())),
    ("end_reason", pa.dictionary(pa.int8(), pa.string())),
    ("rounds", pa.int16()),
    ("turns", pa.int32()),
    ("baron_placed", pa.bool_()),
    ("winners", pa.list_(pa.int8())),
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


def dictionary(values: Sequence[str | None]) -> pa.Array:
    return pa.array(values, pa.string()).dictionary_encode().cast(
        pa.dictionary(pa.int8(), pa.string()))


def repeat_value(value: str, count: int) -> pa.Array:
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(count, np.int8)),
                                          pa.array([value], pa.string()))


def outcome_columns(scores: np.ndarray) -> dict[str, Any]:
    """The shared outcome columns of a batch's scores (games, seats), whatever the game: the
    games table's `winners` (every seat with the best score: a shared victory) and the
    players table's `rank` and `win_share` (a tie shares the win), one row per game and
    seat, seats in order within each game."""
    g, n = scores.shape
    best = scores.max(axis=1, initial=np.iinfo(np.int64).min) if g else np.zeros(0)
    is_winner = scores == best[:, None] if g else np.zeros((0, n), bool)
    n_winners = is_winner.sum(axis=1)
    winner_seats = np.nonzero(is_winner)[1].astype(np.int8)
    offsets = np.concatenate([[0], np.cumsum(n_winners)]).astype(np.int32)
    better = (scores[:, None, :] > scores[:, :, None]).sum(axis=2)
    share = np.where(is_winner, 1.0 / np.maximum(n_winners, 1)[:, None], 0.0)
    return {"winners": pa.ListArray.from_arrays(pa.array(offsets),
                                                pa.array(winner_seats, pa.int8())),
            "rank": (1 + better).reshape(-1),
            "win_share": share.reshape(-1).astype(np.float32)}


def table_of(columns: dict[str, Any], schema: pa.Schema) -> pa.Table:
    """Columns (arrays, or Arrow arrays already typed) as a table of `schema`: each column in
    its schema type; a value that does not fit raises (never wraps)."""
    return pa.Table.from_arrays([
        columns[f.name] if isinstance(columns[f.name], pa.Array)
        else pa.array(columns[f.name], type=f.type) for f in schema], schema=schema)


def results_tables(res: Results, run_id: str, game_ids: Sequence[int], seeds: Sequence[int],
                   lineups: Sequence[Sequence[str]], rules: Rules,
                   board_name: str) -> tuple[pa.Table, pa.Table]:
    """The games and players tables of a batch (the same rows as `game_row` and
    `player_rows` give game by game)."""
    g, n = len(game_ids), res.n
    outcome = outcome_columns(res.scores.reshape(g, n))
    games = table_of({
        "run_id": repeat_value(run_id, g),
        "game_id": np.asarray(game_ids, np.int64),
        "seed": np.asarray(seeds, np.int64),
        "players": np.full(g, n, np.int8),
        "customer_order": repeat_value(rules.customer_order, g),
        "neutral_stack": repeat_value(",".join(map(str, rules.neutral_stack)), g),
        "board": repeat_value(board_name, g),
        "end_reason": dictionary(res.end_reasons),
        "rounds": res.rounds,
        "turns": res.turns,
        "baron_placed": res.baron_square >= 0,
        "winners": outcome["winners"],
    }, GAMES_SCHEMA)
    # Players: one row per game and seat, seats in order within each game.
    agents = [spec for lineup in lineups for spec in lineup]
    columns: dict[str, Any] = {
        "game_id": np.repeat(np.asarray(game_ids, np.int64), n),
        "seat": np.tile(np.arange(n, dtype=np.int8), g),
        "agent": dictionary(agents),
        "score": res.scores.reshape(-1),
        "rank": outcome["rank"],
        "win_share": outcome["win_share"],
        "stalls_left": res.stalls_left.reshape(-1),
    }
    for name in _PLAYER_STATS:
        columns[name] = res.stats[:, :, _STAT_INDEX[name]].reshape(-1)
    return games, table_of(columns, PLAYERS_SCHEMA)
