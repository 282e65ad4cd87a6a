"""Targets for languages: the Figure 1 classification tasks of Huang et al. (huang2024) whose answer is a function
of the token counts, with a task-defined margin, for :mod:`bounds.certify.gpt2_task`.

Huang et al. App. E.2.1 pose a classification task as ``$ x_1 ... x_n # y EOS``: the model reads the input, and its
prediction at the separator ``#`` (the argmax of the logits there, the exact-match read-out of
:func:`bounds.experiments.training.sequences.exact_match`) must be the answer ``y``
(:mod:`constructions.tasks.huang2024` generates the data).  A one-layer NoPE model's prediction at ``#`` is a
function of the token counts and n only (:mod:`bounds.certify.gpt2_enclosure`), so a target it can meet at every
length must be one as well.  Of the Figure 1 tasks these are

* ``binary_majority`` (letters 0, 1) and ``majority_letters`` (26 letters, restricted to at most 7 of them by the
  caller): the answer is the most frequent letter.  Margin::

      margin(x) = (c_(1) - c_(2)) / n,

  c_(1) >= c_(2) the two largest letter counts (c_(2) = 0 over one letter), n = |x|.  Normalised by n so that it
  is length-uniform: it depends on the shares only, and ``{margin >= mu}`` is, for every label l, the polyhedral
  cone ``pi_l - pi_j >= mu * sum_i pi_i`` (j != l) in the letter shares, closed and at distance of order mu from the
  tie set.  An unnormalised count difference d >= mu would not do: its shares d / n tend to the tie set, where
  a continuous function of the shares (the model's logits) cannot take both signs, so no model could meet it at
  every length.  A tie (margin 0) has no answer (the generator rejects ties) and is never in the statement.
* ``parity`` (letters 0, 1; answers e / o): the parity of the count of 1s.  It is a function of the counts, with no
  tie, so every input has margin 1; it is *not* a function of the shares' closure (inputs of both parities
  converge to every share point), so no one-layer NoPE model meets it at every length, and the certificate
  refutes each model with a string (Huang et al. predict NoPE fails on Parity).

Every other Figure 1 task is refused in one line (:data:`REFUSED`): its target is not a function of (last token,
counts, n), or it is not one read-out after a separator.

**Boxes** (:meth:`Target.labels_on_box`): for a box ``p_lo <= pi <= p_hi`` of letter shares, the labels some input
of margin >= mu in the box may have, a superset: label l is kept unless some inequality of its cone has a
negative maximum over the box (the maximum of a linear function over a box is at the vertex taking each
coordinate's upper end where its coefficient is positive), computed in float64 with a slack of 1e-12, far above
the rounding of k + 2 terms in [0, 1].  A box with no label holds no input of the statement and is discarded; a box
straddling the cone's boundary keeps its labels.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

SLACK = 1e-12  # kept in the box test: covers the float rounding of the cone inequalities (module docstring)
MAX_LETTERS = 7  # with the separator: bounds.certify.gpt2.MAX_ALPHABET tokens


class TargetError(ValueError):
    """A task that is not a target here, or letters it cannot take (the message says why, in one line)."""


@dataclass(frozen=True)
class Target:
    """One count-determined classification task: letters, separator, answers, label and margin."""

    name: str
    kind: str  # "majority" or "parity"
    letters: tuple  # input symbols
    classes: tuple  # answer symbols, one per label
    bos: str = "$"
    sep: str = "#"

    @property
    def margin_text(self) -> str:
        if self.kind == "parity":
            return "every input (parity has no tie: margin 1)"
        return "margin(x) = (largest letter count - second largest) / |x|"

    def decide(self, counts: np.ndarray, mu: Fraction):
        """Per row of letter counts (B, k) with n = row sum >= 1: the label (index into ``classes``) and whether the
        input is in the statement (margin >= mu, no tie), exactly in integers."""
        counts = np.asarray(counts, dtype=np.int64)
        n = counts.sum(axis=1)
        if self.kind == "parity":
            return counts[:, self.letters.index("1")] % 2, np.ones(len(counts), dtype=bool)
        srt = np.sort(counts, axis=1)
        top = srt[:, -1]
        second = srt[:, -2] if counts.shape[1] > 1 else np.zeros_like(top)
        diff = top - second
        ok = (diff > 0) & (diff.astype(object) * mu.denominator >= n.astype(object) * mu.numerator)
        return np.argmax(counts, axis=1), ok.astype(bool)

    def margin(self, counts) -> Fraction:
        """The margin of one input with these letter counts (Fraction; module docstring)."""
        if self.kind == "parity":
            return Fraction(1)
        c = sorted((int(v) for v in counts), reverse=True) + [0]
        return Fraction(c[0] - c[1], sum(c))

    def labels_on_box(self, p_lo: np.ndarray, p_hi: np.ndarray, mu: float) -> np.ndarray:
        """(B, labels) bool: a superset of the labels of inputs with margin >= mu whose letter shares lie in the
        box (module docstring, **Boxes**)."""
        B, k = p_lo.shape
        if self.kind == "parity":
            return np.ones((B, 2), dtype=bool)
        out = np.ones((B, k), dtype=bool)
        s_lo = p_lo.sum(axis=1)
        for lab in range(k):
            for j in range(k):
                if j != lab:
                    rest = s_lo - p_lo[:, lab] - p_lo[:, j]
                    top = (1 - mu) * p_hi[:, lab] - (1 + mu) * p_lo[:, j] - mu * rest
                    out[:, lab] &= top >= -SLACK
        return out

    def restricted(self, letters) -> Target:
        """The same task on inputs over a subset of its letters (majority only)."""
        letters = tuple(letters)
        if self.kind == "parity":
            raise TargetError("parity reads inputs over both bits 0, 1; drop --alphabet")
        if not letters or not set(letters) <= set(self.letters) or len(set(letters)) != len(letters):
            raise TargetError(f"the letters {list(letters)} are not distinct letters of {self.name}")
        return replace(self, letters=letters, classes=letters)

    def token_ids(self, vocab: dict | None) -> dict:
        """Symbol -> token id: from a tokenizer's vocabulary, else the package's convention (the index in
        :class:`constructions.tasks.huang2024.AlgorithmicTask`'s ``input_vocab``: ``$`` 0, the task's vocabulary,
        ``#``, EOS, as :mod:`bounds.experiments.huang2024` trains)."""
        symbols = [self.bos, *self.letters, self.sep, *self.classes]
        if vocab is None:
            from constructions.tasks.huang2024 import AlgorithmicTask

            vocab = {s: i for i, s in enumerate(AlgorithmicTask(self.name).input_vocab)}
        missing = [s for s in symbols if s not in vocab]
        if missing:
            raise TargetError(f"the tokenizer has no token for {', '.join(map(repr, missing))} of {self.name}")
        return {s: int(vocab[s]) for s in symbols}


def _binary(name):
    return Target(name, "majority", ("0", "1"), ("0", "1"))


TARGETS = {
    "binary_majority": _binary("binary_majority"),
    "majority_letters": Target("majority_letters", "majority", tuple("abcdefghijklmnopqrstuvwxyz"),
                               tuple("abcdefghijklmnopqrstuvwxyz")),
    "parity": Target("parity", "parity", ("0", "1"), ("e", "o")),
}

_SEQUENCE = "its answer is a sequence read at n positions (not one read-out after the separator)"
REFUSED = {
    "binary_majority_interleave": "its three answers are majorities of the positions 1, 4, 7, ... / 2, 5, 8, ... / "
                                  "3, 6, 9, ...: not a function of (last token, token counts, n)",
    "sort": _SEQUENCE, "copy_unique": _SEQUENCE, "copy_repeat": _SEQUENCE + " and depends on the order",
    "addition": "the sum depends on the order of the bits: not a function of (last token, token counts, n)",
}
LANGUAGE_REASON = ("a Figure 1 language trained as next-symbol sets at every position (Huang et al. App. E.1), not "
                   "one accept / reject read-out after a separator")


def figure1_tasks() -> tuple:
    """Every Figure 1 task name of :mod:`constructions.tasks.huang2024` (targets and refused ones)."""
    from constructions.tasks.huang2024 import ALGORITHMIC, LANGUAGES

    return (*ALGORITHMIC, *LANGUAGES)


def target(name: str) -> Target:
    """The target called ``name``, or TargetError saying in one line why that task is not one."""
    if name in TARGETS:
        return TARGETS[name]
    if name in REFUSED:
        raise TargetError(f"--task {name}: {REFUSED[name]}; targets: {', '.join(TARGETS)}")
    if name in figure1_tasks():
        raise TargetError(f"--task {name}: {LANGUAGE_REASON}; targets: {', '.join(TARGETS)}")
    raise TargetError(f"unknown task {name!r}; targets: {', '.join(TARGETS)}")
