"""Exact witnesses for the gaps found in Izzo et al. (docs/gaps.md).

1. :func:`bump_pair` / :func:`check_bump_pair` -- Theorem 4.1 with tau = 0 (``izzo2025:thm4.1``).  Two one-layer,
   NoPE (Delta = 1), tau = 0 Limit Transformers f, g over {0, 1} whose single head has all logits 0 (uniform
   attention over every key, ``$`` included, so gamma = +inf and 2^{p/gamma} = 1).  The value writes the indicator
   of ``1`` into a coordinate v, so at query position i the attention output is ``v = c_1(x_{<=i}) / i``.  f's MLP
   outputs 0; g's MLP is a ReLU triangle of height h on a dyadic interval (a, b) = (m - 2^-q, m + 2^-q), m the
   q-bit rounding of v* = 1/(2N+1), so that 0 < a < v* < b < 1/(2N).  At every position i <= 2N, v is 0 or
   >= 1/i >= 1/(2N) > b, so f = g EXACTLY on all inputs of model length <= 2N (in particular <= N, under either
   length convention); at model length 2N+1 the string ``1 0^{2N-1}`` gives v = v* at the last position and
   g - f = h (1 - |v* - m| 2^q) >= h/2.  The parameters are dyadic (q bits) and p = q + ceil(log2(2N+1)) + 2 makes
   every nonzero intermediate quantity exceed 2^-p (:func:`strict_precision_violations`), so the pair behaves
   the same under the strict "round every quantity <= 2^-p to 0" reading of sec. 3.2.  The printed bound N = O(max{2^{p/gamma}, tau Delta L^2/eps^2})
   = O(max{1, 0}) is a constant independent of N, eps and the pair: for any constant C take N > C; the hypothesis
   (agreement, delta = 0, up to length N >= C) holds and the conclusion |f - g| = O(eps) fails for small eps.
   With tau + 1 in place of tau the sample term is Delta L^2/eps^2 with L^2 ~ N^4 h^2, so no contradiction.

2. :func:`printed_gamma_violation` -- the printed logit margin (``izzo2025:def-gamma``) misses the keys outside the
   tau-window: for the ModP construction (tau = 0) the printed gamma is +inf, so the sec. 3.2 claim would give a
   hardmax at every length, but a sub-maximal key survives the flush below the completed threshold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from constructions.limit_transformer.model import MLP, Head, Layer, LimitTransformer


def bump_parameters(N: int) -> tuple[Fraction, Fraction, Fraction, int, int]:
    """(a, m, b, q, p): dyadic bump a = m - 2^-q < m < b = m + 2^-q around v* = 1/(2N+1) with m = v* rounded to q
    bits, 2^q >= 4N(2N+1) (so 0 < a and b < 1/(2N)), and p = q + ceil(log2(2N+1)) + 2 bits of precision (every
    nonzero intermediate quantity of the pair then exceeds 2^-p, see :func:`strict_precision_violations`)."""
    q = math.ceil(math.log2(4 * N * (2 * N + 1)))
    w = Fraction(1, 2**q)
    m = Fraction(round(Fraction(2**q, 2 * N + 1)), 2**q)
    p = q + math.ceil(math.log2(2 * N + 1)) + 2
    return m - w, m, m + w, q, p


def bump_pair(N: int, height=1, precision_bits: int | None = None) -> tuple[LimitTransformer, LimitTransformer]:
    """(f, g) of the module docstring for agreement length N >= 1 (exact dyadic parameters, q fractional bits)."""
    if N < 1:
        raise ValueError(f"the bump pair needs N >= 1, got {N}")
    h = Fraction(height)
    a, m, b, q, p = bump_parameters(N)
    p = p if precision_bits is None else precision_bits
    d = 4  # const, is_one, v, out
    E = [[1, 0, 0, 0], [1, 0, 0, 0], [1, 1, 0, 0]]  # $, 0, 1
    zero = [[0] * d]
    value = [[0] * d for _ in range(d)]
    value[2][1] = 1
    A = [[0, 0, 1, 0]] * 3
    bias = [-a, -m, -b]
    s = h * 2**q
    Bg = [[0, 0, 0], [0, 0, 0], [0, 0, 0], [s, -2 * s, s]]
    Bf = [[0, 0, 0]] * 4
    U = [[0, 0, 0, 1]]

    def model(B, name):
        return LimitTransformer(alphabet=("0", "1"), embedding=E,
                                layers=(Layer(heads=(Head(query=zero, key=zero, value=value),),
                                              mlp=MLP(A=A, b=bias, B=B)),),
                                unembedding=U, positions=None, precision_bits=p, precision="izzo",
                                name=name, metadata={"witness": "izzo2025:thm4.1 tau=0", "N": N})

    return model(Bf, f"bump-f(N={N})"), model(Bg, f"bump-g(N={N})")


def _intermediates(model: LimitTransformer, v: Fraction, i: int) -> list[Fraction]:
    """Every intermediate quantity at a query with attention output v over i keys: softmax terms (1), weights 1/i,
    v, MLP pre-activations, activations, each B_u * act_u, partial sums, the output."""
    mlp = model.layers[0].mlp
    pre = [mlp.A[u][2] * v + mlp.b[u] for u in range(mlp.A.shape[0])]
    act = [max(z, Fraction(0)) for z in pre]
    terms = [mlp.B[3][u] * act[u] for u in range(len(act))]
    partial = [sum(terms[: k + 1], Fraction(0)) for k in range(len(terms))]
    return [Fraction(1), Fraction(1, i), v, *pre, *act, *terms, *partial]


def strict_precision_violations(f: LimitTransformer, g: LimitTransformer, N: int) -> list:
    """Quantities with 0 < |value| <= 2^-p met on inputs of model length <= 2N or on the witness (length 2N+1).

    Empty means the pair computes the same under the strictest reading of Izzo sec. 3.2 ("all quantities of
    absolute value <= 2^-p are rounded to 0 during each intermediate computation") as under the package's izzo
    model (which flushes only softmax terms).  The residual stream coordinates are 0/1 and never small."""
    out = []
    for model in (f, g):
        eps = Fraction(1, 2**model.precision_bits)
        cases = [(Fraction(c, i), i) for i in range(1, 2 * N + 1) for c in range(i)] + [(Fraction(1, 2 * N + 1),
                                                                                          2 * N + 1)]
        for v, i in cases:
            out += [(model.name, v, i, x) for x in _intermediates(model, v, i) if x != 0 and abs(x) <= eps]
    return out


def mlp_output(model: LimitTransformer, v: Fraction) -> Fraction:
    """Exact output of a bump-pair model when the attention output's v-coordinate is ``v``."""
    return _intermediates(model, v, 1)[-1]


@dataclass(frozen=True)
class BumpReport:
    N: int
    agree_up_to: int  # largest model length n <= 2N such that f = g at every position of every input of length <= n
    witness_length: int
    witness: str
    difference: Fraction

    @property
    def refutes_printed(self) -> bool:
        """True when f = g on every input of model length <= N but they differ later (by a fixed amount)."""
        return self.agree_up_to >= self.N and self.difference != 0


def check_bump_pair(f: LimitTransformer, g: LimitTransformer, N: int) -> BumpReport:
    """Exhaustive exact check by the attention statistic: at position i the attention output is v = c/i with
    0 <= c <= i - 1 (``$`` is never a 1), so f = g on all inputs of model length <= n iff the MLPs agree on every
    c/i, i <= n (the residual and U read only the MLP output); checked for n up to 2N.  Also evaluates the witness
    ``1 0^{2N-1}``."""
    agree = 0
    for i in range(1, 2 * N + 1):
        if any(mlp_output(f, Fraction(c, i)) != mlp_output(g, Fraction(c, i)) for c in range(i)):
            break
        agree = i
    n = 2 * N + 1
    witness = "1" + "0" * (2 * N - 1)
    v = Fraction(1, n)
    return BumpReport(N, agree, n, witness, mlp_output(g, v) - mlp_output(f, v))


def printed_gamma_violation(precision_bits: int = 4, logit_scale=1, period: int = 2, index: int = 1):
    """The ModP construction with a small logit scale: (model, printed gamma, completed gamma)."""
    from bounds.margin import logit_margin
    from constructions.tasks.modp import ModPTask

    model = ModPTask(period, index).limit_transformer(precision_bits=precision_bits, logit_scale=logit_scale)
    return model, logit_margin(model, "printed").gamma, logit_margin(model, "completed").gamma
