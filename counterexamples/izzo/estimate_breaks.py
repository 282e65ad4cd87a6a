"""Valid one-layer pairs that break the training-length estimates of Izzo et al. Theorem 4.1 (docs/gaps.md).

Each pair (f, g) is accepted by the package's own validation, uses the ``izzo`` precision model, and agrees
EXACTLY on every input up to a length at or beyond the estimate's N, then differs by a fixed amount (>= 1/3 of
the output scale, 1 with the default scale) on a longer input; the estimates it breaks do not grow when eps
shrinks (or grow far less than the agreement length), so they break "for every eps".

1. :func:`residual_pair` (``izzo2025:thm4.1.residual``): no MLP, so ``L = ||A|| ||B|| max||V y|| = 0`` and the
   estimate is ``N = max(2^{p/gamma}, 1 + Delta (tau + 1)) = 2`` whatever eps; the output reads the attention
   average through the residual stream and U.  f's head prefers ``b`` (logit 1, others 0); g attends uniformly;
   ``V $ = V b = e``, ``V a = 0``, ``U e = scale``.  Lengths <= 2 (``$``, ``$a``, ``$b``) agree; ``$ab`` gives f =
   scale, g = 2 scale / 3.  The printed theorem (L = 0 too) gives ``max(2^{p/gamma}, 0) = 2``.
2. :func:`unembedding_pair` (``izzo2025:thm4.1.unembedding``): the tau = 0 bump pair of
   :mod:`counterexamples.izzo.witnesses` with the MLP's output weights B multiplied by t and U divided by t: the
   outputs are unchanged (f = g exactly up to length 2N, |f - g| >= 1/2 at 2N + 1) but L scales by t.  With
   ``t = eps / (4 L_bump)`` the earlier estimate (tau + 1, completed L) is ``1 + ceil(1 + 2L/eps) = 3``.
3. :func:`heaviside_pair` (``izzo2025:thm4.1.heaviside``): the bump built from two Heaviside units
   ``H(v - a) - H(v - b)``: ``||A||_F ||B||_F = 2`` whatever the bump's width, so L = 2 and the estimate is fixed
   (422 at eps = 1/10), while the pair agrees up to 2N for every N and then differs by 1.

:func:`bounds.compare.exhaustive_disagreement` evaluates a pair exactly (``exact_forward``) on every string of each
length.
"""

from __future__ import annotations

from fractions import Fraction

from bounds.compare import exhaustive_disagreement  # noqa: F401  (re-exported for the witnesses' checks)
from constructions.limit_transformer.model import MLP, Head, Layer, LimitTransformer
from counterexamples.izzo.witnesses import bump_pair, bump_parameters


def residual_pair(scale=3, precision_bits: int = 1) -> tuple[LimitTransformer, LimitTransformer]:
    """(f, g) of item 1 (coordinates: const, is_b, is_$, out)."""
    E = [[1, 0, 1, 0], [1, 0, 0, 0], [1, 1, 0, 0]]  # $, a, b
    Q = [[1, 0, 0, 0]]
    value = [[0] * 4 for _ in range(4)]
    value[3][1] = value[3][2] = 1  # out += is_b + is_$
    U = [[0, 0, 0, Fraction(scale)]]

    def model(K, name):
        return LimitTransformer(alphabet=("a", "b"), embedding=E,
                                layers=(Layer(heads=(Head(query=Q, key=K, value=value),), mlp=None),),
                                unembedding=U, positions=None, precision_bits=precision_bits, precision="izzo",
                                name=name, metadata={"witness": "izzo2025:thm4.1.residual"})

    return model([[0, 1, 0, 0]], "residual-f"), model([[0, 0, 0, 0]], "residual-g")


def _scaled(model: LimitTransformer, t: Fraction, name: str) -> LimitTransformer:
    layer = model.layers[0]
    mlp = layer.mlp
    return LimitTransformer(alphabet=model.alphabet, embedding=model.embedding,
                            layers=(Layer(heads=layer.heads, mlp=MLP(mlp.A, mlp.b, mlp.B * t, mlp.activations)),),
                            unembedding=model.unembedding / t, positions=model.positions,
                            precision_bits=model.precision_bits, precision=model.precision, name=name,
                            metadata={**model.metadata, "witness": "izzo2025:thm4.1.unembedding", "t": str(t)})


def unembedding_pair(N: int, eps=Fraction(1, 10)) -> tuple[LimitTransformer, LimitTransformer]:
    """(f, g) of item 2: the bump pair for agreement length N with B * t and U / t, t = eps / (4 L_bump)
    rounded down to a power of 2 (so the parameters stay dyadic)."""
    from bounds.margin import norm_L

    f, g = bump_pair(N)
    L = max(norm_L(f).L, norm_L(g).L)
    t = Fraction(1)
    while t * L > Fraction(eps) / 4:
        t /= 2
    return _scaled(f, t, f"unembedding-f(N={N})"), _scaled(g, t, f"unembedding-g(N={N})")


def heaviside_pair(N: int) -> tuple[LimitTransformer, LimitTransformer]:
    """(f, g) of item 3: uniform attention, v = c_1 / i; g = H(v - a) - H(v - b) around v* = 1/(2N+1)."""
    a, _, b, _, p = bump_parameters(N)
    E = [[1, 0, 0, 0], [1, 0, 0, 0], [1, 1, 0, 0]]
    zero = [[0] * 4]
    value = [[0] * 4 for _ in range(4)]
    value[2][1] = 1

    def model(B, name):
        return LimitTransformer(alphabet=("0", "1"), embedding=E,
                                layers=(Layer(heads=(Head(query=zero, key=zero, value=value),),
                                              mlp=MLP(A=[[0, 0, 1, 0]] * 2, b=[-a, -b], B=B,
                                                      activations=("heaviside", "heaviside"))),),
                                unembedding=[[0, 0, 0, 1]], positions=None, precision_bits=p, precision="izzo",
                                name=name, metadata={"witness": "izzo2025:thm4.1.heaviside", "N": N})

    return model([[0, 0]] * 4, f"heaviside-f(N={N})"), model([[0, 0], [0, 0], [0, 0], [1, -1]],
                                                              f"heaviside-g(N={N})")


def statistic_output(model: LimitTransformer, c: int, length: int) -> Fraction:
    """Output at the last position of a uniform-attention pair over {0, 1} (items 2 and 3) on any input of model
    length ``length`` with c ones: attention is uniform over all ``length`` keys (every logit 0), so the attention
    output is ``v = c / length`` in the value coordinate and the rest of the model is evaluated exactly on it."""
    import numpy as np

    from constructions.limit_transformer.exact import exact_mlp

    y = model.embedding[1].copy()  # the residual of the last token; its is_one coordinate is not read by the MLP
    y[2] = Fraction(c, length)
    out = exact_mlp(np.array([y], dtype=object), model.layers[0].mlp)[0].dot(model.unembedding.T)
    return Fraction(out[0])


def count_disagreement(f: LimitTransformer, g: LimitTransformer, length: int) -> Fraction:
    """max |f - g| at the last position over all inputs of model length ``length`` of a uniform-attention pair
    (items 2 and 3), through :func:`statistic_output` (c = 0 .. length - 1 ones)."""
    return max(abs(statistic_output(f, c, length) - statistic_output(g, c, length)) for c in range(length))
