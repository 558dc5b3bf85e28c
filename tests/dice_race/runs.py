"""Dice Race's runs (the "runs" facet of `sim.run.game_runs`): batches played in Python, and
their rows of the run tables: the shared columns and, of its own, each seat's banked and
starting points."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from dice_race.play import END_REASONS
from dice_race.play import Batch
from dice_race.play import concat as concat_batches
from dice_race.play import play_batch
from sim.core.tables import GAME_KEY_FIELDS
from sim.core.tables import GAME_OUTCOME_FIELDS
from sim.core.tables import PLAYER_OUTCOME_FIELDS
from sim.core.tables import GameKeys
from sim.core.tables import Outcomes
from sim.core.tables import RunSetup
from sim.core.tables import ShardTables
from sim.core.tables import dictionary
from sim.core.tables import repeat_value
from sim.core.tables import shared_columns
from sim.core.tables import table_of

GAMES_SCHEMA = pa.schema([*GAME_KEY_FIELDS, *GAME_OUTCOME_FIELDS])
PLAYERS_SCHEMA = pa.schema([*PLAYER_OUTCOME_FIELDS, ("start_points", pa.int16()),
                            ("banked_points", pa.int16())])


@dataclass(frozen=True)
class Player:
    die: Any
    rules: Any


def player(material: Any, rules: Any, agents: Sequence[str], engine: str,
           timed: bool = False) -> Player:
    return Player(material, rules)


def play(player: Player, seeds: Sequence[int], lineups: Sequence[Sequence[str]],
         keep_log: bool = False) -> Batch:
    return play_batch(player.die, player.rules, seeds, lineups)


def concat(batches: Sequence[Batch]) -> Batch:
    return concat_batches(batches)


def decisions(batch: Batch) -> int:
    return int(batch.decisions.sum())


def tables(config: RunSetup, keys: GameKeys, batch: Batch) -> ShardTables:
    g, n = batch.scores.shape
    games, players = shared_columns(keys, batch.scores)
    games |= {"board": repeat_value(config.board.name, g),
              "end_reason": dictionary([END_REASONS[int(e)] for e in batch.end]),
              "rounds": -(-batch.turns // n), "turns": batch.turns}
    start = np.tile(np.asarray(config.rules.seat_start(), np.int64), g)
    players |= {"start_points": start, "banked_points": batch.scores.reshape(-1) - start}
    return ShardTables(table_of(games, GAMES_SCHEMA), table_of(players, PLAYERS_SCHEMA))


def outcomes(batch: Batch) -> Outcomes:
    return Outcomes(batch.scores, -(-batch.turns // batch.scores.shape[1]),
                    [END_REASONS[int(e)] for e in batch.end])
