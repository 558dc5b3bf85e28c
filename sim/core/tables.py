"""The run tables' shared columns, written alike by every game: the games table's key (run,
game id, seed, players) and outcome (material name, end reason, rounds, turns, winners), the
players table's key and outcome (game id, seat, agent, score, rank, win share). A game adds
its own columns beside them (Portobello Market's stalls and lanes, River Market's houses and
scoring parts) in its "runs" facet, which builds its tables with the helpers here, so win
shares, seat balance, lengths, comparisons and skill labels read any game's runs.

Also what a game's "runs" facet hands the toolkit (`sim.run.game_runs`): a shard's tables
(`ShardTables`) and the outcomes a tournament keeps of a batch (`Outcomes`), and what it
reads of a run (`RunSetup`, `GameKeys`): plain values, so a game needs nothing from the
toolkit to answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from typing import Protocol

import numpy as np
import pyarrow as pa

# The columns every game's tables begin with (a game's schema adds its own after them).
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
# The games table's shared outcome columns, each game placing them among its own: the
# material's name (`board`, whatever the material: a board, a card set), why the game ended,
# its length in rounds and turns, and the seats with the best score.
MATERIAL_FIELD = ("board", pa.dictionary(pa.int8(), pa.string()))
END_REASON_FIELD = ("end_reason", pa.dictionary(pa.int8(), pa.string()))
ROUNDS_FIELD = ("rounds", pa.int16())
TURNS_FIELD = ("turns", pa.int32())
WINNERS_FIELD = ("winners", pa.list_(pa.int8()))
GAME_OUTCOME_FIELDS = [MATERIAL_FIELD, END_REASON_FIELD, ROUNDS_FIELD, TURNS_FIELD,
                       WINNERS_FIELD]


class RunSetup(Protocol):
    """What a game's tables read of a run's configuration (`sim.run.config.RunConfig`):
    its material (`board`, the game's `GameKind.material`), the reference it was loaded
    from, its rules, and which optional tables it keeps."""

    @property
    def board(self) -> Any: ...

    @property
    def board_ref(self) -> str: ...

    @property
    def rules(self) -> Any: ...

    @property
    def events(self) -> bool: ...

    @property
    def records(self) -> bool: ...


@dataclass(frozen=True)
class GameKeys:
    """The games of one batch of a run as its tables key them, in game order: the run, each
    game's id, seed and line-up (agent specs by seat)."""

    run_id: str
    game_ids: Sequence[int]
    seeds: Sequence[int]
    lineups: Sequence[Sequence[str]]


@dataclass(frozen=True)
class ShardTables:
    """A batch's tables, as a game's "runs" facet gives them: games and players (the shared
    columns first, `GAME_KEY_FIELDS` and `PLAYER_OUTCOME_FIELDS`), and the optional tables
    the run keeps (`GameKind.optional_tables`): the events table, the game records (one
    plain dict per game, in game order; the runner adds each its `game_id`)."""

    games: pa.Table
    players: pa.Table
    events: pa.Table | None = None
    records: Sequence[Mapping[str, Any]] | None = None


@dataclass(frozen=True)
class Outcomes:
    """What a tournament keeps of a batch of games, one row per game: every seat's score,
    the game's length (`rounds`), why it ended, and, from games timed decision by decision,
    per seat (decisions, seconds, slowest, CPU seconds, slowest CPU); None when untimed."""

    scores: np.ndarray  # (games, seats)
    rounds: np.ndarray  # (games,)
    end_reasons: Sequence[str | None]
    timing: np.ndarray | None = None  # (games, seats, 5)


def ranks(scores: Sequence[int]) -> list[int]:
    """Competition ranks: 1 for the best score, tied scores share the better rank."""
    return [1 + sum(1 for t in scores if t > s) for s in scores]


def dictionary(values: Sequence[str | None]) -> pa.Array:
    """Strings as a dictionary column (int8 codes: a column of few distinct values)."""
    return pa.array(values, pa.string()).dictionary_encode().cast(
        pa.dictionary(pa.int8(), pa.string()))


def repeat_value(value: str, count: int) -> pa.Array:
    """One string `count` times, as a dictionary column of one value."""
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


def shared_columns(keys: GameKeys, scores: np.ndarray) -> tuple[dict[str, Any],
                                                                 dict[str, Any]]:
    """The shared columns of a batch whose games ended with `scores` (games, seats): the
    games table's key and `winners`, the players table's key and outcome (one row per game
    and seat, seats in order within each game). A game adds its own columns to each and
    builds the tables with `table_of`."""
    g, n = scores.shape
    outcome = outcome_columns(scores)
    ids = np.asarray(keys.game_ids, np.int64)
    games = {"run_id": repeat_value(keys.run_id, g), "game_id": ids,
             "seed": np.asarray(keys.seeds, np.int64), "players": np.full(g, n, np.int8),
             "winners": outcome["winners"]}
    players = {"game_id": np.repeat(ids, n), "seat": np.tile(np.arange(n, dtype=np.int8), g),
               "agent": dictionary([spec for lineup in keys.lineups for spec in lineup]),
               "score": scores.reshape(-1), "rank": outcome["rank"],
               "win_share": outcome["win_share"]}
    return games, players


def table_of(columns: dict[str, Any], schema: pa.Schema) -> pa.Table:
    """Columns (arrays, or Arrow arrays already typed) as a table of `schema`: each column in
    its schema type; a value that does not fit raises (never wraps)."""
    return pa.Table.from_arrays([
        columns[f.name] if isinstance(columns[f.name], pa.Array)
        else pa.array(columns[f.name], type=f.type) for f in schema], schema=schema)
