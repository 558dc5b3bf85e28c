"""The one generator (`sim.core.rng`) against an independent reading of its
definition: SplitMix64 (Steele, Lea and Flood 2014) stepped from a key, Lemire's bounded
draw, Fisher-Yates from the back. The oracle here is plain Python integers; every check of
a value is exact, and the statistical checks are loose enough never to fail by chance
(each bound is more than six standard deviations)."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from numba import njit

from sim.core import rng as R

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


class Oracle:
    """The generator of stream `stream` of `seed`, in Python integers."""

    def __init__(self, seed: int, stream: int) -> None:
        self.key = mix((mix((seed & MASK) ^ GOLDEN) + stream * GOLDEN) & MASK)
        self.counter = 0

    def u64(self) -> int:
        self.counter += 1
        return mix((self.key + self.counter * GOLDEN) & MASK)

    def below(self, n: int) -> int:
        while True:
            m = (self.u64() >> 32) * n
            if (m & 0xFFFFFFFF) >= (2**32 - n) % n:
                return m >> 32

    def shuffle(self, items: list[int]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


SEEDS = [0, 1, 2, 12345, 2**31 - 1, 2**32, 2**63 - 1, 2**64 - 1, -1, -5, 987654321987654321]


def test_a_zero_key_steps_through_splitmix64s_published_sequence() -> None:
    """SplitMix64 seeded with 0 is the reference stream of Vigna's splitmix64.c; its first
    outputs are e220a8397b1dcdaf, 6e789e6aa1b965f4, 06c45d188009454f (quoted in many ports'
    tests). A generator whose key is 0 draws exactly those."""
    gen = np.zeros(R.WORDS, np.uint64)
    assert [int(R.next_u64(gen)) for _ in range(3)] == [
        0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("stream", [0, 1, 4])
def test_every_draw_is_the_oracles(seed: int, stream: int) -> None:
    gen, oracle = R.new(seed, stream), Oracle(seed, stream)
    for n in (1, 2, 3, 7, 10, 52, 1000, 2**31 - 1, 2**31, 3 * 2**30, 2**32 - 1):
        assert R.below(gen, n) == oracle.below(n)
    assert R.random(gen) == (oracle.u64() >> 11) / 2**53
    items = list(range(17))
    arr = np.arange(17)
    R.shuffle(gen, arr, 17)
    oracle.shuffle(items)
    assert arr.tolist() == items
    assert int(gen[R.KEY]) == oracle.key and int(gen[R.COUNTER]) == oracle.counter


def test_a_whole_number_seed_is_its_low_64_bits_and_a_text_seed_is_stable() -> None:
    assert R.word(-1) == R.word(2**64 - 1) == 2**64 - 1
    assert R.word(2**64 + 3) == 3
    assert R.word("oracle") == R.word("oracle") != R.word("oracle2")
    assert R.word(None) != R.word(None)  # fresh entropy (equal once in 2**64)
    assert R.new(-5).tolist() == R.new(2**64 - 5).tolist()


def test_streams_and_seeds_do_not_share_numbers() -> None:
    """The first thousand numbers of ten streams of ten neighbouring seeds: all distinct (a
    repeat among 100,000 64-bit draws would come once in 2**30 runs)."""
    seen = set()
    for seed, stream in itertools.product(range(10), range(10)):
        gen = R.new(seed, stream)
        seen.update(int(R.next_u64(gen)) for _ in range(1000))
    assert len(seen) == 100_000


def test_a_generator_is_its_two_words() -> None:
    """Copying the two words forks the generator: both go on alike."""
    gen = R.new(7)
    for _ in range(5):
        R.next_u64(gen)
    fork = gen.copy()
    assert [R.below(gen, 100) for _ in range(50)] == [R.below(fork, 100) for _ in range(50)]


def test_below_is_uniform_and_reaches_the_rejection_path() -> None:
    """60,000 draws below 6: each face within 6 sd of 10,000 (sd 91). Below 3 x 2**30 the
    multiply-and-reject refuses a quarter of the upper words; the draws still never reach n
    and split evenly across the three quarters of the range."""
    gen = R.new(11)
    faces = Counter(R.below(gen, 6) for _ in range(60_000))
    assert sorted(faces) == list(range(6))
    assert all(abs(c - 10_000) < 550 for c in faces.values())
    n = 3 * 2**30
    draws = [R.below(gen, n) for _ in range(30_000)]
    assert max(draws) < n
    thirds = Counter(d // 2**30 for d in draws)
    assert all(abs(c - 10_000) < 500 for c in thirds.values())


def test_every_order_of_a_shuffle_is_equally_likely() -> None:
    """24,000 shuffles of four items: each of the 24 orders within 6 sd of 1,000 (sd 31)."""
    gen = R.new(3)
    orders: Counter[tuple[int, ...]] = Counter()
    arr = np.zeros(4, np.int64)
    for _ in range(24_000):
        arr[:] = np.arange(4)
        R.shuffle(gen, arr, 4)
        orders[tuple(arr.tolist())] += 1
    assert len(orders) == 24
    assert all(abs(c - 1000) < 190 for c in orders.values())


def test_a_shuffle_touches_only_the_first_n_items() -> None:
    arr = np.arange(10)
    R.shuffle(R.new(1), arr, 4)
    assert sorted(arr[:4].tolist()) == [0, 1, 2, 3] and arr[4:].tolist() == list(range(4, 10))


def test_a_seats_seed_is_stream_seat_plus_one_of_the_game_seed() -> None:
    for game_seed in SEEDS:
        expected = [Oracle(game_seed, p + 1).key >> 1 for p in range(4)]
        assert R.seat_seeds(game_seed, 4) == expected
    as_int64 = np.array([R.word(s) for s in SEEDS], np.uint64).view(np.int64)
    assert R.seat_seeds_batch(as_int64, 3).tolist() == [R.seat_seeds(s, 3) for s in SEEDS]


@njit(cache=False)
def _draws_in_compiled_code(gen: np.ndarray) -> tuple[int, float, int]:
    return R.below(gen, 1000), R.random(gen), R.below(gen, 7)


def test_compiled_callers_draw_what_python_callers_draw() -> None:
    a, b = R.new(99), R.new(99)
    assert _draws_in_compiled_code(a) == (R.below(b, 1000), R.random(b), R.below(b, 7))
