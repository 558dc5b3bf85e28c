"""`python -m sim.cli`: the `portobello` command."""

from sim.cli import command

command()
