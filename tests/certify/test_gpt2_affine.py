"""The affine forms of a one-layer NoPE GPT-2 over a box of class shares (bounds.certify.gpt2_affine): every form,
evaluated at the symbols of a sampled point of the box, holds a 40-digit evaluation there (so the generators, not
only the ranges, are right); f - g through shared symbols holds the 40-digit difference; a dropped remainder or a
wrong slope is caught by the same check; and the certificate with the forms certifies a small LayerNorm change
that the centred forms leave undetermined, and refutes a large one."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("torch")
pytest.importorskip("transformers")

from bounds.certify import gpt2, gpt2_affine  # noqa: E402
from bounds.certify.gpt2_affine import AffineEnclosure, affine_difference  # noqa: E402
from bounds.certify.gpt2_difference import PairDifference  # noqa: E402
from bounds.certify.gpt2_search import certify_pair  # noqa: E402
from tests.certify.test_gpt2 import BOS, _hf_model  # noqa: E402
from tests.certify.test_gpt2_difference import CHANGES, _changed, _form  # noqa: E402

STAGES = ("a", "x1", "z2", "h", "pre", "act", "x2")


def _mp_classes(f, t: int, m):
    """40-digit evaluation of every intermediate of the class-reduced layer at masses m = (rho, pi) (any point of
    the simplex, realizable or not), last token alphabet[t]; independent of the package's code."""
    mpmath.mp.dps = 40
    mp = mpmath.mpf
    d, H = f.d, f.n_head
    dh = d // H
    classes = [f.bos, *f.alphabet]

    def ln(x, p, norm_only=False):
        mu = sum(x) / d
        var = sum((v - mu) ** 2 for v in x) / d
        z = [(v - mu) / mpmath.sqrt(var + mp(f.ln_eps)) for v in x]
        return z if norm_only else [z[j] * mp(p[0][j]) + mp(p[1][j]) for j in range(d)]

    def affine(x, W, b):
        return [sum(x[i] * mp(W[i][j]) for i in range(len(x))) + mp(b[j]) for j in range(len(b))]

    def act(x):
        if f.activation == "gelu":
            return x * (1 + mpmath.erf(x / mpmath.sqrt(2))) / 2
        c = mpmath.sqrt(2 / mpmath.pi)
        return x * (1 + mpmath.tanh(c * (x + mp(0.044715) * x**3))) / 2

    qkv = [affine(ln([mp(v) for v in f.wte[c]], f.ln1), f.attn_w, f.attn_b) for c in classes]
    q = qkv[1 + t]
    a = []
    for h in range(H):
        sl = range(h * dh, (h + 1) * dh)
        s = [sum(q[j] * r[d + j] for j in sl) / mpmath.sqrt(dh) for r in qkv]
        top = max(s)
        u = [mp(m[c]) * mpmath.exp(s[c] - top) for c in range(len(classes))]
        a += [sum(u[c] * qkv[c][2 * d + j] for c in range(len(classes))) / sum(u) for j in sl]
    x1 = [mp(e) + v for e, v in zip(f.wte[f.alphabet[t]], affine(a, f.proj_w, f.proj_b), strict=True)]
    z2 = ln(x1, f.ln2, norm_only=True)
    h = [z2[j] * mp(f.ln2[0][j]) + mp(f.ln2[1][j]) for j in range(d)]
    pre = affine(h, f.fc_w, f.fc_b)
    actv = [act(v) for v in pre]
    x2 = [u + v for u, v in zip(x1, affine(actv, f.mproj_w, f.mproj_b), strict=True)]
    out = affine(ln(x2, f.lnf), f.head_w.T, f.head_b)
    return {"a": a, "x1": x1, "z2": z2, "h": h, "pre": pre, "act": actv, "x2": x2, "logits": out}


def _symbols(trace, m):
    """The box symbols e_k = (m_k - cm_k) / hm_k of the point m (exact, 40 digits)."""
    cm, hm = trace["symbols"]
    return [(mpmath.mpf(float(v)) - mpmath.mpf(float(c))) / mpmath.mpf(float(h)) if h > 0 else mpmath.mpf(0)
            for v, c, h in zip(m, cm[0], hm[0], strict=True)]


def _form_holds(form, e, ref, shared: int | None = None) -> bool:
    """The form (box 0) at the first len(e) symbols e, exactly: ``|c + sum_k e_k G_k - ref| <= r + sum_rest |G|``."""
    k = len(e)
    for j, value in enumerate(ref):
        centre = mpmath.mpf(float(form.c[0, j])) + sum(e[i] * mpmath.mpf(float(form.G[0, i, j])) for i in range(k))
        rest = mpmath.mpf(float(form.r[0, j])) + sum(abs(mpmath.mpf(float(g))) for g in form.G[0, k:, j])
        if not abs(centre - value) <= rest:
            return False
    return True


def _point_in(box, u):
    """A point of the box (its coordinates at fractions u of the way) on the simplex rho + sum pi = 1 when the box
    allows it: pi_last absorbs the rest, clipped to its range (the forms hold on the whole box either way)."""
    r_lo, r_hi, p_lo, p_hi = box
    lo = np.concatenate([r_lo, p_lo[0]])
    hi = np.concatenate([r_hi, p_hi[0]])
    return [float(v) for v in lo + np.asarray(u) * (hi - lo)]


def _box(centre, width):
    """A box of shares around centre = (rho, pi...) (clipped at 0)."""
    c = np.asarray(centre, dtype=np.float64)
    lo, hi = np.maximum(c - width / 2, 0.0), c + width / 2
    return np.array([lo[0]]), np.array([hi[0]]), lo[None, 1:], hi[None, 1:]


def _shares(draw):
    raw = np.asarray(draw, dtype=np.float64) + 0.05
    return raw / raw.sum()


def _holds_everywhere(enc, f, t, box, points) -> bool:
    tr = enc.trace(t, *box)
    forms = "affine" in tr  # a point box (a single input's) is left to the centred form
    logits = enc.logit_form(tr) if forms else None
    lo, hi = enc.trace_logits(tr)
    for u in points:
        m = _point_in(box, u)
        ref = _mp_classes(f, t, m)
        e = _symbols(tr, m) if forms else None
        if forms and not all(_form_holds(tr["affine"][s], e, ref[s]) for s in STAGES):
            return False
        if forms and not _form_holds(logits, e, ref["logits"]):
            return False
        if not all(mpmath.mpf(float(a)) <= v <= mpmath.mpf(float(b)) for a, b, v in zip(lo[0], hi[0], ref["logits"],
                                                                                         strict=True)):
            return False
    return True


# --------------------------------------------------------------------------------------------- soundness
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), shares=st.lists(st.floats(0, 1), min_size=4, max_size=4),
       width=st.sampled_from([0.0, 1e-3, 0.01, 0.05]), activation=st.sampled_from(gpt2.ACTIVATIONS),
       t=st.integers(0, 2), u=st.lists(st.lists(st.floats(0, 1), min_size=4, max_size=4), min_size=2, max_size=2))
def test_forms_at_sampled_points_hold_the_40_digit_layer(seed, shares, width, activation, t, u):
    f = _form(seed % 1000, activation)
    box = _box(_shares(shares), width)
    assert ("affine" in AffineEnclosure(f).trace(t, *box)) == (width > 0)
    assert _holds_everywhere(AffineEnclosure(f), f, t, box, u)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), shares=st.lists(st.floats(0, 1), min_size=4, max_size=4),
       width=st.sampled_from([1e-3, 0.01, 0.05]), change=st.sampled_from(CHANGES),
       size=st.sampled_from([1e-4, 1e-2, 0.3]), t=st.integers(0, 2),
       u=st.lists(st.floats(0, 1), min_size=4, max_size=4))
def test_difference_through_shared_symbols_holds_the_40_digit_difference(seed, shares, width, change, size, t, u):
    f = _form(seed % 1000)
    g = _changed(f, change, size, seed)
    box = _box(_shares(shares), width)
    pd = PairDifference(f, g)
    tf, tg = pd.f.trace(t, *box), pd.g.trace(t, *box)
    pd.f.trace_logits(tf), pd.g.trace_logits(tg)
    same = pd.mean_value.same_to_x1 if pd.mean_value is not None else True
    m = _point_in(box, u)
    rf, rg = _mp_classes(f, t, m), _mp_classes(g, t, m)
    for name in (None, *STAGES):
        lo, hi = affine_difference(tf, tg, name, same)
        key = "logits" if name is None else name
        ref = [a - b for a, b in zip(rf[key], rg[key], strict=True)]
        assert all(mpmath.mpf(float(a)) <= v <= mpmath.mpf(float(b)) for a, b, v in zip(lo[0], hi[0], ref,
                                                                                       strict=True)), name
    lo, hi = pd.difference(t, *box)
    ref = [a - b for a, b in zip(rf["logits"], rg["logits"], strict=True)]
    assert all(mpmath.mpf(float(a)) <= v <= mpmath.mpf(float(b)) for a, b, v in zip(lo[0], hi[0], ref, strict=True))


# --------------------------------------------------------------------------------------------- negative controls
BROKEN_DRAW = (3, (0.2, 0.4, 0.3, 0.1), 0.05, 0, [(0.9, 0.1, 0.95, 0.5), (0.05, 0.9, 0.1, 0.5), (1.0, 0.0, 1.0, 0.5),
                                                  (0.0, 1.0, 0.0, 0.0)])


@pytest.mark.parametrize("broken", ["no_quotient_remainder", "wrong_gelu_slope", "no_product_remainder",
                                    "wrong_inv_sqrt_slope"])
def test_a_broken_relaxation_is_caught_by_the_same_check(broken, monkeypatch):
    """Negative controls: the attention's second-order remainder dropped, GELU's or 1/sqrt's relaxation slope
    moved without widening its offset, or the product's remainder dropped, each makes the forms miss the 40-digit
    values at points of a fixed box that the sound forms hold."""
    seed, centre, width, t, points = BROKEN_DRAW
    f = _form(seed)
    box = _box(centre, width)
    assert _holds_everywhere(AffineEnclosure(f), f, t, box, points)
    if broken == "no_quotient_remainder":
        monkeypatch.setattr(gpt2_affine, "quotient_remainder", lambda spread, *a: 0 * spread)
    elif broken in ("wrong_gelu_slope", "wrong_inv_sqrt_slope"):
        name = "gelu_relaxation" if broken == "wrong_gelu_slope" else "inv_sqrt_relaxation"
        sound = getattr(gpt2_affine, name)

        def wrong(*args, _sound=sound):
            lam, mu_lo, mu_hi = _sound(*args)
            return 1.5 * lam + 0.1 * np.sign(lam) * (lam == 0), mu_lo, mu_hi
        monkeypatch.setattr(gpt2_affine, name, wrong)
    else:
        def product(x, y, _sound=gpt2_affine.product):
            p = _sound(x, y)
            return gpt2_affine.Affine(p.c, p.G, 0 * p.r)
        monkeypatch.setattr(gpt2_affine, "product", product)
    assert not _holds_everywhere(AffineEnclosure(f), f, t, box, points)


def test_forms_make_the_difference_narrower_than_the_centred_forms_alone():
    """Tightness: on boxes of width 0.03 across the shares of a model whose attention switches (one ln_2 weight +
    1e-3), the certificate's enclosure of f - g with the affine forms is at least 5x narrower than with the centred
    and mean-value forms alone (measured: 10x to 600x)."""
    f = _gentle(1)
    g = f.with_params(ln2=(f.ln2[0] + 1e-3 * np.eye(f.d)[3], f.ln2[1]))
    with_forms, centred = PairDifference(f, g), PairDifference(f, g, affine=False)
    for c in ((0.1, 0.6, 0.3), (0.05, 0.85, 0.1), (0.05, 0.1, 0.85)):
        box = _box(c, 0.03)
        dlo, dhi = with_forms.difference(0, *box)
        clo, chi = centred.difference(0, *box)
        assert np.max(dhi - dlo) * 5 < np.max(chi - clo)


# --------------------------------------------------------------------------------------------- the certificate
def _gentle(seed: int):
    """A one-head d = 8 model over the alphabet {1, 2} with weights of the benchmark's scale (scores of a few
    units, so the attention switches within a strip of shares as on the benchmark model)."""
    sd = _hf_model(seed, d=8, heads=1, scale=0.5).state_dict()
    cfg = {"model_type": "gpt2", "n_layer": 1, "n_embd": 8, "n_head": 1, "activation_function": "gelu_new",
           "bos_token_id": BOS}
    return gpt2.from_state_dict(sd, cfg, alphabet=[1, 2])


CERT_BOXES = 300


def test_small_layer_norm_change_certified_large_refuted():
    """End to end: a model against a copy with one ln_2 weight + 1e-3 is certified (eps = 0.01) within a number of
    split boxes that leaves the centred forms alone undetermined (control); torch differences at lengths beyond
    the enumerated ones stay below the certified bound; the copy with + 3 is refuted by a concrete input whose
    torch difference exceeds eps."""
    f = _gentle(1)
    e = np.eye(f.d)[3]
    small = f.with_params(ln2=(f.ln2[0] + 1e-3 * e, f.ln2[1]))
    kw = {"eps": 0.01, "max_length": 6, "budget_s": 600, "max_boxes": CERT_BOXES, "horizon": False}
    cert = certify_pair(f, small, **kw)
    assert cert.verdict == "certified" and cert.upper <= 0.01
    rng = np.random.default_rng(0)
    for n in (7, 40, 300):
        ids = [int(a) for a in rng.choice(f.alphabet, size=n)]
        assert np.max(np.abs(f.torch_logits(ids) - small.torch_logits(ids))) <= cert.upper
    before = certify_pair(f, small, affine=False, **kw)
    assert before.verdict == "undetermined" and before.boxes_split >= CERT_BOXES
    large = f.with_params(ln2=(f.ln2[0] + 3 * e, f.ln2[1]))
    bad = certify_pair(f, large, **kw)
    assert bad.verdict == "fails" and bad.torch_difference > 0.01
