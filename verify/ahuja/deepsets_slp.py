"""Theorem 4 of ahuja2024 (deep sets with a single-layer-perceptron head), eqs. (2)-(12), and the remark
that follows it.

Statement.  H follows Assumption 1 (h = sigma(A sum_j psi(x_j)), sigma a C^1 bijection, psi differentiable),
f = sigma(B sum_j phi(x_j)) in H, supp(X_j) = [0,1]^n, Assumption 2.  Every minimiser of (1) equals f on
[0,1]^{nt} for all t, and A psi = B phi on [0,1]^n (eq. 11).

Chain (:func:`proof`), with the paper's substitutions made explicit:
  (4)  sigma(a) = sigma(b) => a = b (sigmoid: 1/(1+E_a) = 1/(1+E_b) with E = e^{-z} > 0, then exp injective);
  (5)-(9) grad (A psi - B phi) = 0 on the box => A psi - B phi = C constant.  Discharged on the polynomial
       feature map F(x) = [x1, x2, x1^2, x1 x2, x2^2, x1^3] of the catalog: the derivative system in both
       coordinates leaves a 1-dimensional solution space (the constant); one coordinate alone (eq. 6) leaves
       C_k(x^{-k}), a 4-dimensional space; the connectedness argument itself is cited;
  (10) substitute into the length-T identity: T C = 0 with T >= 1 => C = 0;
  (12) sum over any length: A sum psi = sum B phi (linearity; instance T~ = 7);
  and an exact realisation: A W_psi = B W_phi with (A, W_psi) != (B, W_phi) gives equal pre-activations at
  length 3 as a polynomial identity in 6 variables.

Findings (:func:`findings`): "the result continues to hold if we observe only the label at length T" fails
once the perceptron has a bias (catalog A-T4-bias): the learner A psi = B phi + (b_B - b_A)/T fits length T
exactly and is off by (t/T - 1)(b_B - b_A) at length t.  With labels at t = 1 and t = 2 the bias is pinned.
"""

from __future__ import annotations

import itertools

import sympy
import z3

from verify.ahuja._common import enum_step, key, rat_matrix, sympy_step, z3_step
from verify.kernel import CitedLemma, Proof

CLAIM = "thm4"

_X = sympy.symbols("u v", real=True)
_MONOMIALS = [a * b for a, b in itertools.product([sympy.Integer(1), _X[0], _X[0] ** 2, _X[0] ** 3], [sympy.Integer(1), _X[1], _X[1] ** 2, _X[1] ** 3])
              if sympy.Poly(a * b, *_X).total_degree() <= 3]


def _derivative_nullity(coords: tuple[int, ...]) -> int:
    """Dimension of {D = sum c_a x^a (deg <= 3, n = 2) : dD/dx^k = 0 for k in coords}."""
    cs = sympy.symbols(f"c0:{len(_MONOMIALS)}")
    d = sum(c * m for c, m in zip(cs, _MONOMIALS, strict=True))
    eqs = []
    for k in coords:
        eqs.extend(sympy.Poly(sympy.diff(d, _X[k]), *_X).coeffs())
    if not eqs:
        return len(cs)
    m = sympy.Matrix([[sympy.diff(e, c) for c in cs] for e in eqs])
    return len(cs) - m.rank()


def _sum_identity_nullity(T: int) -> int:
    """Dimension of {D : sum_{j<=T} D(x_j) == 0 as a polynomial in x_1..x_T} (each x_j in R^2)."""
    cs = sympy.symbols(f"c0:{len(_MONOMIALS)}")
    xs = [sympy.symbols(f"u{j} v{j}", real=True) for j in range(T)]
    total = sum((sum(c * m.subs({_X[0]: x[0], _X[1]: x[1]}, simultaneous=True) for c, m in zip(cs, _MONOMIALS, strict=True))
                 for x in xs), sympy.Integer(0))
    if T == 0:
        return len(cs)
    gens = [v for x in xs for v in x]
    coeffs = sympy.Poly(total, *gens).coeffs()
    m = sympy.Matrix([[sympy.diff(e, c) for c in cs] for e in coeffs])
    return len(cs) - m.rank()


def _feature(x):
    return sympy.Matrix([x[0], x[1], x[0] ** 2, x[0] * x[1], x[1] ** 2, x[0] ** 3])


def _realisation_steps() -> list:
    """An exact member of the learner's class: A W_psi = B W_phi, compared on length-5 inputs."""
    B = rat_matrix([[1, 0, 2, 0, -1, 1], [0, 1, 0, 3, 0, -2]])
    W_phi = sympy.eye(6)
    M = sympy.Matrix(6, 6, lambda i, j: sympy.Rational((i + 2 * j) % 5 - 2, 1 + (i == j)))
    M = M + 3 * sympy.eye(6)                      # invertible
    W_psi = M.inv() * W_phi                        # learned features psi = M^{-1} phi
    A = B * M                                      # learned head: A W_psi = B W_phi
    xs = [sympy.symbols(f"u{j} v{j}", real=True) for j in range(3)]
    pre_h = A * sum((W_psi * _feature(x) for x in xs), sympy.zeros(6, 1))
    pre_f = B * sum((W_phi * _feature(x) for x in xs), sympy.zeros(6, 1))
    A_bad = A.copy()
    A_bad[0, 0] += 1
    pre_bad = A_bad * sum((W_psi * _feature(x) for x in xs), sympy.zeros(6, 1))
    return [
        sympy_step("asm1", "instance of A1: sigma(A sum psi) with psi = M^{-1} F, head A = B M; pre-activations "
                   "equal f's at length 3 (polynomial identity in 6 variables)",
                   sympy.expand(pre_h[0] + 2 * pre_h[1]), sympy.expand(pre_f[0] + 2 * pre_f[1]),
                   neg_lhs=sympy.expand(pre_bad[0] + 2 * pre_bad[1])),
    ]


def proof() -> Proof:
    Ea, Eb, T, C = z3.Reals("Ea Eb T C")
    ps, qs = z3.Reals(" ".join(f"p{j}" for j in range(7))), z3.Reals(" ".join(f"q{j}" for j in range(7)))
    eqs = [p == q for p, q in zip(ps, qs, strict=True)]
    steps = [
        CitedLemma(key(CLAIM), "lemma3", statement="h = f P-a.s. on supp(X_{<=T}) extends to the whole support "
                   "(Lemma 3, first part)", source="ahuja2024 eq. (2)"),
        z3_step(CLAIM, "(4) sigmoid injective: 1/(1+E_a) = 1/(1+E_b), E > 0 => E_a = E_b",
                [Ea > 0, Eb > 0, 1 / (1 + Ea) == 1 / (1 + Eb)], Ea == Eb, neg_goal=Ea != Eb),
        CitedLemma(key(CLAIM), "(4) exp injective", statement="e^{-a} = e^{-b} => a = b", source="elementary"),
        CitedLemma(key(CLAIM), "(5)-(8) connectedness", statement=(
            "A C^1 map on the connected open box (0,1)^n whose Jacobian vanishes is constant (mean value "
            "theorem along segments); by continuity also on [0,1]^n"), source="ahuja2024 eqs. (5)-(9)"),
        enum_step(CLAIM, "(6)-(9) polynomial instance: grad D = 0 in both coordinates leaves only constants "
                  "(nullity 1)", lambda: [(0, 1)], lambda ks: _derivative_nullity(ks) == 1,
                  neg_instances=lambda: [(0,)]),          # eq. (6) alone leaves C_k(x^{-k}) (nullity 4)
        z3_step(CLAIM, "(10) substitute A psi = B phi + C into the length-T identity: T C = 0, T >= 1 => C = 0",
                [T >= 1, T * C == 0], C == 0, neg_hypotheses=[T >= 0, T * C == 0]),
        enum_step(CLAIM, "(10) polynomial form: sum_{j<=T} D(x_j) == 0 forces D == 0 (T = 1, 2)",
                  lambda: [1, 2], lambda t: _sum_identity_nullity(t) == 0, neg_instances=lambda: [0]),
        z3_step(CLAIM, "(12) length T~ = 7: A psi(x_j) = B phi(x_j) for each j => the sums agree",
                eqs, z3.Sum(ps) == z3.Sum(qs), neg_hypotheses=eqs[:-1]),
        *_realisation_steps(),
    ]
    return Proof(key(CLAIM), "Theorem 4: deep sets with a perceptron head identify A psi = B phi", tuple(steps))


def eq4_bijective() -> Proof:
    """(4) for the class of Assumption 1 (sigma any bijection, every dimension): sigma(a) = sigma(b) gives
    a = b through the inverse, sigma^{-1}(sigma(a)) = a (instantiated at a and b)."""
    from verify.ahuja._common import VectorSpace

    V = VectorSpace("V4")
    sig, inv = V.fn("sigma"), V.fn("sigma_inv")
    a_, b_ = V.vec("A_sum_psi"), V.vec("B_sum_phi")
    return Proof(key("eq4"), "(4) for every bijective sigma", (
        z3_step("eq4", "(4) sigma(A sum psi) = sigma(B sum phi) => A sum psi = B sum phi (sigma bijective: "
                "sigma^{-1} o sigma = id)", [sig(a_) == sig(b_), inv(sig(a_)) == a_, inv(sig(b_)) == b_], a_ == b_,
                neg_hypotheses=[sig(a_) == sig(b_), inv(sig(a_)) == a_]),
    ))


def bias_gap(t, T, b_A, b_B):
    """Pre-activation error at length t of the learner fitted on the length-T label only (biased heads)."""
    C = (b_B - b_A) / T
    return t * C + b_A - b_B


def findings() -> Proof:
    T, bA, bB = 5, sympy.Rational(3, 10), sympy.Rational(-1, 5)
    label = "thm4.remark-label-t"
    C, dA, dB = z3.Reals("C bA bB")
    steps = [
        sympy_step(label, "bias witness: learner fits length T = 5 exactly", bias_gap(T, T, bA, bB), 0, neg_rhs=1),
        sympy_step(label, "bias witness: error 2/5 at t = 1", bias_gap(1, T, bA, bB), sympy.Rational(2, 5), neg_rhs=0),
        sympy_step(label, "bias witness: error 1/5 at t = 3", bias_gap(3, T, bA, bB), sympy.Rational(1, 5), neg_rhs=0),
        sympy_step(label, "bias witness: error -3/10 at t = 8", bias_gap(8, T, bA, bB), sympy.Rational(-3, 10),
                   neg_rhs=0),
        sympy_step(label, "bias witness: error -3/2 at t = 20", bias_gap(20, T, bA, bB), sympy.Rational(-3, 2),
                   neg_rhs=0),
        z3_step(label, "repair: labels at t = 1 and t = 2 pin C = 0 and b_A = b_B",
                [C + dA - dB == 0, 2 * C + dA - dB == 0], z3.And(C == 0, dA == dB),
                neg_hypotheses=[C + dA - dB == 0]),
    ]
    return Proof(key(label), "Remark after Theorem 4 (label at length T only) fails with biases", tuple(steps))
