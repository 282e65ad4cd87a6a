"""Exhaustive comparison of a program with a membership oracle on every word up to a length."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from constructions.crasp.ast import Program
from constructions.crasp.interpreter import accepts_array, all_strings

__all__ = ["CheckResult", "check_exhaustive"]


@dataclass(frozen=True)
class CheckResult:
    """Outcome of :func:`check_exhaustive`: strings checked, accepted count, first counterexample."""

    name: str
    max_len: int
    n_strings: int
    n_accepted: int
    counterexample: str | None  # first (shortest, lexicographic) word where program != oracle
    program_value: bool | None
    seconds: float

    @property
    def ok(self) -> bool:
        return self.counterexample is None

    def line(self) -> str:
        head = f"{self.name}: all {self.n_strings} words of length 1..{self.max_len}"
        if self.ok:
            return f"{head} agree with the oracle ({self.n_accepted} accepted) [{self.seconds:.2f} s]"
        return (f"{head}: MISMATCH on {self.counterexample!r}: program says {self.program_value}, "
                f"oracle says {not self.program_value} [{self.seconds:.2f} s]")


def check_exhaustive(prog: Program, oracle: Callable[[str], bool], max_len: int, name: str = "",
                     stop_at_first: bool = True, step: Callable[[int], object] | None = None) -> CheckResult:
    """Compare ``prog`` with ``oracle`` on all nonempty words of length <= ``max_len`` (``step(n)``, for a
    progress display, after each length n)."""
    t0 = time.perf_counter()
    alpha = prog.alphabet
    alpha_str = "".join(alpha)
    total = acc = 0
    for n in range(1, max_len + 1):
        X = all_strings(len(alpha), n)
        got = accepts_array(prog, X)
        words = _words(alpha_str, X)
        want = np.fromiter((oracle(w) for w in words), dtype=bool, count=len(words))
        total += len(words)
        acc += int(got.sum())
        bad = np.flatnonzero(got != want)
        if bad.size:
            k = int(bad[0])
            return CheckResult(name or prog.name, max_len, total, acc, words[k], bool(got[k]), time.perf_counter() - t0)
        if step is not None:
            step(n)
    return CheckResult(name or prog.name, max_len, total, acc, None, None, time.perf_counter() - t0)


def _words(alphabet: str, X: np.ndarray) -> list[str]:
    """The strings of an index array (fast path: one decode, then slicing)."""
    B, n = X.shape
    codes = np.array([ord(c) for c in alphabet], dtype=np.uint32)
    flat = codes[X].astype(np.uint32).tobytes().decode("utf-32-le")
    return [flat[k * n : (k + 1) * n] for k in range(B)]
