"""Speed and size measurements of the toolkit, as functions that return plain data.

- `agents.bench_agents`: games and decisions per second between agents on one core;
- `simulate.bench_simulate`: a run (`sim.run.runner.Run`) once per job count: games per
  second, ratios, bytes per game on disk;
- `load.measure_load`: a run loaded and summarised as a report does, in a fresh child
  process: seconds and the child's peak memory;
- `disk.disk_usage`: bytes per game on disk for each table of a run;
- `mcts.bench_mcts`: playouts per second of a search agent.

Each returns a dict of JSON-ready values (the `portobello bench --json` objects); the
command line (`sim.cli.bench`) only parses flags and prints them. Bad input raises
`BenchError` (exit status 2 on the command line).
"""

from sim.bench.common import TARGET_BYTES_PER_GAME
from sim.bench.common import TARGET_LOAD_MB
from sim.bench.common import TARGET_LOAD_SECONDS
from sim.bench.common import BenchError

__all__ = ["TARGET_BYTES_PER_GAME", "TARGET_LOAD_MB", "TARGET_LOAD_SECONDS", "BenchError"]
