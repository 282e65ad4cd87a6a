"""Proposition 3.2 / B.1 of golowich2025: single attention heads versus 1-sparse functional attention.

AttHeads_{d,h,V} (Definition B.1): X -> O sum_i alpha_i V W_e x_i, alpha = softmax_i <Q h_q, K W_e x_i>.
The proof maps a head to g0(x) = <Q h_q, K W_e x>, g1(x) = O V W_e x ("subset" direction, exact check
:func:`head_minus_functional`) and claims the converse "since h >= d".  The converse fails: W_e is shared
by keys and values, so the pairs (g0, g1) of heads do not form a product set, while H^attn(G^key, G^val)
is a product class.  :func:`realizability_constraints` encodes, for a tabulated (g0, g1), *necessary*
conditions (sequences of length 1 and 2) for some head to compute h_{g0,g1}; z3 unsat is a proof that no
head does.
"""

from __future__ import annotations

import itertools

import sympy
import z3


def att_head(We, K, Q, V, O, hq, x):
    """Exact head output (sympy Matrix d x 1) on token sequence x (token ids index the columns of We)."""
    We, K, Q, V, O, hq = (sympy.Matrix(m) for m in (We, K, Q, V, O, hq))
    q = Q * hq
    scores = [(q.T * K * We[:, t])[0, 0] for t in x]
    ws = [sympy.exp(s) for s in scores]
    return O * sum((w * V * We[:, t] for w, t in zip(ws, x, strict=True)), sympy.zeros(V.shape[0], 1)) / sum(ws)


def functional(g0, g1, x):
    """h_{g0,g1}(x) for k = 1 with position-independent g0 (sympy, exp symbolic)."""
    ws = [sympy.exp(g0[t]) for t in x]
    return sum((w * sympy.Matrix(g1[t]) for w, t in zip(ws, x, strict=True)),
               sympy.zeros(len(g1[x[0]]), 1)) / sum(ws)


def head_to_functional(We, K, Q, V, O, hq):
    """The proof's map: g0(x) = <Q h_q, K W_e x>, g1(x) = O V W_e x."""
    We, K, Q, V, O, hq = (sympy.Matrix(m) for m in (We, K, Q, V, O, hq))
    q = Q * hq
    g0 = [(q.T * K * We[:, t])[0, 0] for t in range(We.shape[1])]
    g1 = [list(O * V * We[:, t]) for t in range(We.shape[1])]
    return g0, g1


def head_minus_functional(params, g0, g1, max_len=3):
    """Stacked residuals head(x) - h_{g0,g1}(x) over all sequences of length <= max_len (exact)."""
    nv = sympy.Matrix(params[0]).shape[1]
    rows = []
    for L in range(1, max_len + 1):
        for x in itertools.product(range(nv), repeat=L):
            r = att_head(*params, x) - functional(g0, g1, x)
            rows.extend(sympy.simplify(e) for e in r)
    return sympy.Matrix(rows)


def realizability_constraints(g0, g1, d: int, h: int):
    """z3 constraints necessary for some head in AttHeads_{d,h,V} to compute h_{g0,g1} on every sequence.

    Length 1: O V W_e e_x = g1(x).  Length 2 (x, y) with g1(x) != g1(y): the two softmax weights must
    have the same ratio, i.e. s_x - s_y = g0(x) - g0(y) with s_x = <Q h_q, K W_e e_x>
    (see :func:`length2_necessity_step`).  g0, g1 rational.
    """
    nv = len(g0)
    We = [[z3.Real(f"We_{i}_{t}") for t in range(nv)] for i in range(d)]
    K = [[z3.Real(f"K_{a}_{i}") for i in range(d)] for a in range(h)]
    Q = [[z3.Real(f"Q_{a}_{i}") for i in range(d)] for a in range(h)]
    Vm = [[z3.Real(f"V_{a}_{i}") for i in range(d)] for a in range(h)]
    O = [[z3.Real(f"O_{i}_{a}") for a in range(h)] for i in range(d)]
    hq = [z3.Real(f"hq_{i}") for i in range(d)]
    q = [sum(Q[a][i] * hq[i] for i in range(d)) for a in range(h)]
    cons = []

    def emb(t):
        return [We[i][t] for i in range(d)]

    def score(t):
        e = emb(t)
        return sum(q[a] * sum(K[a][i] * e[i] for i in range(d)) for a in range(h))

    def value(t):
        e = emb(t)
        ve = [sum(Vm[a][i] * e[i] for i in range(d)) for a in range(h)]
        return [sum(O[i][a] * ve[a] for a in range(h)) for i in range(d)]

    for t in range(nv):
        cons += [value(t)[i] == g1[t][i] for i in range(d)]
    for x, y in itertools.combinations(range(nv), 2):
        if list(g1[x]) != list(g1[y]):
            cons.append(score(x) - score(y) == g0[x] - g0[y])
    return tuple(cons)


def length2_necessity():
    """z3 terms: positive weights, a != b, equal outputs on (x, y)  =>  equal weight ratios."""
    wx, wy, vx, vy, a, b = z3.Reals("wx wy vx vy a b")
    pos = (wx > 0, wy > 0, vx > 0, vy > 0)
    same = (wx * a + wy * b) / (wx + wy) == (vx * a + vy * b) / (vx + vy)
    return pos, same, a != b, wx * vy == vx * wy


def product_witness(nv: int = 3):
    """Two heads (d = h = 1) and their mixed pair: (key of head 2, value of head 1), for |V| = nv >= 3."""
    g0_1, g1_1 = [0] * nv, [[1]] + [[0]] * (nv - 1)                   # W_e = e_0^T, Q h_q = 0
    g0_2, g1_2 = list(range(nv)), [[t] for t in range(nv)]            # W_e = (0, 1, .., nv-1), all ones
    head1 = ([[1] + [0] * (nv - 1)], [[1]], [[0]], [[1]], [[1]], [1])
    head2 = ([list(range(nv))], [[1]], [[1]], [[1]], [[1]], [1])
    return {"head1": (head1, g0_1, g1_1), "head2": (head2, g0_2, g1_2), "mixed": (g0_2, g1_1)}


def grid_search(ds=(1, 2), hs=(1, 2), nvs=(2, 3, 4), timeout_ms=20000):
    """For each (d, h, |V|): is the mixed pair g0 = (0, 1, ..), g1 = [I_d | 0] a head?  (z3: sat/unsat/unknown)

    g1 = [I_d | 0] is a head value table when h >= d (W_e = [I_d | 0], O V = I, Q h_q = 0), and every g0 is
    a head key table (W_e's first row = g0, rest 0, d >= 1); so 'unsat' shows that AttHeads is not a product.
    """
    out = {}
    for d, h, nv in itertools.product(ds, hs, nvs):
        if nv < d:
            continue
        g0 = list(range(nv))
        g1 = [[1 if i == t else 0 for i in range(d)] for t in range(nv)]
        s = z3.Solver()
        s.set("timeout", timeout_ms)
        s.add(*realizability_constraints(g0, g1, d, h))
        out[(d, h, nv)] = str(s.check())
    return out
