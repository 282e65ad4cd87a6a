"""z3 asks for pairs that break a training-length bound (counterexamples/izzo/z3_search.py): it rediscovers the
residual-path break of the published formula, finds breaks of the corrected encoding when N is set too small (a
control), none at the corrected bound's own N on a slice, and every reported break survives exact evaluation."""

from fractions import Fraction

import pytest

from bounds.compare import exhaustive_disagreement
from bounds.margin import combine, ingredients
from counterexamples.izzo.z3_search import (
    SearchLog,
    Target,
    attention_menu,
    build,
    search,
    search_structure,
    target_length,
    verify_break,
)
from verify.claims import checks


@checks("izzo2025:thm4.1.residual")
def test_z3_rediscovers_the_residual_break():
    """No MLP (printed L = 0, so N = 2^{p/gamma} = 2 for every eps); f attends uniformly, g to token b: z3 finds
    output weights with f = g on every input up to length 2 and |f - g| > 1 later; every string is re-evaluated."""
    menu = attention_menu(2, 1, 0)
    log = SearchLog()
    b = search_structure(Target("published", Fraction(1, 10), gap=Fraction(1)), 2, 1, 0, False, menu[0], menu[6],
                         log)
    assert b is not None and log.sat == 1 and b.N == 2 and b.difference > 1
    pr = combine(ingredients(b.f, definition="printed"), ingredients(b.g, definition="printed"))
    assert pr.L2 == 0 and pr.tau == 0
    assert all(exhaustive_disagreement(b.f, b.g, n)[0] == 0 for n in (1, 2))
    assert exhaustive_disagreement(b.f, b.g, b.length)[0] == b.difference


BOX = {"radius": Fraction(1, 2), "value_radius": Fraction(1, 64)}


@checks("izzo2025:thm4.1.search")
def test_z3_corrected_bound_slice_and_control():
    """One symbol, Delta = 2, tau = 0, both heads uniform; U on the residual in [-1/2, 1/2], the attention's paths in
    [-1/64, 1/64], eps = 1/4: at the corrected N (and at N - 1) z3 proves there is no break in the encoded family
    (unsat); the same encoding with N = 2 finds one (the query class (a, residue 0) is first seen at length 3),
    checked exactly."""
    menu = attention_menu(1, 2, 0)
    eps = Fraction(1, 4)
    log = SearchLog()
    for shift in (0, -1):
        assert search_structure(Target("corrected", eps, shift=shift, **BOX), 1, 2, 0, False, menu[0], menu[0],
                                log) is None
    assert log.unsat == 2 and min(log.lengths) > 2
    b = search_structure(Target("fixed", eps, N=2, **BOX), 1, 2, 0, False, menu[0], menu[0], log)
    assert b is not None and b.N == 2 and b.difference > eps and log.sat == 1
    # with a ReLU unit (nonlinear arithmetic) the control is found as well
    b = search_structure(Target("fixed", Fraction(1), N=2, **BOX), 1, 2, 0, True, menu[0], menu[0], log)
    assert b is not None and b.f.layers[0].mlp is not None and b.difference > 1 and log.sat == 2


@checks("izzo2025:thm4.1.search")
def test_verify_break_rejects_non_breaks():
    """The exact checker can fail: a pair equal to itself, and the rediscovered pair against a gap it does not reach
    or against the corrected bound (its N is beyond the breaking length)."""
    menu = attention_menu(2, 1, 0)
    params = {"u": [0, 1, 0], "W": [1, 0, 1]}
    f, g = build(2, 1, menu[0], params), build(2, 1, menu[6], params)
    published = Target("published", Fraction(1, 10), gap=Fraction(1, 10))
    hit = verify_break(published, f, g)
    assert hit is not None and hit.N == 2
    assert verify_break(published, f, f) is None
    assert verify_break(Target("published", Fraction(1, 10), gap=Fraction(3)), f, g) is None  # |f - g| <= 2 here
    assert target_length(Target("corrected", Fraction(1, 10)), f, g, budgets=False) > hit.length
    assert verify_break(Target("corrected", Fraction(1, 10)), f, g) is None


@checks("izzo2025:thm4.1.search")
def test_verify_break_checks_agreement_at_N_itself():
    """A pair that already disagrees at length N is no break of a bound N (it does not agree up to N), whatever it
    does after: the exact re-check must look at length N itself.  Control: the same pair against N one shorter is
    a break."""
    menu = attention_menu(2, 1, 0)
    params = {"u": [0, 1, 0], "W": [1, 0, 1]}
    f, g = build(2, 1, menu[0], params), build(2, 1, menu[6], params)
    first = verify_break(Target("fixed", Fraction(1, 10), N=2, gap=Fraction(1, 10)), f, g)
    assert first is not None and first.length == 3                        # control: agree up to 2, differ at 3
    assert exhaustive_disagreement(f, g, 4)[0] > Fraction(1, 10)            # and they still differ after 3
    assert verify_break(Target("fixed", Fraction(1, 10), N=3, gap=Fraction(1, 10)), f, g) is None


@checks("izzo2025:thm4.1.search")
def test_solver_unknown_is_counted_unknown_never_unsat(monkeypatch):
    """A z3 query that answers 'unknown' (a timeout) is counted as unknown, never as unsat ('no break'); control:
    the same query decided by the real solver is unsat (the corrected bound's slice)."""
    import z3

    menu = attention_menu(1, 2, 0)
    target = Target("corrected", Fraction(1, 4), **BOX)
    log = SearchLog()
    assert search_structure(target, 1, 2, 0, False, menu[0], menu[0], log) is None
    assert (log.unsat, log.unknown) == (1, 0)
    monkeypatch.setattr(z3.Solver, "check", lambda self, *a, **k: z3.unknown)
    log = SearchLog()
    assert search_structure(target, 1, 2, 0, False, menu[0], menu[0], log) is None
    assert (log.unsat, log.unknown, log.queries) == (0, 1, 1)


@pytest.mark.slow
@checks("izzo2025:thm4.1.search")
def test_z3_family_search_slow():
    """The whole encoded family without an MLP (974 structures), the box of the fast test, eps = 1/4 (docs/bounds.md
    records the runs): no break of the corrected bound, no unknown; the control N = 2 and the published formula are
    broken."""
    eps = Fraction(1, 4)
    corrected = search(Target("corrected", eps, **BOX), mlp=(False,))
    assert corrected.queries == corrected.unsat == 974 and not corrected.breaks
    control = search(Target("fixed", eps, N=2, **BOX), mlp=(False,))
    assert len(control.breaks) == control.sat > 0 and not control.rejected
    published = search(Target("published", Fraction(1, 10), gap=Fraction(1)), mlp=(False,))
    assert len(published.breaks) == published.sat > 0
