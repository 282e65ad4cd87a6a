"""Float-weight models never hang the bounds: rng.normal weights saved with save_model.

Before the log-domain threshold, ``python -m bounds.estimate --model`` on such a file ran for minutes: the
hardmax threshold built the integer ``2 ** (p * v)`` with v the ~100-bit denominator of a float-derived gamma.
Each call here runs under a wall-clock budget in a subprocess (a hang fails the test instead of stalling it).
"""

import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from bounds.float_enclosures import Ball, add, ball, matmul
from bounds.interval_margin import interval_margin
from bounds.interval_model import from_model, load_interval_model
from bounds.margin import choose_mode, logit_margin, norm_L
from constructions.limit_transformer import save_model
from constructions.limit_transformer.hardmax import ceil_pow2, hardmax_threshold
from constructions.limit_transformer.model import (
    MLP,
    Head,
    Layer,
    LimitTransformer,
    LocalPhi,
    PeriodicPositions,
)

BUDGET_S = 60  # generous for a loaded 2-core machine; the hang it guards against ran for many minutes


def normal_model(d=8, sigma=3, delta=2, width=8, seed=0, tau=2):
    rng = np.random.default_rng(seed)
    return LimitTransformer(
        alphabet=tuple(f"t{i}" for i in range(sigma)), embedding=rng.normal(size=(sigma + 1, d)),
        layers=(Layer(heads=(Head(rng.normal(size=(d, d)), rng.normal(size=(d, d)), rng.normal(size=(d, d)) / d,
                                  LocalPhi(tuple(rng.normal(size=tau + 1)))),),
                      mlp=MLP(rng.normal(size=(width, d)), rng.normal(size=width), rng.normal(size=(d, width)))),),
        unembedding=rng.normal(size=(1, d)), positions=PeriodicPositions(rng.normal(size=(delta, d))),
        precision_bits=8)


def _estimate(path, *extra):
    p = subprocess.run([sys.executable, "-m", "bounds.estimate", "--model", str(path), "--json", *extra],
                       capture_output=True, text=True, timeout=BUDGET_S)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.parametrize("mode", ["auto", "exact", "interval"])
def test_float_model_estimate_answers(tmp_path, mode):
    path = tmp_path / "normal.json"
    save_model(normal_model(), path)
    r = _estimate(path, "--mode", mode)
    assert r["mode"] == ("interval" if mode == "interval" else "exact")
    assert r["corrected"]["N"] is not None and r["proof_count"]["N"] is not None


def test_interval_and_exact_agree(tmp_path):
    """The interval gamma is a lower bound of the exact one, tight to 1e-9; interval norms are upper bounds."""
    m = normal_model(seed=3)
    ex, iv = logit_margin(m, mode="exact"), logit_margin(m, mode="interval")
    assert iv.mode == "interval" and not iv.unresolved and iv.gamma <= ex.gamma
    assert float(ex.gamma - iv.gamma) < 1e-9 * max(1.0, float(ex.gamma))
    ne, ni = norm_L(m, mode="exact"), norm_L(m, mode="interval")
    assert ne.L2 <= ni.L2 <= ne.L2 * (1 + Fraction(1, 10**9))
    assert ne.unembedding_f2 <= ni.unembedding_f2
    # file path (no Fraction built): the same certified numbers
    path = tmp_path / "m.json"
    save_model(m, path)
    fm = interval_margin(load_interval_model(path))
    assert fm.gamma_lower <= ex.gamma and float(ex.gamma - fm.gamma_lower) < 1e-9


def test_ties_are_decided_exactly():
    """Exact ties (all far keys share logit 0 in ModP) are not gaps; a near-tie is decided in Fractions."""
    from constructions.tasks.modp import ModPTask

    m = ModPTask(3, 1).limit_transformer(precision_bits=4, logit_scale=1)
    iv = interval_margin(from_model(m), exact_model=m)
    assert iv.exact_ties > 0 and iv.gamma_lower <= logit_margin(m, mode="exact").gamma == Fraction(1, 2)
    assert float(iv.gamma_lower) > 0.499
    # without the exact model the near-ties cannot be decided: reported, not guessed
    no_exact = interval_margin(from_model(m))
    assert no_exact.unresolved and no_exact.gamma_lower == 0


def test_auto_mode_switches_on_size():
    assert choose_mode(normal_model(d=4)) == "exact"
    assert choose_mode(normal_model(d=64, sigma=10, delta=4)) == "interval"
    with pytest.raises(ValueError, match="exact arithmetic refused"):  # forced exact beyond the limit: named
        choose_mode(normal_model(d=128, sigma=60, delta=16, width=4), "exact")


def test_hardmax_threshold_log_domain():
    """ceil(2^k) for float-derived k without building 2^(p v); checked against integer roots where cheap."""
    g = Fraction(0.1234567) * Fraction(3, 7)  # denominator ~2^55
    n = hardmax_threshold(g, 8)
    k = Fraction(8) / g
    assert (n - 1) < 2 ** float(k) * (1 + 1e-12) and n >= 2 ** float(k) * (1 - 1e-12)
    for u in range(1, 25):
        for v in range(1, 25):
            n = ceil_pow2(Fraction(u, v))
            assert n**v >= 2**u > (n - 1) ** v
    with pytest.raises(ValueError):
        hardmax_threshold(Fraction(1, 10**9), 8)  # 2^(8 * 10^9): refused, use the exponent


def test_certified_matmul_encloses_exact_product():
    rng = np.random.default_rng(1)
    A = np.array([[Fraction(int(x), 7) for x in row] for row in rng.integers(-50, 50, (5, 6))], dtype=object)
    B = np.array([[Fraction(int(x), 3) for x in row] for row in rng.integers(-50, 50, (6, 4))], dtype=object)
    P = matmul(ball(A), ball(B))
    exact = A.dot(B)
    for idx, v in np.ndenumerate(exact):
        assert abs(v - Fraction(P.mid[idx])) <= Fraction(P.rad[idx])
    S = add(P, P)
    assert all(abs(2 * v - Fraction(S.mid[idx])) <= Fraction(S.rad[idx]) for idx, v in np.ndenumerate(exact))
    # negative control: a zero-radius ball around the float product does not enclose 1/7-based exact values
    bad = Ball(P.mid, np.zeros_like(P.rad))
    assert any(abs(v - Fraction(bad.mid[idx])) > 0 for idx, v in np.ndenumerate(exact))


def test_large_float_file_uses_the_fast_loader(tmp_path, monkeypatch):
    """Files above FAST_LOAD_BYTES are read straight into intervals (here the limit is lowered)."""
    import bounds.estimate as est

    path = tmp_path / "m.json"
    save_model(normal_model(d=16, sigma=4, delta=3, width=16), path)
    monkeypatch.setattr(est, "FAST_LOAD_BYTES", 1000)
    r = est.run(["--model", str(path), "--json"])
    assert r["mode"] == "interval" and r["corrected"]["N"] is not None
