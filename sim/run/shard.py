"""Playing one shard of a run, in a worker: its games through the engine seam, then its
tables encoded as files (Parquet; records as gzipped JSON lines) for the main process to
write. Events and records come from each game's action log (`game_from_log`), the same
function whichever engine played the game.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import time
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from sim.games.portobello.kind import NAME as PORTOBELLO
from sim.games.portobello.records import game_from_log
from sim.games.portobello.records import record_from_game
from sim.games.river.shard import RiverBatch
from sim.games.river.shard import concat_batches
from sim.games.river.shard import play_river
from sim.games.river.shard import river_tables
from sim.run.config import RunConfig
from sim.run.engines import Engine
from sim.run.engines import select_engine
from sim.run.tables import Results
from sim.run.tables import concat_results
from sim.run.tables import event_rows
from sim.run.tables import results_tables
from sim.run.tables import to_table

_WORKER_CACHE: dict[str, tuple[RunConfig, Engine | None]] = {}


def _worker_state(payload: dict[str, Any]) -> tuple[RunConfig, Engine | None]:
    key = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
    if key not in _WORKER_CACHE:
        config = RunConfig.from_payload(payload)
        # River Market plays in its own compiled batches (`sim.games.river.shard`).
        engine = None if config.game != PORTOBELLO else select_engine(
            config.board, config.rules, config.agents, payload.get("engine", "auto"))
        _WORKER_CACHE.clear()
        _WORKER_CACHE[key] = (config, engine)
    return _WORKER_CACHE[key]


def _parquet_bytes(table: pa.Table, run_id: str) -> bytes:
    table = table.replace_schema_metadata({b"portobello_run_id": run_id.encode()})
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd", compression_level=9)
    return sink.getvalue()


def play_shard(payload: dict[str, Any], shard: int) -> dict[str, Any]:
    """Play one shard's games; return its tables encoded as files, and timings."""
    config, engine = _worker_state(payload)
    start = time.perf_counter()
    res = _play(config, engine, config.shard_range(shard))
    return encode_shard(config, shard, res, time.perf_counter() - start)


def _play(config: RunConfig, engine: Engine | None, ids: range) -> Results | RiverBatch:
    if engine is None:
        return play_river(config, ids)
    return engine.play([config.game_seed(i) for i in ids], [config.seats(i) for i in ids],
                       keep_log=config.events or config.records)


def part_range(config: RunConfig, shard: int, part: int, parts: int) -> range:
    """The games of one of `parts` near-equal consecutive pieces of a shard."""
    ids = config.shard_range(shard)
    return ids[len(ids) * part // parts:len(ids) * (part + 1) // parts]


def play_part(payload: dict[str, Any], shard: int, part: int, parts: int) -> dict[str, Any]:
    """One of a shard's `parts` pieces (a shard split so that few, dear shards still keep
    many workers busy): the whole shard encoded (`play_shard`) when `parts` is 1, else the
    piece's games as arrays, for `assemble_shard` in the main process."""
    if parts == 1:
        return play_shard(payload, shard)
    config, engine = _worker_state(payload)
    start = time.perf_counter()
    ids = part_range(config, shard, part, parts)
    res = _play(config, engine, ids)
    return {"shard": shard, "part": part, "results": res, "n": len(ids),
            "decisions": int(res.decisions.sum()), "seconds": time.perf_counter() - start}


def assemble_shard(config: RunConfig, shard: int, pieces: list[dict[str, Any]]
                   ) -> dict[str, Any]:
    """A shard from its pieces in order: the same files `play_shard` would have written."""
    batches = [p["results"] for p in pieces]
    res = (concat_batches(batches) if isinstance(batches[0], RiverBatch)
           else concat_results(batches))
    return encode_shard(config, shard, res, sum(p["seconds"] for p in pieces))


def encode_shard(config: RunConfig, shard: int, res: Results | RiverBatch, seconds: float
                 ) -> dict[str, Any]:
    """A shard's games (`res`, in game order) as the files of its tables."""
    run_id = config.run_id
    ids = list(config.shard_range(shard))
    seeds = [config.game_seed(i) for i in ids]
    lineups = [config.seats(i) for i in ids]
    games = []
    if isinstance(res, RiverBatch):  # River Market's own columns; no event log or records
        games_table, players_table = river_tables(res, run_id, ids, seeds, lineups,
                                                  config.rules, config.board.name)
    else:
        if config.events or config.records:
            # One replay of each action log gives the events and the game a record is made
            # of.
            games = [game_from_log(config.board, config.rules, s, log, events=config.events)
                     for s, log in zip(seeds, res.logs or [], strict=True)]
        games_table, players_table = results_tables(res, run_id, ids, seeds, lineups,
                                                    config.rules, config.board.name)
    out: dict[str, Any] = {
        "shard": shard,
        "games": _parquet_bytes(games_table, run_id),
        "players": _parquet_bytes(players_table, run_id),
        "n": len(ids),
        "rows": {"games": len(ids), "players": len(ids) * config.rules.players,
                 "records": len(ids)},
        "decisions": int(res.decisions.sum()),
        "seconds": seconds,
    }
    if config.events:
        events: list[dict[str, Any]] = []
        for game_id, game in zip(ids, games, strict=True):
            assert game.events is not None
            events.extend(event_rows(game_id, game.events))
        out["events"] = _parquet_bytes(to_table("events", events), run_id)
        out["rows"]["events"] = len(events)
    if config.records:
        records = [json.dumps({"game_id": game_id, **record_from_game(
            game, board_ref=config.board_ref, agents=lineup)}, separators=(",", ":"))
            for game_id, game, lineup in zip(ids, games, lineups, strict=True)]
        out["records"] = gzip.compress(("\n".join(records) + "\n").encode(), mtime=0)
    return out
