"""Self-play tuning of the heuristic's weights for given rules and a player count.

CMA-ES (the `cma` package) searches the weights (`sim.tuning.space`) of a game's heuristic
(the game's tuning facet, `sim.tuning.games.WeightsFacet`: Portobello Market's or River
Market's, any game's with weights). Each generation's candidates play a panel
(`sim.tuning.selfplay`): the weights the tuning started from (the current defaults, or
River Market's greedy agent), the incumbent (the search's mean after the last
generation, the best estimate so far) and a few earlier incumbents, so a candidate must
beat where the search has been, not only where it is. All candidates of a generation play
the same game seeds.

When the generations are done, finalists (the last incumbent and the generations' best
candidates of the last few generations) play the starting weights (and any `opponents`,
weight sets kept in the panel throughout) again over fresh seeds
and more games; the one with the highest win share is written as a weight set, with the
rules, player count, seeds and that evaluation.

A tuning folder holds `tune.json` (the configuration and every generation: candidates,
fitness, incumbent), rewritten atomically after each generation, and `weights.toml` at the
end. Running the same command again resumes: the optimiser is replayed from the log
(CMA-ES is deterministic given its seed) and the search goes on where it stopped; a larger
`--generations` extends a finished tuning.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from sim.core.errors import PortobelloError
from sim.core.outputs import atomic_write
from sim.games.registry import default_game
from sim.games.registry import game_names
from sim.games.registry import kind
from sim.run.execution import Execution
from sim.run.execution import Pool
from sim.run.execution import pool_for
from sim.run.loop import derive_seed
from sim.run.ratings import wilson_interval
from sim.run.store import run_lock
from sim.run.store import write_json_atomic
from sim.run.task_store import TaskStore
from sim.tuning.games import TuneGame
from sim.tuning.games import has_weights
from sim.tuning.games import weights_facet
from sim.tuning.selfplay import Score
from sim.tuning.selfplay import evaluate_game
from sim.tuning.weight_file import weight_set_text

LOG = "tune.json"
RESULT = "weights.toml"
TASKS = "tasks"
FORMAT = "portobello-tune/1"
HALL_EVERY = 5  # an incumbent joins the panel's earlier bests every this many generations


class TuneError(PortobelloError):
    """A tuning that cannot go on as asked (another tuning in the folder, a damaged log)."""


@dataclass(frozen=True)
class TuneConfig:
    """What decides a tuning's result (not how it is executed: jobs, progress). `board` is
    the material and `rules` the rules of the game `game` names (`sim.games.registry`; the
    default game when not given), as its `GameKind` loads them."""

    board: Any
    board_ref: str
    rules: Any
    start: str = "tuned"  # the weight set the search starts from and the panel keeps
    generations: int = 30
    population: int = 10
    blocks: int = 40  # blocks of `players` games per candidate and panel member
    hall: int = 2  # earlier incumbents kept in the panel
    guards: tuple[str, ...] = ()  # restriction wrappers each candidate must also beat
    opponents: tuple[str, ...] = ()  # weight sets kept in the panel beside the start
    sigma: float = 0.15  # the search's first step, in units of each weight's range
    final_blocks: int = 300  # blocks per finalist in the final evaluation
    finalists: int = 4
    seed: int = 1
    name: str = ""
    game: str = field(default_factory=default_game)

    def __post_init__(self) -> None:
        if self.game not in game_names():
            raise TuneError(f"unknown game {self.game!r} (games: {', '.join(game_names())})",
                            field="game")
        title = kind(self.game).title
        if not has_weights(self.game):
            raise TuneError(f"{title} has no heuristic weights to tune", field="game")
        guards = weights_facet(self.game).GUARDS
        if self.guards and not guards:
            raise TuneError(f"{title}'s agents have no restricted versions", field="guard")
        for key in ("generations", "population", "blocks", "final_blocks", "finalists"):
            if getattr(self, key) < 1:
                raise TuneError("must be at least 1", field=key)
        if self.population < 2:
            raise TuneError("must be at least 2 (CMA-ES needs two candidates to compare)",
                            field="population")
        for g in self.guards:
            if g not in guards:
                raise TuneError(f"unknown restriction {g!r} (restrictions: "
                                f"{', '.join(guards)})", field="guard")
        if not 0 < self.sigma <= 1:
            raise TuneError("must be in (0, 1] (a share of each weight's range)",
                            field="sigma")

    @property
    def players(self) -> int:
        return int(self.rules.players)

    @property
    def tune_game(self) -> TuneGame:
        """The game whose heuristic is tuned: its weight space, specs and games."""
        return TuneGame(self.game, self.board, self.rules)

    @property
    def start_weights(self) -> dict[str, float]:
        return self.tune_game.resolve(self.start)

    @property
    def opponent_weights(self) -> list[dict[str, float]]:
        return [self.tune_game.resolve(ref) for ref in self.opponents]

    def fixed_panel(self) -> list[str]:
        """The panel members every generation and the final evaluation play: the start and
        the `opponents`."""
        return list(dict.fromkeys(self.tune_game.spec_of(w) for w in
                                  [self.start_weights, *self.opponent_weights]))

    def identity(self) -> dict[str, Any]:
        """The fields a resumed tuning must share with the log (not `generations`: a
        finished tuning can be extended)."""
        game = self.tune_game
        return {"format": FORMAT, **game.identity(), "start": self.start_weights,
                "population": self.population, "blocks": self.blocks, "hall": self.hall,
                "sigma": self.sigma, "final_blocks": self.final_blocks,
                "finalists": self.finalists, "seed": self.seed, "play_code": game.play_code(),
                "bounds": {k: list(v) for k, v in game.space.bounds.items()},
                **({"guards": list(self.guards)} if self.guards else {}),
                **({"opponents": self.opponent_weights} if self.opponents else {})}

    @property
    def tune_id(self) -> str:
        blob = json.dumps(self.identity(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:12]


@dataclass
class Generation:
    """One generation as logged: its candidates (points of [0, 1]^d and the weights they
    play), their scores against the panel, the panel, and the incumbent after it."""

    index: int
    points: list[list[float]]
    weights: list[dict[str, float]]
    share: list[float]
    margin: list[float]
    panel: list[str]
    incumbent: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Tuning:
    """A tuning's state: its configuration, the generations played, the final result."""

    config: TuneConfig
    generations: list[Generation] = field(default_factory=list)
    final: dict[str, Any] | None = None

    def panel(self) -> list[str]:
        """Specs the next generation plays: the start, the incumbent, earlier incumbents."""
        specs = self.config.fixed_panel()
        spec_of = self.config.tune_game.spec_of
        if self.generations:
            specs.append(spec_of(self.generations[-1].incumbent))
            earlier = [g.incumbent for g in self.generations[:-1]
                       if (g.index + 1) % HALL_EVERY == 0][-self.config.hall:] \
                if self.config.hall else []
            specs += [spec_of(w) for w in earlier]
        return list(dict.fromkeys(specs))

    def log(self) -> dict[str, Any]:
        return {"format": FORMAT, "tune_id": self.config.tune_id,
                "identity": self.config.identity(),
                "generations": [g.to_dict() for g in self.generations], "final": self.final}


def _optimiser(config: TuneConfig) -> Any:
    import cma

    options = {"bounds": [0.0, 1.0], "popsize": config.population,
               "seed": derive_seed(config.seed, "cma") % (2**31 - 2) + 1, "verbose": -9,
               "tolfun": 0.0, "tolx": 0.0, "tolstagnation": 10**9, "tolflatfitness": 10**9}
    return cma.CMAEvolutionStrategy(config.tune_game.space.encode(config.start_weights),
                                    config.sigma, options)


def _read_log(path: Path, config: TuneConfig) -> Tuning:
    tuning = Tuning(config)
    if not path.exists():
        return tuning
    try:
        data = json.loads(path.read_text())
        if data.get("format") != FORMAT:
            raise ValueError("not a tuning log")
        if data.get("identity") != config.identity():
            raise TuneError("holds a tuning with other settings or other code; give another "
                            "--out or the same settings", source=str(path))
        tuning.generations = [Generation(**g) for g in data["generations"]]
        tuning.final = data.get("final")
    except (ValueError, KeyError, TypeError) as exc:
        raise TuneError(f"not a readable tuning log ({exc}); move it away to start afresh",
                        source=str(path)) from None
    return tuning


def _replay(es: Any, tuning: Tuning) -> None:
    """Bring a fresh optimiser to where the log stops (the same asks, the logged tells)."""
    for g in tuning.generations:
        points = es.ask()
        if any(abs(a - b) > 1e-9 for p, q in zip(points, g.points, strict=True)
               for a, b in zip(p, q, strict=True)):
            raise TuneError("the optimiser no longer asks what the log holds (another cma "
                            "version?); move the log away to start afresh", source=LOG)
        es.tell(points, [-s for s in g.share])


def generation_seeds(config: TuneConfig, index: int) -> list[int]:
    return [derive_seed(config.seed, "tune", config.players, index, b)
            for b in range(config.blocks)]


def final_seeds(config: TuneConfig) -> list[int]:
    return [derive_seed(config.seed, "final", config.players, b)
            for b in range(config.final_blocks)]


def _finalists(tuning: Tuning) -> list[dict[str, float]]:
    """The last incumbent, then the best candidate of each of the last generations."""
    out = [tuning.generations[-1].incumbent]
    for g in reversed(tuning.generations):
        if len(out) >= tuning.config.finalists:
            break
        best = max(range(len(g.share)), key=lambda i: (g.share[i], g.margin[i]))
        out.append(g.weights[best])
    unique = {json.dumps(w, sort_keys=True): w for w in out}
    return list(unique.values())


def _final(tuning: Tuning, pool: Pool, store: TaskStore) -> dict[str, Any]:
    config = tuning.config
    game = config.tune_game
    finalists = _finalists(tuning)
    fixed = config.fixed_panel()
    specs = [game.spec_of(w) for w in finalists]
    scores = evaluate_game(game, specs, fixed, final_seeds(config), pool=pool, store=store)
    rows = []
    for w, s in zip(finalists, scores, strict=True):
        lo, hi = wilson_interval(s.wins, s.games)
        rows.append({"weights": w, "win_share": round(s.share, 4),
                     "interval": [round(lo, 4), round(hi, 4)],
                     "margin": round(s.margin, 3), "wins": s.wins, "games": s.games})
    best = max(range(len(rows)), key=lambda i: (rows[i]["win_share"], rows[i]["margin"]))
    return {"against": fixed if len(fixed) > 1 else fixed[0],
            "parity": round(1 / config.players, 4), "chosen": best,
            "finalists": rows}


def tune(config: TuneConfig, out: Path, jobs: int = 1,
         progress: Callable[[Tuning], None] | None = None, pool: Pool | None = None
         ) -> Tuning:
    """Run (or resume) the tuning in `out`; the state after the last generation and the
    final evaluation. `progress` is called after every generation. The games are played
    on `pool` (a command's open pool, else `jobs` local processes); the log is written
    after every generation, so a stopped tuning resumes from the last one."""
    out.mkdir(parents=True, exist_ok=True)
    with run_lock(out), pool_for(pool, Execution(jobs)) as workers:
        log_path = out / LOG
        tuning = _read_log(log_path, config)
        es = _optimiser(config)
        store = TaskStore(out / TASKS)  # a generation's finished tasks while it is played
        game = config.tune_game
        _replay(es, tuning)
        if len(tuning.generations) < config.generations:
            tuning.final = None  # more generations: the old final no longer holds
        while len(tuning.generations) < config.generations:
            index = len(tuning.generations)
            asked = es.ask()  # told back as asked: cma knows its own arrays
            points = [list(map(float, p)) for p in asked]
            weights = [game.space.decode(p) for p in points]
            panel = tuning.panel()
            scores: list[Score] = evaluate_game(game, [game.spec_of(w) for w in weights],
                                                panel, generation_seeds(config, index),
                                                guards=config.guards, pool=workers,
                                                store=store)
            es.tell(asked, [-s.share for s in scores])
            tuning.generations.append(Generation(
                index=index, points=points, weights=weights,
                share=[s.share for s in scores], margin=[s.margin for s in scores],
                panel=panel, incumbent=game.space.decode(es.mean)))
            write_json_atomic(log_path, tuning.log())
            if progress:
                progress(tuning)
        if tuning.final is None:
            tuning.final = _final(tuning, workers, store)
            write_json_atomic(log_path, tuning.log())
        atomic_write(out / RESULT, weight_set_text(tuning).encode())
        store.clear()  # every generation is in the log
    return tuning


def chosen(tuning: Tuning) -> dict[str, float]:
    """The weights the final evaluation chose, by name (any game)."""
    assert tuning.final is not None
    return dict(tuning.final["finalists"][tuning.final["chosen"]]["weights"])
