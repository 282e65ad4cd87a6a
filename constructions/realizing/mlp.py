"""ReLU / linear MLPs with exact rational weights, and the surgery the high-capacity witnesses use.

An :class:`MLP` is its ``layers``: a tuple of ``(W, b, act)`` with ``W`` a matrix (rows = outputs), ``b`` a
vector and ``act`` in :data:`ACTS`; entries are Fractions (ints and strings are converted).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from constructions.realizing.errors import RealizingError
from constructions.realizing.exact import Vec, identity, matvec, relu, to_fraction, to_matrix, to_vector, vadd

ACTS = ("relu", "linear")


# ------------------------------------------------------------------------------------------- MLPs
@dataclass(frozen=True)
class MLP:
    """A feed-forward net: layers ``(W, b, act)`` applied in order; act is 'relu' or 'linear'."""

    layers: tuple

    def __post_init__(self):
        layers = []
        for k, (w, b, act) in enumerate(self.layers):
            w, b = to_matrix(w), to_vector(b)
            if act not in ACTS:
                raise RealizingError(f"layer {k}: activation {act!r} not in {ACTS}")
            if len(w) != len(b):
                raise RealizingError(f"layer {k}: {len(w)} rows but bias of length {len(b)}")
            if layers and len(w[0]) != len(layers[-1][0]):
                raise RealizingError(f"layer {k}: expects {len(w[0])} inputs, previous layer gives {len(layers[-1][0])}")
            layers.append((w, b, act))
        if not layers:
            raise RealizingError("an MLP needs at least one layer")
        object.__setattr__(self, "layers", tuple(layers))

    @property
    def in_dim(self) -> int:
        return len(self.layers[0][0][0])

    @property
    def out_dim(self) -> int:
        return len(self.layers[-1][0])

    def __call__(self, x) -> Vec:
        v = tuple(x)
        for w, b, act in self.layers:
            v = vadd(matvec(w, v), b)
            if act == "relu":
                v = tuple(relu(z) for z in v)
        return v

    @staticmethod
    def linear(w, b=None) -> MLP:
        w = to_matrix(w)
        return MLP(((w, b if b is not None else [0] * len(w), "linear"),))


def mlp_append_constant(mlp: MLP, value=1) -> MLP:
    """The MLP ``x -> (mlp(x), value)``: one extra unit per layer carrying the constant (value >= 0)."""
    value = to_fraction(value)
    if value < 0:
        raise RealizingError("the carried constant must be >= 0 (it passes through ReLU layers)")
    layers = []
    for k, (w, b, act) in enumerate(mlp.layers):
        width_in = len(w[0]) + (1 if k else 0)
        new_w = [tuple(row) + ((Fraction(0),) if k else ()) for row in w]
        carry = [Fraction(0)] * width_in
        if k:
            carry[-1] = Fraction(1)
        new_w.append(tuple(carry))
        new_b = tuple(b) + ((value,) if k == 0 else (Fraction(0),))
        layers.append((tuple(new_w), new_b, act))
    return MLP(tuple(layers))


def mlp_append_input(mlp: MLP, n_extra: int = 1) -> MLP:
    """``(x, e) -> mlp(x)``: the same net reading (and ignoring) ``n_extra`` further input coordinates."""
    (w, b, act), *rest = mlp.layers
    w = tuple(tuple(row) + (Fraction(0),) * n_extra for row in w)
    return MLP(((w, b, act), *rest))


def mlp_pass_input(mlp: MLP, index: int) -> MLP:
    """``x -> (mlp(x), x[index])``: append an output copying input ``index`` (the input must be >= 0)."""
    layers = []
    for k, (w, b, act) in enumerate(mlp.layers):
        if k == 0:
            carry = [Fraction(0)] * len(w[0])
            carry[index] = Fraction(1)
        else:
            carry = [Fraction(0)] * (len(w[0]) + 1)
            carry[-1] = Fraction(1)
        new_w = [tuple(row) + ((Fraction(0),) if k else ()) for row in w] + [tuple(carry)]
        layers.append((tuple(new_w), tuple(b) + (Fraction(0),), act))
    return MLP(tuple(layers))


def mlp_plus_ramp(rho: MLP, c, lo, hi) -> MLP:
    """``(z, u) -> rho(z) + c * ramp(u)`` with ``ramp(u) = clip((u - lo)/(hi - lo), 0, 1)`` (ReLU, exact).

    ramp is 0 for u on lo's side and 1 for u on hi's side (lo > hi is allowed: a decreasing ramp).  rho's
    last layer must be linear (else a linear identity layer is appended first).
    """
    c, lo, hi = to_fraction(c), to_fraction(lo), to_fraction(hi)
    if lo == hi:
        raise RealizingError("ramp needs lo != hi")
    if rho.layers[-1][2] != "linear":
        rho = MLP(rho.layers + ((identity(rho.out_dim), (0,) * rho.out_dim, "linear"),))
    if rho.layers[0][2] != "relu" and len(rho.layers) > 1:
        # make the first layer a ReLU layer (x = relu(x) - relu(-x)) so the ramp units get their ReLU
        w0, b0, act0 = rho.layers[0]
        d = len(w0[0])
        split = tuple(tuple(Fraction(s * int(i == j)) for j in range(d)) for s in (1, -1) for i in range(d))
        w0n = tuple(tuple(row) + tuple(-x for x in row) for row in w0)
        rho = MLP(((split, (0,) * (2 * d), "relu"), (w0n, b0, act0)) + rho.layers[1:])
    scale = 1 / (hi - lo)
    layers = []
    nl = len(rho.layers)
    for k, (w, b, act) in enumerate(rho.layers):
        last = k == nl - 1
        if k == 0:
            # rho's first layer reads z; two ramp units read u (the extra last input)
            w0 = [tuple(row) + (Fraction(0),) for row in w]
            b0 = list(b)
            if not last:
                zeros = (Fraction(0),) * len(w[0])
                w0 += [zeros + (scale,), zeros + (scale,)]
                b0 += [-lo * scale, -lo * scale - 1]
                layers.append((tuple(w0), tuple(b0), act))
                continue
            # one-layer rho: need a hidden layer for the ramp; insert it before
            d = len(w[0])
            hid_w = [tuple(Fraction(int(i == j)) for j in range(d + 1)) for i in range(d)]
            hid_w += [tuple(-Fraction(int(i == j)) for j in range(d + 1)) for i in range(d)]
            zeros = (Fraction(0),) * d
            hid_w += [zeros + (scale,), zeros + (scale,)]
            hid_b = [Fraction(0)] * (2 * d) + [-lo * scale, -lo * scale - 1]
            layers.append((tuple(hid_w), tuple(hid_b), "relu"))
            out_w = [tuple(row) + tuple(-x for x in row) + (c, -c) for row in w]
            layers.append((tuple(out_w), tuple(b), "linear"))
            return MLP(tuple(layers))
        # later layers: carry the two (non-negative) ramp units, add them at the end
        if last:
            new_w = [tuple(row) + (c, -c) for row in w]
            layers.append((tuple(new_w), tuple(b), act))
        else:
            width = len(w[0])
            new_w = [tuple(row) + (Fraction(0), Fraction(0)) for row in w]
            new_w += [(Fraction(0),) * width + (Fraction(1), Fraction(0)),
                      (Fraction(0),) * width + (Fraction(0), Fraction(1))]
            layers.append((tuple(new_w), tuple(b) + (Fraction(0), Fraction(0)), act))
    return MLP(tuple(layers))

