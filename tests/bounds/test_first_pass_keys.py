"""The first pass of the interval margin from sorted 32-bit keys (``bounds.interval_margin._key_gaps``).

Each key bound must be at most the smallest difference of two of the row's doubles (exactly, in Fractions), on
random rows and on adversarial ones (ties, neighbouring doubles, huge and tiny magnitudes, missing logits as +inf);
rows it cannot bound must be flagged for the exact sort.  The margin computed with the keys must equal the one
computed with the exact sort of every row (the detailed pass needs only a lower bound of each row's sorted bound).
Rows with a far part (the doubles ``fl(A_t + B_r)``, keyed from A and B without building them) are checked the
same way.  Negative control: a key bound inflated by a factor 2 is caught on a row of near-ties.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bounds.interval_margin as im_mod
from bounds.interval_margin import _key_gaps, _sorted_gap_bounds, interval_margin
from bounds.interval_model import from_model
from constructions.strategies import limit_transformers


def _smallest_difference(row) -> Fraction | None:
    vals = sorted(Fraction(float(v)) for v in row if np.isfinite(v))
    diffs = [b - a for a, b in zip(vals, vals[1:], strict=False)]
    return min(diffs) if diffs else None


def _keyed(rows: np.ndarray, inf_cols=()):
    finite = np.isfinite(rows)
    lo, hi = np.min(np.where(finite, rows, np.inf), axis=1), np.max(np.where(finite, rows, -np.inf), axis=1)
    return _key_gaps(rows, lo, hi, list(inf_cols))


def _violations(rows, g, exact):
    bad = []
    for row, gi, ex in zip(rows, g, exact, strict=True):
        least = _smallest_difference(row)
        if not ex and (least is None or Fraction(float(gi)) > least):
            bad.append((row, gi, least))
    return bad


@st.composite
def _rows(draw):
    n = draw(st.integers(2, 40))
    scale = draw(st.sampled_from([1e-300, 1e-8, 1.0, 3e4, 1e12, 1e300]))
    base = draw(st.lists(st.floats(-1, 1, allow_nan=False), min_size=n, max_size=n))
    row = np.array(base) * scale
    kind = draw(st.sampled_from(["plain", "tie", "neighbour", "cluster"]))
    j, k = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
    if kind == "tie":
        row[k] = row[j]
    elif kind == "neighbour":
        row[k] = np.nextafter(row[j], np.inf)
    elif kind == "cluster":
        row[: n // 2] = row[0] + np.arange(n // 2) * draw(st.sampled_from([1e-12, 1e-6, 1.0])) * scale
    cols = draw(st.lists(st.integers(0, n - 1), max_size=3, unique=True))
    for c in cols:
        if draw(st.booleans()):
            row[c] = np.inf
    return row, cols


@settings(max_examples=300, deadline=None)
@given(st.lists(_rows(), min_size=1, max_size=4))
def test_key_gaps_bound_every_difference_of_doubles(rows):
    width = max(len(r) for r, _ in rows)
    mat = np.full((len(rows), width), np.inf)
    for i, (r, _) in enumerate(rows):
        mat[i, : len(r)] = r
    inf_cols = sorted(set().union(*(set(c) for _, c in rows)) | set(range(min(len(r) for r, _ in rows), width)))
    g, exact = _keyed(mat, inf_cols)
    assert not _violations(mat, g, exact)


def test_key_gaps_bound_spread_and_crowded_rows():
    rng = np.random.default_rng(0)
    spread = rng.normal(size=(50, 3000)) * 3e4  # like the logits of a float model: most rows bounded by keys
    g, exact = _keyed(spread)
    assert exact.mean() < 0.5 and not _violations(spread, g, exact)
    crowded = spread.copy()
    crowded[:, 1] = np.nextafter(crowded[:, 0], np.inf)  # a neighbouring double in every row: all left to the sort
    g, exact = _keyed(crowded)
    assert exact.all()


def test_an_inflated_key_bound_is_caught():
    """Negative control: doubling g (an unsound bound) violates the exact smallest difference somewhere."""
    rng = np.random.default_rng(1)
    rows = rng.normal(size=(200, 400)) * 100
    g, exact = _keyed(rows)
    assert not _violations(rows, g, exact)
    assert _violations(rows, 2 * g + 1e-3, exact)


def _far_rows(A, B, other):
    """The doubles of each row: fl(A_t + B_r) for every t, r, then the columns of ``other``."""
    return np.concatenate([(A[:, :, None] + B[:, None, :]).reshape(len(A), -1), other], axis=1)


def _far_keyed(A, B, other, inf_cols=()):
    rows = _far_rows(A, B, other)
    finite = np.isfinite(rows)
    lo, hi = np.min(np.where(finite, rows, np.inf), axis=1), np.max(np.where(finite, rows, -np.inf), axis=1)
    return rows, *_key_gaps(other, lo, hi, list(inf_cols), (A, B))


@st.composite
def _far_cases(draw):
    S, D, m = draw(st.integers(1, 8)), draw(st.integers(1, 8)), draw(st.integers(0, 4))
    scale = draw(st.sampled_from([1e-300, 1e-8, 1.0, 3e4, 1e12, 1e300]))
    offset = draw(st.sampled_from([0.0, 1.0, 1e6, -1e9]))  # values far from 0 relative to their spread
    floats = st.floats(-1, 1, allow_nan=False)
    A = np.array(draw(st.lists(floats, min_size=S, max_size=S))) * scale + offset
    B = np.array(draw(st.lists(floats, min_size=D, max_size=D))) * scale
    other = np.array(draw(st.lists(floats, min_size=m, max_size=m))) * scale + offset
    kind = draw(st.sampled_from(["plain", "tie", "neighbour", "other-tie"]))
    if kind == "tie" and S >= 2 and D >= 2:  # A_0 + B_1 = A_1 + B_0 exactly
        B[1] = B[0] + (A[1] - A[0])
    elif kind == "neighbour":
        A[-1] = np.nextafter(A[0], np.inf)
    elif kind == "other-tie" and m:
        other[0] = A[0] + B[-1]
    inf_cols = [c for c in range(m) if draw(st.booleans()) and draw(st.booleans())]
    other[inf_cols] = np.inf
    return A[None], B[None], other[None], inf_cols


@settings(max_examples=300, deadline=None)
@given(_far_cases())
def test_far_key_gaps_bound_every_difference_of_doubles(case):
    A, B, other, inf_cols = case
    rows, g, exact = _far_keyed(A, B, other, inf_cols)
    assert not _violations(rows, g, exact)


def test_far_key_gaps_bound_spread_rows_and_leave_crowded_ones():
    rng = np.random.default_rng(2)
    A, B, other = rng.normal(size=(40, 100)) * 3e4, rng.normal(size=(40, 64)) * 3e4, rng.normal(size=(40, 300)) * 3e4
    rows, g, exact = _far_keyed(A, B, other)
    assert exact.mean() < 0.5 and not _violations(rows, g, exact)
    B[:, 1] = np.nextafter(B[:, 0], np.inf)  # fl(A_t + B_1) next to fl(A_t + B_0) in every row: left to the sort
    rows, g, exact = _far_keyed(A, B, other)
    assert exact.all()


def test_an_inflated_far_key_bound_is_caught(monkeypatch):
    """Negative controls: doubling g, or dropping the slack of the truncated keys (g = D / sc), violates the exact
    smallest difference somewhere."""
    rng = np.random.default_rng(3)
    A, B, other = rng.normal(size=(100, 20)) * 100, rng.normal(size=(100, 20)) * 100, rng.normal(size=(100, 5))
    rows, g, exact = _far_keyed(A, B, other)
    assert not _violations(rows, g, exact)
    assert _violations(rows, 2 * g + 1e-3, exact)
    monkeypatch.setattr(im_mod, "_KEY_SLACK", 0.0)
    rows, g, exact = _far_keyed(A, B, other)
    assert _violations(rows, g, exact)


def _margin_with_exact_sort(im, **kw):
    def every_row_exact(vals, lo, hi, inf_cols, far=None):
        return np.full(len(vals), np.nan), np.ones(len(vals), dtype=bool)

    with pytest.MonkeyPatch.context() as m:
        m.setattr(im_mod, "_key_gaps", every_row_exact)
        return interval_margin(im, **kw)


@settings(max_examples=40, deadline=None)
@given(limit_transformers(depth=(1, 1), params="any"))
def test_margin_equals_the_exact_sort_first_pass(model):
    if not model.layers[0].heads or model.positions is not None and not hasattr(model.positions, "table"):
        return
    try:
        model.require_periodic_and_local("t")
    except ValueError:
        return
    for definition in ("completed", "printed"):
        im = from_model(model)
        assert interval_margin(im, definition, exact_model=model) == \
            _margin_with_exact_sort(im, definition=definition, exact_model=model)


def test_margin_equals_the_exact_sort_first_pass_on_a_float_model():
    import json
    import sys
    from pathlib import Path

    from bounds.interval_model import interval_model_from_dict

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    try:
        from bench_bounds import model_dict
    finally:
        sys.path.pop(0)
    for seed in range(3):
        im = interval_model_from_dict(json.loads(json.dumps(model_dict(16, 6, 4, 16, seed=seed))))
        for definition in ("completed", "printed"):
            assert interval_margin(im, definition) == _margin_with_exact_sort(im, definition=definition)


def test_sorted_gap_bounds_ignores_missing_logits():
    rows = np.array([[0.0, 1.0, np.inf, np.inf], [2.0, np.inf, np.inf, np.inf]])
    got = _sorted_gap_bounds(rows, np.zeros(2))
    assert got[0] < 1.0 and got[0] > 1.0 - 1e-12 and got[1] == np.inf


def test_margin_does_not_depend_on_the_block_size(monkeypatch):
    """First-pass blocks hold about ``_CHUNK_VALUES`` logits (many query classes for the small printed sets): one
    class per block gives the same margin.  Negative control: a pass that leaves out the class of the smallest
    gap (its bound +inf, as a block that missed it would) gives another margin."""
    import json
    import sys
    from pathlib import Path

    from bounds.interval_model import interval_model_from_dict

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    try:
        from bench_bounds import model_dict
    finally:
        sys.path.pop(0)
    im = interval_model_from_dict(json.loads(json.dumps(model_dict(16, 10, 8, 16, seed=0))))  # 80 classes
    default = {d: interval_margin(im, d) for d in ("completed", "printed")}
    monkeypatch.setattr(im_mod, "_CHUNK_VALUES", 1)
    assert {d: interval_margin(im, d) for d in ("completed", "printed")} == default
    monkeypatch.undo()
    real = im_mod._row_bounds
    best = default["completed"]
    missed = (im.alphabet.index(best.query_token) + 1, best.query_residue)

    def missing_one(im_, blocks, head, s, i, definition, offset):
        out = real(im_, blocks, head, s, i, definition, offset)
        return np.where((s == missed[0]) & (i == missed[1]), np.inf, out)

    monkeypatch.setattr(im_mod, "_row_bounds", missing_one)
    assert interval_margin(im, "completed") != best
