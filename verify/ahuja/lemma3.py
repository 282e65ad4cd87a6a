"""Lemma 3 of ahuja2024 (App. A.1): a.e. equality of C^1 maps on a regular closed set extends everywhere,
and so does equality of their Jacobians.

Statement.  X subset R^n non-empty and regular closed (X = cl(int X)); f, g: X -> R^m continuously
differentiable with f = g a.e. on X.  Then f = g on X and grad f = grad g on X.

Chain (:func:`proof`): the three analysis steps of the paper's proof are cited lemmas; what is discharged
mechanically is that the supports the paper uses meet Assumption 2 (the unit box and the l1-ball of
Fig. 1a are regular closed: every point is the limit of the interior points c + lambda (x - c)).

Findings (:func:`findings`): the gradient part needs regular closedness (catalog A-L3 (b1)):
X = [0,1]^2 u ([0,1] x {2}) is closed, not regular closed; f(x, y) = 0 for y <= 1 and (y-1)^2 (y-2) for
y >= 1 is C^1, f = g = 0 on X, yet d f/dy = 1 != 0 = d g/dy on the segment.
"""

from __future__ import annotations

import sympy
import z3

from verify.ahuja._common import key, sympy_step, z3_step
from verify.kernel import CitedLemma, Proof

CLAIM = "lem3"


def _regular_closed_box() -> list:
    x1, x2, lam = z3.Reals("x1 x2 lam")
    c = z3.RealVal("1/2")
    in_box = [0 <= x1, x1 <= 1, 0 <= x2, x2 <= 1]
    y1, y2 = c + lam * (x1 - c), c + lam * (x2 - c)
    interior = z3.And(0 < y1, y1 < 1, 0 < y2, y2 < 1)
    box = z3_step("asm2", "unit box [0,1]^2: x = lim_{lambda->1} c + lambda (x - c), interior points",
                  [*in_box, 0 < lam, lam < 1], interior,
                  neg_hypotheses=[*in_box, 0 < lam, lam <= 1])  # lambda = 1 leaves boundary points
    a1, a2 = z3.Abs(x1 - c), z3.Abs(x2 - c)
    b1, b2 = z3.Abs(y1 - c), z3.Abs(y2 - c)
    ball = z3_step("asm2", "l1-ball of Fig. 1a {|x1-1/2|+|x2-1/2| <= 1/2}: same interior approximation",
                   [a1 + a2 <= c, 0 < lam, lam < 1], b1 + b2 < c,
                   neg_hypotheses=[a1 + a2 <= c, 0 < lam, lam <= 1])
    return [box, ball]


def proof() -> Proof:
    steps = [
        CitedLemma(key(CLAIM), "interior", statement=(
            "If f, g are continuous on an open set U and f = g Lebesgue-a.e. on U, then f = g on U "
            "(a non-empty open ball has positive measure)."), source="ahuja2024 App. A.1, eqs. (48)-(49)"),
        CitedLemma(key(CLAIM), "closure", statement=(
            "If X = cl(int X) and f = g on int X with f, g continuous on X, then f = g on X."),
            source="ahuja2024 App. A.1, eqs. (50)-(51)"),
        CitedLemma(key(CLAIM), "jacobian", statement=(
            "If f = g on an open set then grad f = grad g there; if grad f, grad g are continuous on X and "
            "X = cl(int X), the equality extends to X (needs f, g C^1 on a neighbourhood of X, or one-sided "
            "derivatives at boundary points)."), source="Lachapelle et al. 2023, Lemma 6; ahuja2024 eqs. (52)-(53)"),
        *_regular_closed_box(),
    ]
    return Proof(key(CLAIM), "Lemma 3: a.e. equality extends on regular closed sets", tuple(steps))


def _bump_witness() -> list:
    """The C^1 function that vanishes on the non-regular X but whose y-derivative is 1 on the segment."""
    y = sympy.Symbol("y", real=True)
    right = (y - 1) ** 2 * (y - 2)      # the piece for y >= 1; the piece for y <= 1 is 0
    c0 = sympy_step(CLAIM, "witness: C^0 gluing at y = 1 (right piece = 0)", right.subs(y, 1), 0,
                    neg_rhs=1)
    c1 = sympy_step(CLAIM, "witness: C^1 gluing at y = 1 (right derivative = 0)", sympy.diff(right, y).subs(y, 1), 0,
                    neg_rhs=1)
    on_seg = sympy_step(CLAIM, "witness: f = g = 0 on the segment y = 2", right.subs(y, 2), 0, neg_rhs=1)
    grad = sympy_step(CLAIM, "witness: df/dy = 1 != 0 = dg/dy on the segment", sympy.diff(right, y).subs(y, 2), 1,
                      neg_rhs=0)
    px, py = z3.RealVal("1/2"), z3.RealVal(2)
    not_rc = z3_step(CLAIM, "witness: (1/2, 2) in X but not in cl(int X) = [0,1]^2",
                     [], z3.Not(z3.And(0 <= px, px <= 1, 0 <= py, py <= 1)),
                     neg_goal=z3.And(0 <= px, px <= 1, 0 <= py, py <= 1))
    return [c0, c1, on_seg, grad, not_rc]


def findings() -> Proof:
    return Proof(key(CLAIM), "Lemma 3 needs regular closedness for the Jacobian part", tuple(_bump_witness()))
