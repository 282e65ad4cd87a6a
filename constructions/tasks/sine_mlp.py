"""An exact-rational one-hidden-layer ReLU MLP approximating ``z -> sin(omega z)`` on [-1, 1], with a certified bound.

Construction.  Uniform grid ``z_j = -1 + j h`` (j = 0..M, ``h = 2/M``) and node values ``v_j`` = sin(omega z_j)
rounded to the nearest multiple of ``2^-q`` (computed with mpmath at 30 extra bits, so
``|v_j - sin(omega z_j)| <= 2^-q``).  The piecewise-linear interpolant ``I`` of ``(z_j, v_j)`` is, for ``z >= -1``,

    I(z) = v_0 * relu(1) + sum_{j=0}^{M-1} c_j * relu(z - z_j),   c_0 = s_0,  c_j = s_j - s_{j-1},

with slopes ``s_j = (v_{j+1} - v_j) / h``: one constant unit (input weight 0, bias 1) and M hinge units with
input weight 1.  Every parameter is a Fraction, so the MLP's value at a rational z is an exact rational.

Certified error (Theorem).  For every z in [-1, 1]:  ``|I(z) - sin(omega z)| <= omega^2 h^2 / 8 + 2^-q``.

Proof.  Let ``J`` be the interpolant of the exact values ``f(z_j)``, ``f(z) = sin(omega z)``.  (i) On a cell
[a, b] = [z_j, z_{j+1}] put ``e(z) = f(z) - J(z)``; e(a) = e(b) = 0.  For fixed z in (a, b) let
``w(t) = e(t) - e(z) (t-a)(t-b) / ((z-a)(z-b))``; w vanishes at a, z, b, so by Rolle twice there is xi in
(a, b) with ``0 = w''(xi) = f''(xi) - 2 e(z) / ((z-a)(z-b))`` (J'' = 0 inside the cell), i.e.
``e(z) = f''(xi) (z-a)(z-b) / 2``.  With ``|f''| = omega^2 |sin| <= omega^2`` and ``|(z-a)(z-b)| <= h^2/4``,
``|e(z)| <= omega^2 h^2 / 8``.  (ii) ``I - J`` is the interpolant of the node errors ``v_j - f(z_j)``; on
each cell it is a convex combination of two of them, so ``|I - J| <= max_j |v_j - f(z_j)| <= 2^-q``.
The triangle inequality gives the claim.  QED

Norms and how L grows with omega.  ``||A||_F^2 = M`` (M hinge rows with one entry 1) and
``||B||_F^2 = v_0^2 + sum_j c_j^2``.  For a fixed error target e, M = ceil(omega / sqrt(2 (e - 2^-q))) grows
linearly in omega; ``c_0 = s_0 ~ omega cos(omega)`` and ``c_j ~ h f''(z_j) = h omega^2 sin(omega z_j)``, so
``sum c_j^2 ~ 2 omega^4 / M ~ omega^3``, and ``||A||_F ||B||_F ~ omega^2`` (the test fits the exponent).
No re-balancing helps: the product of Frobenius norms is at least ``sum_u |a_u| |b_u|``, which bounds the
total variation of ``I'``, and any function within e < 1 of sin(omega z) on [-1, 1] needs derivative total
variation ~ omega^2 (its slope swings by ~ omega about omega/pi times).  So for this architecture (the
attention output z = (c0-c1)/(c0+c1) feeding one ReLU layer) L grows like omega^2, not the Theta(omega) the
paper quotes from Barron (1993) (Barron's constant concerns L2 approximation, not this sup-norm/Frobenius L).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

from constructions.tasks.errors import TaskError

NODE_BITS = 48  # q: node values are multiples of 2^-48


def _sin_fraction(x: Fraction, q: int) -> Fraction:
    """sin(x) rounded to the nearest multiple of 2^-q, computed with mpmath (error <= 2^-q in total)."""
    import mpmath

    with mpmath.workprec(q + 64):
        v = mpmath.sin(mpmath.mpf(x.numerator) / x.denominator)
        return Fraction(int(mpmath.nint(v * 2**q)), 2**q)


MAX_CELLS = 1 << 13  # ReLU units of one sine MLP: its exact construction and the bounds on it take seconds


def grid_size(omega, error: float, node_bits: int = NODE_BITS) -> int:
    """Smallest M with omega^2 (2/M)^2 / 8 + 2^-q <= error, i.e. M = ceil(|omega| / sqrt(2 (error - 2^-q)));
    refused (:class:`TaskError`, before anything is built) above :data:`MAX_CELLS`."""
    slack = error - 2.0**-node_bits
    if slack <= 0:
        raise TaskError(f"error target {error} is below the node rounding 2^-{node_bits}; ask for a larger error")
    w = abs(Fraction(omega))
    if w * w > 2 * Fraction(slack) * MAX_CELLS**2:  # M >= |omega| / sqrt(2 slack) > MAX_CELLS (exact: omega may be huge)
        raise TaskError(f"sin(omega z) with omega = {_short(w)} to error {error:g} needs more than MAX_CELLS = "
                        f"{MAX_CELLS} ReLU cells (constructions.tasks.sine_mlp); lower omega or raise the error target")
    m = max(1, math.ceil(float(w) / math.sqrt(2 * slack)))
    while Fraction(omega) ** 2 * Fraction(2, m) ** 2 / 8 + Fraction(1, 2**node_bits) > Fraction(error):
        m += 1  # guard the float estimate exactly
    if m > MAX_CELLS:
        raise TaskError(f"sin(omega z) with omega = {_short(w)} to error {error:g} needs {m} ReLU cells, beyond "
                        f"MAX_CELLS = {MAX_CELLS} (constructions.tasks.sine_mlp); lower omega or raise the error target")
    return m


def _short(x: Fraction) -> str:
    return str(x) if len(str(x)) <= 24 else f"~1e{len(str(x.numerator)) - len(str(x.denominator))}"


@dataclass(frozen=True)
class SineMLP:
    """ReLU interpolant of sin(omega z) on [-1, 1] with M cells (see the module docstring)."""

    omega: Fraction
    cells: int
    node_bits: int = NODE_BITS

    def __post_init__(self):
        object.__setattr__(self, "omega", Fraction(self.omega))
        if not isinstance(self.cells, int) or self.cells < 1:
            raise TaskError(f"the sine MLP needs at least one cell, got {self.cells!r}")

    @classmethod
    def for_error(cls, omega, error: float, node_bits: int = NODE_BITS) -> SineMLP:
        """The coarsest grid whose certified bound is <= ``error``."""
        return cls(Fraction(omega), grid_size(omega, error, node_bits), node_bits)

    @property
    def h(self) -> Fraction:
        return Fraction(2, self.cells)

    @cached_property
    def nodes(self) -> list[Fraction]:
        return [Fraction(-1) + j * self.h for j in range(self.cells + 1)]

    @cached_property
    def values(self) -> list[Fraction]:
        return [_sin_fraction(self.omega * z, self.node_bits) for z in self.nodes]

    @cached_property
    def coefficients(self) -> tuple[Fraction, list[Fraction]]:
        """(v_0, [c_0 .. c_{M-1}]) of I(z) = v_0 + sum_j c_j relu(z - z_j)."""
        v, h = self.values, self.h
        slopes = [(v[j + 1] - v[j]) / h for j in range(self.cells)]
        return v[0], [slopes[0]] + [slopes[j] - slopes[j - 1] for j in range(1, self.cells)]

    @property
    def certified_error(self) -> Fraction:
        """omega^2 h^2 / 8 + 2^-q (exact rational), the proven sup-error bound on [-1, 1]."""
        return self.omega**2 * self.h**2 / 8 + Fraction(1, 2**self.node_bits)

    def __call__(self, z) -> Fraction:
        """Exact value I(z) of the network at a rational z >= -1."""
        z = Fraction(z)
        v0, c = self.coefficients
        return v0 + sum((cj * (z - zj) for cj, zj in zip(c, self.nodes, strict=False) if z > zj), Fraction(0))

    def evaluate_float(self, z):
        """float64 I(z) for an array of z (vectorized; for dense checks)."""
        import numpy as np

        v0, c = self.coefficients
        z = np.asarray(z, dtype=np.float64)
        knots = np.array([float(t) for t in self.nodes[:-1]])
        coef = np.array([float(t) for t in c])
        return float(v0) + np.maximum(z[..., None] - knots, 0.0) @ coef

    # --------------------------------------------------------------------------- weights
    def weights(self) -> tuple[list, list, list]:
        """Scalar MLP weights (a, b, beta): unit u computes beta_u * relu(a_u z + b_u); unit 0 is the constant."""
        v0, c = self.coefficients
        a = [Fraction(0)] + [Fraction(1)] * self.cells
        b = [Fraction(1)] + [-zj for zj in self.nodes[:-1]]
        beta = [v0] + list(c)
        return a, b, beta

    @property
    def frobenius_squares(self) -> tuple[Fraction, Fraction]:
        """(||A||_F^2, ||B||_F^2) of the scalar network, exactly."""
        a, _, beta = self.weights()
        return sum(x * x for x in a), sum(x * x for x in beta)

    @property
    def norm_product(self) -> float:
        """||A||_F ||B||_F (float)."""
        fa, fb = self.frobenius_squares
        return math.sqrt(fa * fb)
