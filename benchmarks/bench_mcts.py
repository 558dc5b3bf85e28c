"""Playouts per second of an MCTS agent: `portobello bench mcts` (see README.md here)."""

from sim.cli.bench import bench_main

if __name__ == "__main__":
    raise SystemExit(bench_main("mcts"))
