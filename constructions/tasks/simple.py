"""SimpleTask (Izzo et al. sec. 5, App. B) and its one-layer Limit Transformer (App. A.2) with a certified MLP.

Task.  Alphabet ``{"0", "1", "2"}``, frequency omega.  With ``c_s`` the number of tokens equal to s,

    f*(x_{1:T}) = sin(omega z),   z = (c_0 - c_1) / (c_0 + c_1).

Convention: when ``c_0 + c_1 = 0`` (no 0s or 1s yet, e.g. T = 0) we set ``z := 0`` (so f* = 0); the
construction then attends only to ``$``, whose value is 0.  ``z`` is exact (a Fraction); the target is the
float ``sin(omega z)``.

Construction (App. A.2 with finite logits, NoPE, Delta = 1, tau = 0).  Coordinates
``0 const, 1 is_bos, 2 is_0, 3 is_1, 4 z (written by attention), 5 out (MLP)``.  Key score (the query reads
``const``): ``lam`` for tokens 0 and 1, ``lam/2`` for ``$``, 0 for token 2, so the completed logit margin is
``lam/2``; default ``lam = 2 * precision_bits`` puts the model in the hardmax regime (izzo precision model) at
every length >= 2 (and length 1 has a single key).  ``V E_0 = e_z = -V E_1``, ``V E_2 = V E_$ = 0``; the
attention output's z-coordinate is then exactly (c_0 - c_1)/(c_0 + c_1).  The MLP is
:class:`constructions.tasks.sine_mlp.SineMLP` (input weight on coordinate z, output into ``out``); ``U`` reads
``out``.  So the model's output at a prefix is exactly ``I(z)`` and
``|output - f*| <= omega^2 h^2 / 8 + 2^-q`` (the certified bound), at every length and every offset (NoPE).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from constructions.limit_transformer.model import MLP, Head, Layer, LimitTransformer
from constructions.tasks.errors import TaskError
from constructions.tasks.sine_mlp import SineMLP

ALPHABET = ("0", "1", "2")


@dataclass(frozen=True)
class SimpleTask:
    """SimpleTask(omega): sin(omega (c_0 - c_1)/(c_0 + c_1)) of every prefix."""

    omega: Fraction = Fraction(1)

    def __post_init__(self):
        try:
            object.__setattr__(self, "omega", Fraction(self.omega))
        except (TypeError, ValueError) as e:
            raise TaskError(f"SimpleTask omega must be a rational number, got {self.omega!r}") from e

    alphabet = ALPHABET

    def _counts(self, string):
        for s in string:
            if s not in ALPHABET:
                raise TaskError(f"SimpleTask strings use the symbols '0', '1', '2'; got {s!r}")

    def prefix_z(self, string) -> list[Fraction]:
        """Exact z of every prefix, T = 0..n (z := 0 when c_0 + c_1 = 0)."""
        self._counts(string)
        out = [Fraction(0)]
        c0 = c1 = 0
        for s in string:
            c0 += s == "0"
            c1 += s == "1"
            out.append(Fraction(c0 - c1, c0 + c1) if c0 + c1 else Fraction(0))
        return out

    def prefix_targets(self, string) -> list[float]:
        """sin(omega z) of every prefix (float; z exact)."""
        return [math.sin(float(self.omega * z)) for z in self.prefix_z(string)]

    def target(self, string) -> float:
        return self.prefix_targets(string)[-1]

    def sample(self, rng: np.random.Generator, length: int, batch: int = 1) -> list[str]:
        """App. B: p ~ uniform on the simplex (Dirichlet(1,1,1)) per sequence, then x_t ~ p i.i.d."""
        if length < 0 or batch < 1:
            raise TaskError(f"need length >= 0 and batch >= 1, got length={length}, batch={batch}")
        probs = rng.dirichlet(np.ones(3), size=batch)
        u = rng.random((batch, length))
        toks = (u[:, :, None] > np.cumsum(probs, axis=1)[:, None, :2]).sum(axis=2)
        return ["".join(str(int(t)) for t in row) for row in toks]

    def mlp(self, error: float = 1e-3) -> SineMLP:
        return SineMLP.for_error(self.omega, error)

    @staticmethod
    def hardmax_length(precision_bits: int = 8, logit_scale=None) -> int:
        """Smallest model length from which the construction is an exact hardmax (izzo precision model):
        the least N with N^(lam/2) >= 2^p (lam = logit_scale, default 2 * precision_bits, giving 2)."""
        from constructions.limit_transformer.hardmax import hardmax_threshold

        lam = Fraction(2 * precision_bits) if logit_scale is None else Fraction(logit_scale)
        return hardmax_threshold(lam / 2, precision_bits)

    def limit_transformer(self, error: float = 1e-3, precision_bits: int = 8, logit_scale=None) -> LimitTransformer:
        """The construction of the module docstring; its sine MLP has certified sup-error <= ``error``."""
        lam = Fraction(2 * precision_bits) if logit_scale is None else Fraction(logit_scale)
        if lam <= 0:
            raise TaskError(f"logit_scale must be positive, got {lam}")
        net = self.mlp(error)
        a, b, beta = net.weights()
        d = 6
        CONST, BOS_, Z0, Z1, Z, OUT = range(6)
        E = [[0] * d for _ in range(4)]  # $, 0, 1, 2
        for t in range(4):
            E[t][CONST] = 1
        E[0][BOS_] = 1
        E[1][Z0] = 1
        E[2][Z1] = 1
        key = [[Fraction(0)] * d]
        key[0][Z0] = key[0][Z1] = lam
        key[0][BOS_] = lam / 2
        query = [[0] * d]
        query[0][CONST] = 1
        value = [[0] * d for _ in range(d)]
        value[Z][Z0] = 1
        value[Z][Z1] = -1
        A = [[0] * d for _ in a]
        for u, au in enumerate(a):
            A[u][Z] = au
        B = [[0] * len(a) for _ in range(d)]
        B[OUT] = list(beta)
        U = [[0] * d]
        U[0][OUT] = 1
        return LimitTransformer(
            alphabet=ALPHABET, embedding=E,
            layers=(Layer(heads=(Head(query=query, key=key, value=value),), mlp=MLP(A=A, b=b, B=B)),),
            unembedding=U, positions=None, precision_bits=precision_bits, precision="izzo",
            name=f"simple(omega={self.omega})",
            metadata={"task": "simple", "omega": str(self.omega), "cells": net.cells,
                      "certified_error": str(net.certified_error), "logit_scale": str(lam)})
