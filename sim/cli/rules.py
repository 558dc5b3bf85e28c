"""`portobello rules list` (the named presets) and `portobello rules show` (a full rules
configuration as a rules file), for the game `--game` names (the default game when not
given).

`rules show` prints TOML that can be saved and passed back with `--rules FILE`: every switch
at its effective value, `players` included, and it loads to the very rules it shows. A game
may write its rules its own way (`rules_text` of its commands facet, `sim.cli.games`: the
default game's shows the stall count as a key when something set it, else as a comment
giving the rulebook's count at that player count); any other game's rules are written from
their `to_dict()`, a switch left unset (None) as a comment.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any

from sim.cli import games as G
from sim.cli import options as O
from sim.core.toml_text import toml_table
from sim.core.toml_text import toml_value
from sim.games.registry import default_game
from sim.games.registry import game_names


def cmd_rules_list(args: argparse.Namespace) -> int:
    """Print every preset of the game with its note."""
    game = G.game_of(args)
    notes: Mapping[str, str] = G.member(game, "PRESET_NOTES", {}) or {}
    for name in game.presets:
        print(f"{name:16} {notes.get(name, '')}".rstrip())
    return 0


def _source(args: argparse.Namespace) -> str:
    parts = [f"preset {args.preset}" if getattr(args, "preset", None) else "",
             f"rules file {args.rules}" if getattr(args, "rules", None) else "",
             f"--players {args.players}" if getattr(args, "players", None) else ""]
    given = ", then ".join(p for p in parts if p)
    return f"{given}, over the rulebook's defaults" if given else "the rulebook's defaults"


def rules_toml(rules: Any, source: str) -> str:
    """Any game's rules as a rules file: its scalar and list switches at the top level (one
    left unset as a comment), then its tables."""
    data = rules.to_dict()
    lines = [f"# portobello rules: {source}.",
             "# A rules file: save it and pass it with --rules FILE."]
    tables = {k: v for k, v in data.items() if isinstance(v, Mapping)}
    for key, value in data.items():
        if key in tables:
            continue
        lines.append(f"# {key}: not set (the rules' own default)" if value is None else
                     f"{key} = {toml_value(value)}")
    for name, table in tables.items():
        lines += toml_table(name, table)
    return "\n".join(lines) + "\n"


def cmd_rules_show(args: argparse.Namespace) -> int:
    """Print the rules --preset, --rules and --players give, every switch, as a rules file
    (TOML), or as one JSON object with --json."""
    game = G.game_of(args)
    rules = O.rules_from_args(args, game, players=getattr(args, "players", None))
    if getattr(args, "json", False):
        print(json.dumps(rules.to_dict(), indent=2))
    else:
        text = G.member(game, "rules_text", rules_toml)
        print(text(rules, _source(args)), end="")
    return 0


def _add_game(p: argparse.ArgumentParser) -> None:
    """`--game`, before or after the action (`rules --game G list`, `rules list --game G`)."""
    p.add_argument("--game", choices=game_names(), default=argparse.SUPPRESS,
                   help=f"the game whose rules (default: {default_game()})")


def add_parser(subparsers: Any) -> None:
    """Register `portobello rules list|show`. `--preset`/`--rules` may also come before
    `show` (`portobello rules --preset spanish show`), as they could when the action was a
    positional argument."""
    p = O.add_command(subparsers, "rules", "list presets or show a full rules configuration")
    O.add_rules(p, default=argparse.SUPPRESS)
    _add_game(p)
    modes = O.add_subcommands(p, "action")
    q = O.add_command(modes, "list", "list the named rules presets with a note on each",
                      cmd_rules_list)
    _add_game(q)
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
    _add_game(q)
    O.add_players(q)
    O.add_json(q, "the rules (every switch)")
