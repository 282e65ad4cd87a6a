"""Izzo et al. sec. 3.2 hardmax lemma: for N = |x| >= 2^{p/gamma} the izzo finite-precision softmax of a one-layer
model is the uniform average over its argmax keys.

The checker below re-implements the precision model from the paper's text (independently of the package's
evaluators): shift the max logit to 0, a term N^{-(a* - a)} is flushed iff it is <= 2^-p, i.e. iff
N^{a* - a} >= 2^p (decided exactly with integers).  The property runs over random small one-layer Periodic and
Local models with rational logits and phi; the threshold uses the completed gamma (bounds.margin).  Controls:
below the threshold the ModP construction has a surviving sub-maximal term, and the PRINTED gamma's threshold is
violated by a concrete model.
"""

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bounds.margin import INF, hardmax_threshold, logit_margin
from constructions.limit_transformer import (
    MLP,
    Head,
    Layer,
    LimitTransformer,
    LocalPhi,
    NotExactError,
    PeriodicPositions,
    exact_forward,
    forward,
)
from constructions.strategies import boundary_allowed
from counterexamples.izzo.witnesses import printed_gamma_violation
from verify.claims import checks


def _flushed(gap: Fraction, n: int, p: int) -> bool:
    """N^{-gap} <= 2^-p  <=>  N^gap >= 2^p, exactly (gap = u/v > 0: N^u >= 2^{p v})."""
    return n ** gap.numerator >= 2 ** (p * gap.denominator)


def hardmax_report(model: LimitTransformer, string: str, offset: int = 0, last_only: bool = False):
    """(holds, outputs): holds iff at every query (or the last one) every strictly sub-maximal term is flushed;
    outputs are the exact model outputs with the uniform-over-argmax head (only when it holds)."""
    ids = model.encode(string)[0]
    n = len(ids)
    y = np.array([model.embedding[t] + (model.positions.vectors([i + 1 + offset])[0] if model.positions is not None
                                        else 0) for i, t in enumerate(ids)], dtype=object)
    layer = model.layers[0]
    outs = []
    for i in range(n - 1 if last_only else 0, n):
        Y = y[i].copy()
        for head in layer.heads:
            q = head.query.dot(y[i])
            logits = [Fraction(head.key.dot(y[j]).dot(q)) + (head.phi.value(j + 1, i + 1) if head.phi else 0)
                      for j in range(i + 1)]
            top = max(logits)
            if any(a < top and not _flushed(top - a, n, model.precision_bits) for a in logits):
                return False, None
            arg = [j for j, a in enumerate(logits) if a == top]
            Y = Y + sum((head.value.dot(y[j]) for j in arg), np.zeros(model.d, dtype=object) * Fraction(0)) / len(arg)
        if layer.mlp is not None:
            pre = layer.mlp.A.dot(Y) + layer.mlp.b
            Y = Y + layer.mlp.B.dot(np.array([max(z, Fraction(0)) for z in pre], dtype=object))
        outs.append(model.unembedding.dot(Y))
    return True, np.array(outs, dtype=object)


@st.composite
def one_layer_models(draw):
    sigma = ("a", "b", "c")[: draw(st.integers(1, 3))]
    d, delta, tau = 3, draw(st.integers(1, 3)), draw(st.integers(0, 2))
    ints = lambda r, c, lo=-2, hi=2: np.array(draw(st.lists(st.integers(lo, hi), min_size=r * c, max_size=r * c)),  # noqa: E731
                                              dtype=object).reshape(r, c)
    den = draw(st.integers(1, 4))
    query = ints(2, d) * Fraction(1, den)
    phi = tuple(Fraction(v, 2) for v in draw(st.lists(st.integers(-3, 3), min_size=tau + 1, max_size=tau + 1)))
    head = Head(query, ints(2, d), ints(d, d), LocalPhi(phi))
    mlp = MLP(ints(2, d), ints(1, 2)[0], ints(d, 2)) if draw(st.booleans()) else None
    return LimitTransformer(sigma, ints(len(sigma) + 1, d), (Layer((head,), mlp),), ints(1, d),
                            PeriodicPositions(ints(delta, d)), precision_bits=draw(st.integers(1, 5)))


def _rescaled(model: LimitTransformer, t: int) -> LimitTransformer:
    """Scale every logit by t (query matrix and phi): gamma scales by t."""
    h = model.layers[0].heads[0]
    head = Head(h.query * t, h.key, h.value, LocalPhi(tuple(v * t for v in h.phi.values)))
    return LimitTransformer(model.alphabet, model.embedding, (Layer((head,), model.layers[0].mlp),),
                            model.unembedding, model.positions, precision_bits=model.precision_bits)


@checks("izzo2025:sec3.2-hardmax", "izzo2025:sec3.2-precision")
@given(model=one_layer_models(), data=st.data())
@settings(max_examples=40, deadline=None)
def test_hardmax_above_threshold(model, data):
    offset = data.draw(st.integers(0, 6))
    gamma = logit_margin(model, offset=offset).gamma
    t = 1
    while gamma != INF and hardmax_threshold(gamma * t, model.precision_bits) > 24:
        t *= 2
    model = _rescaled(model, t)
    gamma = logit_margin(model, offset=offset).gamma
    n0 = hardmax_threshold(gamma, model.precision_bits)
    n = data.draw(st.integers(max(n0, 1), max(n0, 1) + 8))
    s = "".join(data.draw(st.lists(st.sampled_from(model.alphabet), min_size=n - 1, max_size=n - 1)))
    holds, outs = hardmax_report(model, s, offset)
    assert holds, f"sub-maximal term survives at N={n} >= threshold {n0} (gamma={gamma})"
    assert (exact_forward(model, s, offset=offset) == outs).all()  # the package's izzo semantics agree
    # The float path decides exact boundary cases N^gap = 2^p (a term equal to 2^-p, flushed by "<=") as the
    # exact rule does (precision.BOUNDARY_RTOL), so it must agree everywhere, boundary included.
    with boundary_allowed():  # at N = threshold the boundary N^gap = 2^p is met on purpose
        fl = forward(model, [s], offset=offset)[0]
    np.testing.assert_allclose(fl, outs.astype(float), rtol=1e-9, atol=1e-9)


@checks("izzo2025:sec3.2-hardmax", "izzo2025:sec3.2-precision")
def test_threshold_is_tight_for_modp_control():
    """Negative control: at N = threshold - 1 (255 for gamma = 1/2, p = 4) a sub-maximal term survives the flush
    of sec. 3.2, at N = threshold it is flushed (deterministic: the Hypothesis test above meets the boundary only
    on some draws)."""
    model, _, completed = printed_gamma_violation(precision_bits=4, logit_scale=1)
    n0 = hardmax_threshold(completed, 4)
    assert n0 == 256
    s = "1" + "0" * (n0 - 3)  # model length n0 - 1 = 255: keys of score 1 (k-rows), 1/2 ($) and 0
    assert hardmax_report(model, s, last_only=True)[0] is False
    assert hardmax_report(model, s + "0", last_only=True)[0] is True
    try:
        exact_forward(model, s, positions="last")
        raise AssertionError("exact_forward should refuse a non-hardmax length")
    except NotExactError:
        pass


@checks("izzo2025:sec3.2-hardmax", "izzo2025:def-gamma")
def test_printed_gamma_threshold_violated():
    """The printed gamma of the ModP construction (lam = 1, p = 4) is +inf: its threshold 2^{p/gamma} = 1 claims a
    hardmax at every length, but at length 10 the terms 10^{-1/2} ($) and 10^{-1} (other rows) exceed 2^-4."""
    model, printed, completed = printed_gamma_violation(precision_bits=4, logit_scale=1)
    assert printed == INF and hardmax_threshold(printed, 4) == 1
    holds, _ = hardmax_report(model, "100000000")
    assert holds is False
    w = forward(model, ["100000000"], positions="last")[0, 0]
    assert abs(w - 1.0) > 0.01  # the float softmax output is far from the hardmax average (1)
    # the completed gamma's threshold is respected at the same model
    assert hardmax_report(model, "1" + "0" * (hardmax_threshold(completed, 4) - 2), last_only=True)[0] is True


def _random_model(rng: np.random.Generator) -> LimitTransformer:
    sigma = ("a", "b", "c")[: rng.integers(1, 4)]
    d, delta, tau = 3, int(rng.integers(1, 4)), int(rng.integers(0, 3))
    ints = lambda *shape: rng.integers(-2, 3, size=shape).astype(object)  # noqa: E731
    phi = LocalPhi(tuple(Fraction(int(v), 2) for v in rng.integers(-3, 4, size=tau + 1)))
    head = Head(ints(2, d) * Fraction(1, int(rng.integers(1, 5))), ints(2, d), ints(d, d), phi)
    return LimitTransformer(sigma, ints(len(sigma) + 1, d), (Layer((head,), None),), ints(1, d),
                            PeriodicPositions(ints(delta, d)), precision_bits=int(rng.integers(1, 6)))


def _violations(definition: str, trials: int = 150) -> int:
    """How many seeded random (model, input at the definition's threshold) pairs break the hardmax claim."""
    rng = np.random.default_rng(2025)
    bad = 0
    for _ in range(trials):
        model = _random_model(rng)
        n0 = hardmax_threshold(logit_margin(model, definition).gamma, model.precision_bits)
        if n0 > 40:
            continue
        n = int(rng.integers(max(n0, 2), max(n0, 2) + 6))
        s = "".join(rng.choice(list(model.alphabet), size=n - 1))
        bad += not hardmax_report(model, s)[0]
    return bad


@checks("izzo2025:sec3.2-hardmax", "izzo2025:def-gamma")
def test_same_checker_completed_vs_printed():
    """The same seeded sweep: the completed threshold is never violated, the printed one is (negative control)."""
    assert _violations("completed") == 0
    assert _violations("printed") > 0


@checks("izzo2025:sec3.2-hardmax", "izzo2025:sec3.2-precision")
@settings(max_examples=80)
@given(st.integers(1, 10**12), st.integers(2, 7))
def test_iroot_is_the_floor_root_at_and_beside_exact_powers(r, k):
    """iroot (under the hardmax threshold and the exact powers of the precision model) is floor(a^(1/k)): at an
    exact power r^k it is r, one below it r - 1, one above it r.  Control: the root one short is rejected."""
    from constructions.limit_transformer.precision import iroot

    a = r**k
    assert iroot(a, k) == r and iroot(a + 1, k) == r and iroot(a - 1, k) == r - 1
    assert iroot(a - 1, k) ** k <= a - 1 < (iroot(a - 1, k) + 1) ** k
    short = r - 1
    assert not (short**k <= a < (short + 1) ** k)  # the floor-root property rejects r - 1 at a = r^k
