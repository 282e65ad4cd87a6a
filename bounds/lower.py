"""Certified lower bounds on the class threshold N*: pairs inside a class that agree on every short input and differ
later (Izzo et al. Theorem 4.1; ``izzo2025:lower.*``, ``izzo2025:thm4.1.heads``).

A *class* (:class:`ModelClass`) is what the training-length bound reads off a model: |Sigma|, the period Delta, the
window tau, the number of heads, the modulus K (:mod:`bounds.modulus`, per model), the precision p, the completed
logit margin gamma, and the tolerances eps, delta.  A pair (f, g) is *in* the class when both models have these
quantities or better (same |Sigma|, period dividing Delta, window <= tau, at most as many heads, K_m <= K, margin
>= gamma, at most p bits; :func:`in_class` checks it with the package's own :func:`bounds.margin.ingredients`).  The
class threshold N* is the smallest N such that for every pair in the class, ``|f - g| <= delta`` on every input of
length <= N implies ``|f - g| <= delta + eps`` on every input.  A pair in the class that agrees within delta on
every input up to length n and differs by more than delta + eps on some longer input shows ``N* > n``.

Each family below is a theorem: the construction, the agreement length n as a closed form, and its proof; the pair
is built by :meth:`LowerBound.pair` and re-checked by the tests (``verify/tests/izzo2025/test_lower.py``) with the
exact enumeration of :mod:`bounds.true_threshold`, the z3 supremum of :mod:`bounds.sup_z3` and the exact witness.
All three use one layout: coordinates ``const, is_$, one-hot token (|Sigma|), val_1..val_h, out, one-hot residue
(Delta)``; ``U`` reads ``out``; g is f with the MLP's output weight negated, so ``f - g = 2 f`` and
``K_f = K_g = K``.

* **the window** (bump and chain).  A gated head's key logit is 0 on ``$`` and on its gated tokens at residue 0 and
  ``<= -G0`` (``G0 = max(gamma, p, 1)``) on every other key; the window slot at offset ``d = 0..tau`` (query minus
  key position) adds ``phi(d) = -(tau + 1 - d) G0``.  From length 2 on the attention is a hardmax
  (``2^{p/G0} <= 2``, every gap a multiple of G0).  On an input longer than the window (length ``n > w = tau + 1``)
  ``$`` is outside it: the keys of logit 0 are ``$`` and the gated tokens at residue-0 *prefix* positions (positions
  ``2..n - w``), and every window slot has ``phi <= -G0`` and is flushed.  On an input no longer than the window
  (``n <= w``; ``$`` at offset ``n - 1``) ``$`` has logit ``-(tau + 2 - n) G0`` and the key at position ``j >= 2``
  at most ``phi(n - j) = -(tau + 1 - n + j) G0 <= -(tau + 3 - n) G0``: ``$`` alone is the maximum, every output
  reads ``$``'s value 0, and the pair agrees (within delta: below, ``t = 0 <= t1`` and ``sum_i (1 - t_i) = h >=
  nu1``).  A window that added the same ``-G0`` to every slot (the construction before) shifts every logit alike
  when ``$`` is in the window, so ``$`` ties with the gated tokens there and, for ``tau >= (N_b + 1) Delta``, the
  pair differs at a length ``<= w`` below the printed one (docs/gaps.md).  The prefix counts below are therefore
  counts of positions ``2..n - w``, and an input of length ``<= w`` has none.
* **bump** (one head; the ingredients K/eps, Delta, tau and delta).  One gated head (the window above) with gated
  token ``b`` (the first symbol); its value is ``[token = b]`` in ``val``, so on an input longer than the window
  ``t = val = n_b / (n_b + 1)`` with ``n_b`` the number of ``b`` at residue-0 prefix positions, and ``t = 0`` on a
  shorter one.  The MLP is one unit
  ``relu(val - t0)`` with output weight ``2K`` (so ``kappa = 2K * 1/2 = K``), and ``f - g = 4K (t - t0)_+``.  With
  ``q = eps (1 + xi)/(4K)``, ``t1 = 1 - q`` and ``t0 = t1 - delta/(4K)``: ``|f - g| <= delta`` iff ``t <= t1`` iff
  ``n_b <= N_b = floor((1 - q)/q)``, and ``sup |f - g| = 4K (1 - t0) = delta + eps (1 + xi) > delta + eps``.  The
  (N_b + 1)-th residue-0 prefix position is position ``1 + (N_b + 1) Delta``, so every input of length
  ``<= n = (N_b + 1) Delta + w`` agrees, and an input with enough b's differs.  So ``N* > (N_b + 1) Delta + w``,
  about ``4 K Delta / eps`` (with gamma = +inf, no logit gap is allowed: every key ties, ``t`` is the fraction of b
  among all |x| keys, and ``n = floor(1/q)``).
* **chain** (h heads, |Sigma| >= h + 1; the number of heads).  Head i is a gated head (the window above) on ``b_i``
  and ``b_{i+1}``: it attends ``$``, ``b_i`` and ``b_{i+1}`` at residue-0 prefix positions with value
  ``[token = b_{i+1}]`` in ``val_i``, so ``1 - t_i = (1 + n_i)/(1 + n_i + n_{i+1})`` (and ``t_i = 0`` on an input
  no longer than the window).  One unit ``relu(sum_i val_i - h + nu)`` with output weight 2K/h
  (``kappa_i = K/h``, K_f = K) gives ``f - g = (4K/h)(nu - sum_i (1 - t_i))_+``.  With
  ``nu1 = h eps (1 + xi)/(4K)`` and ``nu = nu1 + h delta/(4K)``: ``|f - g| > delta`` needs
  ``sum_i (1 - t_i) < nu1``, so every ``(1 + n_i)/(1 + n_i + n_{i+1}) < nu1``, i.e.
  ``n_{i+1} > (1 + n_i) rho`` with ``rho = 1/nu1 - 1``; by induction (n_1 >= 0)
  ``n_{i+1} > rho + rho^2 + ... + rho^i``, so ``n_{i+1} >= floor(rho + ... + rho^i) + 1``.  The residue-0 prefix
  positions then number at least ``S = sum_{i=1..h} (floor(rho + ... + rho^i) + 1)``, so every input of length
  ``<= S Delta + w`` agrees, while ``n_i = c^{i-1} - 1`` with ``c > h/nu2``,
  ``nu2 = h eps xi/(4K)``, gives ``sum (1 - t_i) <= h/c < nu2`` and ``|f - g| > delta + eps``.  So
  ``N* > S Delta + w``, about ``(4K/(h eps))^h``: exponential in the number of heads, while K grows only linearly in
  ``4K/(h eps)`` -- Theorem 4.1's rate ``tau Delta L^2/eps^2`` is false for three or more heads whatever its constant
  (``izzo2025:thm4.1.heads``), and the corrected bound's ``theta^{-k}`` cannot drop to a polynomial of fixed degree.
* **hardmax** (the term 2^{p/gamma}).  One head: logit 0 on ``$`` and ``-gamma`` on every other key and window slot;
  value ``[token != $]`` in ``val``.  Below ``H = ceil(2^{p/gamma})`` nothing is flushed and ``val = W/(1 + W)``,
  ``W(n) = (n - 1) n^{-gamma}``, which is unimodal in n, so on ``2 <= n <= H - 1`` it is at least its value at an
  end: ``W(2) = 2^{-gamma}`` and ``W(H - 1) > (H - 2) 2^{-p}`` (unflushed); from H on every non-``$`` key is flushed
  and ``val = 0``.  One unit ``relu(t* - val - M is_$)`` (M = 2; the ``$`` query is the input of length 1) with
  output weight 2K gives ``f - g = 4K (t* - val)_+``; with ``t* = (delta + eps (1 + xi))/(4K)`` and the certified
  lower bound ``y_lo`` of ``min val``, every input of length ``<= H - 1`` agrees when ``eps (1 + xi)/(4K) <= y_lo``,
  and every input of length ``>= H`` differs by ``4K t* > delta + eps``.  So ``N* >= H``, matching the corrected
  bound's ``N_H = H + Delta (|Sigma| + 4)`` up to an additive constant.

``xi = 1/16`` throughout.  Lengths beyond 64 bits are kept as :class:`bounds.lengths.Length` lower bounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from bounds.lengths import Length, approx_text
from bounds.margin import INF, BoundsError

XI = Fraction(1, 16)
MAX_BUILD_LENGTH = 10**6  # LowerBound.pair builds models for any size; witnesses above this stay class-level


class NotInClassError(BoundsError):
    """A family does not apply to the class (the reason is named)."""


@dataclass(frozen=True)
class ModelClass:
    """The quantities the training-length bound reads (per model), and eps, delta."""

    sigma: int
    period: int
    tau: int
    heads: int
    K: Fraction
    precision_bits: int
    gamma: object  # Fraction or INF
    eps: Fraction
    delta: Fraction = Fraction(0)

    @classmethod
    def of(cls, ing, eps, delta=0) -> ModelClass:
        """The class of one model (its :class:`bounds.margin.Ingredients`, exact mode).  Interval-mode ingredients
        are refused: their K is an upper and their gamma a lower bound, which enlarges the class -- the right side
        for an upper bound on N*, the wrong one for a lower bound (a pair of the larger class need not be in the
        model's own)."""
        if ing.mode != "exact":
            raise BoundsError("the class of a model needs its K and gamma exactly; interval enclosures bound K from "
                              "above and gamma from below (the upper bound's side, not the lower bound's)")
        if len(ing.moduli) != 1:
            raise BoundsError("ModelClass.of takes one model's ingredients; join two classes with ModelClass.join")
        return cls(ing.alphabet_size, ing.period, ing.tau, ing.heads, Fraction(ing.moduli[0].K), ing.precision_bits,
                   ing.gamma, Fraction(eps), Fraction(delta))

    def join(self, other: ModelClass) -> ModelClass:
        """The smallest class holding both (a pair's class)."""
        return ModelClass(max(self.sigma, other.sigma), math.lcm(self.period, other.period), max(self.tau, other.tau),
                          max(self.heads, other.heads), max(self.K, other.K),
                          max(self.precision_bits, other.precision_bits), min(self.gamma, other.gamma),
                          self.eps, self.delta)

    @property
    def window(self) -> int:
        return self.tau + 1

    def upper(self):
        """The proved upper bound of :mod:`bounds.corrected` for the class (k = 2 heads, pair modulus 2K)."""
        from bounds.corrected import bound_from_quantities
        from constructions.limit_transformer.hardmax import hardmax_exponent

        k_exp = Fraction(0) if self.gamma == INF else hardmax_exponent(self.gamma, self.precision_bits)
        return bound_from_quantities(self.sigma, self.period, self.tau, 2 * self.heads, 2 * self.K, self.eps, k_exp,
                                     self.gamma == INF)

    @property
    def hardmax_threshold(self) -> Length:
        from constructions.limit_transformer.hardmax import hardmax_exponent

        return Length.of(1) if self.gamma == INF else Length.pow2(hardmax_exponent(self.gamma, self.precision_bits))


@dataclass(frozen=True)
class LowerBound:
    """``|f - g| <= delta`` on every input of length <= ``agree``, ``> delta + eps`` on one longer input: N* > agree."""

    family: str
    cls: ModelClass
    agree: Length  # a lower-rounded length
    params: dict = field(default_factory=dict)

    @property
    def lower(self) -> Length:
        """N* >= agree + 1."""
        return self.agree.plus(1)

    def pair(self):
        """(f, g): the two models of the family (exact rationals)."""
        return _BUILDERS[self.family](self.cls, self.params)

    def witness(self) -> tuple[dict, tuple]:
        """(class counts with ``$``, window) of an input on which ``|f - g| > delta + eps`` (hardmax regime)."""
        return _WITNESSES[self.family](self.cls, self.params)


# ------------------------------------------------------------------------------------------------- layout
def _symbols(n: int) -> tuple:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return tuple(letters[i] if i < 26 else chr(0x100 + i) for i in range(n))


class _Layout:
    """Coordinates: const, is_$, one-hot token (sigma), val_1..val_h, out, one-hot residue (Delta)."""

    def __init__(self, sigma: int, heads: int, period: int):
        self.sigma, self.h, self.period = sigma, heads, period
        self.const, self.bos = 0, 1
        self.tok0 = 2
        self.val0 = 2 + sigma
        self.out = self.val0 + heads
        self.res0 = self.out + 1
        self.d = self.res0 + period

    def e(self, i: int) -> list:
        return [Fraction(int(j == i)) for j in range(self.d)]

    def embedding(self) -> list:
        rows = [[Fraction(int(j in (self.const, self.bos))) for j in range(self.d)]]
        for t in range(self.sigma):
            rows.append([Fraction(int(j in (self.const, self.tok0 + t))) for j in range(self.d)])
        return rows

    def positions(self):
        from constructions.limit_transformer.model import PeriodicPositions

        return PeriodicPositions([self.e(self.res0 + r) for r in range(self.period)])


def _model(cls: ModelClass, lay: _Layout, heads, mlp, name: str):
    from constructions.limit_transformer.model import Layer, LimitTransformer

    return LimitTransformer(alphabet=_symbols(cls.sigma), embedding=lay.embedding(),
                            layers=(Layer(heads=tuple(heads), mlp=mlp),), unembedding=[lay.e(lay.out)],
                            positions=lay.positions(), precision_bits=cls.precision_bits, name=name)


def _gated_head(lay: _Layout, tokens: tuple, value_token: int | None, value_coord: int, G0: Fraction, tau: int):
    """Logit 0 on $ and on ``tokens`` (ids 1..sigma) at residue 0 outside the window, <= -G0 elsewhere; value
    ``[token = value_token]`` in ``value_coord``.  The window slot at offset d = 0..tau adds ``-(tau + 1 - d) G0``:
    every window slot is <= -G0, and on an input of length <= tau + 1 (``$`` in the window, at the largest offset)
    ``$`` is strictly above every other key by >= G0 (module docstring, "the window")."""
    from constructions.limit_transformer.model import Head, LocalPhi

    key = [Fraction(0)] * lay.d
    key[lay.const] = -2 * G0
    key[lay.bos] = G0
    for t in tokens:
        key[lay.tok0 + t - 1] = G0
    key[lay.res0] = G0
    value = [[Fraction(0)] * lay.d for _ in range(lay.d)]
    if value_token is not None:
        value[value_coord][lay.tok0 + value_token - 1] = Fraction(1)
    return Head([lay.e(lay.const)], [key], value, LocalPhi(tuple(-(tau + 1 - d) * G0 for d in range(tau + 1))))


def _gap(cls: ModelClass) -> Fraction:
    """G0 = max(gamma, p, 1): every gap of the family's logits is a multiple of G0 >= gamma, and 2^{p/G0} <= 2."""
    return Fraction(max(Fraction(cls.gamma), cls.precision_bits, 1)) if cls.gamma != INF else Fraction(0)


def _unit(lay: _Layout, A_row: list, bias: Fraction, weight: Fraction):
    from constructions.limit_transformer.model import MLP

    B = [[Fraction(0)] for _ in range(lay.d)]
    B[lay.out][0] = weight
    return MLP([A_row], [bias], B)


def _negated(cls, lay, heads, A_row, bias, weight, name):
    return (_model(cls, lay, heads, _unit(lay, A_row, bias, weight), name + "+"),
            _model(cls, lay, heads, _unit(lay, A_row, bias, -weight), name + "-"))


def _require(cls: ModelClass):
    if cls.K <= 0:
        raise NotInClassError("K = 0: the class holds only models whose output never moves; no pair disagrees")
    if cls.eps <= 0 or cls.delta < 0:
        raise NotInClassError("eps must be positive and delta non-negative")


# ------------------------------------------------------------------------------------------------- bump
def bump(cls: ModelClass) -> LowerBound:
    """The bump family (module docstring)."""
    _require(cls)
    q = cls.eps * (1 + XI) / (4 * cls.K)
    if q >= 1:
        raise NotInClassError(f"eps (1 + xi)/(4K) = {approx_text(q, 3)} >= 1: K is too small for a bump to reach eps")
    if cls.gamma == INF:
        return LowerBound("bump", cls, Length.at_least(math.floor(1 / q)), {"q": q, "tied": True})
    Nb = math.floor((1 - q) / q)
    return LowerBound("bump", cls, Length.at_least((Nb + 1) * cls.period + cls.window), {"q": q, "Nb": Nb})


def _bump_pair(cls: ModelClass, params: dict):
    lay = _Layout(cls.sigma, 1, cls.period)
    q = params["q"]
    t0 = 1 - q - cls.delta / (4 * cls.K)
    if params.get("tied"):
        from constructions.limit_transformer.model import Head, LocalPhi

        value = [[Fraction(0)] * lay.d for _ in range(lay.d)]
        value[lay.val0][lay.tok0] = Fraction(1)
        head = Head([lay.e(lay.const)], [[Fraction(0)] * lay.d], value, LocalPhi((Fraction(0),) * cls.window))
    else:
        head = _gated_head(lay, (1,), 1, lay.val0, _gap(cls), cls.tau)
    return _negated(cls, lay, [head], lay.e(lay.val0), -t0, 2 * cls.K, "bump")


def _balanced_counts(cls: ModelClass, residue0: dict, filler: int) -> tuple[dict, tuple]:
    """Class counts: ``residue0`` {token: count} at residue 0, every other residue filled with token ``filler`` up to
    the positions of the shortest length holding them, window of ``filler``."""
    from bounds.true_threshold import positions_per_residue

    D = cls.period
    S0 = sum(residue0.values())
    M = 1 + S0 * D  # positions 2..M hold S0 of residue 0
    per = positions_per_residue(M, D)
    counts = {0: 1}
    for t, k in residue0.items():
        if k:
            counts[t * D] = counts.get(t * D, 0) + k
    if per[0] > S0:
        counts[filler * D] = counts.get(filler * D, 0) + per[0] - S0
    for r in range(1, D):
        if per[r]:
            counts[filler * D + r] = per[r]
    window = tuple(filler * D + (M + s) % D for s in range(cls.window))
    return counts, window


def _bump_witness(cls: ModelClass, params: dict):
    q = params["q"]
    qw = cls.eps * XI / (4 * cls.K)
    n = math.floor((1 - qw) / qw) + 1  # n/(n + 1) > 1 - qw
    if params.get("tied"):
        return {0: 1, 1 * cls.period: n}, tuple(1 * cls.period + (1 + n + s) % cls.period for s in range(cls.window))
    filler = 2 if cls.sigma >= 2 else 1
    del q
    return _balanced_counts(cls, {1: n}, filler)


# ------------------------------------------------------------------------------------------------ chain
def chain(cls: ModelClass, heads: int | None = None) -> LowerBound:
    """The chain family with ``heads`` heads (default: as many as the class and |Sigma| - 1 allow)."""
    _require(cls)
    h = min(cls.heads, cls.sigma - 1) if heads is None else heads
    if h < 1 or h > cls.heads or h + 1 > cls.sigma:
        raise NotInClassError(f"a chain of {h} heads needs {h} <= heads = {cls.heads} and |Sigma| = {cls.sigma} >= "
                              f"{h + 1}")
    if cls.gamma == INF:
        raise NotInClassError("a chain needs logit gaps; the class has gamma = +inf")
    nu1 = h * cls.eps * (1 + XI) / (4 * cls.K)
    if nu1 >= 1:
        raise NotInClassError(f"h eps (1 + xi)/(4K) = {approx_text(nu1, 3)} >= 1: K is too small for a chain of {h}")
    rho = 1 / nu1 - 1
    S, partial, power = 0, Fraction(0), Fraction(1)
    for _ in range(h):
        power *= rho
        partial += power
        S += partial.numerator // partial.denominator + 1
    return LowerBound("chain", cls, Length.at_least(S * cls.period + cls.window), {"h": h, "nu1": nu1})


def _chain_pair(cls: ModelClass, params: dict):
    h = params["h"]
    lay = _Layout(cls.sigma, h, cls.period)
    G0 = _gap(cls)
    heads = [_gated_head(lay, (i, i + 1), i + 1, lay.val0 + i - 1, G0, cls.tau) for i in range(1, h + 1)]
    nu = params["nu1"] + h * cls.delta / (4 * cls.K)
    A = [Fraction(0)] * lay.d
    for i in range(h):
        A[lay.val0 + i] = Fraction(1)
    return _negated(cls, lay, heads, A, nu - h, 2 * cls.K / h, f"chain{h}")


def _chain_witness(cls: ModelClass, params: dict):
    h = params["h"]
    nu2 = h * cls.eps * XI / (4 * cls.K)
    c = math.floor(h / nu2) + 1
    counts = {i: c ** (i - 1) - 1 for i in range(1, h + 2)}
    return _balanced_counts(cls, counts, 1)


# ---------------------------------------------------------------------------------------------- hardmax
def _min_value_lower(cls: ModelClass, H: int) -> Fraction:
    """A rational y_lo <= W/(1 + W) for every 2 <= n <= H - 1 (W unimodal; W(2) = 2^-gamma, W(H-1) > (H-2) 2^-p)."""
    from mpmath import iv

    iv.prec = 128
    g = Fraction(cls.gamma)
    w2 = iv.mpf(2) ** (-(iv.mpf(g.numerator) / g.denominator))
    from mpmath import libmp

    w2_lo = Fraction(*libmp.to_rational(w2._mpi_[0]))
    w_end = Fraction(H - 2, 2**cls.precision_bits) if H < 2**4096 else Fraction(1)
    w = min(w2_lo, w_end)
    return w / (1 + w)


def hardmax(cls: ModelClass) -> LowerBound:
    """The hardmax-term family (module docstring): N* >= H."""
    _require(cls)
    if cls.gamma == INF:
        raise NotInClassError("gamma = +inf: there is no hardmax threshold (H = 1)")
    if cls.gamma <= 0:
        raise NotInClassError("no positive logit margin is certified: the hardmax threshold is not defined")
    H = cls.hardmax_threshold
    if H.exact is not None and H.exact < 3:
        raise NotInClassError(f"H = {H.exact} < 3: every length >= 2 is already a hardmax")
    y_lo = _min_value_lower(cls, H.exact if H.exact is not None else 2**4096)
    need = cls.eps * (1 + XI) / (4 * cls.K)
    if need > y_lo:
        raise NotInClassError(f"eps (1 + xi)/(4K) = {approx_text(need, 3)} exceeds the smallest unflushed head output "
                              f"{approx_text(y_lo, 3)}: K is too small for the hardmax family")
    agree = Length.of(H.exact - 1) if H.exact is not None else Length(H.exponent, -1, "down")
    return LowerBound("hardmax", cls, agree, {"t_star": (cls.delta + cls.eps * (1 + XI)) / (4 * cls.K),
                                              "y_lo": y_lo})


def _hardmax_pair(cls: ModelClass, params: dict):
    from constructions.limit_transformer.model import Head, LocalPhi

    lay = _Layout(cls.sigma, 1, cls.period)
    g = Fraction(cls.gamma)
    key = [Fraction(0)] * lay.d
    key[lay.const], key[lay.bos] = -g, g
    value = [[Fraction(0)] * lay.d for _ in range(lay.d)]
    value[lay.val0][lay.const], value[lay.val0][lay.bos] = Fraction(1), Fraction(-1)
    head = Head([lay.e(lay.const)], [key], value, LocalPhi((Fraction(0),) * cls.window))
    A = [Fraction(0)] * lay.d
    A[lay.val0], A[lay.bos] = Fraction(-1), -(2 + math.ceil(params["t_star"]))  # the $ query stays off
    return _negated(cls, lay, [head], A, params["t_star"], 2 * cls.K, "hardmax")


def _hardmax_witness(cls: ModelClass, params: dict):
    H = cls.hardmax_threshold.exact
    if H is None:
        raise NotInClassError("H is astronomically large: the witness is every input of length >= H")
    return _balanced_counts(cls, {1: max(0, (H - 1 - cls.window) // cls.period + 1)}, 1)


_BUILDERS = {"bump": _bump_pair, "chain": _chain_pair, "hardmax": _hardmax_pair}
_WITNESSES = {"bump": _bump_witness, "chain": _chain_witness, "hardmax": _hardmax_witness}
FAMILIES = {"bump": bump, "chain": chain, "hardmax": hardmax}


def lower_bounds(cls: ModelClass) -> list[LowerBound]:
    """Every family that applies to the class."""
    out = []
    for fam in FAMILIES.values():
        try:
            out.append(fam(cls))
        except NotInClassError:
            pass
    return out


def best_lower_bound(cls: ModelClass) -> LowerBound | None:
    """The family with the largest certified agreement length (None when none applies)."""
    found = lower_bounds(cls)
    return max(found, key=lambda b: b.agree.log2_lower) if found else None


def certify_agreement(f, g, n: int, delta=0, timeout_ms: int = 20_000) -> dict:
    """Decide ``|f - g| <= delta`` on every input of length ``<= n`` for a pair whose attention is a hardmax from
    length 2 on: exact enumeration of the lengths ``<= tau + 2`` (:mod:`bounds.true_threshold`), then one z3 problem
    per pattern (:mod:`bounds.sup_z3`: counts relaxed to reals >= 1, residue sums exact) with the total length
    ``<= n``.  ``unsat`` on every pattern proves agreement (the relaxation holds every real input); a ``sat``
    pattern or an ``unknown`` is returned as such.  Returns {"agree": bool | None, "patterns": int, "sat": pattern or
    None, "unknown": int}."""
    import z3

    from bounds.auxiliary import ClassModel, pair_period
    from bounds.sup_z3 import _q, count_patterns, encode_pattern, long_length, patterns
    from bounds.true_threshold import max_disagreement

    D, tau = pair_period(f, g), max(f.tau, g.tau)
    if long_length(f, g) > tau + 2:
        raise BoundsError("certify_agreement needs a hardmax from length tau + 2 on (2^{p/gamma} <= tau + 2)")
    if count_patterns(len(f.alphabet), D, tau) > 5000:
        raise BoundsError("more than 5000 patterns: the z3 agreement certificate is refused")
    delta = Fraction(delta)
    for length in range(1, min(n, tau + 2) + 1):
        if max_disagreement(f, g, length).max_disagreement > delta:
            return {"agree": False, "patterns": 0, "sat": f"length {length}", "unknown": 0}
    cms = (ClassModel.of(f, D), ClassModel.of(g, D))
    out = {"agree": True, "patterns": 0, "sat": None, "unknown": 0}
    for pat in patterns(len(f.alphabet), D, tau):
        prob = encode_pattern(cms, pat, D, 1)
        total = sum(prob.variables.values(), _q(1)) + len(pat.window)
        s = z3.SolverFor("QF_NRA")
        s.set("timeout", timeout_ms)
        diff = [d for a, b in zip(*prob.outputs, strict=True) for d in (a - b, b - a)]
        s.add(*prob.constraints, total <= n, z3.Or([d > _q(delta) for d in diff]))
        r = s.check()
        out["patterns"] += 1
        if r == z3.sat:
            return {**out, "agree": False, "sat": pat}
        if r != z3.unsat:
            out["unknown"] += 1
            out["agree"] = None
    return out


def in_class(f, g, cls: ModelClass) -> dict:
    """Each membership condition of the pair, from the package's own ingredients (exact)."""
    from bounds.margin import ingredients

    out = {}
    for tag, m in (("f", f), ("g", g)):
        ing = ingredients(m, mode="exact")
        out[f"{tag}: |Sigma| = {cls.sigma}"] = ing.alphabet_size == cls.sigma
        out[f"{tag}: period divides Delta"] = cls.period % ing.period == 0
        out[f"{tag}: tau <= {cls.tau}"] = ing.tau <= cls.tau
        out[f"{tag}: heads <= {cls.heads}"] = ing.heads <= cls.heads
        out[f"{tag}: K <= class K"] = ing.moduli[0].K <= cls.K
        out[f"{tag}: gamma >= class gamma"] = cls.gamma != INF and ing.gamma >= cls.gamma or ing.gamma == INF
        out[f"{tag}: p <= class p"] = ing.precision_bits <= cls.precision_bits
    return out
