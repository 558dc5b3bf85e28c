"""Random games in plain C beside the compiled engine: `portobello bench yardstick`
(see README.md here)."""

from sim.cli.bench import bench_main

if __name__ == "__main__":
    raise SystemExit(bench_main("yardstick"))
