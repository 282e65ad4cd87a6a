"""A pair whose disagreement first exceeds a threshold t at model length X: the threshold pair.

Izzo et al. Theorem 4.1 concludes ``|f - g| <= delta + eps`` at every length from agreement up to a training length
N; the threshold pair is a one-layer witness that agreement within t up to any N < X says nothing by itself about
length X, and the fixture whose certified horizon (:mod:`bounds.certify.horizon`) is known exactly: with
delta + eps = t, H = X - 1 and the first failure at X; with delta + eps >= 2 t (the sup), "every length".

Construction (exact rationals, NoPE, tau = 0, alphabet {1}: the input of model length n is ``1^(n-1)``, so the
lengths are the only inputs and bounds over ranges of lengths are not loosened by class shares): the head's logits are all 0, so at the last
position of an input of model length n it attends uniformly over the n keys, and its value (the indicator of
``$``) gives the attention output ``v = 1/n`` exactly, under the exact softmax and the izzo precision model alike
(no term is ever flushed).  g outputs v; f outputs ``v + K ReLU(2/X - v)``, so

    |f - g| = K ReLU(2/X - 1/n):   0 for n <= X/2, increasing in n, below t at n = X - 1, above t at n = X,

with K chosen so that t lies midway between the values at X - 1 and X (a relative margin of about 1/(4 X) on each
side), and ``sup |f - g| = 2 K / X`` (about 2 t), approached as n grows and never attained.  The disagreement is
linear in v on both sides of the crossing, so bounds over ranges of lengths are tight there.
"""

from __future__ import annotations

from fractions import Fraction

from constructions.limit_transformer.model import MLP, Head, Layer, LimitTransformer


def ramp_height(X: int, threshold) -> Fraction:
    """K of the module docstring: ``K (2/X - v_mid) = threshold`` with ``v_mid`` midway between 1/X and 1/(X-1)."""
    v_mid = (Fraction(1, X - 1) + Fraction(1, X)) / 2
    return Fraction(threshold) / (Fraction(2, X) - v_mid)


def threshold_pair(X: int, threshold=Fraction(1, 10),
                   precision_bits: int = 64) -> tuple[LimitTransformer, LimitTransformer]:
    """(f, g) of the module docstring: ``|f - g| < threshold`` on every input of model length <= X - 1 and
    ``> threshold`` on every input of model length >= X (X >= 3; model length = symbols + the leading ``$``)."""
    if isinstance(X, bool) or int(X) != X or X < 3:
        raise ValueError(f"the threshold pair needs an integer X >= 3, got {X}")
    X = int(X)
    K = ramp_height(X, threshold)
    d = 3  # is_bos, const, v (the output coordinate: v, plus f's ramp)
    E = [[1, 1, 0], [0, 1, 0]]  # $, 1
    zero = [[0] * d]
    value = [[0] * d for _ in range(d)]
    value[2][0] = 1  # v = the attention to $ = 1/n

    def model(k, name):
        return LimitTransformer(alphabet=("1",), embedding=E,
                                layers=(Layer(heads=(Head(query=zero, key=zero, value=value),),
                                              mlp=MLP(A=[[0, 0, -1]], b=[Fraction(2, X)], B=[[0], [0], [k]])),),
                                unembedding=[[0, 0, 1]], positions=None, precision_bits=precision_bits,
                                precision="izzo", name=name,
                                metadata={"first_above": X, "threshold": str(Fraction(threshold))})

    return model(K, f"threshold-f(X={X}, t={Fraction(threshold)})"), model(Fraction(0), f"threshold-g(X={X})")
