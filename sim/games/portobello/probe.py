"""Portobello Market's challengers for the exploitability probe (`analysis.probe`,
`portobello tournament --probe AGENT`), asked through its report facet
(`sim.games.portobello.report.probe_challengers`).

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
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from analysis.probe import Challenger
from analysis.probe import ProbeConfig
from analysis.probe import ProbeError
from sim.games.portobello.agents import weight_sets
from sim.games.portobello.agents.evaluate import Weights
from sim.games.portobello.agents.registry import compiled_row
from sim.games.portobello.agents.registry import make_agent
from sim.games.portobello.agents.registry import parse_spec
from sim.games.portobello.agents.restricted import WRAPPERS
from sim.games.portobello.board import Board
from sim.games.portobello.engines import engine_name
from sim.games.portobello.engines import select_engine
from sim.games.portobello.rules import Rules
from sim.run.loop import derive_seed

WEIGHTED = ("heuristic", "mcts", "fastmcts")  # agents whose play takes a weight set
FILE_WEIGHTS = ("mcts", "fastmcts")  # ... through `weights=` only (a weight-set file)
PILOT_GAMES = 24  # games per stepped weight and sign in the influence pilot


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
    """Write a weight-set file (`sim.games.portobello.agents.weight_sets`) holding every
    weight."""
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


# -- the facet's answers ----------------------------------------------------------------------
def check_probe(config: ProbeConfig) -> None:
    """Refuse weights to step that AGENT does not play (unknown weights, an agent without
    weights)."""
    if config.weights is None:
        return
    _, inner = unwrap(config.agent)
    unknown = [w for w in config.weights if w not in Weights.names()]
    if unknown:
        raise ProbeError(f"unknown weight(s) {', '.join(unknown)} (weights: "
                         f"{', '.join(Weights.names())})", field="--probe-weights")
    if parse_spec(inner)[0] not in WEIGHTED:
        raise ProbeError(f"{config.agent} plays no weights to step "
                         f"(weighted agents: {', '.join(WEIGHTED)})", field="--probe-weights")


def probe_challengers(config: ProbeConfig, players: int, weights_dir: Path
                      ) -> tuple[list[Challenger], dict[str, float] | None]:
    """AGENT's challengers at `players` and, when the weights to step are not named, the
    pilot's ranking of every weight (`influence`; the `top` ones are stepped)."""
    stepped = config.weights
    ranked = None
    if stepped is None:
        ranked = influence(config.agent, players, config.board, config.rules, seed=config.seed,
                           step=config.step, engine=config.engine)
        order = sorted(ranked, key=lambda k: -ranked[k])  # ties: the Weights order
        stepped = tuple(order[:config.top])
    found = challengers(config.agent, players, seed=config.seed, random=config.random,
                        sigma=config.sigma, step=config.step, weights=stepped,
                        weights_dir=weights_dir)
    if not found:
        raise ProbeError(f"nothing to probe {config.agent} with: it carries every "
                         "restriction and plays no weights", field="--probe")
    return found, ranked
