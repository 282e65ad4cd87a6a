"""ModPTask (Izzo et al. sec. 5, App. B) and its one-layer Limit Transformer (App. A.2), realized exactly.

Task.  Alphabet ``{"0", "1"}``; period ``p >= 1`` and index ``k``.  For a string ``x_1 .. x_T``

    f*(x_{1:T}) = #{t <= T : x_t = 1, t = k (mod p)} / #{t <= T : t = k (mod p)}.

Convention for the empty class: when no task position ``t <= T`` is ``= k (mod p)`` (``T`` shorter than
the first such position, e.g. ``T = 0``), the paper's ratio is 0/0; we define ``f* := 0`` there (the
construction below outputs exactly 0 because it then attends only to ``$``, whose value is 0).

Construction (App. A.2 with finite logits).  The model reads ``$ x_1 .. x_T``: task position ``t`` is model
position ``t + 1``, whose periodic encoding is table row ``(t + 1 - 1) mod p = t mod p`` (at offset 0).
So "attend to task positions ``= k (mod p)``" is "attend to keys in row ``k mod p``".  Coordinates:

    0 const (1 on every token)   1 is_one   2 is_bos   3 val (written by attention)   4 out (MLP)   5.. one-hot row

* Key score (the query reads ``const``, so the logit depends on the key only): ``lam`` for a key in row
  ``k mod p``, 0 for other rows, and ``lam/2`` for ``$`` (``$`` sits in row 0 at offset 0; its token
  embedding compensates when ``k = 0 (mod p)``).  The paper's "infinite" logit is replaced by ``lam``.
* ``V`` copies ``is_one`` into ``val`` (``V q_j = 0`` for the positional vectors, ``V E_$ = 0``); the MLP
  is one ReLU unit ``out = relu(val)`` (val is in [0, 1], so this is the identity); ``U`` reads ``out``.

Hardmax regime.  Every observable logit set is ``{0, lam/2, lam}`` so the (completed) logit margin is
``gamma = lam/2`` and, under the ``izzo`` precision model with p bits, attention is an exact hardmax
for every input length ``n = |x| >= 2^(p/gamma)`` (:func:`constructions.limit_transformer.hardmax.hardmax_threshold`).  The
default ``lam = 2 * precision_bits`` gives ``gamma = precision_bits`` and threshold ``n >= 2``; length 1
(only ``$``) has a single key, so the construction is exact at EVERY length.  In the hardmax regime the
attention output is exactly the mean of ``is_one`` over the attended keys, i.e. ``f*``, and the output is
the Fraction ``f*`` exactly at every prefix.

Offsets.  At offset ``o`` the key rows shift by ``o``: the model then averages task positions
``t = k - o (mod p)``, and ``$`` sits in row ``o mod p``.  Offsets that are multiples of ``p`` keep the
target exactly; other offsets compute a phase-shifted task (and ``$`` can win the argmax), see
:meth:`ModPTask.target_at_offset`.  L of this construction is 1 (``||A||_F = ||B||_F = ||V E_1|| = 1``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from constructions.limit_transformer.model import MLP, Head, Layer, LimitTransformer, PeriodicPositions
from constructions.tasks.errors import TaskError

ALPHABET = ("0", "1")


@dataclass(frozen=True)
class ModPTask:
    """ModPTask(period p, index k): running average of the bits at task positions ``= k (mod p)``."""

    period: int = 5
    index: int = 0

    def __post_init__(self):
        if not isinstance(self.period, int) or self.period < 1:
            raise TaskError(f"ModPTask period must be an integer >= 1, got {self.period!r}")
        if not isinstance(self.index, int):
            raise TaskError(f"ModPTask index must be an integer, got {self.index!r}")

    alphabet = ALPHABET

    # ------------------------------------------------------------------------------- targets
    def _check(self, string) -> list[int]:
        bits = []
        for s in string:
            if s not in ALPHABET:
                raise TaskError(f"ModPTask strings use the symbols '0' and '1'; got {s!r}")
            bits.append(1 if s == "1" else 0)
        return bits

    def target(self, string) -> Fraction:
        """f*(x) for the whole string, exactly (0 when no position ``= k (mod p)`` exists)."""
        return self.prefix_targets(string)[-1]

    def prefix_targets(self, string) -> list[Fraction]:
        """Exact targets of every prefix ``x_{1:T}``, T = 0..n (index T; T = 0 is the ``$`` position)."""
        return self.target_at_offset(string, 0)

    def target_at_offset(self, string, offset: int) -> list[Fraction]:
        """What the construction computes at offset ``o``: the ModP average over ``t = k - o (mod p)``.

        For ``o = 0 (mod p)`` this is :meth:`prefix_targets`.  If ``$`` lands in the attended row
        (``o = k (mod p)`` with ``k != 0 (mod p)``) it wins the argmax and every prefix gives 0; if
        ``k = 0 (mod p)`` and ``o != 0 (mod p)``, ``$`` scores below every token and a prefix without an
        attended position averages all its bits.
        """
        bits = self._check(string)
        p, k = self.period, self.index
        bos_row = offset % p
        bos_score = (1 if bos_row == k % p else 0) + (Fraction(1, 2) if k % p != 0 else Fraction(-1, 2))
        out = [Fraction(0)]
        ones = count = all_ones = 0
        for t, b in enumerate(bits, 1):
            all_ones += b
            if (t + offset) % p == k % p:
                count += 1
                ones += b
            if bos_score > 1:  # '$' beats the attended row
                out.append(Fraction(0))
            elif count:
                out.append(Fraction(ones, count))
            elif bos_score > 0:  # only '$' is above the other rows
                out.append(Fraction(0))
            else:  # '$' below every token: uniform over the tokens so far (all in score-0 rows)
                out.append(Fraction(all_ones, t))
        return out

    # ------------------------------------------------------------------------------ sampler
    def sample(self, rng: np.random.Generator, length: int, batch: int = 1) -> list[str]:
        """App. B: draw q_0..q_{p-1} ~ U[0,1] i.i.d. per sequence, then x_t ~ Bernoulli(q_{t mod p})."""
        if length < 0 or batch < 1:
            raise TaskError(f"need length >= 0 and batch >= 1, got length={length}, batch={batch}")
        q = rng.random((batch, self.period))
        t = np.arange(1, length + 1)
        bits = rng.random((batch, length)) < q[:, t % self.period]
        return ["".join("1" if b else "0" for b in row) for row in bits]

    def sample_ids(self, rng: np.random.Generator, length: int, batch: int = 1) -> np.ndarray:
        """Same distribution as :meth:`sample`, as model token ids with ``$`` (id 0) prepended: (batch, length+1)."""
        q = rng.random((batch, self.period))
        t = np.arange(1, length + 1)
        bits = rng.random((batch, length)) < q[:, t % self.period]
        ids = np.zeros((batch, length + 1), dtype=np.int64)
        ids[:, 1:] = 1 + bits  # '0' -> 1, '1' -> 2
        return ids

    # --------------------------------------------------------------------------- construction
    @staticmethod
    def hardmax_length(precision_bits: int = 8, logit_scale=None) -> int:
        """Smallest model length from which the construction is an exact hardmax (izzo precision model):
        the least N with N^(lam/2) >= 2^p (lam = logit_scale, default 2 * precision_bits, giving 2)."""
        from constructions.limit_transformer.hardmax import hardmax_threshold

        lam = Fraction(2 * precision_bits) if logit_scale is None else Fraction(logit_scale)
        return hardmax_threshold(lam / 2, precision_bits)

    def limit_transformer(self, precision_bits: int = 8, logit_scale=None) -> LimitTransformer:
        """The one-layer Limit Transformer of App. A.2 (see the module docstring), Delta = p, tau = 0.

        ``logit_scale`` (lam) replaces the paper's infinite logit; default ``2 * precision_bits`` (gamma =
        p bits, hardmax at every length >= 2).  Smaller values move the hardmax threshold 2^(2p/lam) up.
        """
        p = self.period
        lam = Fraction(2 * precision_bits) if logit_scale is None else Fraction(logit_scale)
        if lam <= 0:
            raise TaskError(f"logit_scale must be positive, got {lam}")
        d = 5 + p
        CONST, ONE, BOS_, VAL, OUT = 0, 1, 2, 3, 4
        E = [[0] * d for _ in range(3)]
        for t in range(3):
            E[t][CONST] = 1
        E[0][BOS_] = 1
        E[2][ONE] = 1
        table = [[0] * d for _ in range(p)]
        for r in range(p):
            table[r][5 + r] = 1
        key = [[Fraction(0)] * d]
        key[0][5 + self.index % p] = lam
        key[0][BOS_] = lam / 2 if self.index % p != 0 else -lam / 2
        query = [[0] * d]
        query[0][CONST] = 1
        value = [[0] * d for _ in range(d)]
        value[VAL][ONE] = 1
        A = [[0] * d]
        A[0][VAL] = 1
        B = [[0] for _ in range(d)]
        B[OUT][0] = 1
        U = [[0] * d]
        U[0][OUT] = 1
        return LimitTransformer(
            alphabet=ALPHABET, embedding=E,
            layers=(Layer(heads=(Head(query=query, key=key, value=value),), mlp=MLP(A=A, b=[0], B=B)),),
            unembedding=U, positions=PeriodicPositions(np.array(table, dtype=object)),
            precision_bits=precision_bits, precision="izzo",
            name=f"modp(p={p},k={self.index})",
            metadata={"task": "modp", "period": p, "index": self.index, "logit_scale": str(lam)})
