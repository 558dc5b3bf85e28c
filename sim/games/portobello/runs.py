"""Portobello Market's runs: what the runner, its shard workers and the tournament ask of the
game (the "runs" facet, `sim.run.game_runs` lists it). Its games play through its engine
seam (`sim.games.portobello.engines`: compiled batches, or decision by decision through
`Game`), its tables are its own columns beside the shared ones
(`sim.games.portobello.tables`), and its events and records come from each game's action
log (`game_from_log`), the same function whichever engine played the game.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence
from typing import Any

from sim.core.tables import GameKeys
from sim.core.tables import Outcomes
from sim.core.tables import RunSetup
from sim.core.tables import ShardTables
from sim.games.portobello import engines
from sim.games.portobello.board import Board
from sim.games.portobello.rules import Rules
from sim.games.portobello.tables import Results
from sim.games.portobello.tables import concat_results
from sim.games.portobello.tables import event_rows
from sim.games.portobello.tables import results_tables
from sim.games.portobello.tables import to_table

Player = engines.StepEngine | engines.CompiledEngine


def identity_files(agents: Sequence[str], players: int) -> dict[str, dict[str, str]]:
    """The weight-set and model files the agents read, by name and content hash: a run is
    never finished by agents whose files changed."""
    from sim.games.portobello.agents.registry import model_files
    from sim.games.portobello.agents.registry import weight_files

    files: dict[str, str] = {}
    models: dict[str, str] = {}
    for spec in agents:
        files |= weight_files(spec)
        models |= model_files(spec, players)
    return {"weight_files": files, "model_files": models}


def engine_name(agents: Sequence[str], engine: str, material: Board | None) -> str:
    """`compiled` or `python` (`engines.engine_name`: `auto` takes the compiled batches
    whenever every agent has a compiled version that plays on the board)."""
    return engines.engine_name(agents, engine, material)


def compile_notice(agents: Sequence[str], engine: str, material: Board | None) -> str | None:
    """The line to show before games that will first compile the compiled games."""
    return engines.compile_notice(agents, engine, material)


def compile_now(say: Callable[[str], None], notice: str) -> None:
    """Compile what the notice announces now, saying so (`engines.compile_now`)."""
    engines.compile_now(say, notice)


def player(material: Board, rules: Rules, agents: Sequence[str], engine: str,
           timed: bool = False) -> Player:
    """The engine that plays these agents' games (`engines.select_engine`)."""
    return engines.select_engine(material, rules, agents, engine, timed=timed)


def play(player: Player, seeds: Sequence[int], lineups: Sequence[Sequence[str]],
         keep_log: bool = False) -> Results:
    return player.play(seeds, lineups, keep_log=keep_log)


def concat(batches: Sequence[Results]) -> Results:
    return concat_results(batches)


def decisions(batch: Results) -> int:
    return int(batch.decisions.sum())


def tables(config: RunSetup, keys: GameKeys, batch: Results) -> ShardTables:
    """The games and players tables of a batch, and its events and records when the run
    keeps them (one replay of each action log gives both)."""
    games: list[Any] = []
    if config.events or config.records:
        from sim.games.portobello.records import game_from_log

        games = [game_from_log(config.board, config.rules, seed, log, events=config.events)
                 for seed, log in zip(keys.seeds, batch.logs or [], strict=True)]
    games_table, players_table = results_tables(batch, keys.run_id, keys.game_ids, keys.seeds,
                                                keys.lineups, config.rules, config.board.name)
    events = None
    if config.events:
        rows: list[dict[str, Any]] = []
        for game_id, game in zip(keys.game_ids, games, strict=True):
            assert game.events is not None
            rows.extend(event_rows(game_id, game.events))
        events = to_table("events", rows)
    records = None
    if config.records:
        from sim.games.portobello.records import record_from_game

        records = [record_from_game(game, board_ref=config.board_ref, agents=lineup)
                   for game, lineup in zip(games, keys.lineups, strict=True)]
    return ShardTables(games_table, players_table, events, records)


def outcomes(batch: Results) -> Outcomes:
    return Outcomes(batch.scores, batch.rounds, batch.end_reasons, batch.timing)


def with_players(rules: Rules, players: int) -> Rules:
    """The rules for `players` players (checked as any rules change is)."""
    return rules.with_changes(players=players)


def tournament_fields(material_ref: str, material: Board, rules: Rules
                      ) -> tuple[str, dict[str, Any], list[Any]]:
    """A tournament's id holds the board's reference and the rules that differ from the
    defaults (the ids of every tournament played so far)."""
    return material_ref, rules.to_dict(changed_only=True), []
