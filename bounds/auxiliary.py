"""Izzo et al. Theorem 4.1: its hypotheses as predicates, and the auxiliary string z of App. A.1 built as code.

``hypotheses(f, g)`` evaluates each hypothesis of Theorem 4.1 on a pair (one layer, Delta-periodic, tau-local and
translation-invariant phi, p bits under the ``izzo`` or ``huang`` precision model; :func:`agree_up_to` is the
agreement hypothesis ``|f - g| <= delta`` on every input up to N, decided by exhaustive exact evaluation), plus the
ones the proof of App. A.1 uses without stating (a single head, tau >= 1, a hardmax regime).

:func:`auxiliary` runs App. A.1 on a long input x given by its (token, residue) class counts outside the
tau-window and its window (``tau + 1`` positions: phi is nonzero up to offset tau, so the paper's "tau-suffix"
must hold tau + 1 positions).  Following "Including positional embedding vectors", a "token" of the proof is a
class c = (token, position mod Delta) (Delta = lcm of the two periods), ``$`` at position 1 included.  Steps:

1. A_m = prefix positions at the maximal logit of model m (hardmax), S_m = their classes, n_s = class counts;
   swap so that |A_f| <= |A_g| (the proof's WLOG).
2. Case "copy": |A_f|, |A_g| <= tau/eps: z copies the classes of S_f and S_g with their counts.
3. Otherwise the f-part: m_s = n_s if |A_f| <= tau/eps, else ``floor(n_s/|A_f| * tau/eps)``; then the g-part for
   s in S_g \\ S_f: ``floor(n_s/|A_g| * tau/eps^2)`` if |A_f cap A_g|/|A_g| <= eps ("disjoint"), else
   ``floor(m_{s*}/n_{s*} * n_s)`` with s* = argmax_{s in S_f} n_s ("overlap").
4. The tau-window of z is the window of x.  The proof stops here; a string also needs the class counts of each
   residue to fit the positions of one length (:func:`realize`), which the reduction to classes skips: residues
   are balanced with a filler class below both maxima or, where none exists, with one more key of an attended
   class (recorded, with its effect on the outputs, as ``balancing``).

Every inequality the proof writes with an explicit constant is returned as a :class:`Claim` (premise, both
sides, exact Fractions); the O(.) steps are replaced by the exact Lipschitz inequality they stand for:
``|m(x) - m(z)|_2 <= Lambda_m |a_m(x) - a_m(z)|_2`` with ``Lambda_m = ||U||_F (1 + ||A||_F ||B||_F)`` (residual
path and unembedding included, as in bounds/corrected.py; ReLU MLPs only).  Outputs are computed from class
counts in the hardmax regime (:func:`hardmax_output`) and, in the tests, compared with exact evaluation of the
realized strings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from bounds.class_model import ClassModel
from bounds.margin import BoundsError
from bounds.modulus import sqrt_up
from constructions.limit_transformer.exact import exact_mlp
from constructions.limit_transformer.model import LimitTransformer
from constructions.limit_transformer.precision import flushes


class NotApplicableError(BoundsError):
    """The pair or input is outside what App. A.1's construction handles (the reason is named)."""


# ------------------------------------------------------------------------------------------- hypotheses
def hypotheses(f: LimitTransformer, g: LimitTransformer) -> dict[str, bool]:
    """Each hypothesis of Theorem 4.1 (and of the proof of App. A.1) evaluated on the pair."""
    def both(pred):
        return pred(f) and pred(g)

    return {
        "one_layer": both(lambda m: m.depth == 1),
        "periodic": both(lambda m: m.positions is None or m.period is not None),
        "local_translation_invariant": both(lambda m: m.tau is not None),
        "finite_precision": both(lambda m: m.precision in ("izzo", "huang") and m.precision_bits >= 0),
        "same_alphabet": f.alphabet == g.alphabet,
        # used by the proof, not stated by the theorem:
        "single_head": both(lambda m: m.depth == 1 and len(m.layers[0].heads) == 1),
        "hardmax_regime_exists": both(lambda m: m.precision == "izzo"),
        "tau_positive": both(lambda m: (m.tau or 0) >= 1) if both(lambda m: m.tau is not None) else False,
        "relu_mlp": both(lambda m: m.depth == 1 and (m.layers[0].mlp is None
                                                    or not m.layers[0].mlp.heaviside_mask.any())),
    }


def require(f: LimitTransformer, g: LimitTransformer, names: tuple, purpose: str, error=None) -> None:
    """Raise ``error`` (default :class:`NotApplicableError`) naming the first of ``names`` (keys of
    :func:`hypotheses`) the pair fails: "<purpose> needs <hypothesis>; the pair fails it"."""
    hyp = hypotheses(f, g)
    for name in names:
        if not hyp[name]:
            raise (error or NotApplicableError)(f"{purpose} needs {name.replace('_', ' ')}; the pair fails it")


def agree_up_to(f: LimitTransformer, g: LimitTransformer, N: int, delta=0) -> bool:
    """The agreement hypothesis: |f(x) - g(x)| <= delta at the last position of every input of model length <= N
    (exhaustive exact evaluation; NotExactError below the hardmax regime)."""
    from bounds.compare import exhaustive_disagreement

    return all(exhaustive_disagreement(f, g, n)[0] <= Fraction(delta) for n in range(1, N + 1))


# ------------------------------------------------------------------------------------ class-level model
@dataclass
class Attention:
    top: Fraction
    classes: frozenset  # attended prefix classes S_m
    prefix: int  # |A_m|
    slots: tuple  # attended window slots
    output: np.ndarray  # head output a_m (exact)
    min_gap: Fraction | None  # smallest positive gap below the top (None: all keys tie)


def attend(cm: ClassModel, counts: dict, window: tuple, head: int = 0) -> Attention:
    """Hardmax attention of the last position: keys outside the window by class count, window slots by offset."""
    logits, values, phi = cm.heads[head]
    q = window[-1]
    w = len(window)
    entries = [(logits[q, c], ("c", c), k) for c, k in counts.items() if k]
    for s, c in enumerate(window):
        off = w - 1 - s
        entries.append((logits[q, c] + (phi[off] if off < len(phi) else 0), ("w", s), 1))
    top = max(e[0] for e in entries)
    gaps = [top - e[0] for e in entries if e[0] != top]
    att = [e for e in entries if e[0] == top]
    total = sum(k for _, _, k in att)
    acc = sum((values[c if kind == "c" else window[c]] * k for _, (kind, c), k in att),
              np.zeros(values.shape[1], dtype=object) + Fraction(0))
    return Attention(top, frozenset(c for _, (kind, c), _ in att if kind == "c"),
                     sum(k for _, (kind, _), k in att if kind == "c"), tuple(c for _, (kind, c), _ in att if kind == "w"),
                     acc / total, min(gaps) if gaps else None)


def residual_input(cm: ClassModel, counts: dict, window: tuple) -> np.ndarray:
    """Y = y_query + sum over heads of the hardmax attention output (exact), the MLP's input."""
    return cm.inputs[window[-1]] + sum(attend(cm, counts, window, h).output for h in range(len(cm.heads)))


def readout(cm: ClassModel, Y: np.ndarray) -> np.ndarray:
    """U (Y + B psi(A Y + b)) for each row of Y (exact)."""
    return exact_mlp(Y, cm.model.layers[0].mlp).dot(cm.model.unembedding.T)


def hardmax_output(cm: ClassModel, counts: dict, window: tuple) -> np.ndarray:
    """The model's last-position output in the hardmax regime, from class counts and window (exact)."""
    return readout(cm, residual_input(cm, counts, window)[None, :])[0]


def in_hardmax(cm: ClassModel, counts: dict, window: tuple) -> bool:
    """Every sub-maximal term of every head is flushed at this length (izzo model, n^gap >= 2^p)."""
    n = sum(counts.values()) + len(window)
    if cm.model.precision != "izzo":
        return False
    gaps = [attend(cm, counts, window, h).min_gap for h in range(len(cm.heads))]
    return all(g is None or flushes(g, n, cm.model.precision_bits) for g in gaps)


# ------------------------------------------------------------------------------------------ the claims
@dataclass(frozen=True)
class Claim:
    name: str  # e.g. "eq1[s=3]"
    lhs: Fraction
    op: str  # "<=" or "=="
    rhs: Fraction
    premise: bool = True  # the proof's stated premise for this step holds

    @property
    def holds(self) -> bool:
        return (self.lhs <= self.rhs) if self.op == "<=" else (self.lhs == self.rhs)


@dataclass
class Auxiliary:
    case: str  # "copy", "disjoint" or "overlap"
    swapped: bool  # the proof's WLOG |A_f| <= |A_g| swapped f and g
    m: dict  # the proof's class counts of z outside the window
    counts: dict  # realized class counts of z outside the window ($ and residue balancing included)
    window: tuple
    balancing: str  # "none", "filler" or "attended"
    claims: list = field(default_factory=list)

    @property
    def length(self) -> int:
        return sum(self.counts.values()) + len(self.window)

    def failed(self, premise_only: bool = True) -> list:
        return [c for c in self.claims if not c.holds and (c.premise or not premise_only)]


def _norm2(v) -> Fraction:
    return sum((Fraction(a) * a for a in np.ravel(v)), Fraction(0))


def lipschitz_bound2(model: LimitTransformer) -> Fraction:
    """An exact rational upper bound of Lambda^2 = ||U||_F^2 (1 + ||A||_F ||B||_F)^2 (ReLU MLP)."""
    mlp = model.layers[0].mlp
    ab = sqrt_up(_norm2(mlp.A) * _norm2(mlp.B)) if mlp is not None else Fraction(0)
    return _norm2(model.unembedding) * (1 + ab) ** 2


def pair_period(f: LimitTransformer, g: LimitTransformer) -> int:
    return math.lcm(f.period or 1, g.period or 1)


def _floor(x: Fraction) -> int:
    return math.floor(x)


def auxiliary(f: LimitTransformer, g: LimitTransformer, counts: dict, window: tuple, eps, *,
              alphabet_constant: int | None = None) -> Auxiliary:
    """Build z of App. A.1 for the input x given by ``counts`` (pair class -> count outside the window) and
    ``window`` (pair classes of the last tau + 1 positions, query last); see the module docstring.

    ``alphabet_constant`` is the |Sigma| of the printed constants (default the alphabet size, as printed; the
    class reduction would need the number of classes).
    """
    eps = Fraction(eps)
    require(f, g, ("one_layer", "periodic", "local_translation_invariant", "same_alphabet", "single_head",
                   "tau_positive"), "App. A.1")
    if not 0 < eps < 1:
        raise NotApplicableError(f"eps must be in (0, 1), got {eps}")
    delta = pair_period(f, g)
    tau = max(f.tau, g.tau)
    if len(window) != tau + 1:
        raise NotApplicableError(f"the window must hold tau + 1 = {tau + 1} classes, got {len(window)}")
    sigma = alphabet_constant if alphabet_constant is not None else len(f.alphabet)
    cms = [ClassModel.of(f, delta), ClassModel.of(g, delta)]
    counts = {c: k for c, k in counts.items() if k}
    atts = [attend(cm, counts, window) for cm in cms]
    swapped = atts[0].prefix > atts[1].prefix
    if swapped:
        cms, atts = cms[::-1], atts[::-1]
    af, ag = atts
    Af, Ag = af.prefix, ag.prefix
    Sf, Sg = af.classes, ag.classes
    n = counts
    te, te2 = Fraction(tau) / eps, Fraction(tau) / eps**2
    claims: list[Claim] = []
    m: dict = {}
    if Af <= te and Ag <= te:
        case = "copy"
        m = {s: n[s] for s in Sf | Sg}
        claims.append(Claim("|z prefix| <= 2 tau/eps", Fraction(sum(m.values())), "<=", 2 * te))
    else:
        if Af <= te:
            m.update({s: n[s] for s in Sf})
        else:
            m.update({s: _floor(Fraction(n[s], Af) * te) for s in Sf})
            total = sum(m.values())
            claims += [Claim(f"floor[s={s}]", Fraction(n[s], Af) * te - 1, "<=", Fraction(m[s])) for s in Sf]
            claims.append(Claim("sum_f >= tau/eps - |S_f|", te - len(Sf), "<=", Fraction(total)))
            claims.append(Claim("sum_f <= tau/eps", Fraction(total), "<=", te))
            prov = len(Sf) * eps / tau <= Fraction(1, 2)
            for s in Sf:
                ratio = Fraction(m[s], total) if total else Fraction(0)
                claims.append(Claim(f"eq1-lower[s={s}]", Fraction(n[s], Af) - eps / tau, "<=", ratio, prov))
                claims.append(Claim(f"eq1-upper[s={s}]", ratio, "<=", Fraction(n[s], Af) + 2 * len(Sf) * eps / tau,
                                    prov))
                claims.append(Claim(f"eq1[s={s}]", abs(ratio - Fraction(n[s], Af)), "<=", 2 * sigma * eps / tau,
                                    prov))
        overlap = sum(n[s] for s in Sf & Sg)
        gonly = sorted(Sg - Sf)
        if Fraction(overlap, Ag) <= eps:
            case = "disjoint"
            for s in gonly:
                m[s] = _floor(Fraction(n[s], Ag) * te2)
            tot = sum(m[s] for s in gonly)
            claims.append(Claim("sum_g >= |A_g \\ A_f|/|A_g| tau/eps^2 - |S_g \\ S_f|",
                                Fraction(Ag - overlap, Ag) * te2 - len(gonly), "<=", Fraction(tot)))
            claims.append(Claim("sum_g <= tau/eps^2", Fraction(tot), "<=", te2))
        else:
            case = "overlap"
            star = max(sorted(Sf), key=lambda s: n[s])
            r = Fraction(m[star], n[star])
            claims.append(Claim("m_{s*} >= 1", Fraction(1), "<=", Fraction(m[star]),
                                Af <= te or len(Sf) * eps / tau <= Fraction(1, 2)))
            for s in gonly:
                m[s] = _floor(r * n[s])
            scaled = Af > te  # the paper's "|A_f| >= tau/eps" is not implied by this case
            claims.append(Claim("n_{s*} >= tau/(|Sigma| eps)", te / sigma, "<=", Fraction(n[star]), scaled))
            claims.append(Claim("m_{s*}/n_{s*} >= (tau/eps)/|A_f| - eps|Sigma|/tau", te / Af - eps * sigma / tau,
                                "<=", r, scaled))
            claims.append(Claim("m_{s*}/n_{s*} <= (tau/eps)/|A_f|", r, "<=", te / Af, scaled))
            claims.append(Claim("sum_g <= tau/eps^2", Fraction(sum(m[s] for s in gonly)), "<=", te2))
            small = tau / (sigma * eps) >= 2 and scaled
            for s in gonly:
                mr = Fraction(m[s], m[star]) if m[star] else None
                if mr is not None and tau > sigma * eps:
                    claims.append(Claim(f"m_s/m_s* >= n_s/n_s* - |Sigma|eps/(tau - |Sigma|eps) [s={s}]",
                                        Fraction(n[s], n[star]) - sigma * eps / (tau - sigma * eps), "<=", mr, scaled))
                if mr is not None:
                    claims.append(Claim(f"m_s/m_s* <= n_s/n_s* [s={s}]", mr, "<=", Fraction(n[s], n[star])))
            for s in sorted(Sf & Sg):
                if m[star]:
                    mr = Fraction(m[s], m[star])
                    claims.append(Claim(f"cap-lower[s={s}]", Fraction(n[s], n[star]) - sigma * eps / tau, "<=", mr,
                                        scaled))
                    claims.append(Claim(f"cap-upper[s={s}]", mr, "<=", Fraction(n[s], n[star]) + 2 * sigma * eps / tau,
                                        small))
        claims.append(Claim("|z prefix| <= tau/eps + tau/eps^2", Fraction(sum(m.values())), "<=", te + te2))
    real, balancing = realize(cms, atts, m, window, delta, sum(n.values()) + len(window))
    aux = Auxiliary(case, swapped, m, real, tuple(window), balancing, claims)
    _output_claims(aux, cms, counts, window)
    return aux


def realize(cms, atts, m: dict, window: tuple, delta: int, n_x: int) -> tuple[dict, str]:
    """Class counts of an actual string z: ``$`` once at position 1, per-residue totals of one length
    ``|z| = n_x (mod Delta)`` (so the window keeps its residues), extra positions filled with a class below the
    maximum of both models on x or, where none exists, a class both attend to on x (``atts``)."""
    counts = {c: k for c, k in m.items() if k}
    bos = 0 * delta  # class ($, residue 0)
    counts[bos] = 1
    w = len(window)
    per = [0] * delta
    for c, k in counts.items():
        per[c % delta] += k
    M = 0  # prefix length: positions 1..M, position i has residue (i - 1) mod Delta
    while True:
        have = [len(range(r, M, delta)) for r in range(delta)]
        if all(h >= p for h, p in zip(have, per, strict=True)) and (M + w - n_x) % delta == 0:
            break
        M += 1
    balancing = "none"
    n_tokens = cms[0].inputs.shape[0] // delta
    q = window[-1]
    for r in range(delta):
        need = have[r] - per[r]
        if not need:
            continue
        below = [t * delta + r for t in range(1, n_tokens)
                 if all(cm.heads[0][0][q, t * delta + r] < a.top for cm, a in zip(cms, atts, strict=True))]
        if below:
            c, balancing = below[0], "filler" if balancing != "attended" else balancing
        else:
            att = sorted({c for a in atts for c in a.classes if c % delta == r and c != bos})
            if not att:
                raise NotApplicableError(f"residue {r} has no class below both maxima and no attended class: "
                                         "z cannot be written as a string")
            c, balancing = max(att, key=lambda c: counts.get(c, 0)), "attended"
        counts[c] = counts.get(c, 0) + need
    return counts, balancing


def _output_claims(aux: Auxiliary, cms, x_counts: dict, window: tuple) -> None:
    """The output steps: exact in the copy case, the Lipschitz inequality otherwise, and the triangle."""
    outs = []
    for cm in cms:
        ax, az = attend(cm, x_counts, window), attend(cm, aux.counts, window)
        fx, fz = hardmax_output(cm, x_counts, window), hardmax_output(cm, aux.counts, window)
        outs.append((fx, fz))
        tag = cm.model.name or "model"
        if aux.case == "copy":
            aux.claims.append(Claim(f"m(x) == m(z) [{tag}]", _norm2(fx - fz), "==", Fraction(0),
                                    aux.balancing != "attended"))
        mlp = cm.model.layers[0].mlp
        if mlp is None or not mlp.heaviside_mask.any():
            aux.claims.append(Claim(f"|m(x) - m(z)|^2 <= Lambda^2 |a(x) - a(z)|^2 [{tag}]", _norm2(fx - fz), "<=",
                                    lipschitz_bound2(cm.model) * _norm2(ax.output - az.output)))
        aux.claims.append(Claim(f"z in the hardmax regime [{tag}]", Fraction(0), "==",
                                Fraction(0 if in_hardmax(cm, aux.counts, window) else 1)))
    (fx, fz), (gx, gz) = outs
    lhs = max(abs(v) for v in fx - gx)
    rhs = max(abs(v) for v in fz - gz) + max(abs(v) for v in fx - fz) + max(abs(v) for v in gx - gz)
    aux.claims.append(Claim("|f(x) - g(x)| <= |f(z) - g(z)| + |f(x) - f(z)| + |g(x) - g(z)|", lhs, "<=", rhs))


def string_of(counts: dict, window: tuple, delta: int, alphabet: tuple) -> str:
    """A string (without ``$``) whose class counts outside the window and window are the given ones
    (raises NotApplicableError when the residues do not fit)."""
    by_res: list[list[int]] = [[] for _ in range(delta)]
    for c, k in sorted(counts.items()):
        by_res[c % delta] += [c // delta] * k
    M = sum(counts.values())
    if counts.get(0) != 1 or by_res[0].count(0) != 1:
        raise NotApplicableError("a string has exactly one $, at position 1 (class ($, 0))")
    by_res[0].remove(0)
    toks = [0]
    for i in range(2, M + 1):
        r = (i - 1) % delta
        if not by_res[r]:
            raise NotApplicableError(f"no key of residue {r} left for position {i}")
        toks.append(by_res[r].pop())
    if any(by_res):
        raise NotApplicableError("the class counts do not fit one string: residues left over")
    for s, c in enumerate(window):
        if (c % delta) != (M + s) % delta:
            raise NotApplicableError(f"window slot {s} has residue {c % delta}, position {M + s + 1} needs "
                                     f"{(M + s) % delta}")
        toks.append(c // delta)
    if 0 in toks[1:]:
        raise NotApplicableError("$ may occur only at position 1")
    return "".join(alphabet[t - 1] for t in toks[1:])
