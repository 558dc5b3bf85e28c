"""The one generator of the game and its agents: counter-based, keyed by a seed and a
stream, so that any game replays from its seed alone, the same on every platform.

A generator is two unsigned 64-bit words, (key, counter); its k-th number is SplitMix64's
output function applied to key + k x the golden-ratio constant (Steele, Lea and Flood,
"Fast splittable pseudorandom number generators", OOPSLA 2014). Nothing else is kept, so a
generator is copied, stored or restarted as two words, and no stream's numbers depend on
how many another stream drew.

Streams of a game seed: the chance player (the bag, the known line's shuffle) draws from
stream 0 of the game's seed; the agent in seat p is seeded with `seat_seed(game seed, p)`
and draws from stream 0 of that seed. The key of stream s of seed x is the output function
applied twice (`key_of`), which spreads nearby seeds and streams over the whole 64-bit
space.

Every function marked compiled runs from Python too (and as plain Python with numba's JIT
disabled); the Python side never draws a number another way.
"""

from __future__ import annotations

import hashlib
import secrets

import numpy as np
from numba import njit

import sim.core.jit  # noqa: F401  (the compile cache's folder, set before any compiling)

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
CHANCE_STREAM = 0  # the chance player's stream of the game seed
AGENT_STREAM = 0  # an agent's stream of its own seed
KEY, COUNTER = 0, 1  # the generator's two words
WORDS = 2
_MASK64 = (1 << 64) - 1


@njit(cache=True, inline="always", _nrt=False)
def mix(z: np.uint64) -> np.uint64:
    """SplitMix64's output function: a bijection of 64-bit words that spreads every bit."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always", _nrt=False)
def key_of(seed: np.uint64, stream: int) -> np.uint64:
    """The key of stream `stream` of `seed` (a seed's bits read as an unsigned word)."""
    return mix(mix(np.uint64(seed) ^ GOLDEN) + np.uint64(stream) * GOLDEN)


@njit(cache=True, inline="always", _nrt=False)
def start(gen: np.ndarray, seed: np.uint64, stream: int) -> None:
    """Set `gen` to the start of stream `stream` of `seed`."""
    gen[KEY] = key_of(seed, stream)
    gen[COUNTER] = np.uint64(0)


@njit(cache=True, inline="always", _nrt=False)
def seat_seed(game_seed: np.uint64, seat: int) -> int:
    """The seed of the agent in `seat` of the game of `game_seed`: stream seat + 1 of the
    game seed's key, as a 63-bit whole number (any agent, compiled or not, takes it)."""
    return np.int64(key_of(game_seed, seat + 1) >> np.uint64(1))


@njit(cache=True, inline="always", _nrt=False)
def next_u64(gen: np.ndarray) -> np.uint64:
    """The next 64 random bits."""
    gen[COUNTER] += np.uint64(1)
    return mix(gen[KEY] + gen[COUNTER] * GOLDEN)


@njit(cache=True, inline="always", _nrt=False)
def random(gen: np.ndarray) -> float:
    """A number in [0, 1) with 53 random bits."""
    return float(next_u64(gen) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always", _nrt=False)
def below(gen: np.ndarray, n: int) -> int:
    """A whole number in [0, n), each equally likely (Lemire's multiply-and-reject on the
    upper 32 bits; 1 <= n < 2**32)."""
    bound = np.uint64(n)
    m = (next_u64(gen) >> np.uint64(32)) * bound
    low = m & np.uint64(0xFFFFFFFF)
    if low < bound:
        floor = (np.uint64(0x100000000) - bound) % bound
        while low < floor:
            m = (next_u64(gen) >> np.uint64(32)) * bound
            low = m & np.uint64(0xFFFFFFFF)
    return np.int64(m >> np.uint64(32))


@njit(cache=True, _nrt=False)
def shuffle(gen: np.ndarray, arr: np.ndarray, n: int) -> None:
    """Shuffle arr[:n] in place, every order equally likely (Fisher-Yates from the back)."""
    for i in range(n - 1, 0, -1):
        j = below(gen, i + 1)
        arr[i], arr[j] = arr[j], arr[i]


@njit(cache=True)
def seat_seeds_batch(game_seeds: np.ndarray, players: int) -> np.ndarray:
    """`seat_seed` of every seat of every game: a (games, players) int64 array."""
    out = np.empty((game_seeds.shape[0], players), np.int64)
    for g in range(game_seeds.shape[0]):
        for p in range(players):
            out[g, p] = seat_seed(np.uint64(game_seeds[g]), p)
    return out


def word(seed: int | str | None) -> int:
    """A seed as the unsigned 64-bit word the generator is keyed by: a whole number's low 64
    bits (so -1 and 2**64 - 1 are one seed), a text's first 8 bytes of BLAKE2b, and fresh
    entropy for None."""
    if seed is None:
        return secrets.randbits(64)
    if isinstance(seed, str):
        return int.from_bytes(hashlib.blake2b(seed.encode(), digest_size=8).digest(), "little")
    return int(seed) & _MASK64


def new(seed: int | str | None, stream: int = AGENT_STREAM) -> np.ndarray:
    """A generator at the start of stream `stream` of `seed`."""
    gen = np.zeros(WORDS, np.uint64)
    start(gen, np.uint64(word(seed)), stream)
    return gen


def seat_seeds(game_seed: int, players: int) -> list[int]:
    """The seeds of the agents of a game, seat by seat (`seat_seed`)."""
    return [int(seat_seed(np.uint64(word(game_seed)), p)) for p in range(players)]
