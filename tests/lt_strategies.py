"""Hypothesis strategies for small random Limit Transformers with small-integer (exact) parameters."""

import numpy as np
from hypothesis import strategies as st

from constructions.limit_transformer import MLP, Head, Layer, LimitTransformer, LocalPhi, PeriodicPositions


def _mat(draw, rows, cols, lo=-2, hi=2):
    return np.array(draw(st.lists(st.integers(lo, hi), min_size=rows * cols, max_size=rows * cols)),
                    dtype=np.int64).reshape(rows, cols)


@st.composite
def limit_transformers(draw, depth=(1, 2), heads=(1, 2), precision=None, max_tau=2, max_period=3, qk_scale=(1, 4),
                       activations=("relu", "heaviside"), positional_only=False):
    """A random Periodic+Local Limit Transformer over {a, b} (width 3, small integer weights).

    ``positional_only``: every head has K^T Q = 0 (logit phi(j, i) alone), the O(n) head kind."""
    d = 3
    sigma = ("a", "b")
    n_layers = draw(st.integers(*depth))
    layers = []
    for _ in range(n_layers):
        hs = []
        for _ in range(draw(st.integers(*heads))):
            scale = draw(st.integers(*qk_scale))
            tau = draw(st.integers(0, max_tau))
            phi = LocalPhi(tuple(draw(st.lists(st.integers(-2, 2), min_size=tau + 1, max_size=tau + 1))))
            hs.append(Head(_mat(draw, 2, d) * (0 if positional_only else scale), _mat(draw, 2, d), _mat(draw, d, d),
                           phi if draw(st.booleans()) else None))
        k = draw(st.integers(1, 4))
        acts = tuple(draw(st.sampled_from(activations)) for _ in range(k))
        mlp = MLP(_mat(draw, k, d), _mat(draw, 1, k)[0], _mat(draw, d, k), acts) if draw(st.booleans()) else None
        layers.append(Layer(hs, mlp))
    period = draw(st.integers(1, max_period))
    return LimitTransformer(sigma, _mat(draw, 3, d), layers, _mat(draw, 2, d),
                            PeriodicPositions(_mat(draw, period, d)) if draw(st.booleans()) else None,
                            precision_bits=draw(st.integers(1, 6)),
                            precision=precision or draw(st.sampled_from(["izzo", "huang"])))


def strings(min_size=0, max_size=24):
    return st.text(alphabet="ab", min_size=min_size, max_size=max_size)
