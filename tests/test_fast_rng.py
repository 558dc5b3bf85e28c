"""The numba Mersenne Twister (`sim.engine.compiled.rng`) against CPython's `random.Random`.

The compiled game loop must replay the pure-Python agents' and engine's choices exactly,
so every check here is exact equality of values and of the full generator state, never
a statistical test.
"""

from __future__ import annotations

import random

import numba
import numpy as np
import pytest

from sim.engine.compiled import rng as fr

# A fixed list of 50 seeds of assorted widths (8 to 63 bits), plus the edge cases.
_SEED_SOURCE = random.Random(20240611)
FIXED_SEEDS = [_SEED_SOURCE.getrandbits((8, 16, 31, 32, 33, 48, 62, 63)[i % 8])
               for i in range(50)]
EDGE_SEEDS = [0, 1, 2, 12345, 2**31 - 1, 2**32 - 1, 2**32, 2**32 + 5, 2**63 - 1]
SEEDS = EDGE_SEEDS + FIXED_SEEDS

LARGE_N = [2**16 + 1, 10**6, 2**30 - 1, 2**30 + 1, 10**9, 2**31 - 1, 2**31, 2**32 - 1]


def pair(s: int) -> tuple[np.ndarray, random.Random]:
    """A compiled state and a Python generator seeded alike."""
    state = fr.new_state()
    fr.seed(state, s)
    return state, random.Random(s)


def assert_same_state(state: np.ndarray, rng: random.Random) -> None:
    assert state.tolist() == list(rng.getstate()[1])


def test_seed_list_is_fixed():
    assert len(FIXED_SEEDS) == 50
    assert len(set(SEEDS)) == len(SEEDS)
    assert all(0 <= s < 2**63 for s in SEEDS)


def test_new_state_layout():
    state = fr.new_state()
    assert state.dtype == np.uint32
    assert state.shape == (fr.STATE_SIZE,) == (625,)


@pytest.mark.parametrize("s", SEEDS)
def test_seed_gives_python_state(s):
    state, rng = pair(s)
    assert_same_state(state, rng)
    assert state[fr.INDEX] == 624


@pytest.mark.parametrize("s", [-1, -12345, -(2**32), -(2**63)])
def test_negative_seed_uses_abs_like_python(s):
    state, rng = pair(s)
    assert_same_state(state, rng)


@pytest.mark.parametrize("s", [2**63, 2**63 + 7, 2**64 - 1])
def test_seed_above_int64_as_uint64(s):
    state = fr.new_state()
    fr.seed(state, np.uint64(s))
    assert_same_state(state, random.Random(s))


def test_reseed_overwrites_everything():
    state, _ = pair(99)
    for _ in range(1000):
        fr.next_u32(state)
    fr.seed(state, 7)
    assert_same_state(state, random.Random(7))


@pytest.mark.parametrize("s", SEEDS)
def test_next_u32_is_getrandbits_32(s):
    state, rng = pair(s)
    # 1500 draws cross two twists
    assert [int(fr.next_u32(state)) for _ in range(1500)] == [
        rng.getrandbits(32) for _ in range(1500)]
    assert_same_state(state, rng)


@pytest.mark.parametrize("s", SEEDS)
def test_random_sequence(s):
    state, rng = pair(s)
    got = [fr.random(state) for _ in range(1000)]
    want = [rng.random() for _ in range(1000)]
    assert got == want  # exact float equality
    assert all(type(x) is float for x in got)
    assert_same_state(state, rng)


@pytest.mark.parametrize("s", SEEDS)
def test_randrange_small_n(s):
    state, rng = pair(s)
    got = [fr.below(state, n) for n in range(1, 301) for _ in range(3)]
    want = [rng.randrange(n) for n in range(1, 301) for _ in range(3)]
    assert got == want
    assert_same_state(state, rng)


@pytest.mark.parametrize("s", SEEDS)
def test_randrange_large_n(s):
    state, rng = pair(s)
    got = [fr.below(state, n) for n in LARGE_N for _ in range(20)]
    want = [rng.randrange(n) for n in LARGE_N for _ in range(20)]
    assert got == want
    assert_same_state(state, rng)


def test_below_matches_private_randbelow():
    state, rng = pair(424242)
    got = [fr.below(state, n) for n in (1, 2, 3, 5, 6, 7, 9, 100, 1000) * 50]
    want = [rng._randbelow(n) for n in (1, 2, 3, 5, 6, 7, 9, 100, 1000) * 50]
    assert got == want


@pytest.mark.parametrize("n", [0, -1, 2**32])
def test_below_rejects_bad_n(n):
    state, _ = pair(1)
    with pytest.raises(ValueError):
        fr.below(state, n)


@pytest.mark.parametrize("s", SEEDS)
def test_choice_on_lists(s):
    state, rng = pair(s)
    lists = [["only"], ["a", "b"], list("abcdefg"), list(range(30)), [(i, -i) for i in range(257)]]
    got = [seq[fr.below(state, len(seq))] for _ in range(40) for seq in lists]
    want = [rng.choice(seq) for _ in range(40) for seq in lists]
    assert got == want
    assert_same_state(state, rng)


@pytest.mark.parametrize("s", SEEDS)
def test_shuffle_lengths_0_to_40(s):
    state, rng = pair(s)
    for length in range(41):
        arr = np.arange(length, dtype=np.int64) * 3 + 1
        lst = arr.tolist()
        for _ in range(2):  # the second pass shuffles the already shuffled order
            fr.shuffle(state, arr, length)
            rng.shuffle(lst)
            assert arr.tolist() == lst
    assert_same_state(state, rng)


def test_shuffle_only_touches_first_n_items():
    state, rng = pair(5)
    arr = np.arange(20, dtype=np.int32)
    lst = list(range(12))
    fr.shuffle(state, arr, 12)
    rng.shuffle(lst)
    assert arr[:12].tolist() == lst
    assert arr[12:].tolist() == list(range(12, 20))


@pytest.mark.parametrize("s", SEEDS)
def test_interleaved_calls(s):
    state, rng = pair(s)
    script = random.Random(s ^ 0x5DEECE66D)  # which call to make next, independent of both
    deck = list(range(17))
    arr = np.array(deck, dtype=np.int64)
    for _ in range(600):
        op = script.randrange(5)
        if op == 0:
            assert fr.random(state) == rng.random()
        elif op == 1:
            n = script.randrange(1, 400)
            assert fr.below(state, n) == rng.randrange(n)
        elif op == 2:
            n = script.choice(LARGE_N)
            assert fr.below(state, n) == rng.randrange(n)
        elif op == 3:
            assert deck[fr.below(state, len(deck))] == rng.choice(deck)
        else:
            k = script.randrange(18)
            fr.shuffle(state, arr, k)
            head = deck[:k]
            rng.shuffle(head)
            deck[:k] = head
            assert arr.tolist() == deck
    assert_same_state(state, rng)


@numba.njit
def _compiled_mix(state, out_f, out_i, deck):
    """A compiled loop like the game loop's: the functions called from njit code."""
    for t in range(out_f.shape[0]):
        out_f[t] = fr.random(state)
        out_i[t, 0] = fr.below(state, 10)
        out_i[t, 1] = fr.below(state, t % 300 + 1)
        out_i[t, 2] = deck[fr.below(state, deck.shape[0])]
        fr.shuffle(state, deck, t % 9)
    fr.seed(state, 2**62 + 3)  # seeding from compiled code with an int64 too
    out_i[0, 3] = fr.below(state, 1000)


def _python_mix(rng, steps, deck):
    out_f, out_i = [], []
    for t in range(steps):
        out_f.append(rng.random())
        row = [rng.randrange(10), rng.randrange(t % 300 + 1), rng.choice(deck)]
        head = deck[:t % 9]
        rng.shuffle(head)
        deck[:t % 9] = head
        out_i.append(row)
    rng.seed(2**62 + 3)
    return out_f, out_i, rng.randrange(1000)


@pytest.mark.parametrize("s", EDGE_SEEDS + FIXED_SEEDS[:10])
def test_calls_from_compiled_code(s):
    steps = 700
    state, rng = pair(s)
    deck = np.arange(40, dtype=np.int64)
    out_f = np.empty(steps)
    out_i = np.zeros((steps, 4), dtype=np.int64)
    _compiled_mix(state, out_f, out_i, deck)
    want_f, want_i, last = _python_mix(rng, steps, list(range(40)))
    assert out_f.tolist() == want_f
    assert out_i[:, :3].tolist() == want_i
    assert out_i[0, 3] == last
    assert_same_state(state, rng)


@pytest.mark.parametrize("s", SEEDS[:20])
@pytest.mark.parametrize("before", [0, 1, 311, 623, 624, 625, 1300])
def test_state_round_trip(s, before):
    """Python -> compiled -> Python mid-stream gives the uninterrupted Python sequence."""
    reference = random.Random(s)
    handed = random.Random(s)
    for _ in range(before):
        reference.getrandbits(32)
        handed.getrandbits(32)

    state = fr.getstate_from_python(handed)
    assert state.dtype == np.uint32
    assert state.shape == (625,)
    assert_same_state(state, handed)
    compiled = [fr.below(state, 52) for _ in range(300)]
    assert compiled == [reference.randrange(52) for _ in range(300)]

    back = fr.setstate_to_python(state)
    assert [back.random() for _ in range(700)] == [reference.random() for _ in range(700)]
    assert back.getstate() == reference.getstate()


def test_getstate_copies_and_leaves_python_rng_alone():
    rng = random.Random(31337)
    before = rng.getstate()
    state = fr.getstate_from_python(rng)
    for _ in range(1000):
        fr.next_u32(state)
    assert rng.getstate() == before
    reference = random.Random(31337)
    assert [rng.random() for _ in range(5)] == [reference.random() for _ in range(5)]


def test_setstate_into_existing_rng_copies():
    state, _ = pair(8)
    target = random.Random(0)
    target.gauss(0.0, 1.0)  # leaves a cached gauss_next that setstate must clear
    out = fr.setstate_to_python(state, target)
    assert out is target
    assert target.getstate() == random.Random(8).getstate()
    target.random()
    assert_same_state(state, random.Random(8))  # the array is not shared


def test_getstate_refuses_cached_gauss():
    rng = random.Random(3)
    rng.gauss(0.0, 1.0)
    with pytest.raises(ValueError, match="gauss"):
        fr.getstate_from_python(rng)


def test_setstate_rejects_wrong_shape():
    with pytest.raises(ValueError):
        fr.setstate_to_python(np.zeros(624, np.uint32))


@pytest.mark.parametrize("count", [1, 2, 3, 4, 5, 8, 9])
def test_seed_rows_equals_seeding_each_row(count: int) -> None:
    """Seeding several generators side by side gives each the state `random.Random`
    would have (keys of one and two 32-bit words mixed)."""
    seeds = np.array([0, 2**32 - 1, 2**32, 2**63 - 1, 987654321987654321, 1, 2**40 + 7, 5,
                      2**62][:count], np.int64)
    for rows in (count, fr.seed_rows_room(count)):  # without and with scratch rows
        states = np.zeros((rows, 625), np.uint32)
        fr.seed_rows(states, seeds, count)
        for row, s in zip(states[:count], seeds, strict=True):
            assert np.array_equal(row, fr.getstate_from_python(random.Random(int(s))))


@pytest.mark.parametrize(("count", "room"), [(1, 4), (3, 4), (4, 4), (5, 8), (9, 12)])
def test_seed_rows_room_rounds_up_to_four(count: int, room: int) -> None:
    assert fr.seed_rows_room(count) == room
