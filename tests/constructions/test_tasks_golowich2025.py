"""Golowich et al. §5 data: sparse parity (eq. (20)) and parity with scratchpad (App. E.2.1)."""

import numpy as np
import pytest

from constructions.tasks.errors import TaskError
from constructions.tasks.golowich2025 import (
    BITS,
    parity_scratchpad,
    planted_positions,
    sparse_parity,
    training_lengths,
)


@pytest.mark.parametrize("ell,k,N", [(10, 1, 20), (25, 12, 20), (30, 7, 2)])
def test_sparse_parity_has_exactly_k_marked_and_the_right_label(ell, k, N):
    rng = np.random.default_rng(0)
    for _ in range(50):
        ex = sparse_parity(ell, k, N, rng)
        js = [int(t) for t in ex.tokens[1:-1:2]]
        bits = [BITS.index(t) for t in ex.tokens[2:-1:2]]
        assert len(ex.tokens) == 2 * ell + 2 and len(js) == ell == len(bits)
        assert all(1 <= j <= N for j in js)
        marked = [i + 1 for i, j in enumerate(js) if j <= N // 2]
        assert tuple(marked) == ex.marked and len(marked) == k
        assert ex.label == BITS[sum(bits[i - 1] for i in marked) % 2]
        assert all(ex.tokens[p - 1] in BITS or ex.tokens[p - 1].isdigit() for p in planted_positions(ex))


def test_sparse_parity_conditions_are_enforced():
    rng = np.random.default_rng(0)
    for ell, k, N in [(5, 5, 20), (5, 0, 20), (10, 2, 7), (10, 2, 0)]:
        with pytest.raises(TaskError):
            sparse_parity(ell, k, N, rng)
    assert training_lengths(12, 20, 50) == list(range(13, 26))
    assert training_lengths(1, 20, 50) == list(range(10, 26))
    with pytest.raises(TaskError):
        training_lengths(30, 20, 50)


def test_marked_positions_are_uniform_enough():
    """Each pair index is marked with probability k / ell (chi-square-free check: within 5 sigma)."""
    rng = np.random.default_rng(1)
    counts = np.zeros(10)
    trials = 4000
    for _ in range(trials):
        for i in sparse_parity(10, 3, 20, rng).marked:
            counts[i - 1] += 1
    p = 0.3
    assert np.all(np.abs(counts - trials * p) < 5 * np.sqrt(trials * p * (1 - p)))


@pytest.mark.parametrize("ell,jump", [(12, 1), (12, 2), (12, 3), (12, 4), (1, 1)])
def test_scratchpad_bits_and_coupled_ids(ell, jump):
    ex = parity_scratchpad(ell, jump, np.random.default_rng(2))
    bits = [BITS.index(t) for t in ex.tokens[1:ell + 1]]
    scratch = [BITS.index(t) for t in ex.tokens[ell + 2:]]
    assert len(scratch) == ell // jump
    assert scratch == [sum(bits[:jump * i]) % 2 for i in range(1, ell // jump + 1)]
    assert scratch[-1] == sum(bits) % 2
    ids = ex.coupled_ids
    assert ids[0] == 0 and ids[ell + 1] == 0 and list(ids[ell + 2:]) == list(range(1, ell // jump + 1))
    # input bit i shares its id with the scratchpad bit that first includes it
    assert all(ids[i] == -(-i // jump) for i in range(1, ell + 1))


def test_scratchpad_jump_must_divide():
    with pytest.raises(TaskError, match="dividing"):
        parity_scratchpad(10, 3, np.random.default_rng(0))
