"""golowich2025 Proposition 3.2 / B.1: attention heads vs 1-sparse functional attention (verify.golowich.heads)."""

import pytest
import sympy
import z3

from verify.claims import checks
from verify.golowich import heads as H
from verify.kernel import LinalgStep, Proof, Z3Step, assert_proof, negated

KB = "golowich2025:prop-b1"


def _with_neg(step, **changes):
    return type(step)(**{**step.__dict__, "negative": negated(step, **changes)})


@checks(KB, "golowich2025:def-b1")
def test_subset_direction_head_equals_its_functional_form():
    params = ([[1, -2, 0], [0, 1, 3]], [[1, 0], [2, 1]], [[0, 1], [1, 1]], [[1, 1], [0, 2]], [[1, 0], [-1, 1]],
              [1, 2])
    g0, g1 = H.head_to_functional(*params)
    step = LinalgStep(KB, "head(x) = h_{g0,g1}(x), |x| <= 2, d = h = 2, |V| = 3",
                      residual=lambda: H.head_minus_functional(params, g0, g1, max_len=2))
    bad_g1 = [[v[0] + 1, v[1]] for v in g1]
    step = _with_neg(step, residual=lambda: H.head_minus_functional(params, g0, bad_g1, max_len=2))
    assert_proof(Proof(KB, "B.1 subset direction", (step,)))


def _superset_refutation_steps():
    pos, same, differ, ratio = H.length2_necessity()
    nec = Z3Step(KB, "length-2 sequences with g1(x) != g1(y) fix the weight ratio", hypotheses=(*pos, same, differ),
                 goal=ratio)
    nec = _with_neg(nec, hypotheses=(*pos, same))  # drop g1(x) != g1(y): ratio free
    w = H.product_witness(3)
    no_head = Z3Step(KB, "mixed pair (key of head 2, value of head 1) is no head, d = h = 1, |V| = 3",
                     hypotheses=H.realizability_constraints(*w["mixed"], d=1, h=1), goal=z3.BoolVal(False))
    no_head = _with_neg(no_head, hypotheses=H.realizability_constraints(w["head2"][1], w["head2"][2], d=1, h=1))
    heads = []
    for name in ("head1", "head2"):
        params, g0, g1 = w[name]
        got0, got1 = H.head_to_functional(*params)
        st = LinalgStep(KB, f"{name} has key table {g0} and value table {g1}",
                        residual=sympy.Matrix([a - b for a, b in zip(got0, g0, strict=True)]
                                              + [a[0] - b[0] for a, b in zip(got1, g1, strict=True)]))
        heads.append(_with_neg(st, residual=sympy.Matrix([got0[1] - g0[1] + 1])))
    return (nec, no_head, *heads)


@checks(KB, "golowich2025:prop3.2")
def test_superset_direction_refuted_no_product_class():
    """Refutation: heads 1 and 2 exist, so any product class containing both contains the mixed pair,
    which no head computes (z3 unsat of necessary conditions).  Each step has a rejected negative control."""
    res = assert_proof(Proof(KB, "B.1 superset direction fails", _superset_refutation_steps()))
    assert all(not r.negative_outcome.holds for r in res)


@checks(KB)
@pytest.mark.parametrize(("d", "h", "nv", "expect"), [(1, 1, 2, "sat"), (1, 1, 3, "unsat"), (2, 1, 2, "unsat")])
def test_grid_points(d, h, nv, expect):
    assert H.grid_search((d,), (h,), (nv,))[(d, h, nv)] == expect


@pytest.mark.slow
@checks(KB)
def test_grid_search_slow():
    """Recorded in docs/gaps.md: unsat iff |V| >= d + 2 or h < d; (2, 2, 4) unknown at 20 s."""
    g = H.grid_search()
    assert all(v == "unsat" for (d, h, nv), v in g.items() if (nv >= d + 2 or h < d) and (d, h, nv) != (2, 2, 4))
    assert all(v == "sat" for (d, h, nv), v in g.items() if nv <= d + 1 and h >= d)
