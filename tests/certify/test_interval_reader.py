"""The vectorized number reader and the exact tie-breaking of the interval mode (speed).

``bounds.interval_model._read_numbers`` reads a whole matrix at once; ``_Reader`` states the rules one number at a
time.  Both must give the same doubles (bit for bit, the sign of zero included) and the same exactness flag, and
every read must enclose the value the exact loader gives the same text.  ``bounds.interval_margin`` decides
near-tied logits exactly, by exact integer products of doubles (``_exact_products``) and by whole clusters of
near-tied values.  Every check has a negative control that the same check rejects.
"""

from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bounds.float_enclosures import Ball
from bounds.interval_margin import (
    _blocks,
    _digit_width,
    _dyadic_digits,
    _exact_logit,
    _exact_products,
    _row_values,
    interval_margin,
)
from bounds.interval_model import _matrix, _read_numbers, _Reader, from_model
from bounds.margin import logit_margin
from constructions.limit_transformer.errors import ModelFormatError
from constructions.limit_transformer.model import (
    MLP,
    Head,
    Layer,
    LimitTransformer,
    LocalPhi,
    PeriodicPositions,
)
from constructions.limit_transformer.serialize import _num


def _reference(flat):
    read = _Reader()
    return np.array([read(x) for x in flat], dtype=np.float64), read.exact


def _outcome(reader, flat):
    """(bytes of the doubles, exact) or the error message: comparable, -0.0 and 0.0 told apart."""
    try:
        mid, exact = reader(flat)
    except ModelFormatError as e:
        return str(e)
    return np.asarray(mid, dtype=np.float64).tobytes(), exact


def _exact_value(x) -> Fraction:
    """What the exact loader means by a JSON number: a float by its decimal text repr(x) (serialize._num)."""
    return Fraction(_num(x)) if isinstance(x, float) else Fraction(x)


# (numbers, exact?) pairs: each exact case sits next to an inexact control and vice versa
EDGES = [
    ([2**53 - 1, -(2**53 - 1)], True), ([2**53], False), ([2**53 + 1], False),
    (["9007199254740991"], True), (["9007199254740992"], False),
    (["9007199254740991/4"], True), (["9007199254740993/4"], False),
    (["3/4", "-5/8"], True), (["1/3"], False), (["0.25"], False), (["12", "-7"], True), (["1_000"], False),
    ([3.0, -2.0], True), ([0.1], False), ([2.0**60], False), ([1e300], False), ([1e-320], False), ([-0.0], True),
    (["1/" + str(2**999)], True), (["1/" + str(2**1000)], False), (["3/" + str(2**60)], True),
    (["3/" + str(2**60 + 1)], False), (["1/" + str(5 * 2**70)], False), (["1/0004"], True),
    (["-0"], True), (["-0/1"], True), (["-0.0"], False), (["1e-320"], False), ([" 3 "], True),
    # denominators on both sides of 18 digits (parsed as int64 up to 18, digit by digit beyond)
    (["3/" + str(2**59)], True), (["3/" + str(2**59 + 2)], False), (["3/999999999999999999"], False),
    (["-3/" + str(2**60), "5/" + str(2**59)], True), (["1/" + str(10**18)], False), (["1/" + str(2**63)], True),
    # 19 digits: int64 while np.fromstring does not saturate (2^60..2^62), digit by digit from 2^63 - 1 on
    (["3/" + str(2**62)], True), (["3/" + str(2**62 + 2)], False), (["3/" + str(2**63 - 1)], False),
    (["3/" + str(2**63 + 2)], False), (["3/9999999999999999999"], False), (["-3/" + str(2**61), "1/" + str(2**64)], True),
    # denominators of 2^1024 and more: correctly rounded (to 0 or a subnormal), never refused; the TINY term of every
    # radius covers the underflow
    (["1/" + str(2**1100)], False), (["3/" + str(10**400)], False), (["1/" + str(3 * 2**1060)], False),
]
ERRORS = [["1/0"], ["1e400"], [10**400], ["3//4"], ["/4"], ["4/"], ["x"], [True], [None]]


@pytest.mark.parametrize("flat, exact", EDGES)
def test_edges_agree_with_the_reference(flat, exact):
    ref = _outcome(_reference, flat)
    assert _outcome(_read_numbers, flat) == ref
    assert ref[1] is exact
    # negative control: the comparison tells a flipped flag, and a zero of the other sign, apart
    mid, flag = _reference(flat)
    assert _outcome(lambda f: (mid, not flag), flat) != ref
    assert _outcome(lambda f: (np.where(mid == 0, -mid, mid + np.spacing(mid)), flag), flat) != ref


@pytest.mark.parametrize("flat", ERRORS)
def test_unreadable_numbers_are_refused(flat):
    """One ModelFormatError (no traceback of another type), and the same outcome as the reference reader."""
    with pytest.raises(ModelFormatError):
        _matrix([flat], "m")
    assert _outcome(_read_numbers, flat) == _outcome(_reference, flat)
    # negative control: a readable neighbour is read
    assert _matrix([["1/2"] * len(flat)], "m").mid.shape == (1, len(flat))


def test_signs_of_zero():
    """``"-0"`` is float("-0") = -0.0 and ``"-0/1"`` is float(int("-0")) / 1.0 = +0.0, as _Reader reads them."""
    assert np.signbit(_read_numbers(["-0", "1"])[0][0]) and not np.signbit(_read_numbers(["-0/1", "1/2"])[0][0])


@pytest.mark.parametrize("flat", [[x] for x, _ in [(2.0**60, 0), (1e300, 0), (0.1, 0), (1e-320, 0)]]
                         + [["1/3"], ["0.1"], ["3/" + str(2**60 + 1)], [2**53 + 1]])
def test_reads_enclose_the_exact_value(flat):
    """Soundness: the ball of the read contains what the exact loader means, including JSON floats above 2^53
    (an integral double whose decimal text repr(x) is another integer: 2.0**60 means 1152921504606847000)."""
    ball = _matrix([flat], "m")
    exact = _exact_value(flat[0])
    assert abs(exact - Fraction(ball.mid[0, 0])) <= Fraction(ball.rad[0, 0])
    # negative control: radius 0 (the earlier rule for integral floats) misses every one of these
    assert exact != Fraction(ball.mid[0, 0])


_ints = st.integers(-(2**60), 2**60)
_pow2_text = st.builds(lambda a, k: f"{a}/{2**k}", st.integers(-(2**54), 2**54), st.integers(0, 1010))
_other_text = st.builds(lambda a, b: f"{a}/{b}", _ints, st.integers(1, 10**25))
_float = st.floats(allow_nan=False, allow_infinity=False)


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.lists(st.one_of(_pow2_text, _other_text, _ints.map(str)), min_size=1, max_size=30),
                 st.lists(st.one_of(_ints, _float), min_size=1, max_size=30),
                 st.lists(_float.map(repr), min_size=1, max_size=30)))
def test_random_lists_agree_with_the_reference(flat):
    ref = _outcome(_reference, flat)
    assert _outcome(_read_numbers, flat) == ref
    # the same through _matrix, whose rows of strings are joined without a flat list
    if not isinstance(ref, str) and np.all(np.isfinite(_reference(flat)[0])):
        ball = _matrix([flat, flat], "m")
        assert (ball.mid[1].tobytes(), not ball.rad.any()) == ref


# ----------------------------------------------------------------------------------------------- exact products


def _fractions(X):
    return np.array([[Fraction(float(x)) for x in row] for row in np.atleast_2d(X)], dtype=object)


def _product(M, V):
    """M @ V by :func:`_exact_products`, as Fractions (None where the digits do not apply)."""
    w = _digit_width(M.shape[1])
    dm, dv = _dyadic_digits(M, w), _dyadic_digits(V, w)
    if dm is None or dv is None:
        return None
    ints = _exact_products(dm[0], dv[0], w)
    return np.array([[Fraction(int(x)) * Fraction(2) ** (dm[1] + dv[1]) for x in row] for row in ints], dtype=object)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 40), st.sampled_from([0, 30, 200, 900]))
def test_exact_products_of_doubles(seed, d, spread):
    """M @ V exactly (Python ints times 2^e), entries spanning 2^spread, zeros included."""
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(3, d)) * 2.0 ** rng.integers(-spread // 2 - 1, spread // 2 + 1, size=(3, d))
    V = rng.normal(size=(d, 2)) * 2.0 ** rng.integers(-spread // 2 - 1, spread // 2 + 1, size=(d, 2))
    M[0, 0] = 0.0
    exact = _fractions(M).dot(_fractions(V))
    assert (_product(M, V) == exact).all()
    # negative control: the float64 product is not exact here
    if d > 2:
        assert not (_fractions(M @ V) == exact).all()


def test_exact_products_subnormals():
    """Subnormal entries are exact multiples of 2^-1074; beside entries near 1 they span more exponents than a
    scaled double holds, and the digits decline (the caller multiplies Fractions)."""
    tiny = np.array([[5e-324, 3 * 5e-324], [2**-1070, 0.0]])
    assert (_product(tiny, tiny.T) == _fractions(tiny).dot(_fractions(tiny.T))).all()
    assert _product(np.array([[1.0, 5e-324]]), np.array([[1.0], [1.0]])) is None


# ----------------------------------------------------------------------------------------------- near-tie clusters


def _small_model(seed):
    rng = np.random.default_rng(seed)
    q = lambda *s: rng.integers(-40, 41, size=s) / 16  # noqa: E731
    return LimitTransformer(alphabet=("a", "b"), embedding=q(3, 3),
                            layers=(Layer(heads=(Head(q(3, 3), q(3, 3), q(3, 3), LocalPhi((1, -1))),),
                                          mlp=MLP(q(2, 3), q(2), q(3, 2))),),
                            unembedding=q(1, 3), positions=PeriodicPositions(q(2, 3)), precision_bits=4)


def _scrambled(m, seed, scale):
    """The interval view of m with every midpoint moved by up to ``scale`` and the radius grown to cover it:
    a sound enclosure whose midpoints order the logits differently from their exact values."""
    im = from_model(m)
    rng = np.random.default_rng(seed)

    def blur(b):
        noise = rng.uniform(-scale, scale, size=b.mid.shape)
        return Ball(b.mid + noise, b.rad + np.abs(noise) * (1 + 2**-40) + 2**-60)

    return replace(im, embedding=blur(im.embedding), positions=blur(im.positions))


def _adjacent_only(im, m, definition="completed"):
    """The earlier rule, as a control: near-tied values decided in pairs adjacent by midpoint only."""
    head = im.heads[0]
    S, delta = len(im.alphabet), im.period
    qs = np.array([(s, i) for s in range(1, S + 1) for i in range(delta)])
    mid, rad, srcs = _row_values(im, _blocks(im, head), head, qs[:, 0], qs[:, 1], definition, 0)
    best = None
    for row, (s, i) in enumerate(qs):
        order = np.argsort(mid[row], kind="stable")
        vals = [_exact_logit(m, 0, int(s), int(i), srcs[j], 0) for j in order if np.isfinite(mid[row, j])]
        for lo, hi in zip(vals, vals[1:], strict=False):
            if hi != lo and (best is None or abs(hi - lo) < best):
                best = abs(hi - lo)
    return best


def test_near_tied_clusters_are_decided_as_a_whole():
    """With every midpoint moved far beyond the logit gaps, every row is one cluster of near-ties: the certified
    gamma must then be the exact gamma (within the final rounding).  Negative control: deciding only the pairs
    adjacent by midpoint (the earlier rule) reports a larger gap than the exact gamma on the same input."""
    broke = 0
    for seed in range(6):
        m = _small_model(seed)
        exact = logit_margin(m, mode="exact").gamma
        im = _scrambled(m, seed, 5.0)
        got = interval_margin(im, exact_model=m)
        assert not got.unresolved and got.exact_ties > 0
        assert exact * (1 - Fraction(1, 2**48)) <= got.gamma_lower <= exact
        broke += _adjacent_only(im, m) > exact
    assert broke > 0
