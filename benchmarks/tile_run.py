"""Make a large run for `bench load` by tiling a smaller one: K copies of its games with the
game ids shifted, the same run id in every shard, so `analysis.load` accepts it.

The data repeat (same seeds and outcomes), which is fine for load and summarise timings and
memory, not for statistics; the manifest says `"synthetic": {"tiled_from": ..., "copies": K}`.

    .venv/bin/python benchmarks/tile_run.py data/runs/greedy-100k-j2 \
        data/runs/bench-load-tiled-1000000 --copies 10
    .venv/bin/portobello bench load data/runs/bench-load-tiled-1000000
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from sim.cli.options import Parser
from sim.cli.options import positive_int
from sim.run.store import file_entry
from sim.run.store import shard_path
from sim.run.store import write_checksums


def tile(src: Path, dst: Path, copies: int) -> int:
    manifest = json.loads((src / "manifest.json").read_text())
    if manifest.get("status") != "complete":
        raise SystemExit(f"{src}: not a complete run")
    if dst.exists():
        raise SystemExit(f"{dst}: already exists")
    games = int(manifest["games"])
    dst.mkdir(parents=True)
    files = {t: sorted((src / t).glob("part-*.parquet")) for t in ("games", "players")}
    for table in files:
        (dst / table).mkdir()
    n = len(files["games"])
    for c in range(copies):
        for i in range(n):
            entries = {}
            for table in files:
                f = files[table][i]
                t = pq.read_table(f)
                owner = (pq.read_metadata(f).metadata or {})[b"portobello_run_id"]
                ids = pc.add(t["game_id"], pa.scalar(c * games, pa.int64()))
                t = t.set_column(t.schema.get_field_index("game_id"), "game_id", ids)
                t = t.replace_schema_metadata({b"portobello_run_id": owner})
                out = shard_path(dst, table, c * n + i)
                pq.write_table(t, out, compression="zstd", compression_level=9)
                entries[table] = file_entry(out.read_bytes(), t.num_rows)
            write_checksums(dst, c * n + i, manifest["run_id"],
                            entries["games"]["rows"], entries)
    shards = copies * n
    manifest.update(games=games * copies, shards=shards, tables=["games", "players"],
                    synthetic={"tiled_from": str(src), "copies": copies})
    (dst / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return games * copies


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="tile_run", description=__doc__.split("\n\n")[0])
    p.add_argument("src", type=Path, help="a complete run folder")
    p.add_argument("dst", type=Path, help="new folder")
    p.add_argument("--copies", type=positive_int, default=10, metavar="K",
                   help="copies of the run's games")
    args = p.parse_args(argv)
    try:
        n = tile(args.src, args.dst, args.copies)
    except (OSError, KeyError, json.JSONDecodeError) as exc:
        shutil.rmtree(args.dst, ignore_errors=True)
        print(f"tile_run: {exc}", file=sys.stderr)
        return 2
    print(f"{args.dst}: {n:,} games ({args.copies} copies of {args.src})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
