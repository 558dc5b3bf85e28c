"""Agent specs: `name` or `name:key=value,key=value`, e.g. `random:move_chance=0.1`, and
restricted agents `wrapper(spec)`, e.g. `no-district(heuristic:district=0.8)` (nesting
allowed). Unknown names and parameters are errors that list what exists; a budget over its
cap (`sim.games.portobello.budgets`) is an error naming the parameter, the value and the cap."""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sim.core.errors import PortobelloError
from sim.core.specs import split_specs as split_specs  # a line-up's grammar, every game's
from sim.games.portobello.agents import weight_sets
from sim.games.portobello.agents.base import BaseAgent
from sim.games.portobello.agents.base import CompiledRow
from sim.games.portobello.agents.expert import ExpertAgent
from sim.games.portobello.agents.expert_search import ExpertSearchAgent
from sim.games.portobello.agents.fast_mcts import FastMCTSAgent
from sim.games.portobello.agents.greedy import GreedyAgent
from sim.games.portobello.agents.heuristic import HeuristicAgent
from sim.games.portobello.agents.openspiel_bots import OpenSpielISMCTSAgent
from sim.games.portobello.agents.openspiel_bots import OpenSpielMCTSAgent
from sim.games.portobello.agents.random_agent import RandomAgent
from sim.games.portobello.agents.restricted import WRAPPERS
from sim.games.portobello.agents.restricted import RestrictedAgent
from sim.games.portobello.budgets import CAPS
from sim.games.portobello.budgets import budget_error


class AgentSpecError(PortobelloError):
    """An agent spec that names no agent or a parameter the agent does not take."""


AGENTS: dict[str, Callable[..., BaseAgent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
    "fastmcts": FastMCTSAgent,
    "mcts": FastMCTSAgent,  # the search has one implementation; both names play it
    "expert-search": ExpertSearchAgent,
    "expert": ExpertAgent,
    "openspiel-mcts": OpenSpielMCTSAgent,
    "openspiel-ismcts": OpenSpielISMCTSAgent,
}

# Agents the compiled agents of `sim.games.portobello.agents.compiled` play: the row each declares
# (`compiled_row`) is used only for exactly these classes, so a subclass that plays
# differently never inherits one.
COMPILED: dict[str, type[BaseAgent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
    "expert": ExpertAgent,
}

_WRAPPED = re.compile(r"([A-Za-z][\w-]*)\((.*)\)", re.DOTALL)


def available() -> str:
    """What exists, for error messages and help: agents and restriction wrappers."""
    return (f"agents: {', '.join(sorted(AGENTS))}; restricted: "
            f"{', '.join(f'{w}(AGENT)' for w in WRAPPERS)}")


def _convert(text: str, default: Any) -> Any:
    if isinstance(default, bool):
        if text.lower() in ("1", "true", "yes", "on"):
            return True
        if text.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"{text!r} is not true or false")
    if isinstance(default, int):
        return int(text)
    if isinstance(default, float) or default is None:  # None: a weight taken from a set
        return float(text)
    return text


def agent_params(name: str) -> dict[str, Any]:
    """The tunable parameters of a registered agent and their defaults."""
    sig = inspect.signature(AGENTS[name])
    return {k: p.default for k, p in sig.parameters.items()
            if k not in ("seed", "spec") and p.default is not inspect.Parameter.empty}


def parse_spec(spec: str, caps: Mapping[str, float] = CAPS,
               whose: str = "the cap") -> tuple[str, dict[str, Any]]:
    """Split and check an agent spec; errors list what exists, and a budget over its cap in
    `caps` (every command's, `sim.games.portobello.budgets.CAPS`, unless a caller such as the play
    server gives tighter ones, named by `whose`) names the parameter, the value and the cap.

    A restricted agent `wrapper(inner)` parses to `(wrapper, {"agent": inner})` after the
    inner spec has been checked the same way."""
    spec = spec.strip()
    wrapped = _WRAPPED.fullmatch(spec)
    if wrapped:
        wrapper, inner = wrapped.group(1), wrapped.group(2).strip()
        if wrapper not in WRAPPERS:
            raise AgentSpecError(f"unknown restriction {wrapper!r} in {spec!r} "
                                 f"({available()})", field="agents")
        if not inner:
            raise AgentSpecError(f"{wrapper}() needs an agent inside, e.g. {wrapper}(heuristic)",
                                 field="agents")
        parse_spec(inner, caps, whose)
        return wrapper, {"agent": inner}
    if "(" in spec or ")" in spec:
        raise AgentSpecError(f"malformed agent spec {spec!r}: a restricted agent is written "
                             f"WRAPPER(AGENT), e.g. no-district(heuristic) ({available()})",
                             field="agents")
    name, _, rest = spec.partition(":")
    if name not in AGENTS:
        raise AgentSpecError(f"unknown agent {name!r} ({available()})", field="agents")
    defaults = agent_params(name)
    params: dict[str, Any] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq:
            raise AgentSpecError(f"agent {name}: parameter {item!r} must be key=value",
                                 field="agents")
        if key not in defaults:
            known = ", ".join(f"{k}={v}" for k, v in defaults.items()) or "none"
            raise AgentSpecError(f"agent {name} has no parameter {key!r} (parameters: {known})",
                                 field="agents")
        try:
            params[key] = _convert(value, defaults[key])
        except ValueError:
            kind = "float" if defaults[key] is None else type(defaults[key]).__name__
            raise AgentSpecError(f"agent {name}: parameter {key}={value!r} must be a {kind}",
                                 field="agents") from None
    problem = _budget_problem(name, params, caps, whose)
    if problem is not None:
        raise AgentSpecError(f"agent {name}: {problem}", field="agents")
    if isinstance(params.get("weights"), str):
        weight_sets.check(params["weights"])  # a bad set fails here, before any game
    return name, params


def _budget_problem(name: str, params: Mapping[str, Any], caps: Mapping[str, float],
                    whose: str) -> str | None:
    """Why one of agent `name`'s parameters is over its cap in `caps` or below its least
    value (`sim.games.portobello.budgets.budget_error`), or None. A weight of the heuristic (a
    parameter whose default is None, taken from a weight set) is no budget, whatever its
    name: the heuristic's `horizon` weighs the end of the game, it plays no rounds."""
    defaults = agent_params(name)
    for key, value in params.items():
        problem = None if defaults.get(key) is None else budget_error(key, value, caps, whose)
        if problem is not None:
            return problem
    return None


# Parameters that give an agent a budget of seconds rather than of work: with any of them
# above 0 the agent's moves depend on how fast the machine runs (and on what else runs on
# it), so two runs of one spec and seed may play different games.
TIME_PARAMS: tuple[str, ...] = ("time",)


def time_budget(spec: str) -> str | None:
    """The time budget of an agent spec (under any restriction wrappers) as written, e.g.
    `time=0.5`, or None when its play depends on its seed alone. Studies refuse specs with
    one: their games must be the same on every machine."""
    name, params = parse_spec(spec)
    if name in WRAPPERS:
        return time_budget(params["agent"])
    timed = [k for k in TIME_PARAMS if k in agent_params(name)
             and float(params.get(k, agent_params(name)[k]) or 0) > 0]
    return ", ".join(f"{k}={params.get(k, agent_params(name)[k])}" for k in timed) or None


def make_agent(spec: str, seed: int | None = 0) -> BaseAgent:
    """An agent from its spec string, seeded."""
    name, params = parse_spec(spec)
    if name in WRAPPERS:
        return RestrictedAgent(make_agent(params["agent"], seed), name, spec=spec.strip())
    try:
        return AGENTS[name](seed=seed, spec=spec.strip(), **params)
    except ValueError as exc:  # a value the agent refuses (a budget of 0, an unknown mode)
        raise AgentSpecError(f"agent {name}: {exc}", field="agents") from None


def weight_files(spec: str) -> dict[str, str]:
    """The weight-set files an agent spec reads (under any wrappers), with a hash of each:
    a run's identity includes them, so other weights under the same path are another run."""
    name, params = parse_spec(spec)
    if name in WRAPPERS:
        return weight_files(params["agent"])
    ref = params.get("weights")
    if isinstance(ref, str) and weight_sets.is_path(ref):
        return {ref: weight_sets.read_weight_set(ref).digest}
    return {}


def model_files(spec: str, players: int) -> dict[str, str]:
    """The model files an agent spec plays at `players` (under any wrappers): a learned
    agent's `model=FILE`, else the model shipped for the player count, each with the
    checksum of its weights. A run's identity includes them, so a model trained again
    under the same path (or a shipped model replaced) starts another run."""
    name, params = parse_spec(spec)
    if name in WRAPPERS:
        return model_files(params["agent"], players)
    if "model" not in agent_params(name):
        return {}
    path = str(params.get("model") or "")
    if not path:
        from sim.games.portobello.agents.expert import SHIPPED

        shipped = SHIPPED / f"expert-{players}p.model"
        if not shipped.is_file():
            return {}
        return {f"shipped:{shipped.name}": _model_checksum(str(shipped))}
    return {path: _model_checksum(path)}


def _model_checksum(path: str) -> str:
    """The checksum of a model file's weights, read (and verified) once per file state."""
    p = Path(path)
    state = p.stat()
    return _checksum_of(str(p.resolve()), state.st_size, state.st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _checksum_of(path: str, size: int, mtime: int) -> str:
    from sim.games.portobello.agents.model import Model

    return str(Model.load(path).header["checksum"])


def compiled_row(spec: str, players: int) -> CompiledRow | None:
    """The row of the compiled agent table an agent spec plays (under any restriction
    wrappers) in games of `players`, or None when the agent has none or the spec is not
    valid."""
    try:
        agent = make_agent(spec)
    except (ValueError, TypeError, KeyError, PortobelloError):
        return None
    playing = agent
    while isinstance(playing, RestrictedAgent):
        playing = playing.inner
    if type(playing) is not COMPILED.get(playing.name):
        return None
    return playing.compiled_row(players)
