"""River Market's runs (the "runs" facet, `sim.run.game_runs` lists it): its games played in
compiled batches (`sim.games.river.play`) and its rows of the run tables, the shared columns
(`sim.core.tables.shared_columns`) beside its own: the game's actions and houses, each
seat's score in the rulebook's five parts and its houses still in hand. Its runs keep the
games and players tables only, and it plays one way (`ENGINE`): no engine to choose, no
compile worth announcing (its batches compile in seconds).

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

from sim.core.tables import END_REASON_FIELD
from sim.core.tables import GAME_KEY_FIELDS
from sim.core.tables import MATERIAL_FIELD
from sim.core.tables import PLAYER_OUTCOME_FIELDS
from sim.core.tables import ROUNDS_FIELD
from sim.core.tables import TURNS_FIELD
from sim.core.tables import WINNERS_FIELD
from sim.core.tables import GameKeys
from sim.core.tables import Outcomes
from sim.core.tables import RunSetup
from sim.core.tables import ShardTables
from sim.core.tables import dictionary
from sim.core.tables import repeat_value
from sim.core.tables import shared_columns
from sim.core.tables import table_of
from sim.games.river.kind import NAME

ENGINE = "compiled"  # the one way its games play, whatever engine is asked for

GAMES_SCHEMA = pa.schema([
    *GAME_KEY_FIELDS,
    MATERIAL_FIELD,
    ("houses", pa.int8()),
    END_REASON_FIELD,
    ROUNDS_FIELD,
    TURNS_FIELD,
    ("actions", pa.int32()),
    WINNERS_FIELD,
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


@dataclass(frozen=True)
class RiverPlayer:
    """What plays a run's games: the compiled engine's tables of its card set and rules."""

    tables: Any  # sim.games.river.tables.Tables
    players: int


def player(material: Any, rules: Any, agents: Sequence[str], engine: str,
           timed: bool = False) -> RiverPlayer:
    """The tables of the card set under the rules, built once a process
    (`cached_tables`); every engine asked for plays the compiled batches, untimed."""
    from sim.games.river.tables import cached_tables

    return RiverPlayer(cached_tables(material, rules), rules.players)


def play(player: RiverPlayer, seeds: Sequence[int], lineups: Sequence[Sequence[str]],
         keep_log: bool = False) -> RiverBatch:
    """The games of `seeds`, seat p of game g played by `lineups[g][p]`, with every seat's
    score parts (no action logs: its runs keep no table made of them)."""
    from sim.games.river.play import PARTS
    from sim.games.river.play import play as play_batch

    n = player.players
    parts = np.zeros((len(seeds), n, len(PARTS)), np.int64)
    out = play_batch(player.tables, np.array(list(seeds), np.uint64),
                     [list(x) for x in lineups] or np.zeros((0, n), object), parts)
    return RiverBatch(out, parts)


def concat(batches: Sequence[RiverBatch]) -> RiverBatch:
    """Batches one after the other (a shard played in pieces)."""
    return RiverBatch(np.concatenate([b.out for b in batches]),
                      np.concatenate([b.parts for b in batches]))


def decisions(batch: RiverBatch) -> int:
    return int(batch.decisions.sum())


def tables(config: RunSetup, keys: GameKeys, batch: RiverBatch) -> ShardTables:
    """The games and players tables of a batch."""
    games, players = river_tables(batch, keys.run_id, keys.game_ids, keys.seeds,
                                  keys.lineups, config.rules, config.board.name)
    return ShardTables(games, players)


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
    games, columns = shared_columns(GameKeys(run_id, game_ids, seeds, lineups), scores)
    turns = out[:, RES_TURNS]
    games |= {
        "board": repeat_value(cards_name, g),
        "houses": np.full(g, rules.house_count, np.int8),
        "end_reason": dictionary([END_REASONS.get(int(e), "unfinished")
                                  for e in out[:, RES_END]]),
        "rounds": -(-turns // n),
        "turns": turns,
        "actions": batch.decisions,
    }
    parts = batch.parts.reshape(g * n, -1)
    for i, name in enumerate(PARTS):
        columns[name] = parts[:, i]
    return table_of(games, GAMES_SCHEMA), table_of(columns, PLAYERS_SCHEMA)


def outcomes(batch: RiverBatch) -> Outcomes:
    """Every seat's score, the game's turns (a tournament's `rounds` column has always held
    River Market's turns) and why it ended; never timed."""
    from sim.games.river.play import RES_END
    from sim.games.river.play import RES_SCORES
    from sim.games.river.play import RES_TURNS

    return Outcomes(batch.out[:, RES_SCORES:], batch.out[:, RES_TURNS],
                    [END_REASONS.get(int(e), "unfinished") for e in batch.out[:, RES_END]])


def tournament_tag(material: Any) -> str:
    """The card set as a tournament's task keys and id name it."""
    return f"{NAME} cards {material.content_hash}"


def tournament_fields(material_ref: str, material: Any, rules: Any
                      ) -> tuple[str, dict[str, Any], list[Any]]:
    """A tournament's id: the fields its first tournaments were keyed by, kept so that their
    ids stay the same (the board and rules fields then held the other game's defaults, the
    standard board and no rules changed), then the card set and the rules."""
    return "standard", {}, [tournament_tag(material), rules.to_dict()]
