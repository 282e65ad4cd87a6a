"""Introspection cache: every intermediate, float and exact, checked against the model's equations."""

from fractions import Fraction

import numpy as np
from hypothesis import assume, given, settings

from constructions.crasp.ast import Q, count, program
from constructions.crasp.compiler import compile_program
from constructions.limit_transformer import NotExactError, run_with_cache
from constructions.strategies import boundary_free, limit_transformers, strings


def _recompute(model, cache, out, exact):
    """Rebuild every recorded stream from the previous one with the model's equations (3)-(4): exactly
    (Fractions) for the exact cache, to 1e-9 for the float cache (batch element 0)."""
    def f(a):
        return a if exact else np.asarray(a, dtype=object).astype(float)

    def same(a, b):
        return bool(np.all(a == b)) if exact else np.allclose(a, b, atol=1e-9)

    def get(a):
        return a if exact else a[0]

    for l, layer in enumerate(model.layers):
        y = get(cache.residual[l])
        Y = y.copy()
        for h, head in enumerate(layer.heads):
            Y = Y + get(cache.attention[l][h]).dot(y.dot(f(head.value).T))
        assert same(get(cache.attention_residual[l]), Y)
        after = get(cache.attention_residual[l])
        if layer.mlp is not None:
            assert same(get(cache.mlp_pre[l]), after.dot(f(layer.mlp.A).T) + f(layer.mlp.b))
            after = after + get(cache.mlp_post[l]).dot(f(layer.mlp.B).T)
        assert same(get(cache.residual[l + 1]), after)
    assert same(out, get(cache.residual[-1]).dot(f(model.unembedding).T))


@settings(max_examples=15, deadline=None)
@given(limit_transformers(depth=(1, 2), qk_scale=(1, 2)), strings(max_size=10))
def test_cache_float_and_exact_agree_and_follow_the_equations(model, s):
    try:
        ex_out, ex = run_with_cache(model, s, exact=True)
    except NotExactError:
        assume(False)
    with boundary_free():
        fl_out, fl = run_with_cache(model, [s])
    _recompute(model, ex, ex_out, exact=True)
    _recompute(model, fl, fl_out[0], exact=False)
    if model.precision == "izzo":  # huang: Heaviside units can sit within float resolution of 0
        for a, b in zip(ex.residual, fl.residual, strict=True):
            assert np.allclose(a.astype(float), b[0], rtol=1e-9, atol=1e-9)
    for wl_e, wl_f in zip(ex.attention, fl.attention, strict=True):
        for we, wf in zip(wl_e, wl_f, strict=True):
            assert np.all(np.triu(we.astype(float), 1) == 0)  # causal
            if model.precision == "izzo":
                assert np.allclose(we.astype(float), wf[0], atol=1e-9)


def test_compiled_coordinates_are_named_and_hold_the_invariant():
    """dyck1-style counts: 'one' = 1/t, a count C stored as C/t (docs/crasp_compiler.md, the invariant)."""
    prog = program("ab", [("Ca", count(Q("a"))), ("out", count(Q("b")) <= count(Q("a")))], name="ca")
    model = compile_program(prog)
    w = "aabab"
    _, ex = run_with_cache(model, w, exact=True)
    assert ex.coordinates == model.metadata["coordinates"]
    t = np.arange(1, len(w) + 2)
    assert list(ex.coordinate("one", 1)) == [Fraction(1, int(k)) for k in t]
    assert list(ex.coordinate("top", 0)) == [0] + [1] * len(w)
    names = ex.named(layer=-1, position=-1)
    assert names["one"] == Fraction(1, 6) and names["Q_a"] == 0
    _, fl = run_with_cache(model, [w, "bbbbb"])
    assert fl.residual[0].shape == (2, len(w) + 1, model.d)
    assert np.allclose(fl.coordinate("one", 1)[1], 1 / t)
