"""The class-level softmax evaluator (bounds.certify.class_softmax) against independent references.

* softmax semantics: an independent evaluator on the *string* (every position, exact Fraction logits, mpmath
  weights n^a at 60 digits), so the class reduction is checked too; random one-layer models (Hypothesis) and the
  SimpleTask construction;
* izzo semantics in the hardmax regime: exact Fraction evaluation (``exact_forward``) of the realized strings;
* below the hardmax threshold (irrational izzo weights): the mpmath reference with the exact flush rule;
* negative control: the unpadded float value (a zero-width "enclosure") misses the 60-digit value, while the
  certified enclosure holds it.
"""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bounds.certify.class_softmax import ClassModelError, PairEvaluator, enclose_output
from bounds.true_threshold import configurations, witness_string
from constructions.limit_transformer import exact_forward
from constructions.limit_transformer.precision import flushes
from constructions.strategies import limit_transformers
from constructions.tasks import ModPTask, SimpleTask


def _mp(x: Fraction):
    return mpmath.mpf(x.numerator) / x.denominator


def reference(model, string: str, semantics: str):
    """Last-position output at 60 digits: exact logits on the string, weights n^(a - a*) (izzo: flushed when
    n^gap >= 2^p, decided exactly)."""
    mpmath.mp.dps = 60
    ids = model.encode(string)[0]
    n = len(ids)
    X = []
    for i, t in enumerate(ids):
        v = model.embedding[t].copy()
        if model.positions is not None:
            v = v + model.positions.table[i % model.period]
        X.append(v)
    layer = model.layers[0]
    Y = [_mp(v) for v in X[-1]]
    for head in layer.heads:
        q = head.query.dot(X[-1])
        logits = [head.key.dot(X[j]).dot(q) + (head.phi.value(j + 1, n) if head.phi is not None else 0)
                  for j in range(n)]
        top = max(logits)
        w = []
        for a in logits:
            if semantics == "izzo" and a != top and flushes(top - a, n, model.precision_bits):
                w.append(mpmath.mpf(0))
            else:
                w.append(mpmath.power(n, _mp(a - top)))
        tot = sum(w)
        for j in range(n):
            val = head.value.dot(X[j])
            for k in range(len(Y)):
                Y[k] += w[j] / tot * _mp(val[k])
    out = list(Y)
    mlp = layer.mlp
    if mlp is not None:
        for i in range(mlp.A.shape[0]):
            z = sum(_mp(mlp.A[i, k]) * Y[k] for k in range(len(Y))) + _mp(mlp.b[i])
            a = max(z, 0)
            for k in range(len(Y)):
                out[k] += _mp(mlp.B[k, i]) * a
    return [sum(_mp(model.unembedding[o, k]) * out[k] for k in range(len(Y))) for o in range(model.output_dim)]


def _configs(model, n):
    D, tau = model.period or 1, model.tau
    groups = {}
    for counts, window in configurations(n, len(model.alphabet), D, tau):
        groups.setdefault(window, []).append(counts)
    return D, groups


def _check_all(model, lengths, semantics, ref):
    ev = PairEvaluator(model, None, (semantics, semantics))
    worst = 0.0
    for n in lengths:
        D, groups = _configs(model, n)
        for window, cs in groups.items():
            lo, hi = ev.enclose(cs, window, n)
            for b, c in enumerate(cs):
                s = witness_string(c, window, D, model.alphabet)
                for o, v in enumerate(ref(s)):
                    assert lo[b, o] <= v <= hi[b, o], (n, s, o, lo[b, o], hi[b, o], v)
                    worst = max(worst, hi[b, o] - lo[b, o])
    return worst


def test_softmax_simple_construction_against_mpmath():
    f = SimpleTask(2).limit_transformer()
    worst = _check_all(f, [2, 3, 6], "softmax", lambda s: reference(f, s, "softmax"))
    assert worst < 1e-9  # certified and tight


def test_izzo_hardmax_regime_is_exact():
    g = ModPTask(3, 1).limit_transformer()
    worst = _check_all(g, range(1, 9), "izzo", lambda s: list(exact_forward(g, s, positions="last")))
    assert worst < 1e-9


def test_izzo_below_the_hardmax_threshold_against_mpmath():
    """logit scale 1 at p = 8: the hardmax starts at length 2^16, so every term below survives the flush
    (irrational weights)."""
    g = ModPTask(2, 0).limit_transformer(precision_bits=8, logit_scale=1)
    _check_all(g, [3, 5, 8], "izzo", lambda s: reference(g, s, "izzo"))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(model=limit_transformers(depth=(1, 1), heads=(1, 2), activations=("relu",), precision="izzo",
                                precision_bits=(1, 4), max_tau=1, max_period=2, qk_scale=(1, 2)),
       n=st.integers(2, 5), semantics=st.sampled_from(["softmax", "izzo"]))
def test_random_models_against_the_string_reference(model, n, semantics):
    """The class reduction and the certified arithmetic together: every input of length n of a random one-layer
    model (1-2 heads, periodic or no positions, phi or not, ReLU MLP or none)."""
    _check_all(model, [n], semantics, lambda s: reference(model, s, semantics))


def test_unpadded_float_is_not_an_enclosure():
    """Negative control: the float64 value without outward rounding differs from the 60-digit value (so a
    zero-width interval at it excludes the true value), where the certified enclosure contains it."""
    f = SimpleTask(2).limit_transformer()
    ev = PairEvaluator(f)
    misses = 0
    for n in (5, 7):
        D, groups = _configs(f, n)
        for window, cs in groups.items():
            for c in cs:
                s = witness_string(c, window, D, f.alphabet)
                true = reference(f, s, "softmax")[0]
                ids = f.encode(s)[0]
                x = f.embedding[ids].astype(float)
                head = f.layers[0].heads[0]
                q = head.query.astype(float) @ x[-1]
                a = (x @ head.key.astype(float).T) @ q
                w = np.exp(np.log(n) * (a - a.max()))
                y = x[-1] + (w / w.sum()) @ (x @ head.value.astype(float).T)
                mlp = f.layers[0].mlp
                y = y + mlp.B.astype(float) @ np.maximum(mlp.A.astype(float) @ y + mlp.b.astype(float), 0)
                plain = float(f.unembedding.astype(float)[0] @ y)
                lo, hi = ev.enclose([c], window, n)
                assert lo[0, 0] <= true <= hi[0, 0]
                misses += mpmath.mpf(plain) != true
    assert misses > 0


def test_enclose_output_single_model():
    g = ModPTask(3, 0).limit_transformer()
    # $ 1 0 1 1 | 0: residues 1 2 0 1 | 2; the one task position = 0 (mod 3) holds a '1'
    counts = {0: 1, 2 * 3 + 1: 2, 1 * 3 + 2: 1, 2 * 3 + 0: 1}
    lo, hi = enclose_output(g, counts, (1 * 3 + 2,), 6, "izzo")
    assert lo[0] <= 1 <= hi[0] and hi[0] - lo[0] < 1e-9
    assert exact_forward(g, witness_string(counts, (1 * 3 + 2,), 3, g.alphabet), positions="last")[0] == 1


def test_refusals():
    f = SimpleTask(1).limit_transformer()
    g = ModPTask(2, 0).limit_transformer()
    with pytest.raises(ClassModelError, match="alphabets"):
        PairEvaluator(f, g)
    with pytest.raises(ClassModelError, match="semantics"):
        PairEvaluator(f, None, ("huang", "huang"))
