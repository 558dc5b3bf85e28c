"""River Market's side of a run: its games played in compiled batches (`sim.games.river.play`) and
its rows of the run tables, the shared columns (`sim.run.tables.outcome_columns`) beside
its own: the game's actions and houses, each seat's score in the rulebook's five parts and
its houses still in hand.

The `board` column names the card set, so the shared metrics group River Market's runs as
they group Portobello Market's by board. `rounds` counts turns around the table (the
first player's turns), the game's length as a player feels it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from sim.run.tables import GAME_KEY_FIELDS
from sim.run.tables import PLAYER_OUTCOME_FIELDS
from sim.run.tables import dictionary
from sim.run.tables import outcome_columns
from sim.run.tables import repeat_value
from sim.run.tables import table_of

GAMES_SCHEMA = pa.schema([
    *GAME_KEY_FIELDS,
    ("board", pa.dictionary(pa.int8(), pa.string())),
    ("houses", pa.int8()),
    ("end_reason", pa.dictionary(pa.int8(), pa.string())),
    ("rounds", pa.int16()),
    ("turns", pa.int32()),
    ("actions", pa.int32()),
    ("winners", pa.list_(pa.int8())),
])

PLAYERS_SCHEMA = pa.schema([
    *PLAYER_OUTCOME_FIELDS,
    ("event_points", pa.int16()),
    ("booth_points", pa.int16()),
    ("helper_points", pa.int16()),
    ("coin_points", pa.int16()),
    ("goods_points", pa.int16()),
    ("houses_left", pa.int8()),
])

# The players table's points by source, in the rulebook's scoring order (Scoring 1-5).
SOURCES = {"events": "event_points", "booths": "booth_points", "helpers": "helper_points",
           "coins": "coin_points", "goods": "goods_points"}
END_REASONS = {1: "houses", 2: "turn_limit"}


@dataclass
class RiverBatch:
    """A batch of finished River Market games: the result rows of `sim.games.river.play.games`
    and every seat's score parts."""

    out: np.ndarray  # (games, RES_SCORES + players)
    parts: np.ndarray  # (games, players, len(PARTS))

    @property
    def decisions(self) -> np.ndarray:
        from sim.games.river.play import RES_ACTIONS

        return self.out[:, RES_ACTIONS]


def play_river(config: Any, ids: Sequence[int]) -> RiverBatch:
    """The games `ids` of a River Market run, every seat's agent from the run's rotation."""
    from sim.games.river.play import PARTS
    from sim.games.river.play import play
    from sim.games.river.tables import cached_tables

    tables = cached_tables(config.board, config.rules)
    n = config.rules.players
    parts = np.zeros((len(ids), n, len(PARTS)), np.int64)
    out = play(tables, np.array([config.game_seed(i) for i in ids], np.uint64),
               [config.seats(i) for i in ids] or np.zeros((0, n), object), parts)
    return RiverBatch(out, parts)


def concat_batches(batches: Sequence[RiverBatch]) -> RiverBatch:
    """Batches one after the other (a shard played in pieces)."""
    return RiverBatch(np.concatenate([b.out for b in batches]),
                      np.concatenate([b.parts for b in batches]))


def river_tables(batch: RiverBatch, run_id: str, game_ids: Sequence[int],
                 seeds: Sequence[int], lineups: Sequence[Sequence[str]], rules: Any,
                 cards_name: str) -> tuple[pa.Table, pa.Table]:
    """The games and players tables of a batch."""
    from sim.games.river.play import PARTS
    from sim.games.river.play import RES_END
    from sim.games.river.play import RES_SCORES
    from sim.games.river.play import RES_TURNS

    g, n = len(game_ids), rules.players
    out = batch.out.reshape(g, -1)
    scores = out[:, RES_SCORES:RES_SCORES + n]
    outcome = outcome_columns(scores)
    turns = out[:, RES_TURNS]
    games = table_of({
        "run_id": repeat_value(run_id, g),
        "game_id": np.asarray(game_ids, np.int64),
        "seed": np.asarray(seeds, np.int64),
        "players": np.full(g, n, np.int8),
        "board": repeat_value(cards_name, g),
        "houses": np.full(g, rules.house_count, np.int8),
        "end_reason": dictionary([END_REASONS.get(int(e), "unfinished")
                                  for e in out[:, RES_END]]),
        "rounds": -(-turns // n),
        "turns": turns,
        "actions": batch.decisions,
        "winners": outcome["winners"],
    }, GAMES_SCHEMA)
    parts = batch.parts.reshape(g * n, -1)
    columns: dict[str, Any] = {
        "game_id": np.repeat(np.asarray(game_ids, np.int64), n),
        "seat": np.tile(np.arange(n, dtype=np.int8), g),
        "agent": dictionary([spec for lineup in lineups for spec in lineup]),
        "score": scores.reshape(-1),
        "rank": outcome["rank"],
        "win_share": outcome["win_share"],
    }
    for i, name in enumerate(PARTS):
        columns[name] = parts[:, i]
    return games, table_of(columns, PLAYERS_SCHEMA)
