"""Closed forms (sympy) for the test risk of the failing minimiser of each Proposition C.3 witness.

``RISK[name](L, l)`` is the exact risk at a test length l > L (derivation in docs/counterexamples.md).
:func:`agrees_with_enumeration` compares it with the exact model; :func:`prove_lower_bound` proves
risk >= c for *every* L >= L_min and l >= first test length by substituting L = L_min + u,
l = first(L) + t and checking that numerator and denominator of risk - c are polynomials in (u, t) with
nonnegative coefficients (a sufficient certificate; it fails, i.e. returns False, for any larger c).
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from constructions.golowich.model import risk

from .witnesses import build

L, l, u, t = sp.symbols("L l u t", integer=True, nonnegative=True)


def _pairs_frac(n):
    return 1 - 2 / (n * (n - 1))  # 1 - 1/C(n, 2)


def _risk_locality(L_, l_):
    N = (l_ - L_) * (l_ - L_ + 1) / 2  # sets of span >= L
    A, W = l_ - 1, l_ - L_  # adjacent and {j, j+L} positions
    return (A * N / (N + 1) + W * (N - 1) / N) / (A + W)


RISK = {
    "locality": _risk_locality,
    "relative": lambda L_, l_: (l_ - L_) / (l_ - L_ + 1),
    "realizability": lambda L_, l_: sp.Rational(9, 10) * _pairs_frac(l_),
    "realizability-repaired": lambda L_, l_: sp.Rational(9, 10) * _pairs_frac(l_),
    "coverage": lambda L_, l_: _pairs_frac(l_),
    "thm43-literal": lambda L_, l_: (l_ - L_) / (2 * l_ - L_ - 1) * _pairs_frac(l_),
}

# (first test length as a function of L, L_min): risk >= c for all L >= L_min and l >= first(L), with c the
# exact infimum, attained at (L_min, first(L_min)) -- see :func:`uniform_c`.
CLAIMS = {
    "locality": (lambda L_: 2 * L_, 3),
    "relative": (lambda L_: 2 * L_, 3),
    "relative@L+1": (lambda L_: L_ + 1, 3),
    "realizability": (lambda L_: L_ + 1, 3),
    "realizability-repaired": (lambda L_: L_ + 1, 3),
    "coverage": (lambda L_: L_ + 1, 3),
    "thm43-literal": (lambda L_: 2 * L_, 4),
}


# where the risk is not increasing in L the infimum is a limit, not attained: thm43-literal tends to 1/3
INFIMUM_AS_LIMIT = {"thm43-literal": sp.Rational(1, 3)}


def uniform_c(name: str):
    """The uniform constant c (proved a lower bound by :func:`prove_lower_bound`): the exact infimum of
    the risk over L >= L_min, l >= first(L); it is risk(L_min, first(L_min)) except where recorded in
    INFIMUM_AS_LIMIT (there risk(L, 2L) -> 1/3 as L -> infinity)."""
    if name in INFIMUM_AS_LIMIT:
        return INFIMUM_AS_LIMIT[name]
    first, Lmin = CLAIMS[name]
    return sp.nsimplify(RISK[name.split("@")[0]](sp.Integer(Lmin), sp.Integer(first(Lmin))))


def formula(name: str):
    return sp.simplify(RISK[name.split("@")[0]](L, l))


def agrees_with_enumeration(name: str, Ls, extra: int = 4) -> bool:
    """The closed form equals the exact enumerated risk for every L in Ls and l in [first(L), first(L)+extra]."""
    base = name.split("@")[0]
    first = CLAIMS[name][0]
    for L_ in Ls:
        w = build(base, L_)
        g0 = next(g for g in w.H.keys if g.name == w.bad[0])
        g1 = next(g for g in w.H.values if g.name == w.bad[1])
        for l_ in range(first(L_), first(L_) + extra + 1):
            exact = risk(g0, g1, w.ens, l_)
            closed = sp.Rational(RISK[base](sp.Integer(L_), sp.Integer(l_)))
            if Fraction(int(closed.p), int(closed.q)) != exact:
                return False
    return True


def prove_lower_bound(name: str, c=None) -> bool:
    """Certificate that risk(L, l) >= c for all L >= L_min, l >= first(L) (default c: the recorded one)."""
    first, Lmin = CLAIMS[name]
    c = uniform_c(name) if c is None else sp.Rational(c)
    base = name.split("@")[0]
    Lsub = Lmin + u
    expr = sp.together(RISK[base](Lsub, first(Lsub) + t) - c)
    num, den = sp.fraction(expr)
    pn, pd = sp.Poly(sp.expand(num), u, t), sp.Poly(sp.expand(den), u, t)
    sgn = 1 if pd.coeffs()[0] > 0 else -1
    return all(sgn * co >= 0 for co in pn.coeffs()) and all(sgn * co >= 0 for co in pd.coeffs())


def c_at(name: str, L_: int):
    """The exact test risk at the first test length, for this L (the tightest per-L constant when the
    risk is increasing in l, which the closed forms are)."""
    first = CLAIMS[name][0]
    return sp.nsimplify(RISK[name.split("@")[0]](sp.Integer(L_), sp.Integer(first(L_))))
