"""Lemma 47 as a compiler: a Periodic and Local Limit Transformer -> T_n in Theta_n (Huang et al. App. F).

``compile_theta(T, n)`` returns a :class:`~constructions.huang.finite.FiniteTransformer` ``T_n`` with context
width ``n`` such that ``T_n(x, o) = T(x, 0)`` for every input with ``|x| + o <= n`` (eq. (11)), every product
function involving positional encodings translation-invariant (Definition 4), and ``R(T_n)`` bounded
independently of ``n`` (eq. (12); :mod:`constructions.huang.regularizer`).  Width ``d + n + 3 Delta + 2``.

Residual regions (reference section 2.9; the paper's layer-1/2 details are UNCERTAIN, ours are):

======  =========  =====================================================================================
I       d          the simulated Limit Transformer's activations
II      n          one-hot absolute position ``e_a`` (used only by positional logits: phi and layer 1)
III     Delta      one-hot ``(a - 1) mod Delta`` (absolute)
IV      Delta      copy of III written by layer 1 (through a value matrix, so (8) stays bounded)
V       1          SOS indicator ``[sigma = $]`` (token embedding)
const   1          1 on every token, ``$`` included
VI      Delta      layer-2 head r writes the attention weight it puts on ``$``
======  =========  =====================================================================================

* Layer 1: one head, logit ``lambda [a_j = a_i]`` (``lambda I_n`` on region II), value copies III -> IV.
* Layer 2: ``Delta`` heads; head r has logit ``2 lambda [a_i - a_j = r (mod Delta)] + lambda [j = $]`` (region IV
  against IV, V against const) and writes its weight on ``$`` into VI_r.  With ``lambda = p`` every gap is
  ``>= lambda`` and the ``izzo`` flush makes each head an exact hardmax at every length ``>= 2``: the weight on
  ``$`` is 1 iff the relative position ``rho = i - 1`` satisfies ``rho = r (mod Delta)`` or no key ``j > 1`` has
  ``i - j = r (mod Delta)``; the second case only happens for ``r > rho``.  So the *smallest* r with weight 1
  is ``rho mod Delta``: Heaviside unit r, ``H(VI_r - sum_{r' < r} VI_r' - 1/2)``, fires exactly for it and its
  output column writes the Limit Transformer's ``p_{rho + 1} = table[rho mod Delta]`` into region I.
  Position enters region I only through attention *weights*, which are not product functions.
* Layers ``l >= 3`` are layer ``l - 2`` of ``T`` on region I; a head's logit matrix is ``K^T Q (+) Phi`` with
  ``Phi`` the banded Toeplitz ``n x n`` block ``Phi[a_j, a_i] = phi(j, i) = g(a_i - a_j)`` on region II (eq. (23)),
  realised with key rows ``Phi^T`` and query rows ``I_n``.

Outside Lemma 47's hypotheses (negative controls of eq. (12)): non-periodic encodings are compiled with
``Delta = n`` (``p_1 .. p_n`` as one period: n layer-2 heads), a translation-invariant non-local phi with its
table on offsets ``0 .. n-1``; T_n is still in Theta_n and still matches T up to n, but R(T_n) grows with n.

A NoPE ``T`` (no encodings, no phi) compiles to itself with ``p_i = 0`` (Corollary 18 / 26): no preamble, no
region II.  ``T`` without positional encodings but with phi gets region II and no preamble.  The compiler
needs the ``izzo`` precision model (the preamble relies on its exact hardmax; the package's compiled C-RASP
models and the ModP construction use it); other models raise :class:`NotCompilableError`.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from constructions.huang.errors import NotCompilableError
from constructions.huang.finite import FiniteTransformer, finite_transformer
from constructions.limit_transformer import MLP, Head, Layer, LimitTransformer, LocalPhi, exact_forward
from constructions.limit_transformer.errors import LimitTransformerError
from constructions.limit_transformer.rationals import zeros


def _positions_on_window(T: LimitTransformer, n: int) -> np.ndarray | None:
    """One period of T's encodings (rows ``table[(i - 1) mod Delta]``), or ``p_1 .. p_n`` as a period-n table
    for non-periodic encodings; None when there are none (or all are zero)."""
    if T.positions is None:
        return None
    table = T.positions.table if T.period is not None else T.positions.vectors(np.arange(1, n + 1))
    return table if any(v != 0 for v in table.flat) else None


def _phi_on_window(head: Head, n: int) -> LocalPhi | None:
    """The head's phi as an offset table on 0 .. n-1 (Local phi as is; a general phi must be translation-
    invariant on the window), None if absent or zero."""
    if head.phi is None:
        return None
    try:
        phi = head.phi if isinstance(head.phi, LocalPhi) else LocalPhi.from_function(head.phi.fn, n)
    except LimitTransformerError as e:
        raise NotCompilableError(f"phi must be translation-invariant: {e}") from e
    return phi if any(phi.values) else None


def _embed_rows(m: np.ndarray, width: int, offset: int = 0) -> np.ndarray:
    """``m`` (r x d) placed on columns offset .. offset+d-1 of an r x width matrix."""
    out = zeros((m.shape[0], width))
    out[:, offset: offset + m.shape[1]] = m
    return out


def compile_theta(T: LimitTransformer, n: int) -> FiniteTransformer:
    """The Lemma 47 transformer ``T_n`` (see the module docstring)."""
    if not isinstance(n, int) or n < 1:
        raise NotCompilableError(f"n must be a positive integer, got {n!r}")
    if T.precision != "izzo":
        raise NotCompilableError(f"Lemma 47's preamble needs the 'izzo' precision model, this model uses {T.precision!r}")
    d, p = T.d, T.precision_bits
    ptable = _positions_on_window(T, n)
    phis = [[_phi_on_window(h, n) for h in layer.heads] for layer in T.layers]
    pre = ptable is not None
    delta = ptable.shape[0] if pre else 0
    n2 = n if (pre or any(ph is not None for row in phis for ph in row)) else 0
    r1, r2, r3, r4 = d, d + n2, d + n2 + delta, d + n2 + 2 * delta  # starts of II, III, IV, V
    sos, const, r6 = r4, r4 + 1, r4 + 2
    width = r6 + delta if pre else d + n2
    lam = Fraction(p)

    emb = _embed_rows(T.embedding, width)
    table = zeros((n, width))
    if n2:
        for a in range(1, n + 1):
            table[a - 1, r1 + a - 1] = 1
    layers = []
    if pre:
        emb[0, sos] = 1
        emb[:, const] = 1
        for a in range(1, n + 1):
            table[a - 1, r2 + (a - 1) % delta] = 1
        # layer 1: attend to self through region II, copy III -> IV
        q1, k1, v1 = zeros((n, width)), zeros((n, width)), zeros((width, width))
        for a in range(n):
            q1[a, r1 + a], k1[a, r1 + a] = lam, 1
        for u in range(delta):
            v1[r3 + u, r2 + u] = 1
        layers.append(Layer((Head(q1, k1, v1),)))
        # layer 2: Delta heads, weight on $ into VI_r; MLP picks the smallest r and writes table[r]
        heads = []
        for r in range(delta):
            q, k, v = zeros((delta + 1, width)), zeros((delta + 1, width)), zeros((width, width))
            for w_ in range(delta):
                q[w_, r3 + w_] = 1
                for u in range(delta):
                    if (w_ - u - r) % delta == 0:
                        k[w_, r3 + u] = 2 * lam
            q[delta, const], k[delta, sos] = 1, lam
            v[r6 + r, sos] = 1
            heads.append(Head(q, k, v))
        A, b, B = zeros((delta, width)), zeros(delta), zeros((width, delta))
        for r in range(delta):
            A[r, r6 + r] = 1
            for s in range(r):
                A[r, r6 + s] = -1
            b[r] = Fraction(-1, 2)
            B[:d, r] = ptable[r]
        layers.append(Layer(tuple(heads), MLP(A, b, B, ("heaviside",) * delta)))
    for layer, layer_phis in zip(T.layers, phis, strict=True):
        heads = []
        for h, phi in zip(layer.heads, layer_phis, strict=True):
            q, k = _embed_rows(h.query, width), _embed_rows(h.key, width)
            if phi is not None:
                qphi, kphi = zeros((n, width)), zeros((n, width))
                for a in range(n):  # query row a reads e_a; key row a holds column a of Phi
                    qphi[a, r1 + a] = 1
                    for off, g in enumerate(phi.values):
                        if g != 0 and a - off >= 0:
                            kphi[a, r1 + a - off] = g  # Phi[a_j, a_i] = g(a_i - a_j)
                q, k = np.vstack([q, qphi]), np.vstack([k, kphi])
            v = zeros((width, width))
            v[:d, :d] = h.value
            heads.append(Head(q, k, v))
        mlp = None
        if layer.mlp is not None:
            B = zeros((width, layer.mlp.B.shape[1]))
            B[:d] = layer.mlp.B
            mlp = MLP(_embed_rows(layer.mlp.A, width), layer.mlp.b, B, layer.mlp.activations)
        layers.append(Layer(tuple(heads), mlp))
    parts = {"alphabet": T.alphabet, "embedding": emb, "layers": tuple(layers),
             "unembedding": _embed_rows(T.unembedding, width), "precision_bits": p, "precision": T.precision,
             "metadata": {"lemma47": {"source": T.name, "n": n, "delta": delta, "lambda": str(lam)}}}
    return finite_transformer(parts, table, name=f"lemma47({T.name or 'T'}, n={n})")


def lemma47_mismatch(T: LimitTransformer, Tn: FiniteTransformer, strings, offsets=None):
    """First ``(string, offset, position)`` where ``Tn(x, o) != T(x, 0)`` exactly (all output positions), else None.

    ``offsets``: iterable of offsets to try, or None for every admissible offset ``0 .. n - |x|``.
    """
    for s in strings:
        want = exact_forward(T, s)
        length = len(s) + 1
        for o in (range(Tn.n - length + 1) if offsets is None else [o for o in offsets if o + length <= Tn.n]):
            got = Tn.forward(s, offset=o)
            bad = np.nonzero(np.any(got != want, axis=1))[0]
            if len(bad):
                return s, o, int(bad[0]) + 1
    return None
