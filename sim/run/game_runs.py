"""What a run, its shards and a tournament ask of a game: its "runs" facet
(`GameKind.facet("runs")`, a module of the game's package), so that the runner, the shard
workers and the tournament name no game and check no game's type.

A game's runs module answers with module-level functions; `GameRuns` lists the ones every
game with runs has, and the functions below ask the optional ones, with the default a game
without them gets. A game without a runs module has no runs: asking raises `GameError`
naming the game and the features it has.

Required (`GameRuns`):

- `player(material, rules, agents, engine, timed=False)`: what plays a run's (or a
  tournament task's) games, built once per worker and configuration: `agents` every spec
  the games seat, `engine` one of `ENGINES` (the game decides what it means, `engine_name`),
  `timed` asks for each decision's time per seat (`Outcomes.timing`).
- `play(player, seeds, lineups, keep_log=False)`: one game per seed, seat p of game g
  played by `lineups[g][p]`, as a batch (any object of the game's); `keep_log` when the run
  keeps tables made from the games' logs (events, records). Each game depends on its seed
  and line-up only, so a batch cut in pieces and joined (`concat`) is the same batch.
- `concat(batches)`: batches one after the other as one batch.
- `decisions(batch)`: the decisions the batch's agents took, in all.
- `tables(config, keys, batch)`: the batch's run tables (`sim.core.tables.ShardTables`):
  games and players with the shared columns (`sim.core.tables.shared_columns`), and the
  optional tables the configuration keeps.
- `outcomes(batch)`: what a tournament keeps of each game (`sim.core.tables.Outcomes`).

Optional (each with its default):

- `identity_files(agents, players)`: files the agents read (weights, models) by name and
  content hash, under the key the run's identity keeps them (`{}`: none).
- `engine_name(agents, engine, material)`: the engine these agents' games play on, shown
  in the manifest and the tournament's summary; it refuses an engine that cannot play them
  (default: `ENGINE`, the one way the game plays, else "python", whatever is asked).
- `compile_notice(agents, engine, material)` and `compile_now(say, notice)`: the line to
  show before games that will first compile code (None: nothing to compile), and compiling
  it at once (default: nothing to compile).
- `with_players(rules, players)`: the rules for a tournament's player count (default: the
  game's player range checked, then the rules' `players` replaced).
- `tournament_fields(material_ref, material, rules)` and `tournament_tag(material)`: the
  material and rules in a tournament's id with any more fields, and the material's tag in
  the keys of a tournament's finished tasks (defaults: the material's reference, the rules,
  the game's name and the material's content hash; that hash).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from collections.abc import Sequence
from typing import Any
from typing import Protocol
from typing import cast

from sim.core.kind import GameError
from sim.core.tables import GameKeys
from sim.core.tables import Outcomes
from sim.core.tables import RunSetup
from sim.core.tables import ShardTables
from sim.games.registry import kind

# The engines a command may ask for: `auto` (the game's best for the line-up), `compiled`
# (whole games in compiled batches), `python` (decision by decision, each decision timed).
ENGINES = ("auto", "compiled", "python")
ROLE = "runs"


class GameRuns(Protocol):
    """The functions every game's runs module has (see the module docstring)."""

    def player(self, material: Any, rules: Any, agents: Sequence[str], engine: str,
               timed: bool = False) -> Any: ...

    def play(self, player: Any, seeds: Sequence[int], lineups: Sequence[Sequence[str]],
             keep_log: bool = False) -> Any: ...

    def concat(self, batches: Sequence[Any]) -> Any: ...

    def decisions(self, batch: Any) -> int: ...

    def tables(self, config: RunSetup, keys: GameKeys, batch: Any) -> ShardTables: ...

    def outcomes(self, batch: Any) -> Outcomes: ...


def runs_of(game: str) -> GameRuns:
    """The runs module of `game`; GameError naming the game if it has none."""
    return cast(GameRuns, kind(game).facet(ROLE))


def _optional(game: str, name: str) -> Callable[..., Any] | None:
    return getattr(runs_of(game), name, None)


def identity_files(game: str, agents: Sequence[str], players: int
                   ) -> dict[str, dict[str, str]]:
    """The files `agents` read, by the key a run's identity keeps them under, each only when
    it holds any (a run of agents that read no file has none of these keys)."""
    ask = _optional(game, "identity_files")
    return {k: v for k, v in (ask(agents, players) if ask else {}).items() if v}


def engine_name(game: str, agents: Sequence[str], engine: str = "auto",
                material: Any = None) -> str:
    """The engine `agents`' games of `game` play on when `engine` is asked for (a game with
    a choice refuses one that cannot play them; a game with one way to play plays it)."""
    ask = _optional(game, "engine_name")
    if ask is not None:
        return str(ask(agents, engine, material))
    if engine not in ENGINES:
        raise GameError(f"unknown engine {engine!r} (engines: {', '.join(ENGINES)})",
                        field="--engine")
    return str(getattr(runs_of(game), "ENGINE", "python"))


def compile_notice(game: str, agents: Sequence[str], engine: str = "auto",
                   material: Any = None) -> str | None:
    """The line to show before `agents`' games when they will first compile code, else
    None."""
    ask = _optional(game, "compile_notice")
    return ask(agents, engine, material) if ask else None


def compile_now(game: str, say: Callable[[str], None], notice: str) -> None:
    """Compile what `notice` (the game's `compile_notice`) announces, saying so with `say`."""
    ask = _optional(game, "compile_now")
    if ask is not None:
        ask(say, notice)


def with_players(game: str, rules: Any, players: int) -> Any:
    """`rules` for `players` players; an error naming `--players` for a count the game is
    not for."""
    ask = _optional(game, "with_players")
    if ask is not None:
        return ask(rules, players)
    found = kind(game)
    lo, hi = found.players
    if not lo <= players <= hi:
        raise GameError(f"{found.title} is for {lo} to {hi} players, got {players}",
                        field="--players")
    return dataclasses.replace(rules, players=players)


def tournament_fields(game: str, material_ref: str, material: Any, rules: Any
                      ) -> tuple[Any, Any, list[Any]]:
    """What a tournament's id holds of the game: its material, its rules, and any more
    fields (after the pairing)."""
    ask = _optional(game, "tournament_fields")
    if ask is not None:
        ref, rules_field, more = ask(material_ref, material, rules)
        return ref, rules_field, list(more)
    return material_ref, rules.to_dict(), [game, material.content_hash]


def tournament_tag(game: str, material: Any) -> str:
    """The material's tag in the keys of a tournament's finished tasks."""
    ask = _optional(game, "tournament_tag")
    return str(ask(material)) if ask is not None else str(material.content_hash)
