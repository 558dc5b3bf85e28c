"""Playing Dice Race: its two agents and a batch of games from their seeds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dice_race.die import Die
from dice_race.rules import DiceRules
from sim.core.kind import GameError

AGENTS = {"random": ("stop", 0.5), "steady": ("at", 6)}
END_REASONS = {1: "target", 2: "turn_limit"}


def parse_agent(spec: str) -> tuple[str, float]:
    """`random[:stop=P]` or `steady[:at=N]`; GameError naming the spec otherwise."""
    name, _, param = spec.partition(":")
    if name not in AGENTS:
        raise GameError(f"unknown Dice Race agent {spec!r} (agents: {', '.join(AGENTS)})",
                        field="agents")
    key, value = AGENTS[name]
    if param:
        k, _, v = param.partition("=")
        try:
            value = float(v) if k == key else None  # type: ignore[assignment]
        except ValueError:
            value = None  # type: ignore[assignment]
        if value is None:
            raise GameError(f"agent {spec!r}: {name} takes {key}=NUMBER", field="agents")
    return name, float(value)


def stops(agent: tuple[str, float], total: int, rng: np.random.Generator) -> bool:
    name, value = agent
    return bool(rng.random() < value) if name == "random" else total >= value


@dataclass
class Batch:
    """Games in order: scores by seat, turns played, end reason code, decisions."""

    scores: np.ndarray  # (games, players)
    turns: np.ndarray
    end: np.ndarray
    decisions: np.ndarray


def play_batch(die: Die, rules: DiceRules, seeds: Sequence[int],
               lineups: Sequence[Sequence[str]]) -> Batch:
    n, p = len(seeds), rules.players
    out = Batch(np.zeros((n, p), np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
                np.zeros(n, np.int64))
    for g, (seed, lineup) in enumerate(zip(seeds, lineups, strict=True)):
        rng = np.random.default_rng(seed)
        agents = [parse_agent(s) for s in lineup]
        scores = rules.seat_start()
        turn, end = 0, 2
        while end == 2 and turn < rules.max_turns * p:
            seat = turn % p
            total = 0
            while True:
                face = die.faces[int(rng.integers(len(die.faces)))]
                if face == die.faces[0]:
                    total = 0
                    break
                total += face
                out.decisions[g] += 1
                if scores[seat] + total >= rules.target or stops(agents[seat], total, rng):
                    break
            scores[seat] += total
            turn += 1
            if scores[seat] >= rules.target:
                end = 1
        out.scores[g] = scores
        out.turns[g] = turn
        out.end[g] = end
    return out


def concat(batches: Sequence[Batch]) -> Batch:
    return Batch(*(np.concatenate([getattr(b, f) for b in batches])
                   for f in ("scores", "turns", "end", "decisions")))
