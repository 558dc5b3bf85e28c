"""`portobello rules list` (the named presets) and `portobello rules show` (a full rules
configuration as JSON)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from sim.cli import options as O
from sim.engine.rules import PRESET_NOTES


def cmd_rules_list(args: argparse.Namespace) -> int:
    """Print every preset with its note."""
    for name, note in PRESET_NOTES.items():
        print(f"{name:16} {note}")
    return 0


def cmd_rules_show(args: argparse.Namespace) -> int:
    """Print the rules --preset and --rules give, every field, as JSON."""
    print(json.dumps(O.rules_from_args(args).to_dict(), indent=2))
    return 0


def add_parser(subparsers: Any) -> None:
    """Register `portobello rules list|show`. `--preset`/`--rules` may also come before
    `show` (`portobello rules --preset spanish show`), as they could when the action was a
    positional argument."""
    p = O.add_command(subparsers, "rules", "list presets or show a full rules configuration")
    O.add_rules(p, default=argparse.SUPPRESS)
    modes = O.add_subcommands(p, "action")
    O.add_command(modes, "list", "list the named rules presets with a note on each",
                  cmd_rules_list)
    q = O.add_command(modes, "show", "print the full rules configuration (a preset, then a "
                      "rules file, over the defaults) as JSON", cmd_rules_show)
    O.add_rules(q, default=argparse.SUPPRESS)
