"""golowich2025 Definition 3.1 and Proposition 3.1 (verify.golowich.prop31), exact over lookup-table classes."""

import itertools
from fractions import Fraction

from verify.claims import checks
from verify.golowich import prop31 as P
from verify.kernel import EnumerationStep, Proof, assert_proof, negated


@checks("golowich2025:prop3.1")
def test_construction_with_sup_over_test_length_and_printed_version_rejected():
    step = EnumerationStep("golowich2025:prop3.1", "construction defeats LG (sup over V^Lbar), 512 instances",
                           instances=P.family, predicate=lambda i: P.construction_works(i, sup_over=3))
    neg = negated(step, predicate=lambda i: P.construction_works(i, sup_over=2))  # printed: sup over V^L
    step = EnumerationStep(**{**step.__dict__, "negative": neg})
    res = assert_proof(Proof("golowich2025:prop3.1", "Prop 3.1 construction", (step,)))
    assert "512" in res[0].outcome.detail and not res[0].negative_outcome.holds


@checks("golowich2025:prop3.1")
def test_printed_statement_witness():
    hstar, hhat, Pd, eps = P.typo_witness()
    assert max(abs(hstar[x] - hhat[x]) for x in itertools.product((0, 1), repeat=2)) > eps  # printed hypothesis
    H = {"hstar": hstar, "hhat": hhat}
    assert "hhat" in P.minimisers(H, Pd, 2)
    for x in itertools.product((0, 1), repeat=3):  # every h*-realizable point-mass extension is learned
        Q = dict(Pd)
        Q[3] = {(x, hstar[x]): Fraction(1)}
        assert P.length_generalizes(H, Q, 2, 3, eps)


@checks("golowich2025:def3.1")
def test_definition_every_minimiser_and_vacuous_unrestricted_extensions():
    hstar, Pd = P.base_instance()
    hhat = dict(hstar)
    hhat[(1, 1, 1)] = Fraction(0)
    H = {"hstar": hstar, "hhat": hhat}
    assert P.minimisers(H, Pd, 2) == ["hhat", "hstar"]  # a tie: both minimise (3)
    Q = dict(Pd)
    Q[3] = {((1, 1, 1), Fraction(1)): Fraction(1)}
    assert not P.length_generalizes(H, Q, 2, 3, Fraction(1, 3))  # the bad minimiser decides
    assert P.length_generalizes({"hstar": hstar}, Q, 2, 3, Fraction(1, 3))  # negative control: only h*
    # without realizability of the extension the statement is vacuous: a label 1/2 away from h_hat always exists
    for x in itertools.product((0, 1), repeat=3):
        far = Fraction(1) if hstar[x] <= Fraction(1, 2) else Fraction(0)
        Q[3] = {(x, far): Fraction(1)}
        assert not P.length_generalizes({"hstar": hstar}, Q, 2, 3, Fraction(1, 3))
