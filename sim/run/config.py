"""A run's configuration and identity: everything that decides its tables (the game and its
material, rules, agents, games, seed, shard size, tables kept) and the code that plays them.

Every game's seed comes from the run seed and the game's index, and seats rotate with the
game's index, so the tables depend on the configuration only, never on how it is executed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from sim.core.errors import PortobelloError
from sim.core.errors import quote
from sim.core.kind import GameKind
from sim.core.kind import check_tables
from sim.games.registry import default_game
from sim.games.registry import kind
from sim.run.game_runs import identity_files
from sim.run.loop import derive_seed

# The most games one run, study cell, tuning evaluation or tournament matchup may ask for
# (every command states it in --help): a billion games is days of play on a machine, and
# asking for more is a typo. A run holds at most MAX_SHARDS shards, so its folder stays
# listable and the plan of its shards small.
MAX_GAMES = 1_000_000_000
MAX_SHARDS = 1_000_000


def games_error(games: Any) -> str | None:
    """Why `games` is not a game count one command may ask for, or None."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        return f"must be a positive integer, got {quote(games)}"
    if games > MAX_GAMES:
        return f"must be at most {MAX_GAMES:,} games, got {games:,}"
    return None


# The identity's fields a worker rebuilds a configuration from (the rest are derived).
PAYLOAD_FIELDS = ("game", "rules", "agents", "seed", "shard_size", "events", "records")


class RunError(PortobelloError):
    """A run folder that cannot be used as asked (other config, locked, damaged shard)."""


def play_code(game: str | None = None) -> str:
    """The version of the code that plays `game`'s games (the default game's when none is
    named; `GameKind.play_version`): a run is never finished by code that plays otherwise."""
    return kind(game or default_game()).play_version


@dataclass(frozen=True)
class RunConfig:
    """Everything that decides a run's tables (not how it is executed). `board` is the
    game's material (`GameKind.material`: a board, a card set...), `rules` the game's
    rules, `game` the game's name (`sim.games.registry`; the default game when none is
    named)."""

    board: Any
    board_ref: str
    rules: Any
    agents: tuple[str, ...]
    games: int
    seed: int
    shard_size: int = 1000
    events: bool = False
    records: bool = False
    game: str = field(default_factory=default_game)

    def __post_init__(self) -> None:
        game = kind(self.game)
        if len(self.agents) != self.rules.players:
            raise RunError(f"{len(self.agents)} agent specs for {self.rules.players} players",
                           field="agents")
        for spec in self.agents:
            game.check_agent(spec)
        check_tables(game, [t for t in ("events", "records") if getattr(self, t)])
        problem = games_error(self.games)
        if problem is not None:
            raise RunError(problem, field="games")
        if self.shard_size < 1:
            raise RunError("must be at least 1", field="shard_size")
        if self.n_shards > MAX_SHARDS:
            raise RunError(f"{self.games:,} games in shards of {self.shard_size:,} make "
                           f"{self.n_shards:,} shards, more than a run holds "
                           f"({MAX_SHARDS:,}); give a shard size of at least "
                           f"{-(-self.games // MAX_SHARDS):,}", field="shard_size")
        game.check(self.rules, self.board, self.board_ref)

    @property
    def kind(self) -> GameKind:
        return kind(self.game)

    @property
    def n_shards(self) -> int:
        return -(-self.games // self.shard_size)

    def shard_range(self, shard: int) -> range:
        lo = shard * self.shard_size
        return range(lo, min(lo + self.shard_size, self.games))

    def seats(self, game_id: int) -> list[str]:
        """Agents by seat for one game: seats rotate so each agent sits everywhere equally."""
        n = len(self.agents)
        r = game_id % n
        return [self.agents[(s + r) % n] for s in range(n)]

    def game_seed(self, game_id: int) -> int:
        return derive_seed(self.seed, "game", game_id)

    def identity(self) -> dict[str, Any]:
        """The fields a resumed or topped-up run must share with the run already in the
        folder (the code that plays the games too: a run finished by other code would mix
        two programs), and the files its agents read (`identity_files`: weights, models).
        The number of games is not one of them: game i has the same seed and seats whatever
        the count, so a run of N games is the first N games of a longer one and can be
        topped up. The default game's runs name no game (their identity is as it was before
        there were other games)."""
        return {
            **({"game": self.game} if self.game != default_game() else {}),
            **identity_files(self.game, self.agents, len(self.agents)),
            "board_hash": self.board.content_hash,
            "play_code": play_code(self.game),
            "rules": self.rules.to_dict(),
            "agents": list(self.agents),
            "seed": self.seed,
            "shard_size": self.shard_size,
            "events": self.events,
            "records": self.records,
        }

    @property
    def run_id(self) -> str:
        blob = json.dumps(self.identity(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:12]

    def payload(self) -> dict[str, Any]:
        """Plain data a worker rebuilds the configuration from (cheap to send): the
        identity's own fields, not those derived from code and files (hashes, versions)."""
        data = {k: v for k, v in self.identity().items() if k in PAYLOAD_FIELDS}
        return data | {"board": self.kind.material_dict(self.board),
                       "board_ref": self.board_ref, "games": self.games, "game": self.game}

    @staticmethod
    def from_payload(p: dict[str, Any]) -> RunConfig:
        game = kind(p.get("game", default_game()))
        return RunConfig(board=game.material_from_dict(p["board"], p["board_ref"]),
                         board_ref=p["board_ref"], rules=game.rules_from_dict(p["rules"]),
                         agents=tuple(p["agents"]), games=p["games"], seed=p["seed"],
                         shard_size=p["shard_size"], events=p["events"], records=p["records"],
                         game=game.name)
