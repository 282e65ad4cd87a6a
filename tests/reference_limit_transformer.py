"""An independent minimal Limit Transformer evaluator, written from the papers' definitions only.

It shares no code with :mod:`constructions.limit_transformer` (it reads a model's public fields and nothing
else) so that differential tests against the package's evaluators can catch a wrong shared helper.
Definitions (Huang et al. Definition 2, eqs. (1)-(4), (6); Izzo et al. sec. 3.2; Huang et al. App. D.2):

    input  $ x_1 ... x_{n-1}  (length n, '$' at position 1);   y_i = E[x_i] + p_{i + offset}
    a_ij = (K y_j) . (Q y_i) + phi(j, i)  for keys j <= i
    izzo:  s_j = n^(a_j - max a); s_j <= 2^-p is replaced by 0     (exact only when each s_j is 0 or 1)
    huang: b_j = round_p(a_j), s_j = round_p(n^(b_j))              (round_p: nearest multiple of 2^-p, ties even)
    Y_i = y_i + sum_heads sum_j s_j / sum s * V y_j                 (0 when every s_j is 0)
    y_i' = Y_i + B act(A Y_i + b),  relu(z) = max(z, 0),  heaviside(z) = [z >= 0]
    output U y_i at every position.
Everything is a ``Fraction``; numbers are plain Python integers (no numpy, no package helper).
"""

import math
from fractions import Fraction


class IrrationalWeight(Exception):
    """izzo: a strictly smaller term survives the flush, so its weight is irrational."""


def _rows(matrix):
    return [[Fraction(x) for x in row] for row in matrix]


def _matvec(m, v):
    return [sum((a * b for a, b in zip(row, v, strict=True)), Fraction(0)) for row in m]


def _nearest_integer_ties_even(num: int, den: int, v: int) -> int:
    """The integer nearest to (num/den)^(1/v) (num, den > 0), ties to even, by integer bisection."""
    lo, hi = 0, 1
    while hi**v * den <= num:
        hi *= 2
    while hi - lo > 1:  # lo^v den <= num < hi^v den
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if mid**v * den <= num else (lo, mid)
    left, right = 2**v * num, (2 * lo + 1) ** v * den  # compare the value with lo + 1/2
    return lo + 1 if left > right or (left == right and lo % 2 == 1) else lo


def _round_p(x: Fraction, p: int) -> Fraction:
    scaled = x * 2**p
    down = scaled.numerator // scaled.denominator
    rest = scaled - down
    up = rest > Fraction(1, 2) or (rest == Fraction(1, 2) and down % 2 == 1)
    return Fraction(down + up, 2**p)


def _huang_term(n: int, a: Fraction, p: int) -> Fraction:
    """round_p(n^a) for rational a = u/v: the integer nearest 2^p n^(u/v), over 2^p."""
    u, v = a.numerator, a.denominator
    num, den = (2 ** (p * v) * n**u, 1) if u >= 0 else (2 ** (p * v), n ** (-u))
    return Fraction(_nearest_integer_ties_even(num, den, v), 2**p)


def _at_least_2_to_the_p(n: int, gap: Fraction, p: int) -> bool:
    """n^gap >= 2^p, i.e. n^u >= 2^(p v): for n = 2^k compare k u with p v (huge v: ulp-sized gaps)."""
    u, v = gap.numerator, gap.denominator
    if n & (n - 1) == 0:
        return (n.bit_length() - 1) * u >= p * v
    margin = u * math.log2(n) - p * v  # decided in float64 when far from 0, else by the integer powers
    if abs(margin) > 1e-6 * (p * v + 1):
        return margin > 0
    return n**u >= 2 ** (p * v)


def _weights(logits, n, p, model):
    if model == "izzo":
        top = max(logits)
        terms = []
        for a in logits:
            gap = top - a
            if gap == 0:
                terms.append(Fraction(1))
            elif n > 1 and _at_least_2_to_the_p(n, gap, p):  # n^-gap <= 2^-p: flushed
                terms.append(Fraction(0))
            else:
                raise IrrationalWeight(f"gap {gap} survives at n = {n}, p = {p}")
    else:
        terms = [_huang_term(n, _round_p(a, p), p) for a in logits]
    total = sum(terms)
    return [t / total if total else Fraction(0) for t in terms]


def reference_forward(model, string: str, offset: int = 0) -> list[list[Fraction]]:
    """Outputs ``U y_i`` at every position of ``$ string`` (a list of n rows of Fractions)."""
    ids = [0] + [model.alphabet.index(c) + 1 for c in string]
    n = len(ids)
    embedding = _rows(model.embedding)
    ys = [list(embedding[t]) for t in ids]
    if model.positions is not None:
        table = _rows(model.positions.table)
        ys = [[a + b for a, b in zip(y, table[(i + offset) % len(table)], strict=True)] for i, y in enumerate(ys)]
    for layer in model.layers:
        new = [list(y) for y in ys]
        for head in layer.heads:
            q, k, val = _rows(head.query), _rows(head.key), _rows(head.value)
            phi = [Fraction(x) for x in head.phi.values] if head.phi is not None else []
            keys = [_matvec(k, y) for y in ys]
            values = [_matvec(val, y) for y in ys]
            for i in range(n):
                qi = _matvec(q, ys[i])
                logits = [sum((a * b for a, b in zip(keys[j], qi, strict=True)), Fraction(0))
                          + (phi[i - j] if i - j < len(phi) else 0) for j in range(i + 1)]
                for j, w in enumerate(_weights(logits, n, model.precision_bits, model.precision)):
                    new[i] = [a + w * b for a, b in zip(new[i], values[j], strict=True)]
        if layer.mlp is not None:
            A, b, B = _rows(layer.mlp.A), [Fraction(x) for x in layer.mlp.b], _rows(layer.mlp.B)
            for i, y in enumerate(new):
                pre = [z + c for z, c in zip(_matvec(A, y), b, strict=True)]
                act = [(Fraction(int(z >= 0)) if kind == "heaviside" else max(z, Fraction(0)))
                       for z, kind in zip(pre, layer.mlp.activations, strict=True)]
                new[i] = [a + c for a, c in zip(y, _matvec(B, act), strict=True)]
        ys = new
    U = _rows(model.unembedding)
    return [_matvec(U, y) for y in ys]
