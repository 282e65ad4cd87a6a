"""Huang et al. Figure 1 data: DFAs extracted from the oracles, next-symbol sets, App. E.2.1 transcripts."""

import numpy as np
import pytest

from constructions.crasp import oracles
from constructions.tasks.errors import TaskError
from constructions.tasks.huang2024 import (
    ALGORITHMIC,
    EOS,
    LANGUAGES,
    LETTERS,
    AlgorithmicTask,
    LanguageTask,
    learn_dfa,
    make_task,
)


@pytest.mark.parametrize("name", LANGUAGES)
def test_language_samples_are_members_with_exact_next_sets(name):
    task = LanguageTask(name)
    rng = np.random.default_rng(0)
    for n in task.lengths(1, 40)[::7]:
        ex = task.sample(n, rng)
        word = "".join(ex.tokens[1:])
        assert len(word) == n and oracles.ORACLES[name](word)
        # the next-symbol set after each prefix, recomputed from the oracle by brute force on short words
        if n <= 6:
            for i in range(n + 1):
                prefix = word[:i]
                legal = {s for s in task.alphabet
                         if any(oracles.ORACLES[name](prefix + s + "".join(w))
                                for w in _words(task.alphabet, 6))}
                legal |= {EOS} if oracles.ORACLES[name](prefix) else set()
                assert ex.targets[i] == frozenset(legal), (name, prefix)


def _words(alphabet, r):
    import itertools

    return [w for k in range(r + 1) for w in itertools.product(alphabet, repeat=k)]


def test_aa_star_next_sets_by_hand():
    task = LanguageTask("aa_star")
    ex = task.sample(4, np.random.default_rng(1))
    assert ex.tokens == ("$", "a", "a", "a", "a")
    assert ex.targets == (frozenset({"a", EOS}), frozenset({"a"}), frozenset({"a", EOS}), frozenset({"a"}),
                          frozenset({"a", EOS}))
    assert task.lengths(1, 7) == [2, 4, 6]


def test_too_short_suffixes_are_caught():
    """Negative control: with suffixes of length <= 3 aa*bb*cc*dd*ee* looks like fewer states; the check rejects it."""
    with pytest.raises(TaskError, match="disagrees"):
        learn_dfa(oracles.ORACLES["a_b_c_d_e"], "abcde", suffix_len=3, check_len=6)


def _transcript(ex):
    return "".join(ex.tokens[1:-1])  # drop $ and EOS


@pytest.mark.parametrize("name", ["binary_majority", "binary_majority_interleave", "copy_repeat", "addition"])
def test_transcripts_accepted_by_the_oracles(name):
    task = AlgorithmicTask(name)
    rng = np.random.default_rng(2)
    for n in task.lengths(1, 30):
        ex = task.sample(n, rng)
        assert oracles.ORACLES[name](_transcript(ex)), _transcript(ex)
        supervised = [i for i, t in enumerate(ex.targets) if t is not None]
        assert ex.targets[supervised[-1]] == EOS and ex.tokens[supervised[0]] == task.spec.sep


def test_majority_sort_copy_parity_against_oracles():
    rng = np.random.default_rng(3)
    maj = oracles.majority_letters(LETTERS)
    cipher = {str(i): chr(0x4E00 + i) for i in range(150)}  # one order-preserving character per number
    for n in (1, 5, 20):
        assert maj(_transcript(make_task("majority_letters").sample(n, rng)))
        s = make_task("sort").sample(n, rng)
        assert oracles.sort_task("".join(cipher.get(t, t) for t in s.tokens[1:-1]))
        c = make_task("copy_unique").sample(n, rng)
        assert oracles.copy_unique("#" + "".join(cipher.get(t, t) for t in c.tokens[1:-1]))
        p = make_task("parity").sample(n, rng)
        assert (p.tokens[-2] == "e") == oracles.parity("".join(p.tokens[1:-3]))


def test_wrong_answer_is_rejected_by_the_oracle():
    """Negative control for the transcript check: flipping the answer bit makes the oracle reject."""
    ex = AlgorithmicTask("binary_majority").sample(7, np.random.default_rng(4))
    w = _transcript(ex)
    flipped = w[:-1] + ("0" if w[-1] == "1" else "1")
    assert not oracles.binary_majority(flipped)


def test_bad_names_and_lengths():
    with pytest.raises(TaskError, match="unknown task"):
        make_task("tomita9")
    with pytest.raises(TaskError, match="no word of length 3"):
        LanguageTask("aa_star").sample(3, np.random.default_rng(0))
    with pytest.raises(TaskError, match="multiple of 3"):
        AlgorithmicTask("binary_majority_interleave").sample(7, np.random.default_rng(0))
    assert set(ALGORITHMIC) == {"binary_majority", "binary_majority_interleave", "majority_letters", "sort",
                                "copy_unique", "copy_repeat", "parity", "addition"}
