"""`portobello bench river` as a script (same code, same flags): see benchmarks/README.md.

    .venv/bin/python benchmarks/bench_river.py --help
"""

import sys

from sim.cli.bench import bench_main

if __name__ == "__main__":
    sys.exit(bench_main("river"))
