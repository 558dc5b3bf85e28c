"""What the command line asks of a game beyond its `GameKind`: the game's "commands" facet
(`GameKind.facet("commands")`, a module of the game's package), and the helpers that ask it.

Every command takes the game from `--game` (the registry's names, the default game when not
given) and asks the game's `GameKind` for its rules, presets and material. What is the game's
own beyond that (the commands and benchmark modes only it has, the rules flags only it takes,
the flags it refuses in its own words, playing one game for `play`, its agents in words) is in
its commands facet, whose members are listed by `CommandsFacet`. Every member is optional: a
game without the facet, or without a member, lacks that feature, and the command that needs
it says so in one line naming the games that have it (`need`). The commands that run many
games (simulate, study, tune, tournament, report) ask the facet for nothing they cannot do
without, so a game with runs and no commands facet plays through all of them.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any
from typing import Protocol

from sim.core.kind import GameError
from sim.core.kind import GameKind
from sim.games.registry import default_game
from sim.games.registry import kind
from sim.games.registry import kinds

ROLE = "commands"


class CommandsFacet(Protocol):
    """A game's commands facet (`sim/games/<game>/commands.py`); every member optional.

    Commands and flags the game adds:

    - `commands() -> {name: add_parser}`: top-level commands only this game has (a board's
      `board check|show`, a card set's `cards check|list`), each registered by
      `add_parser(subparsers)` as a toolkit command is (`sim.cli.command`).
    - `bench_modes() -> {name: sim.cli.bench.Mode}`: `portobello bench` modes of the game.
    - `add_run_flags(parser)`: flags of a run's rules only this game takes (added to every
      command that configures a run; given with another game, they are refused), and
      `RUN_RULES = {dest: rules key}`: the rules switch each of them sets.
    - `REFUSED = {flag: why}`: toolkit flags of a run (and other games' material flags) this
      game does not take, refused in the game's own words whatever their value.
    - `check_players(n)`: refuse a player count before the rules are built, naming
      `--players` (where the rules' own check would not say so).

    Words:

    - `HELP`: what `--game NAME` brings, for the `--game` help; `TUNE_EXAMPLE`: what a
      tuning spec of the game says (`portobello tune --help`).
    - `RUN_AGENTS`: the line-up a run plays without `--agents` (`DEFAULT_RUN_AGENTS` without).
    - `agent_names() -> [name]`: the agents a spec can name, for the `--agents` help.
    - `agents_listing() -> [line]`: `portobello agents list`'s lines for the game.
    - `PRESET_NOTES = {preset: note}`: `portobello rules list`'s note on each preset.
    - `rules_text(rules, source) -> str`: the rules as a rules file (`rules show`); without
      it the rules' `to_dict()` is written as TOML.
    - `material_path(ref) -> Path`: where a material reference (a shipped name or a file)
      is read from, so that no command writes over it.

    Playing and reading games:

    - `play_game(material, material_ref, rules, specs, seed) -> (record, lines)`: one game
      (`portobello play`): its record (JSON data) and its summary in lines;
      `write_record(path, record)` writes such a record.
    - `replay_record(path) -> (outcome, lines)`: `portobello replay` of the game's records
      (the game whose viewer claims the file, `analysis.view.viewer.record_game`).

    Compiling:

    - `compile_first(say, notice)`: compile what a first-compile notice announces before
      the games (`sim.cli.summary.compile_first`), and anything more the game compiles in
      the same breath (default: `sim.run.game_runs.compile_now`).

    What tuning, runs and reports ask of a game is in their own facets (`sim.tuning.games`,
    `sim.run.game_runs`, `analysis.facets`); the commands ask those.
    """

    HELP: str
    TUNE_EXAMPLE: str
    RUN_AGENTS: str
    REFUSED: Mapping[str, str]
    RUN_RULES: Mapping[str, str]
    PRESET_NOTES: Mapping[str, str]

    def commands(self) -> Mapping[str, Callable[[Any], None]]: ...

    def bench_modes(self) -> Mapping[str, Any]: ...

    def add_run_flags(self, parser: argparse.ArgumentParser) -> None: ...

    def check_players(self, players: int) -> None: ...

    def agent_names(self) -> Sequence[str]: ...

    def agents_listing(self) -> list[str]: ...

    def rules_text(self, rules: Any, source: str) -> str: ...

    def material_path(self, ref: str) -> Path: ...

    def play_game(self, material: Any, material_ref: str, rules: Any, specs: Sequence[str],
                  seed: int) -> tuple[dict[str, Any], list[str]]: ...

    def write_record(self, path: str | Path, record: Mapping[str, Any]) -> None: ...

    def replay_record(self, path: str | Path) -> tuple[dict[str, Any], list[str]]: ...

    def compile_first(self, say: Callable[[str], None], notice: str) -> None: ...


DEFAULT_RUN_AGENTS = "random"  # a run's line-up for a game that names none


def facet(game: GameKind) -> ModuleType | None:
    """The game's commands facet, None for a game without one."""
    return game.facet(ROLE) if game.has(ROLE) else None


def member(game: GameKind, name: str, default: Any = None) -> Any:
    """A member of the game's commands facet (`CommandsFacet`), `default` where it has none."""
    module = facet(game)
    return default if module is None else getattr(module, name, default)


def need(game: GameKind, name: str, what: str, field: str = "--game") -> Any:
    """A member the command cannot do without: a GameError naming the games that have it
    (`what`, in words: "playing one game") when this game has not."""
    found = member(game, name)
    if found is None:
        having = [g.name for g in kinds().values() if member(g, name) is not None]
        raise GameError(f"{game.title} has no {what} (games with it: "
                        f"{', '.join(having) or 'none'})", field=field)
    return found


def game_of(args: argparse.Namespace) -> GameKind:
    """The game `--game` names (the default game where the command has no such flag)."""
    name = getattr(args, "game", None)
    return kind(name if isinstance(name, str) else default_game())


def is_default(game: GameKind) -> bool:
    return game.name == default_game()


def material_words(game: GameKind) -> str:
    """The game's material in words ("board", "card set")."""
    return game.material_words or game.material


def material_flag(game: GameKind) -> str:
    """The command-line flag that names the game's material (`--board`, `--cards`)."""
    return "--" + game.material.replace("_", "-")


@functools.cache
def _run_flags(name: str) -> tuple[str, ...]:
    """The flags the game adds to a run's commands (`add_run_flags`), found on a scratch
    parser."""
    add = member(kind(name), "add_run_flags")
    if add is None:
        return ()
    scratch = argparse.ArgumentParser(add_help=False)
    add(scratch)
    return tuple(a.option_strings[0] for a in scratch._actions if a.option_strings)


def run_flags(game: GameKind) -> tuple[str, ...]:
    return _run_flags(game.name)


def refusals(game: GameKind, run: bool = False) -> dict[str, str]:
    """The flags `game` does not take, each with why: another game's material flag, and
    (`run`: a command that configures a run) the run flags the game refuses in its own words
    (`REFUSED`) and other games' own run flags. A reason the game gives for a flag is used
    wherever that flag is refused."""
    declared: Mapping[str, str] = member(game, "REFUSED", {}) or {}
    out = dict(declared) if run else {}
    mine = material_flag(game)
    for other in kinds().values():
        if other.name == game.name:
            continue
        flag = material_flag(other)
        if flag != mine:
            out.setdefault(flag, declared.get(flag) or (
                f"a {material_words(other)} is {other.title}'s: give --game {other.name}, or "
                f"{mine} for {game.title}'s {material_words(game)}"))
        if run:
            for flag in run_flags(other):
                if flag not in run_flags(game):
                    out.setdefault(flag, declared.get(flag) or (
                        f"{game.title} does not take {flag}: it is {other.title}'s (give "
                        f"--game {other.name})"))
    return out


def agent_names(game: GameKind) -> list[str]:
    """The agents a spec of the game can name (empty where the game does not say)."""
    names = member(game, "agent_names")
    return list(names()) if names is not None else []
