"""Exact witnesses for the gaps found in Izzo et al. (docs/gaps.d/izzo2025.md).

1. :func:`bump_pair` / :func:`check_bump_pair` -- Theorem 4.1 with tau = 0 (``izzo2025:thm4.1``).  Two one-layer,
   NoPE (Delta = 1), tau = 0 Limit Transformers f, g over {0, 1} whose single head has all logits 0 (uniform
   attention over every key, ``$`` included, so gamma = +inf and 2^{p/gamma} = 1).  The value writes the indicator
   of ``1`` into a coordinate v, so at query position i the attention output is ``v = c_1(x_{<=i}) / i``.  f's MLP
   outputs 0; g's MLP is the ReLU bump of height h supported on (a, b) = (1/(2N+2), 1/(2N)) with peak at
   m = 1/(2N+1).  At every position i <= N + 1, v is 0 or >= 1/i > b, so f = g EXACTLY on all inputs of length
   <= N (model length, ``$`` included; also for string length <= N); at model length 2N+1 the string ``1 0^{2N-1}``
   gives v = m at the last position and g - f = h.  The printed bound N = O(max{2^{p/gamma}, tau Delta L^2/eps^2})
   = O(max{1, 0}) is a constant independent of N, eps and the pair: for any constant C take N > C; the hypothesis
   (agreement, delta = 0, up to length N >= C) holds and the conclusion |f - g| = O(eps) fails for small eps.
   With tau + 1 in place of tau the sample term is Delta L^2/eps^2 with L^2 ~ N^4 h^2, so no contradiction.

2. :func:`printed_gamma_violation` -- the printed logit margin (``izzo2025:def-gamma``) misses the keys outside the
   tau-window: for the ModP construction (tau = 0) the printed gamma is +inf, so the sec. 3.2 claim would give a
   hardmax at every length, but a sub-maximal key survives the flush below the completed threshold.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from constructions.limit_transformer.model import MLP, Head, Layer, LimitTransformer


def bump_pair(N: int, height=1, precision_bits: int = 8) -> tuple[LimitTransformer, LimitTransformer]:
    """(f, g) of the module docstring for agreement length N >= 1 (exact rational parameters)."""
    if N < 1:
        raise ValueError(f"the bump pair needs N >= 1, got {N}")
    h = Fraction(height)
    a, m, b = Fraction(1, 2 * N + 2), Fraction(1, 2 * N + 1), Fraction(1, 2 * N)
    d = 4  # const, is_one, v, out
    E = [[1, 0, 0, 0], [1, 0, 0, 0], [1, 1, 0, 0]]  # $, 0, 1
    zero = [[0] * d]
    value = [[0] * d for _ in range(d)]
    value[2][1] = 1
    A = [[0, 0, 1, 0]] * 3
    bias = [-a, -m, -b]
    Bg = [[0, 0, 0], [0, 0, 0], [0, 0, 0], [h / (m - a), -h / (m - a) - h / (b - m), h / (b - m)]]
    Bf = [[0, 0, 0]] * 4
    U = [[0, 0, 0, 1]]

    def model(B, name):
        return LimitTransformer(alphabet=("0", "1"), embedding=E,
                                layers=(Layer(heads=(Head(query=zero, key=zero, value=value),),
                                              mlp=MLP(A=A, b=bias, B=B)),),
                                unembedding=U, positions=None, precision_bits=precision_bits, precision="izzo",
                                name=name, metadata={"witness": "izzo2025:thm4.1 tau=0", "N": N})

    return model(Bf, f"bump-f(N={N})"), model(Bg, f"bump-g(N={N})")


def mlp_output(model: LimitTransformer, v: Fraction) -> Fraction:
    """Exact output of a bump-pair model when the attention output's v-coordinate is ``v`` (query token '0')."""
    mlp = model.layers[0].mlp
    pre = [mlp.A[u][2] * v + mlp.b[u] for u in range(mlp.A.shape[0])]
    act = [max(z, Fraction(0)) for z in pre]
    return sum((mlp.B[3][u] * act[u] for u in range(len(act))), Fraction(0))


@dataclass(frozen=True)
class BumpReport:
    N: int
    agree_up_to: int  # largest model length n <= N + 1 such that f = g at every position of every input of length n
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
    c/i, i <= n (the residual and U read only the MLP output).  Also evaluates the witness ``1 0^{2N-1}``."""
    agree = 0
    for i in range(1, N + 2):
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
