"""Huang et al. §5 / App. E training data: the Figure 1 languages and algorithmic tasks as token sequences.

Every example is an :class:`Example`: ``tokens`` (strings, position 1 is the start symbol) and ``targets``
(one per position: the class the model must predict there, or ``None`` where nothing is supervised).

**Formal languages** (App. E.1; reference §5.1): at every position the target is the *set of legal next
symbols*, EOS included, coded as one atomic class (Bhattamishra et al. 2020).  The sets come from a DFA
that :func:`learn_dfa` extracts from the package's membership oracle (``constructions.crasp.oracles``) by
Myhill-Nerode refinement over suffixes of bounded length; the DFA is then compared with the oracle on
*every* word up to ``check_len`` and rejected (:class:`~constructions.tasks.errors.TaskError`) on any
disagreement, so a too-short suffix bound cannot go unnoticed.  Positive strings of length ``n`` are drawn
uniformly among the language's words of length ``n`` (exact path counts); lengths with no word are skipped.

**Algorithmic tasks** (App. E.2.1; reference §5.2): ``$ input # output EOS`` (Addition: ``$ a+b = sum
EOS``), with the input distributions of the reference code: Binary Majority (``#0 ~ U{0..n}``, ties
rejected), Binary Majority Interleave, Majority (26 letters, unique mode), Sort and Copy (unique) (``n``
distinct numbers out of 150), Copy (repeat) (``{a, b}``), Parity (number of ones uniform on ``{0..n}``),
Addition (binary, ``len(op1) ~ U[1, n-3]``).  Targets are the output tokens and EOS (predicted at the
position before each), as in the paper's masked cross-entropy.

``Len`` is the input length for algorithmic tasks and the string length for languages (reference §5.1).
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable
from dataclasses import dataclass

from constructions.crasp.oracles import ORACLES
from constructions.crasp.programs import BENCHMARKS, NO_PROGRAM
from constructions.tasks.errors import TaskError

SOS, SEP, EOS = "$", "#", "EOS"
NUMBER_TOKENS = 150  # Sort / Copy (unique): one token per number up to the maximal test length
LETTERS = "abcdefghijklmnopqrstuvwxyz"  # Majority's 26 letters


@dataclass(frozen=True)
class Example:
    tokens: tuple[str, ...]
    targets: tuple[object, ...]  # per position: a target class or None (not supervised)


# ------------------------------------------------------------------------------------ formal languages
LANGUAGES = ("tomita1", "tomita2", "tomita3", "tomita4", "tomita5", "tomita6", "tomita7", "d2", "d3", "d4",
             "d12", "aa_star", "aaaa_star", "abab_star", "a_b_c_d_e", "ab_d_bc", "zero_two_star")
_SUFFIX_LEN = {"d12": 13, "a_b_c_d_e": 5}  # D_n: depth n vs dead needs length n + 1; abcde: length 5


def language_alphabet(name: str) -> tuple[str, ...]:
    if name in BENCHMARKS:
        return tuple(BENCHMARKS[name].build().alphabet)
    if name in NO_PROGRAM:
        return tuple(NO_PROGRAM[name].alphabet)
    raise TaskError(f"unknown language {name!r}; known: {', '.join(LANGUAGES)}")


@dataclass(frozen=True)
class DFA:
    alphabet: tuple[str, ...]
    delta: tuple[dict, ...]  # delta[q][symbol] -> state
    accepting: frozenset[int]
    start: int = 0

    def run(self, word) -> int:
        q = self.start
        for s in word:
            q = self.delta[q][s]
        return q

    def accepts(self, word) -> bool:
        return self.run(word) in self.accepting

    def completions(self, max_len: int) -> list[list[int]]:
        """``c[r][q]``: number of words of length ``r`` leading from ``q`` to acceptance (exact integers)."""
        c = [[int(q in self.accepting) for q in range(len(self.delta))]]
        for _ in range(max_len):
            prev = c[-1]
            c.append([sum(prev[self.delta[q][s]] for s in self.alphabet) for q in range(len(self.delta))])
        return c


def _length_for(alphabet_size: int, budget: int) -> int:
    """The largest r with alphabet_size^0 + ... + alphabet_size^r <= budget (words of length <= r)."""
    r, total = 0, 1
    while total + alphabet_size ** (r + 1) <= budget:
        r += 1
        total += alphabet_size ** r
    return r


def learn_dfa(oracle: Callable[[str], bool], alphabet, suffix_len: int | None = None,
              check_len: int | None = None, max_states: int = 200) -> DFA:
    """The minimal DFA of ``oracle`` seen through suffixes of length ``<= suffix_len`` (Myhill-Nerode),
    checked against ``oracle`` on every word of length ``<= check_len`` (TaskError on a disagreement).
    The defaults are the longest lengths with at most 1,000 suffixes / 20,000 checked words."""
    alphabet = tuple(alphabet)
    suffix_len = _length_for(len(alphabet), 1000) if suffix_len is None else suffix_len
    check_len = _length_for(len(alphabet), 20000) if check_len is None else check_len
    suffixes = ["".join(w) for r in range(suffix_len + 1) for w in itertools.product(alphabet, repeat=r)]

    def signature(prefix: str):
        return tuple(oracle(prefix + s) for s in suffixes)

    states = {signature(""): 0}
    reps, delta = [""], []
    while len(delta) < len(reps):
        rep = reps[len(delta)]
        row = {}
        for s in alphabet:
            sig = signature(rep + s)
            if sig not in states:
                if len(states) >= max_states:
                    raise TaskError(f"more than {max_states} states: is the language regular?")
                states[sig] = len(reps)
                reps.append(rep + s)
            row[s] = states[sig]
        delta.append(row)
    dfa = DFA(alphabet, tuple(delta), frozenset(q for sig, q in states.items() if sig[0]))
    for r in range(check_len + 1):
        for w in itertools.product(alphabet, repeat=r):
            word = "".join(w)
            if dfa.accepts(word) != oracle(word):
                raise TaskError(f"learned DFA disagrees with the oracle on {word!r}; raise suffix_len")
    return dfa


class LanguageTask:
    """Next-symbol-set prediction for one benchmark language (see the module docstring)."""

    def __init__(self, name: str, max_len: int = 150):
        if name not in LANGUAGES:
            raise TaskError(f"unknown language {name!r}; known: {', '.join(LANGUAGES)}")
        self.name = name
        self.alphabet = language_alphabet(name)
        self.dfa = learn_dfa(ORACLES[name], self.alphabet, _SUFFIX_LEN.get(name))
        self.count = self.dfa.completions(max_len)
        self.max_len = max_len
        live = {q for q in range(len(self.dfa.delta)) if any(c[q] for c in self.count)}
        self._live = live
        symbols = (*self.alphabet, EOS)
        self.classes = [frozenset(c) for r in range(len(symbols) + 1) for c in itertools.combinations(symbols, r)]
        self.input_vocab = [SOS, *self.alphabet]
        # per state: its next-symbol set, and per remaining length r the cumulative completion counts of
        # its successors (exact integers), so that drawing a word does no per-symbol set or list building
        n_states = len(self.dfa.delta)
        self._next = [self.next_set(q) for q in range(n_states)]
        self._cumulative = [[list(itertools.accumulate(c[self.dfa.delta[q][s]] for s in self.alphabet))
                             for q in range(n_states)] for c in self.count]

    def max_tokens(self, n: int) -> int:
        return n + 1

    def lengths(self, lo: int, hi: int) -> list[int]:
        """The lengths in ``[lo, hi]`` that have at least one word."""
        return [n for n in range(lo, hi + 1) if self.count[n][self.dfa.start] > 0]

    def next_set(self, state: int) -> frozenset:
        legal = {s for s in self.alphabet if self.dfa.delta[state][s] in self._live}
        return frozenset(legal | ({EOS} if state in self.dfa.accepting else set()))

    def sample(self, n: int, rng) -> Example:
        """A uniformly random word of length ``n`` with its next-symbol sets."""
        if not 0 <= n <= self.max_len or self.count[n][self.dfa.start] == 0:
            raise TaskError(f"{self.name} has no word of length {n} (or n > {self.max_len})")
        q, word, sets = self.dfa.start, [], [self._next[self.dfa.start]]
        draws = rng.integers(1 << 62, size=n).tolist()
        for r in range(n, 0, -1):
            cumulative = self._cumulative[r - 1][q]
            # exact integers (up to |alphabet|^150): draw with Python ints
            s = self.alphabet[bisect.bisect_right(cumulative, draws[n - r] * cumulative[-1] >> 62)]
            word.append(s)
            q = self.dfa.delta[q][s]
            sets.append(self._next[q])
        return Example((SOS, *word), tuple(sets))


# --------------------------------------------------------------------------------- algorithmic tasks
def _binary_majority(n, rng):
    while True:
        zeros = int(rng.integers(0, n + 1))
        if 2 * zeros != n:
            break
    bits = ["0"] * zeros + ["1"] * (n - zeros)
    rng.shuffle(bits)
    return bits, ["0" if 2 * zeros > n else "1"]


def _majority_bit(bits):
    return "1" if 2 * sum(b == "1" for b in bits) > len(bits) else "0"


def _binary_majority_interleave(n, rng):
    m = n // 3
    strings = [_binary_majority(m, rng)[0] for _ in range(3)]
    return [strings[k][i] for i in range(m) for k in range(3)], [_majority_bit(s) for s in strings]


def _majority(n, rng):
    while True:
        xs = [LETTERS[int(i)] for i in rng.integers(0, len(LETTERS), size=n)]
        counts = sorted(((xs.count(c), c) for c in set(xs)), reverse=True)
        if len(counts) == 1 or counts[0][0] > counts[1][0]:
            return xs, [counts[0][1]]


def _distinct_numbers(n, rng):
    return [str(int(v)) for v in rng.choice(NUMBER_TOKENS, size=n, replace=False)]


def _sort(n, rng):
    xs = _distinct_numbers(n, rng)
    return xs, sorted(xs, key=int)


def _copy_unique(n, rng):
    xs = _distinct_numbers(n, rng)
    return xs, list(xs)


def _copy_repeat(n, rng):
    xs = ["ab"[int(i)] for i in rng.integers(0, 2, size=n)]
    return xs, list(xs)


def _parity(n, rng):
    ones = int(rng.integers(0, n + 1))
    bits = ["1"] * ones + ["0"] * (n - ones)
    rng.shuffle(bits)
    return bits, ["o" if ones % 2 else "e"]


def _addition(n, rng):
    len1 = int(rng.integers(1, n - 2))  # U[1, n-3]; n counts both operands plus '+' and '='
    len2 = n - 2 - len1

    def operand(k):
        return "0" if k == 1 and rng.integers(2) else ("1" + "".join(str(int(b)) for b in rng.integers(0, 2, size=k - 1)))

    a, b = operand(len1), operand(len2)
    return [*a, "+", *b], list(bin(int(a, 2) + int(b, 2))[2:])


@dataclass(frozen=True)
class AlgorithmicSpec:
    name: str
    generate: Callable  # (n, rng) -> (input tokens, output tokens)
    min_len: int
    vocab: tuple[str, ...]
    max_output: Callable[[int], int]  # the longest output for input length n
    sep: str = SEP
    length_step: int = 1  # BMI: the input length is a multiple of 3


_NUMBERS = tuple(str(i) for i in range(NUMBER_TOKENS))
ALGORITHMIC = {s.name: s for s in [
    AlgorithmicSpec("binary_majority", _binary_majority, 1, ("0", "1"), lambda n: 1),
    AlgorithmicSpec("binary_majority_interleave", _binary_majority_interleave, 3, ("0", "1"), lambda n: 3,
                    length_step=3),
    AlgorithmicSpec("majority_letters", _majority, 1, tuple(LETTERS), lambda n: 1),
    AlgorithmicSpec("sort", _sort, 1, _NUMBERS, lambda n: n),
    AlgorithmicSpec("copy_unique", _copy_unique, 1, _NUMBERS, lambda n: n),
    AlgorithmicSpec("copy_repeat", _copy_repeat, 1, ("a", "b"), lambda n: n),
    AlgorithmicSpec("parity", _parity, 1, ("0", "1", "e", "o"), lambda n: 1),
    AlgorithmicSpec("addition", _addition, 4, ("0", "1", "+"), lambda n: n - 2, sep="="),
]}


class AlgorithmicTask:
    """One App. E.2.1 task: ``$ input SEP output EOS`` with the output and EOS supervised."""

    def __init__(self, name: str):
        if name not in ALGORITHMIC:
            raise TaskError(f"unknown task {name!r}; known: {', '.join(ALGORITHMIC)}")
        self.spec = ALGORITHMIC[name]
        self.name = name
        self.input_vocab = [SOS, *self.spec.vocab, self.spec.sep, EOS]
        self.classes = self.input_vocab  # targets are next tokens

    def max_tokens(self, n: int) -> int:
        """The longest example (tokens) for input length ``n``: ``$ input SEP output EOS``."""
        return n + 3 + self.spec.max_output(n)

    def lengths(self, lo: int, hi: int) -> list[int]:
        step = self.spec.length_step
        return [n for n in range(max(lo, self.spec.min_len), hi + 1) if n % step == 0]

    def sample(self, n: int, rng) -> Example:
        if n < self.spec.min_len or n % self.spec.length_step:
            raise TaskError(f"{self.name}: length {n} is below {self.spec.min_len} or not a multiple of "
                            f"{self.spec.length_step}")
        inp, out = self.spec.generate(n, rng)
        tokens = (SOS, *inp, self.spec.sep, *out, EOS)
        start = len(inp) + 1  # the SEP position predicts the first output token
        targets = tuple(tokens[i + 1] if start <= i < len(tokens) - 1 else None for i in range(len(tokens)))
        return Example(tokens, targets)


def make_task(name: str, max_len: int = 150):
    """The language or algorithmic task called ``name`` (TaskError lists the known names)."""
    if name in ALGORITHMIC:
        return AlgorithmicTask(name)
    if name in LANGUAGES:
        return LanguageTask(name, max_len)
    raise TaskError(f"unknown task {name!r}; known: {', '.join([*ALGORITHMIC, *LANGUAGES])}")
