"""Product functions of a finite transformer (Huang et al. Definition 43, eq. (5)) and the Theta_n check (eq. (7)).

Definition 43 (reference section 2.1).  *Writers* are the vectors a computation adds to the residual stream:
token embeddings ``E_sigma``, positional encodings ``p_i`` (both at layer 0) and MLP output columns
``(B_l)_{:,s}`` (at layer l).  A chain ``Pi_S`` is a product of value matrices with at most one per layer,
ordered by layer with the lowest layer on the right, all above the writer's layer.  Product functions are

* ``w^T Pi_S v`` for a *reader* ``w``: an unembedding row ``U_tau`` (chains up to layer L) or an MLP input row
  ``(A_l)_{s,:}`` (chains up to layer l, since attention of layer l precedes its MLP);
* ``(Pi_S v)^T K_{l,h}^T Q_{l,h} (Pi_S' v')`` (chains below layer l), key side left, query side right.

(MLP biases and ``b_l`` enter no product with a positional encoding; Remark 45: products that never occur in
a computation are included, harmlessly.)  The number of product functions does not depend on ``d``.

Definition 4 item 3 / eq. (7): every product function involving positional encodings is translation-invariant:
one positional encoding -> constant in ``i``; two -> ``G[j, i] = G[j+1, i+1]`` (a Toeplitz matrix over key j,
query i).  :func:`check_translation_invariance` checks every such product exactly (``Fraction``); chains whose
image is identically zero are pruned (every extension of a zero image is zero, hence trivially invariant) and
chains with equal images are checked once (the report counts both).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from constructions.huang.errors import NotInThetaError
from constructions.huang.finite import FiniteTransformer, fractional_bits
from constructions.limit_transformer.rationals import exact_dot


def sdot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Exact product of two Fraction matrices, summing only products of nonzero entries."""
    return exact_dot(a, b)


@dataclass(frozen=True)
class Chain:
    """``Pi_S v`` for one writer block: ``image`` is d x m (one column per writer vector of the block)."""

    writer: str  # "E", "P" or "B{l}"
    path: tuple  # ((layer, head), ...) lowest layer first
    image: np.ndarray

    @property
    def positional(self) -> bool:
        return self.writer == "P"

    def label(self) -> str:
        s = "".join(f"V{l},{h} " for l, h in reversed(self.path))
        return f"{s}{self.writer}"


@dataclass
class ProductReport:
    """Outcome of the exact Definition 4 check: counts and the violations found (first ``max_violations``)."""

    n: int
    chains: int = 0
    distinct_images: int = 0
    checked: dict = field(default_factory=lambda: {"reader": 0, "logit-one": 0, "logit-two": 0})
    violations: list = field(default_factory=list)

    @property
    def translation_invariant(self) -> bool:
        return not self.violations


def _key(m: np.ndarray) -> tuple:
    return (m.shape, tuple(m.flat))


def _chains(T: FiniteTransformer):
    """All nonzero chains, grouped by the layer where they become readable: ``avail[l]`` for attention of layer l
    (chains with every factor below l) and ``mlp[l]`` for the MLP of layer l (factors up to l)."""
    model = T.model
    base = [Chain("E", (), model.embedding.T.copy()), Chain("P", (), T.table.T.copy())]
    avail = {1: [c for c in base if np.any(c.image != 0)]}
    mlp, count, seen = {}, len(avail[1]), {_key(c.image) for c in avail[1]}
    for l, layer in enumerate(model.layers, 1):
        current = list(avail[l])
        new = []
        for h, head in enumerate(layer.heads, 1):
            for c in current:
                img = sdot(head.value, c.image)
                if np.any(img != 0):
                    count += 1
                    k = _key(img) + (c.writer,)
                    if k not in seen:
                        seen.add(k)
                        new.append(Chain(c.writer, c.path + ((l, h),), img))
        mlp[l] = current + new
        nxt = current + new
        if layer.mlp is not None and np.any(layer.mlp.B != 0):
            nxt.append(Chain(f"B{l}", (), layer.mlp.B.copy()))
            count += 1
        avail[l + 1] = nxt
    return avail, mlp, count, len(seen)


@dataclass(frozen=True)
class Product:
    """One product function: ``values`` is exact, indexed by writer vectors (positions for ``P``).

    ``reader``: rows = reader rows (U rows or A_l rows), columns = writer vectors.  ``logit``: rows = key-side
    writer vectors, columns = query-side writer vectors."""

    kind: str  # "reader" or "logit"
    description: str
    values: np.ndarray
    key_positional: bool = False  # reader products: the writer is positional
    query_positional: bool = False


def enumerate_products(T: FiniteTransformer, *, positional_only: bool = True):
    """Yield every :class:`Product` of ``T`` (only those with a positional encoding unless ``positional_only``
    is False)."""
    avail, mlp, _, _ = _chains(T)
    model = T.model
    L = model.depth
    for c in avail[L + 1]:
        if c.positional or not positional_only:
            yield Product("reader", f"U {c.label()}", sdot(model.unembedding, c.image), c.positional)
    for l, layer in enumerate(model.layers, 1):
        if layer.mlp is not None:
            for c in mlp[l]:
                if c.positional or not positional_only:
                    yield Product("reader", f"A{l} {c.label()}", sdot(layer.mlp.A, c.image), c.positional)
        for h, head in enumerate(layer.heads, 1):
            kq = head.bilinear
            if not np.any(kq != 0):
                continue
            for ck in avail[l]:
                left = sdot(ck.image.T, kq)
                if not np.any(left != 0):
                    continue
                for cq in avail[l]:
                    if positional_only and not (ck.positional or cq.positional):
                        continue
                    yield Product("logit", f"({ck.label()})^T K{l},{h}^T Q{l},{h} ({cq.label()})",
                                  sdot(left, cq.image), ck.positional, cq.positional)


def product_kind(p: Product) -> str:
    """``reader``, ``logit-one`` (one positional side) or ``logit-two`` (eq. (7))."""
    if p.kind == "reader":
        return "reader"
    return "logit-two" if p.key_positional and p.query_positional else "logit-one"


def violation(p: Product) -> str | None:
    """None if the product is translation-invariant, else a sentence naming the first witness."""
    desc, vals, key_pos, query_pos = p.description, p.values, p.key_positional, p.query_positional
    if p.kind == "reader":  # rows = reader rows, columns = positions: constant along columns
        bad = np.nonzero(np.any(vals[:, 1:] != vals[:, :-1], axis=0))[0]
        if len(bad):
            i = bad[0]
            r = np.nonzero(vals[:, i + 1] != vals[:, i])[0][0]
            return f"{desc}: row {r} differs at positions {i + 1} and {i + 2} ({vals[r, i]} != {vals[r, i + 1]})"
        return None
    if key_pos and query_pos:  # G[j, i] = G[j+1, i+1]
        bad = np.argwhere(vals[1:, 1:] != vals[:-1, :-1])
        if len(bad):
            j, i = bad[0]
            return (f"{desc}: G[{j + 1},{i + 1}] = {vals[j, i]} != G[{j + 2},{i + 2}] = {vals[j + 1, i + 1]} "
                    "(eq. (7), key j, query i)")
        return None
    axis = 0 if key_pos else 1  # positions along rows (key side) or columns (query side)
    v = vals if axis == 0 else vals.T
    bad = np.nonzero(np.any(v[1:] != v[:-1], axis=1))[0]
    if len(bad):
        side = "key" if key_pos else "query"
        return f"{desc}: not constant in the {side} position (differs between positions {bad[0] + 1} and {bad[0] + 2})"
    return None


def check_translation_invariance(T: FiniteTransformer, *, max_violations: int = 5) -> ProductReport:
    """Exact check of Definition 4 item 3 on every product function involving positional encodings."""
    _, _, count, distinct = _chains(T)
    report = ProductReport(T.n, count, distinct)
    for p in enumerate_products(T):
        report.checked[product_kind(p)] += 1
        v = violation(p)
        if v is not None and len(report.violations) < max_violations:
            report.violations.append(v)
    return report


def require_theta(T: FiniteTransformer) -> ProductReport:
    """Raise :class:`NotInThetaError` naming a witness unless ``T`` is in Theta_n (Definition 4/46)."""
    report = check_translation_invariance(T, max_violations=1)
    if report.violations:
        raise NotInThetaError(f"not in Theta_{T.n}: {report.violations[0]}")
    return report


def max_product_bits(T: FiniteTransformer) -> int:
    """Largest number of fractional bits of any product-function value of ``T`` (Lemma 49: each product is a
    sum of products of at most ``L + 4`` p-bit parameters, so at most ``(L + 4) p`` bits).  Raises
    :class:`NotInThetaError` if some value is not dyadic."""
    bits = 0
    for p in enumerate_products(T, positional_only=False):
        for v in p.values.flat:
            bits = max(bits, fractional_bits(v))
    return bits
