"""Playing one shard of a run, in a worker: its games played by the run's game (its "runs"
facet, `sim.run.game_runs`), then its tables encoded as files (Parquet; records as gzipped
JSON lines) for the main process to write. The game plays and tabulates; this module keys
the games (seeds and seats from the run's configuration) and writes the bytes, alike for
every game.
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

from sim.core.tables import GameKeys
from sim.run.config import RunConfig
from sim.run.game_runs import runs_of

_WORKER_CACHE: dict[str, tuple[RunConfig, Any]] = {}


def _worker_state(payload: dict[str, Any]) -> tuple[RunConfig, Any]:
    """The run's configuration and its game's player (built once per worker and run)."""
    key = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
    if key not in _WORKER_CACHE:
        config = RunConfig.from_payload(payload)
        player = runs_of(config.game).player(config.board, config.rules, config.agents,
                                             payload.get("engine", "auto"))
        _WORKER_CACHE.clear()
        _WORKER_CACHE[key] = (config, player)
    return _WORKER_CACHE[key]


def _parquet_bytes(table: pa.Table, run_id: str) -> bytes:
    table = table.replace_schema_metadata({b"portobello_run_id": run_id.encode()})
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd", compression_level=9)
    return sink.getvalue()


def play_shard(payload: dict[str, Any], shard: int) -> dict[str, Any]:
    """Play one shard's games; return its tables encoded as files, and timings."""
    config, player = _worker_state(payload)
    start = time.perf_counter()
    batch = _play(config, player, config.shard_range(shard))
    return encode_shard(config, shard, batch, time.perf_counter() - start)


def _play(config: RunConfig, player: Any, ids: range) -> Any:
    """The games `ids` of the run as its game's batch (action logs kept when a table the
    run keeps is made of them)."""
    return runs_of(config.game).play(player, [config.game_seed(i) for i in ids],
                                     [config.seats(i) for i in ids],
                                     keep_log=config.events or config.records)


def part_range(config: RunConfig, shard: int, part: int, parts: int) -> range:
    """The games of one of `parts` near-equal consecutive pieces of a shard."""
    ids = config.shard_range(shard)
    return ids[len(ids) * part // parts:len(ids) * (part + 1) // parts]


def play_part(payload: dict[str, Any], shard: int, part: int, parts: int) -> dict[str, Any]:
    """One of a shard's `parts` pieces (a shard split so that few, dear shards still keep
    many workers busy): the whole shard encoded (`play_shard`) when `parts` is 1, else the
    piece's games as its game's batch, for `assemble_shard` in the main process."""
    if parts == 1:
        return play_shard(payload, shard)
    config, player = _worker_state(payload)
    start = time.perf_counter()
    ids = part_range(config, shard, part, parts)
    batch = _play(config, player, ids)
    return {"shard": shard, "part": part, "results": batch, "n": len(ids),
            "decisions": runs_of(config.game).decisions(batch),
            "seconds": time.perf_counter() - start}


def assemble_shard(config: RunConfig, shard: int, pieces: list[dict[str, Any]]
                   ) -> dict[str, Any]:
    """A shard from its pieces in order: the same files `play_shard` would have written."""
    batch = runs_of(config.game).concat([p["results"] for p in pieces])
    return encode_shard(config, shard, batch, sum(p["seconds"] for p in pieces))


def encode_shard(config: RunConfig, shard: int, batch: Any, seconds: float) -> dict[str, Any]:
    """A shard's games (`batch`, in game order) as the files of its tables."""
    runs = runs_of(config.game)
    run_id = config.run_id
    ids = list(config.shard_range(shard))
    keys = GameKeys(run_id, ids, [config.game_seed(i) for i in ids],
                    [config.seats(i) for i in ids])
    tables = runs.tables(config, keys, batch)
    out: dict[str, Any] = {
        "shard": shard,
        "games": _parquet_bytes(tables.games, run_id),
        "players": _parquet_bytes(tables.players, run_id),
        "n": len(ids),
        "rows": {"games": len(ids), "players": len(ids) * config.rules.players,
                 "records": len(ids)},
        "decisions": runs.decisions(batch),
        "seconds": seconds,
    }
    if config.events:
        assert tables.events is not None, "the game kept no events table"
        out["events"] = _parquet_bytes(tables.events, run_id)
        out["rows"]["events"] = tables.events.num_rows
    if config.records:
        assert tables.records is not None, "the game kept no records"
        records = [json.dumps({"game_id": game_id, **record}, separators=(",", ":"))
                   for game_id, record in zip(ids, tables.records, strict=True)]
        out["records"] = gzip.compress(("\n".join(records) + "\n").encode(), mtime=0)
    return out
