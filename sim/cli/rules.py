"""`portobello rules list` (the named presets) and `portobello rules show` (a full rules
configuration as a rules file).

`rules show` prints TOML that can be saved and passed back with `--rules FILE`: every switch
at its effective value, `players` included, and it loads (`sim.games.portobello.rules.load_rules`)
to the very `Rules` it shows. The stall count is shown too: as a key when something set it,
else as a comment giving the rulebook's count at that player count (as a key it would fix
the count at every player count, and make another configuration and run identity out of
the same rules).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from sim.cli import options as O
from sim.core.toml_text import rules_toml
from sim.games.portobello.rules import PRESET_NOTES


def cmd_rules_list(args: argparse.Namespace) -> int:
    """Print every preset with its note."""
    for name, note in PRESET_NOTES.items():
        print(f"{name:16} {note}")
    return 0


def _source(args: argparse.Namespace) -> str:
    parts = [f"preset {args.preset}" if getattr(args, "preset", None) else "",
             f"rules file {args.rules}" if getattr(args, "rules", None) else "",
             f"--players {args.players}" if getattr(args, "players", None) else ""]
    given = ", then ".join(p for p in parts if p)
    return f"{given}, over the rulebook's defaults" if given else "the rulebook's defaults"


def cmd_rules_show(args: argparse.Namespace) -> int:
    """Print the rules --preset, --rules and --players give, every switch, as a rules file
    (TOML), or as one JSON object with --json."""
    rules = O.rules_from_args(args, players=getattr(args, "players", None))
    if getattr(args, "json", False):
        print(json.dumps(rules.to_dict(), indent=2))
    else:
        print(rules_toml(rules, _source(args)), end="")
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
                      "rules file, over the defaults) as a rules file",
                      cmd_rules_show,
                      description="Print the full rules configuration (a preset, then a "
                      "rules file, then --players, over the rulebook's defaults) as TOML: "
                      "every switch at its effective value, ready to save and pass back "
                      "with --rules FILE (it loads to the same rules). Unless a preset or "
                      "file sets it, the stall count follows the player count and is shown "
                      "as a comment: the rulebook's count at that player count.")
    O.add_rules(q, default=argparse.SUPPRESS)
    O.add_players(q)
    O.add_json(q, "the rules (every switch)")
