"""Proposition C.3 witnesses as data, re-checked exactly; closed forms certified for all L, Lbar."""

from fractions import Fraction

import pytest
import sympy as sp

from constructions.golowich.model import point_ensemble, risk, uniform
from counterexamples.golowich.closed_forms import (
    CLAIMS,
    agrees_with_enumeration,
    formula,
    prove_lower_bound,
    uniform_c,
)
from counterexamples.golowich.witnesses import Witness, WitnessError, build, recheck
from verify.claims import checks
from verify.golowich import prop_c3
from verify.kernel import assert_universal_proof

F = Fraction
KEYS = {"locality": "golowich2025:prop-c3.locality", "relative": "golowich2025:prop-c3.relative",
        "realizability-repaired": "golowich2025:prop-c3.realizability.repair",
        "coverage": "golowich2025:prop-c3.coverage"}


#: the claim each closed form of counterexamples.golowich.closed_forms belongs to (a parametrized case is linked to
#: its own witness's claim only, so no claim is credited with a neighbour's check)
CLOSED_FORM_CLAIM = {**KEYS, "relative@L+1": KEYS["relative"], "realizability": "golowich2025:prop-c3.realizability",
                     "thm43-literal": "golowich2025:asm4.2.planted-locality"}


class _Reports(dict):
    """The exact re-check of each witness (L = 8, lengths up to 16), computed when a test first asks for it."""

    def __missing__(self, name):
        self[name] = recheck(build(name, 8), 16)
        return self[name]


@pytest.fixture(scope="module")
def reports():
    return _Reports()


@pytest.mark.parametrize("name", [pytest.param(n, marks=checks("golowich2025:prop-c3", KEYS[n])) for n in KEYS])
def test_witness_rechecks_exactly(reports, name):
    r = reports[name]
    assert r["ok"], r
    assert r["kept_hold"] and r["dropped_violated"] and r["bad_is_minimizer"]
    assert r["planted_local"].holds == (name != "locality")
    assert r["c"] >= F(1, 2)


@pytest.mark.parametrize("name", [pytest.param(n, marks=checks("golowich2025:prop-c3", KEYS[n])) for n in KEYS])
def test_witness_constant_is_the_least_test_risk(reports, name):
    """The re-check's constant c is the witness's least test risk over Lbar in [test_from, 16]: the closed form of
    counterexamples.golowich.closed_forms at the first test length (the risks increase in Lbar), strictly below
    the risk at the last length checked (so the largest would be a different, wrong constant)."""
    from counterexamples.golowich.closed_forms import RISK

    r, w = reports[name], build(name, 8)
    closed = sp.Rational(RISK[name](sp.Integer(8), sp.Integer(w.test_from)))
    assert r["c"] == F(int(closed.p), int(closed.q)) == min(r["test_risks"].values())
    assert w.test_from == 16 or r["c"] < r["test_risks"][16]   # locality: one test length (2L = 16) only


@pytest.mark.parametrize("name", [pytest.param(n, marks=checks("golowich2025:prop-c3", KEYS[n])) for n in KEYS])
def test_recheck_rejects_a_failing_hypothesis_that_is_no_minimiser(name):
    """The witness's class with one more key that scores no set (h = 1/C(l, 2): positive training risk, and a
    positive test risk): blaming it is refused because it does not minimise the training risk, though every kept
    assumption still holds and its test risk is positive; control: the witness as built passes (L = 4)."""
    import dataclasses

    from constructions.golowich.model import NEG_INF, AttentionClass, KeyFunction

    w = build(name, 4)
    assert recheck(w)["ok"]
    none = KeyFunction("none", lambda S, x: NEG_INF)
    H = AttentionClass(w.H.keys + (none,), w.H.values, w.H.k)
    r = recheck(dataclasses.replace(w, H=H, bad=("none", w.bad[1])))
    assert r["kept_hold"] and r["c"] > 0 and not r["bad_is_minimizer"]
    assert not r["ok"]


@checks("golowich2025:prop-c3.locality")
def test_locality_realizer_is_g01_not_g00(reports):
    r = reports["locality"]
    assert r["verdicts"]["realizability"].witness["realizer"] == ("g01", "g1")
    w = build("locality", 8)
    g00 = w.H.keys[0]
    assert risk(g00, w.H.values[0], w.ens, 9) == F(4, 9)  # the printed realizer errs at L + 1
    assert risk(g00, w.H.values[0], w.ens, 16) > F(97, 100)


@checks("golowich2025:prop-c3.relative")
def test_relative_risk_at_L_plus_1_is_one_half(reports):
    assert reports["relative"]["test_risks"][9] == F(1, 2)
    assert reports["relative"]["c"] == F(1, 2)


@checks("golowich2025:prop-c3.realizability")
def test_printed_realizability_witness_violates_coverage(reports):
    r = reports["realizability"]
    assert not r["ok"] and not r["kept_hold"]
    cov = r["verdicts"]["coverage"]
    assert not cov.holds and cov.witness["needed_eta"] == "inf" and cov.witness["ineq"] == "i"
    assert cov.witness["l"] == 9 and cov.witness["S*"] == (1, 3)
    # the rest of the printed numbers: g00 trains to 0, g01 to 11/12; at l = 9 g00 has risk 7/8
    assert r["train_risks"][("g00", "g1")] == 0 and r["train_risks"][("g01", "g1")] == F(11, 12)
    assert r["test_risks"][9] == F(7, 8)


@checks("golowich2025:prop-c3.realizability.repair")
def test_repaired_realizability_witness_eq16(reports):
    r = reports["realizability-repaired"]
    assert r["minimizers"] == [("g00", "g1")]  # unique minimiser
    assert r["train_risks"][("g00", "g1")] == F(11, 120) and r["train_risks"][("g01", "g1")] == F(33, 40)
    w = build("realizability-repaired", 8)
    for lb in (9, 16, 30):
        gap = risk(w.H.keys[0], w.H.values[0], w.ens, lb) - risk(w.H.keys[1], w.H.values[0], w.ens, lb)
        assert gap >= F(2, 3)  # eq. (16) with Omega(1) = 2/3


@checks("golowich2025:asm4.2.planted-locality", "golowich2025:thm4.3")
def test_theorem43_literal_counterexample(reports):
    r = reports["thm43-literal"]
    w = build("thm43-literal", 8)
    assert r["ok"] and r["kept_hold"] and all(v.holds for v in r["verdicts"].values())
    assert w.L >= 4 * w.L_local and (16 - w.L) % w.L_local == 0
    assert r["verdicts"]["realizability"].value == 0  # delta = 0: the theorem's bound is 0
    assert r["test_risks"][16] == F(119, 345) and not r["planted_local"].holds
    # negative control: restore span(S*) <= L_local at every length -> every minimiser generalizes
    adj = point_ensemble((1, 2), 2, 1, (2, 2), 1, lambda l: uniform([(i, i + 1) for i in range(1, l)]))
    w2 = Witness("ctrl", "none", w.H, adj, 8, w.L_local, w.bad, w.realizer, 16)
    r2 = recheck(w2, 18)
    assert r2["planted_local"].holds and not r2["ok"] and r2["c"] == 0


@checks("golowich2025:prop-c3")
def test_negative_control_perturbed_witness_fails_recheck():
    w = build("coverage", 8)
    # move the test-length mass back onto adjacent pairs: coverage now holds, and g00 no longer fails
    fixed = point_ensemble((1, 2), 2, 1, (2, 2), 1, lambda l: uniform([(i, i + 1) for i in range(1, l)]))
    r = recheck(Witness("ctrl", "coverage", w.H, fixed, 8, 2, w.bad, w.realizer, 9), 14)
    assert not r["ok"] and r["c"] == 0 and not r["dropped_violated"]
    # one probability perturbed (no longer a distribution): the exact model refuses it
    from constructions.golowich.model import ModelError

    bad = point_ensemble((1, 2), 2, 1, (2, 2), 1,
                         lambda l: {**uniform([(i, i + 1) for i in range(1, l)]), (1, 2): F(1)})
    with pytest.raises(ModelError):
        recheck(Witness("ctrl", "coverage", w.H, bad, 8, 2, w.bad, w.realizer, 9), 14)


@checks("golowich2025:prop-c3")
def test_build_rejects_bad_arguments():
    with pytest.raises(WitnessError):
        build("nonsense", 8)
    with pytest.raises(WitnessError):
        build("locality", 2)


@pytest.mark.parametrize("name", [pytest.param(n, marks=checks("golowich2025:prop-c3", CLOSED_FORM_CLAIM[n]))
                                  for n in CLAIMS])
def test_closed_form_matches_enumeration_and_is_certified(name):
    assert agrees_with_enumeration(name, range(CLAIMS[name][1], 7), extra=2)
    c = uniform_c(name)
    assert c > 0 and prove_lower_bound(name)
    # negative control: a constant above the infimum is not certified, and is violated somewhere
    assert not prove_lower_bound(name, c + sp.Rational(1, 10 ** 4))
    f = formula(name)
    first, Lmin = CLAIMS[name]
    Ls = [Lmin, 10 ** 6] if name == "thm43-literal" else [Lmin]
    assert min(f.subs({sp.Symbol("L", integer=True, nonnegative=True): L_, sp.Symbol("l", integer=True, nonnegative=True): first(L_)})
               for L_ in Ls) < c + sp.Rational(1, 10 ** 4)


@checks("golowich2025:prop-c3")
def test_uniform_constant_three_quarters():
    """One c for all four (Lbar >= 2L, L >= 3): the minimum of the per-witness constants is 3/4."""
    cs = {n: uniform_c(n) for n in ("locality", "relative", "realizability-repaired", "coverage")}
    assert min(cs.values()) == sp.Rational(3, 4)
    assert cs == {"locality": sp.Rational(95, 112), "relative": sp.Rational(3, 4),
                  "realizability-repaired": sp.Rational(3, 4), "coverage": sp.Rational(5, 6)}


UNIVERSAL = {"locality": prop_c3.locality_universal, "relative": prop_c3.relative_universal,
             "realizability-repaired": prop_c3.repair_universal, "coverage": prop_c3.coverage_universal}


@pytest.mark.parametrize("name", [pytest.param(n, marks=checks(KEYS[n])) for n in UNIVERSAL])
def test_witness_for_every_L_and_test_length(name):
    """C.3(a), (b), (d) for every L >= 3 and every test length (z3, L and l symbolic; C.3(a)'s bound by a coefficient
    certificate): tokens, the attention sum, each key's locality and relativity, realizability, coverage, the
    minimiser and its test risk; every control rejected."""
    assert_universal_proof(UNIVERSAL[name]())


@pytest.mark.parametrize("name", [pytest.param(n, marks=checks(KEYS[n])) for n in UNIVERSAL])
def test_symbolic_keys_are_the_witness_keys(name):
    """The z3 key predicates of verify.golowich.prop_c3 are the witnesses' keys (every pair of [2L + 2], every
    token pair, L = 3..6), and the planted-set laws' supports are the ones the proof assumes."""
    import z3

    for L in range(3, 7):
        w = build(name, L)
        for key in w.H.keys:
            rule = prop_c3.RULES[name][key.name]
            for S in ((a, b) for b in range(2, 2 * L + 3) for a in range(1, b)):
                for x in ((1, 1), (1, 2), (2, 1), (2, 2)):
                    sym = z3.simplify(rule(z3.IntVal(S[0]), z3.IntVal(S[1]), z3.BoolVal(x == (2, 2)), z3.IntVal(L)))
                    assert z3.is_true(sym) == (key(S, x) == 0), (name, L, key.name, S, x)
        for l_ in range(2, 2 * L + 3):
            law = {S: p for S, p in w.ens.qpos(l_).items() if p > 0}
            for S, p in law.items():
                assert p == _planted_mass(name, L, l_, S), (name, L, l_, S)
            assert sum(law.values()) == 1


def _planted_mass(name, L, l_, S):
    """Q_l(S) as verify.golowich.prop_c3's steps use it."""
    import z3

    span = S[1] - S[0]
    if name == "relative":
        return F(1, l_ - 1) if span == 1 else 0
    if name == "coverage":
        return (F(1, l_ - 1) if span == 1 else 0) if l_ <= L else (F(1, l_ - 2) if span == 2 else 0)
    if name == "locality":
        n = l_ - 1 if l_ <= L else 2 * l_ - L - 1
        return F(1, n) if span == 1 or (l_ > L and span == L) else 0
    q = z3.simplify(prop_c3._repair_q(z3.IntVal(l_), z3.IntVal(L), z3.IntVal(span)))
    return F(q.numerator_as_long(), q.denominator_as_long())
