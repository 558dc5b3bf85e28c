"""The `portobello` command line: one module per command on shared option builders."""

from sim.cli.main import main

__all__ = ["main"]
