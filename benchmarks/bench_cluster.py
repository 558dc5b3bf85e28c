"""`portobello bench cluster` as a script (same code, same flags): see benchmarks/README.md.

    .venv/bin/python benchmarks/bench_cluster.py --help
"""

import sys

from sim.cli.bench import bench_main

if __name__ == "__main__":
    sys.exit(bench_main("cluster"))
