"""What tuning asks of a game: the module-level answers of its "tuning" facet
(`GameKind.facet("tuning")`, a module of the game's package, e.g.
`sim.games.portobello.tuning`), so the tuning code names no game and a new game is tuned
by writing that one module.

The facet answers two features, each optional:

- rules toward fair seats (`portobello tune`, `sim.tuning.fairness`): `FairnessFacet`, its
  seat bonus, the switches a knob may set, how a setting becomes rules, how a chunk of seeds
  is played and how recommended rules are written;
- the heuristic's weights by self-play (`portobello agents tune`, `sim.tuning.search`):
  `WeightsFacet`, the weights and their ranges, weight sets by name, the agent spec that
  plays given weights, and how games of such specs are played.

A game whose facet lacks one (no `SEAT_BONUS`, no `BOUNDS`), or that has no tuning facet,
lacks that feature: asking for it is one `GameError` naming the game.

`TuneGame` is a weight tuning's game as plain data (its name, material and rules): it goes
to the worker processes with every task and asks the facet there.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from typing import Protocol
from typing import cast

import numpy as np

from sim.core.kind import GameError
from sim.games.registry import default_game
from sim.games.registry import kind
from sim.run.config import play_code
from sim.run.task_store import task_key
from sim.tuning.space import Space

Games = Sequence[tuple[int, list[str]]]  # (game seed, the spec of every seat)


class FairnessFacet(Protocol):
    """What a fairness tuning asks of a game's tuning facet (module-level names).

    The seat bonus is the integer rules switch a knob adds to the later seats: every seat's
    value of it under the fixed rules (`seat_values`) plus the bonus, written back under the
    same switch (Portobello Market's `start_scores`, River Market's `seat_coins`)."""

    SEAT_BONUS: str  # the seat-bonus switch
    BONUS_WORDS: str  # what a bonus adds, in messages: "bonus points"
    BONUS_COLUMN: str  # what the seat values are, in lines and reports: "start scores"
    BONUS_LEAST: int | None  # the smallest bonus a knob may give (None: any, negative too)
    KNOB_SWITCHES: tuple[str, ...]  # every switch a knob may set, the bonus among them
    SWITCH_HINT: str  # the refusal of another switch, after "must be ..."
    DEFAULT_AGENTS: str  # the agent spec of a spec that names none

    def seat_values(self, rules: Any) -> tuple[int, ...]:
        """Every seat's value of the seat-bonus switch under `rules`."""
        ...

    def integer_switch(self, switch: str) -> bool:
        """Whether a knob's switch takes an integer range (low and high)."""
        ...

    def apply_knobs(self, fixed: Any, changes: Mapping[str, Any]) -> Any:
        """The fixed rules with a setting's switches changed (the game's own knob names,
        e.g. one multiplier, folded into its rules here), validated (RulesError)."""
        ...

    def play_seeds(self, material: Any, rules: Any, lineup: Sequence[str],
                   seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Games of these seeds with `lineup` in every game: every seat's score (a row per
        game, int64) and each game's length in rounds (turns around the table)."""
        ...

    def rules_file(self, rules: Any, source: str) -> str:
        """The rules as the game's rules file (TOML), its header naming `source`."""
        ...


class WeightsFacet(Protocol):
    """What a weight tuning asks of a game's tuning facet (module-level names)."""

    BOUNDS: Mapping[str, tuple[float, float]]  # each weight's range, in the game's order
    START: str  # the weight set a tuning starts from unless told
    GUARDS: Mapping[str, Any]  # restriction wrappers a candidate may be made to beat

    def resolve_weights(self, ref: str, players: int) -> dict[str, float]:
        """The weights of a weight set's name or file, by name."""
        ...

    def weights_spec(self, weights: Mapping[str, float]) -> str:
        """The agent spec that plays exactly these weights."""
        ...

    def tuning_identity(self, material: Any, rules: Any) -> dict[str, Any]:
        """What a tuning's games depend on besides seeds and line-ups (the material, the
        rules), in its identity."""
        ...

    def play_scores(self, material: Any, rules: Any, games: Games) -> np.ndarray:
        """Every seat's final score of these games (seed and line-up each), a row per game,
        in order (int64)."""
        ...


def tuning_facet(game: str) -> Any:
    """The game's tuning facet (GameError naming the game when it has none)."""
    return kind(game).facet("tuning")


def fairness_facet(game: str) -> FairnessFacet:
    """The game's answers for a fairness tuning; GameError when it has none."""
    facet = tuning_facet(game)
    if not hasattr(facet, "SEAT_BONUS"):
        raise GameError(f"{kind(game).title} has no rules to tune toward fair seats",
                        field="game")
    return cast(FairnessFacet, facet)


def weights_facet(game: str) -> WeightsFacet:
    """The game's answers for a weight tuning; GameError when it has none."""
    facet = tuning_facet(game)
    if not hasattr(facet, "BOUNDS"):
        raise GameError(f"{kind(game).title} has no heuristic weights to tune", field="game")
    return cast(WeightsFacet, facet)


def has_weights(game: str) -> bool:
    """Whether the game's heuristic weights can be tuned."""
    return kind(game).has("tuning") and hasattr(tuning_facet(game), "BOUNDS")


def time_budget(game: str, spec: str) -> str | None:
    """The time budget of one of the game's agent specs (`time=0.5`), None when its play
    depends on its seed alone; a facet without `time_budget` has no timed agents."""
    facet = tuning_facet(game)
    timed = getattr(facet, "time_budget", None)
    return timed(spec) if timed is not None else None


def task_tag(game: str) -> list[str]:
    """The game and its play version, the first parts of a task key of its games. The
    default game's are left out: every task key holds its play version already
    (`sim.run.task_store.task_key`), and its keys stay as they were before there were other
    games."""
    return [] if game == default_game() else [game, play_code(game)]


@dataclass(frozen=True)
class TuneGame:
    """A weight tuning's game: `material` (its board, card set, ...) under `rules`, answered
    by the game's tuning facet (`WeightsFacet`). Plain data: it pickles by the game's name."""

    game: str
    material: Any
    rules: Any

    @property
    def facet(self) -> WeightsFacet:
        return weights_facet(self.game)

    @property
    def name(self) -> str:
        return self.game

    @property
    def space(self) -> Space:
        """The weights in their ranges, as points of [0, 1]^d."""
        return Space(self.facet.BOUNDS)

    @property
    def players(self) -> int:
        return int(self.rules.players)

    def resolve(self, ref: str) -> dict[str, float]:
        """The weights of a weight set's name or file (the start, the opponents)."""
        return self.facet.resolve_weights(ref, self.players)

    def spec_of(self, weights: Mapping[str, float]) -> str:
        """The agent spec that plays exactly these weights."""
        return self.facet.weights_spec(weights)

    def identity(self) -> dict[str, Any]:
        """What the games depend on besides the seeds and line-ups (the material, the
        rules), for a tuning's identity."""
        return self.facet.tuning_identity(self.material, self.rules)

    def play_code(self) -> str:
        """The version of the code that plays the games (a tuning is never resumed by other
        code)."""
        return play_code(self.game)

    def task_key(self, games: Games) -> str:
        """The key a task of these games is kept under while a generation is played."""
        return task_key(*task_tag(self.game), self.material.content_hash,
                        self.rules.to_dict(), list(games))

    def play(self, games: Games) -> np.ndarray:
        """Every seat's final score, a row per game, in order."""
        return self.facet.play_scores(self.material, self.rules, games)
