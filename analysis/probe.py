"""`portobello tournament --probe AGENT`: an exploitability probe. AGENT meets challengers
built from its own spec, and every challenger that beats it is named, after correcting for
the many comparisons (Holm).

Challengers, at each player count n (written as explicit agent specs, so any one of them
can be played again with `portobello tournament --agents`):

- restricted: each restriction wrapper around AGENT's spec (`first-end(AGENT)`, ...), except
  those AGENT already carries. A restricted agent that beats AGENT shows a feature AGENT
  plays worse than not at all: the four-player lane end, where `first-end(heuristic)` beat
  the heuristic, is the case this probe was built to find by a command.
- lifted: AGENT with one of its own restrictions lifted, or one of the weights its spec sets
  (`weights=` or a single weight) reset to the default. A weak variant is then beaten by
  its stronger neighbour.
- perturbed (agents that play weights: heuristic; mcts and fastmcts through `weights=`):
  `random` perturbations of the weights AGENT resolves for n players, every weight
  multiplied by exp(sigma z) with z standard normal (log-normal, so a weight keeps its sign
  and is as likely halved as doubled), drawn from a generator seeded by the probe seed, n
  and AGENT; then one weight at a time times 1 + step and 1 - step (default ±25%), for the
  `top` most influential weights (default 3; `weights` names them instead). Influence is
  measured by a pilot that watches moves, not results (`influence`: how early a step of
  the weight changes the action log of the same game), so picking the weights by it does
  not bias the tests, while every weight stepped would enlarge the Holm family with
  weights that barely change play (the Bobby weight moves about 2% of a game). Values are
  rounded to 4 significant digits before they are written, so the spec plays exactly what
  it says. The heuristic's perturbed weights go into its spec
  (`heuristic:weights=classic,lane=1.07,...`); the search agents take only a weight set,
  so theirs are written as weight-set files (`weights_dir`) that the spec names.

Matchups: a tournament with AGENT first (`pairing="first"`) per player count: with two
players AGENT against the challenger, seats alternating; with n > 2 both directions, the
challenger alone against n - 1 AGENTs ("alone") and AGENT alone against n - 1 challengers
("field"). Every block of n rotations shares its game seed with every matchup.

The statistic is the challenger's win share per seat (in the "field" direction: one n-1-th
of what AGENT leaves), against parity 1/n. Each matchup is one two-sided score test of the
focus agent's share against 1/n (the test the Wilson interval inverts); the whole probe, all
player counts and directions, is one Holm family (`analysis.metrics.multiple.Holm`, alpha
0.05), and each row's interval is its Holm step-down Wilson interval, which excludes parity
exactly when Holm rejects. The verdict is read off that interval: `beats` when it lies
above parity, `loses` when below, `even` otherwise, so the interval and the verdict shown
together agree.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as st

from analysis.metrics.multiple import ALPHA
from analysis.metrics.multiple import Holm
from analysis.metrics.multiple import WilsonInterval
from sim.core.errors import PortobelloError
from sim.games.portobello.agents import weight_sets
from sim.games.portobello.agents.evaluate import Weights
from sim.games.portobello.agents.registry import compiled_row
from sim.games.portobello.agents.registry import make_agent
from sim.games.portobello.agents.registry import parse_spec
from sim.games.portobello.agents.registry import split_specs
from sim.games.portobello.agents.restricted import WRAPPERS
from sim.games.portobello.board import Board
from sim.games.portobello.board import load_board
from sim.games.portobello.rules import Rules
from sim.run.engines import engine_name
from sim.run.engines import select_engine
from sim.run.execution import Execution
from sim.run.execution import Pool
from sim.run.execution import pool_for
from sim.run.execution import progress_bar
from sim.run.loop import derive_seed
from sim.run.ratings import wilson_interval
from sim.run.task_store import TaskStore
from sim.run.tournament import TournamentConfig
from sim.run.tournament import run_tournament

KINDS = ("restricted", "lifted", "perturbed", "step")
WEIGHTED = ("heuristic", "mcts", "fastmcts")  # agents whose play takes a weight set
FILE_WEIGHTS = ("mcts", "fastmcts")  # ... through `weights=` only (a weight-set file)
VERDICTS = ("beats", "even", "loses")
PILOT_GAMES = 24  # games per stepped weight and sign in the influence pilot
TOP = 3  # weights stepped one at a time, by default: the most influential ones
EXIT_NONE, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_BEATEN = 0, 1, 2, 3


class ProbeError(PortobelloError):
    """Bad input to a probe (an unknown agent, nothing to probe, a bad flag): exit 2."""

    exit_code = EXIT_BAD_INPUT


@dataclass(frozen=True)
class Challenger:
    """One challenger at one player count: its spec, which kind it is, and how it differs
    from AGENT (`change`, e.g. `tempo x1.25`)."""

    spec: str
    players: int
    kind: str
    change: str


# -- specs ------------------------------------------------------------------------------------
def unwrap(spec: str) -> tuple[list[str], str]:
    """The restriction wrappers of a spec, outermost first, and the playing agent's spec."""
    wrappers: list[str] = []
    spec = spec.strip()
    while True:
        name, params = parse_spec(spec)
        if name not in WRAPPERS:
            return wrappers, spec
        wrappers.append(name)
        spec = params["agent"].strip()


def wrap(wrappers: Sequence[str], inner: str) -> str:
    """`inner` inside the wrappers (outermost first)."""
    for w in reversed(wrappers):
        inner = f"{w}({inner})"
    return inner


def spec_items(spec: str) -> tuple[str, list[tuple[str, str]]]:
    """An unwrapped spec's agent name and its `key=value` items as written."""
    name, _, rest = spec.partition(":")
    items = []
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, _, value = item.partition("=")
        items.append((key.strip(), value.strip()))
    return name.strip(), items


def spec_with(spec: str, drop: Sequence[str] = (), set_: dict[str, str] | None = None) -> str:
    """An unwrapped spec with some items dropped and some set (in place when the spec has
    them, else appended in the order given)."""
    name, items = spec_items(spec)
    set_ = dict(set_ or {})
    out = []
    for key, value in items:
        if key in drop:
            continue
        out.append((key, set_.pop(key, value)))
    out.extend(set_.items())
    return name + (":" + ",".join(f"{k}={v}" for k, v in out) if out else "")


def number(value: float) -> str:
    """A weight as a spec writes it: 4 significant digits (`float(number(v))` is what is
    played)."""
    return f"{value:.4g}"


def base_weights(inner: str, players: int) -> Weights | None:
    """The weights the playing agent `inner` resolves in a game of `players`, or None when
    it plays no weights."""
    name, _ = parse_spec(inner)
    if name not in WEIGHTED:
        return None
    agent: Any = make_agent(inner)
    if name == "heuristic":
        return agent.weights_for(players)
    return weight_sets.resolve(agent.weight_ref, players).weights


def perturbations(agent: str, players: int, seed: int, count: int, sigma: float
                  ) -> list[Weights]:
    """`count` random multiplicative perturbations of AGENT's weights for `players` (each
    weight times exp(sigma z), rounded as written), the same for the same arguments."""
    _, inner = unwrap(agent)
    base = base_weights(inner, players)
    if base is None:
        return []
    rng = np.random.default_rng(derive_seed(seed, "probe", players, agent.strip()))
    out = []
    for _ in range(count):
        factors = np.exp(sigma * rng.standard_normal(len(Weights.names())))
        out.append(replace(base, **{k: float(number(v * f)) for (k, v), f in
                                    zip(base.as_dict().items(), factors, strict=True)}))
    return out


def influence(agent: str, players: int, board: Board, rules: Rules, *, seed: int = 0,
              step: float = 0.25, games: int = PILOT_GAMES, engine: str = "auto"
              ) -> dict[str, float]:
    """How much each weight steers AGENT's play at `players`, from a pilot that looks at
    the moves, never at who wins: for each weight and each sign, `games` games with one
    seat (rotating) playing the weight times 1 +- step and the others AGENT, against the
    same games with AGENT in every seat; a game's score is the share of its action log
    left after the first action that differs (0: the same game, near 1: play changed at
    once), averaged over games and both signs. Weights that are 0 do not move and are left
    out. The search agents' weights are the heuristic's, so their pilot is played by the
    heuristic with the same weights (a search game costs too much for a pilot). The pilot's
    seeds are not the probe's, and its ranking does not use results, so choosing the
    stepped weights by it does not bias the tests."""
    wrappers, inner = unwrap(agent)
    base = base_weights(inner, players)
    if base is None:
        return {}
    if parse_spec(inner)[0] != "heuristic":
        inner = "heuristic:" + ",".join(f"{k}={v!r}" for k, v in base.as_dict().items())
    me = wrap(wrappers, inner)
    variants = {(key, sign): wrap(wrappers, spec_with(inner, set_={
        key: number(getattr(base, key) * (1 + sign * step))}))
        for key in Weights.names() if getattr(base, key) != 0 for sign in (1, -1)}
    n_rules = rules.with_changes(players=players)
    specs = [me, *variants.values()]
    eng = select_engine(board, n_rules, specs, engine_name(specs, engine, board))
    seeds = [derive_seed(seed, "probe-pilot", players, g) for g in range(games)]
    lineups = [[me] * players for _ in seeds]
    for spec in variants.values():
        for g in range(games):
            seats = [me] * players
            seats[g % players] = spec
            lineups.append(seats)
    logs = eng.play(seeds * (1 + len(variants)), lineups, keep_log=True).logs
    assert logs is not None
    scores: dict[str, list[float]] = {}
    for j, (key, _) in enumerate(variants):
        for g in range(games):
            a, b = logs[g], logs[(j + 1) * games + g]
            same = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                        min(len(a), len(b)))
            scores.setdefault(key, []).append(1 - same / max(len(a), len(b), 1))
    return {key: float(np.mean(v)) for key, v in scores.items()}


def weight_file(path: Path, weights: Weights, note: str) -> None:
    """Write a weight-set file (`sim.games.portobello.agents.weight_sets`) holding every weight."""
    lines = [f"# {note}", f'name = "{path.stem}"', f'description = "{note}"', "",
             "[weights]"]
    lines += [f"{k} = {v!r}" for k, v in weights.as_dict().items()]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def challengers(agent: str, players: int, *, seed: int = 0, random: int = 4,
                sigma: float = 0.25, step: float = 0.25,
                weights: Sequence[str] | None = None,
                weights_dir: Path | None = None) -> list[Challenger]:
    """Every challenger of AGENT at one player count, in a fixed order (restricted, lifted,
    perturbed, step), without repeats and without AGENT itself. Search agents' perturbed
    weights are written into `weights_dir` (required for them)."""
    agent = agent.strip()
    wrappers, inner = unwrap(agent)
    name, items = spec_items(inner)
    out: list[Challenger] = []
    for w in WRAPPERS:
        if w not in wrappers:
            out.append(Challenger(f"{w}({agent})", players, "restricted", w))
    for i, w in enumerate(wrappers):
        out.append(Challenger(wrap(wrappers[:i] + wrappers[i + 1:], inner), players,
                              "lifted", f"without {w}"))
    weight_keys = {"weights", *Weights.names()}
    for key, value in items:
        if name in WEIGHTED and key in weight_keys:
            out.append(Challenger(wrap(wrappers, spec_with(inner, drop=[key])), players,
                                  "lifted", f"{key}={value} reset"))
    base = base_weights(inner, players)
    if base is not None:
        variants: list[tuple[str, str, Weights, str | None]] = []  # kind, change, w, key
        for k, w in enumerate(perturbations(agent, players, seed, random, sigma), 1):
            variants.append(("perturbed", f"random {k} (sigma {sigma:g})", w, None))
        for key in weights if weights is not None else Weights.names():
            for sign in (1, -1):
                value = float(number(getattr(base, key) * (1 + sign * step)))
                variants.append(("step", f"{key} x{1 + sign * step:g}",
                                 replace(base, **{key: value}), key))
        for kind, change, w, key in variants:
            if w == base:
                continue  # a zero weight does not move
            if name in FILE_WEIGHTS:
                if weights_dir is None:
                    raise ProbeError(f"probing {name} writes weight-set files: give a folder",
                                     field="weights_dir")
                stem = re.sub(r"[^\w.]+", "-", change.split(" (")[0])
                path = weights_dir / f"{players}p-{stem}.toml"
                weight_file(path, w, f"{change} of {agent}'s weights at {players} players")
                spec = spec_with(inner, set_={"weights": str(path)})
            elif key is not None:  # one weight: only it is written
                spec = spec_with(inner, set_={key: number(getattr(w, key))})
            else:
                spec = spec_with(inner, set_={k: number(v) for k, v in w.as_dict().items()})
            out.append(Challenger(wrap(wrappers, spec), players, kind, change))
    seen = {agent, play_key(agent, players)}
    unique = []
    for c in out:
        key = play_key(c.spec, players)
        if c.spec not in seen and key not in seen:
            seen.update((c.spec, key))
            unique.append(c)
    return unique


def play_key(spec: str, players: int) -> Any:
    """What decides how a spec plays at `players`: its row of the compiled agent table (kind,
    parameters, restrictions) when it has one, so two spellings of one player (`heuristic`
    and `heuristic:weights=classic` while the tuned sets are the classic weights) count
    once; else the spec itself."""
    row = compiled_row(spec, players)
    return spec.strip() if row is None else (row.kind, row.params, tuple(row.restrict))


# -- the probe --------------------------------------------------------------------------------
@dataclass
class ProbeConfig:
    """Everything that decides a probe's challengers and games (see the module docstring).
    Construction checks it all, so bad input fails before any game (`ProbeError`)."""

    agent: str
    players: tuple[int, ...] = (2, 3, 4)
    games: int = 600  # per matchup (rounded up to whole blocks of n games)
    seed: int = 0
    random: int = 4  # random perturbations per player count
    sigma: float = 0.25  # their log-normal spread
    step: float = 0.25  # one weight at a time times 1 +- step
    weights: tuple[str, ...] | None = None  # the weights stepped (None: the `top` ones)
    top: int = TOP  # how many weights to step, ranked by the influence pilot
    board: Board | None = None
    board_ref: str = "standard"
    rules: Rules = field(default_factory=Rules)
    jobs: int = 1
    engine: str = "auto"
    weights_dir: Path | None = None  # search agents' perturbed weight sets go here
    challengers: dict[int, list[Challenger]] = field(init=False)
    influence: dict[int, dict[str, float]] = field(init=False)  # the pilot, per count
    tournaments: dict[int, TournamentConfig] = field(init=False)

    def __post_init__(self) -> None:
        try:
            self._check()
        except ProbeError:
            raise
        except PortobelloError as exc:  # any bad input is exit 2 here
            raise ProbeError(exc.reason, source=exc.source, field=exc.field) from None

    def _check(self) -> None:
        specs = split_specs(self.agent)
        if len(specs) != 1:
            raise ProbeError(f"--probe takes one agent spec, got {len(specs)}: "
                             f"{', '.join(specs)}", field="--probe")
        self.agent = specs[0]
        parse_spec(self.agent)
        if not self.players:
            raise ProbeError("no player counts", field="--players")
        if self.games < 1:
            raise ProbeError("games must be at least 1", field="--games")
        if self.random < 0:
            raise ProbeError("the number of random perturbations must be 0 or more",
                             field="--perturbations")
        if not (math.isfinite(self.sigma) and self.sigma > 0):
            raise ProbeError("sigma must be a positive number", field="--sigma")
        if not (math.isfinite(self.step) and 0 < self.step < 1):
            raise ProbeError("the step must lie between 0 and 1 (0.25: ±25%)",
                             field="--step")
        _, inner = unwrap(self.agent)
        if self.weights is not None:
            unknown = [w for w in self.weights if w not in Weights.names()]
            if unknown:
                raise ProbeError(f"unknown weight(s) {', '.join(unknown)} (weights: "
                                 f"{', '.join(Weights.names())})", field="--probe-weights")
            if parse_spec(inner)[0] not in WEIGHTED:
                raise ProbeError(f"{self.agent} plays no weights to step "
                                 f"(weighted agents: {', '.join(WEIGHTED)})",
                                 field="--probe-weights")
        if self.board is None:
            self.board = load_board(self.board_ref)
        for n in self.players:
            self.rules.with_changes(players=n)  # validates the player count
        if self.weights_dir is None:
            self.weights_dir = Path("data/runs") / f"probe-{self.probe_id}.weights"
        if self.top < 0:
            raise ProbeError("the number of weights to step must be 0 or more", field="--top")
        self.challengers = {}
        self.tournaments = {}
        self.influence = {}
        for n in self.players:
            stepped = self.weights
            if stepped is None:
                ranked = influence(self.agent, n, self.board, self.rules, seed=self.seed,
                                   step=self.step, engine=self.engine)
                self.influence[n] = ranked
                order = sorted(ranked, key=lambda k: -ranked[k])  # ties: the Weights order
                stepped = tuple(order[:self.top])
            found = challengers(self.agent, n, seed=self.seed, random=self.random,
                                sigma=self.sigma, step=self.step, weights=stepped,
                                weights_dir=self.weights_dir)
            if not found:
                raise ProbeError(f"nothing to probe {self.agent} with: it carries every "
                                 "restriction and plays no weights", field="--probe")
            self.challengers[n] = found
            self.tournaments[n] = TournamentConfig(
                agents=(self.agent, *(c.spec for c in found)), players=(n,),
                games=self.games, seed=self.seed, board=self.board, board_ref=self.board_ref,
                rules=self.rules, pairing="first", jobs=self.jobs, engine=self.engine)

    @property
    def probe_id(self) -> str:
        text = json.dumps([self.agent, list(self.players), self.games, self.seed, self.random,
                           self.sigma, self.step, self.weights, self.top, self.board_ref,
                           self.rules.to_dict(changed_only=True)], sort_keys=True)
        return f"p{self.seed}-{hashlib.blake2b(text.encode(), digest_size=4).hexdigest()}"

    def influence_text(self, n: int) -> str:
        """The pilot's ranking at n players, e.g. `end 0.86, fill 0.86, lane 0.81, ...`."""
        ranked = self.influence.get(n, {})
        return ", ".join(f"{k} {v:.2f}" for k, v in sorted(ranked.items(),
                                                             key=lambda kv: -kv[1]))

    def all_challengers(self) -> list[Challenger]:
        return [c for n in self.players for c in self.challengers[n]]

    def matchup_count(self) -> int:
        """Matchups played: one per challenger at 2 players, two (both directions) above."""
        return sum(len(cs) * (1 if n == 2 else 2) for n, cs in self.challengers.items())


def run_probe(config: ProbeConfig, progress: bool = False, pool: Pool | None = None,
              store: TaskStore | None = None) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """Play every player count's tournament on one pool (`pool`, else `jobs` local
    processes) under one progress bar; the per-seat table (the tournament's schema, one
    `tournament` id per player count) and the failed games; `store` keeps finished tasks
    (`sim.run.tournament.run_tournament`)."""
    frames, errors = [], []
    with pool_for(pool, Execution(config.jobs)) as workers:
        tournaments = [config.tournaments[n] for n in config.players]
        total = sum(t.game_count(workers.workers) for t in tournaments)
        with closing(progress_bar(total, quiet=not progress, workers=workers.workers,
                                  desc="probe")) as bar:
            for t in tournaments:
                df, e = run_tournament(t, pool=workers, bar=bar, store=store)
                frames.append(df)
                errors.extend(e)
    frames = [f for f in frames if not f.empty]
    return (pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()), errors


def probe_table(df: pd.DataFrame, config: ProbeConfig, alpha: float = ALPHA) -> pd.DataFrame:
    """One row per matchup: the challenger's win share per seat against parity 1/n, its
    95% Wilson interval, the Holm-corrected interval over the whole probe and the verdict
    (`beats`, `even`, `loses`) read off the corrected interval."""
    kinds = {(c.players, c.spec): c for c in config.all_challengers()}
    rows = []
    for (n, _), g in df.groupby(["players", "matchup_index"], sort=True):
        focus = g[g.role == "focus"]
        first = focus.iloc[0]
        alone = first.focus != config.agent
        spec = first.focus if alone else first.field
        games = len(focus)
        share = float(focus.win_share.sum()) / games
        parity = 1.0 / n
        se0 = math.sqrt(parity * (1 - parity) / games)
        c = kinds[(int(n), spec)]
        rows.append({"challenger": spec, "kind": c.kind, "change": c.change, "players": int(n),
                     "direction": "head-to-head" if n == 2 else "alone" if alone else "field",
                     "challenger_focus": bool(alone), "games": games, "share": share,
                     "parity": parity,
                     "p_value": float(2 * st.norm.sf(abs(share - parity) / se0))})
    tested = pd.DataFrame(rows)
    if tested.empty:
        return tested
    out = Holm(alpha=alpha, interval=WilsonInterval())(tested)
    lo95, hi95 = wilson_interval_rows(out)
    # The focus agent's share and intervals -> the challenger's per seat.
    field_rows = ~out.challenger_focus.to_numpy(dtype=bool)
    k = out.players - 1
    for col, lo, hi in (("share", None, None), ("ci", lo95, hi95),
                        ("adj", out.adj_lo.to_numpy(), out.adj_hi.to_numpy())):
        if col == "share":
            out["win_share"] = np.where(field_rows, (1 - out.share) / k, out.share)
            continue
        out[f"{col}_lo"] = np.where(field_rows, (1 - hi) / k, lo)
        out[f"{col}_hi"] = np.where(field_rows, (1 - lo) / k, hi)
    out["verdict"] = np.where(out.adj_lo > out.parity, "beats",
                              np.where(out.adj_hi < out.parity, "loses", "even"))
    return out[["challenger", "kind", "change", "players", "direction", "games", "win_share",
                "parity", "ci_lo", "ci_hi", "adj_lo", "adj_hi", "adj_level", "p_value",
                "p_holm", "holm_m", "significant", "verdict"]]


def wilson_interval_rows(table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The unadjusted 95% Wilson interval of each row's tested share."""
    pairs = [wilson_interval(s * g, int(g)) for s, g in zip(table.share, table.games,
                                                               strict=True)]
    return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])


def beaten_by(table: pd.DataFrame) -> list[str]:
    """The challengers that beat AGENT somewhere, in table order, each once."""
    return list(dict.fromkeys(table[table.verdict == "beats"].challenger))


def format_probe(table: pd.DataFrame) -> str:
    """The probe table as Markdown: every challenger, the corrected interval and verdict."""
    level = ""
    if not table.empty:
        level = f" (Holm, m = {int(table.holm_m.iloc[0])})"
    lines = [f"| challenger | kind | players | direction | games | challenger win share "
             f"per seat | parity | corrected interval{level} | level | verdict |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in table.itertuples():
        lines.append(f"| {r.challenger} | {r.kind}: {r.change} | {r.players} | "
                     f"{r.direction} | {r.games} | {r.win_share:.3f} | {r.parity:.3f} | "
                     f"[{r.adj_lo:.3f}, {r.adj_hi:.3f}] | {100 * r.adj_level:.2f}% | "
                     f"{r.verdict} |")
    return "\n".join(lines)


def verdict_line(table: pd.DataFrame, agent: str) -> str:
    """The probe's last word: `no challenger beats AGENT`, or who does, where."""
    winners = table[table.verdict == "beats"]
    if winners.empty:
        return f"no challenger beats {agent}"
    where = [f"{r.challenger} ({r.players} players, {r.direction}: {r.win_share:.3f} "
             f"[{r.adj_lo:.3f}, {r.adj_hi:.3f}])" for r in winners.itertuples()]
    return f"{len(beaten_by(table))} challenger(s) beat {agent}: " + "; ".join(where)
