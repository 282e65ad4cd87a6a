"""bounds.certify.weight_ratios: the log-ratio bounds H (Lemmas 1, 2, 4) and the ratio box (Lemma 3) hold for concrete long
inputs inside random boxes of the branch-and-bound domain (boxes reaching rho = 0 included, presence states and
branched ratio constraints that the input satisfies), against the exact weights of the input (60-digit mpmath).
Negative control: on the box that is the input itself the bounds are tight, so a bound lowered by 1e-6 is caught."""

import math

import mpmath
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bounds.certify.search import ABSENT, MAYBE, PRESENT, Box, Problem, box_weights, pieces
from bounds.true_threshold import positions_per_residue
from constructions.strategies import limit_transformers

mpmath.mp.dps = 60


def _input(prob, piece, n, rng):
    """Class counts of a random input of model length n in ``piece`` (its phase and window)."""
    D, sig = prob.delta, prob.sigma
    per = positions_per_residue(n - prob.w, D)
    counts = {0: 1}
    for r in range(D):
        cut = sorted(rng.integers(0, per[r] + 1, sig - 1)) if rng.random() < 0.7 else [0] * (sig - 1)
        parts = np.diff([0, *cut, per[r]])
        rng.shuffle(parts)
        for t, c in enumerate(parts, 1):
            counts[t * D + r] = int(c)
    return counts, per


def _log_weights(head, win, counts, n):
    """ln u_e (60 digits) of one head on the input; None where the entry is absent."""
    out = []
    for e in range(win.E):
        c = 1 if win.slot[e] >= 0 else counts.get(int(win.classes[e]), 0)
        out.append(None if c == 0 else mpmath.log(mpmath.mpf(c) / n) + mpmath.mpf(head.logits[e].numerator)
                   / head.logits[e].denominator * mpmath.log(n))
    return out


def _violation(H, lw) -> float:
    """max over pairs of (ln u_b - ln u_a) - H_ab (> 0: the bound fails); +inf when a bound claims u_b = 0."""
    worst = -math.inf
    for a, la in enumerate(lw):
        for b, lb in enumerate(lw):
            if lb is None or a == b:
                continue
            if la is None:
                if np.isfinite(H[a, b]):
                    return math.inf
                continue
            worst = max(worst, float(lb - la) - H[a, b])
    return worst


def _box(prob, piece, idx, counts, per, n, rng, thin):
    D, sig = prob.delta, prob.sigma
    theta = np.array([counts[t * D + r] / per[r] if per[r] else 0.0 for r in range(D) for t in range(1, sig)])
    if thin:
        return Box(idx, 1 / n, 1 / n, theta, theta.copy(), np.where(
            [c == 0 or counts.get(int(c), 0) > 0 for c in piece.win.classes[:len(piece.win.prefix)]] +
            [True] * len(piece.window), 0, 0).astype(np.int8), {})
    rl = 0.0 if rng.random() < 0.5 else 1 / (n * rng.uniform(1, 100))
    rh = 1 / (n * rng.uniform(0.1, 1))
    tl = np.maximum(theta - rng.uniform(0, 0.3, theta.shape), 0.0)
    th = np.minimum(theta + rng.uniform(0, 0.3, theta.shape), 1.0)
    state = np.zeros(piece.win.E, dtype=np.int8)
    for e, c in enumerate(piece.win.prefix):
        if c and rng.random() < 0.5:
            state[e] = PRESENT if counts.get(c, 0) else ABSENT
    return Box(idx, rl, rh, tl, th, state, {})


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(f=limit_transformers(depth=(1, 1), heads=(1, 2), activations=("relu",), precision="izzo", max_tau=1,
                            max_period=2, qk_scale=(1, 3)),
       seed=st.integers(0, 2**32 - 1))
def test_ratio_bounds_contain_every_input_of_the_box(f, seed):
    rng = np.random.default_rng(seed)
    prob = Problem(f, f, ("softmax", "softmax"))
    ps = pieces(prob)
    for _ in range(6):
        idx = int(rng.integers(len(ps)))
        piece = ps[idx]
        n = int(rng.integers(20, 10**6))
        n += (prob.w + piece.k - n) % prob.delta
        counts, per = _input(prob, piece, n, rng)
        heads = prob.heads(piece.window)
        logw = [_log_weights(h, piece.win, counts, n) for h in heads]
        box = _box(prob, piece, idx, counts, per, n, rng, thin=False)
        for h, lw in enumerate(logw):  # branched constraints the input satisfies (slack >= 0), some on head h only
            a, b = (int(x) for x in rng.integers(piece.win.E, size=2))
            if a != b and lw[a] is not None and lw[b] is not None:
                box.ratios[(h, a, b)] = float(lw[b] - lw[a]) + float(rng.exponential(0.5)) + 1e-9
        _, _, feas, weights, H, _ = box_weights(prob, piece, [box])
        assert feas[0]
        for h, lw in enumerate(logw):
            Hh = H[h][0][0]
            assert _violation(Hh, lw) <= 0
            for lo, hi in (weights[h][0], weights[h][1]):  # absolute enclosure; ratio box (Lemma 3)
                lo, hi = lo[0], hi[0]
                scale_lo, scale_hi = 0.0, math.inf
                for e, le in enumerate(lw):
                    if le is None:
                        assert lo[e] == 0
                        continue
                    u = mpmath.exp(le)
                    scale_lo = max(scale_lo, float(lo[e] / u))
                    scale_hi = min(scale_hi, float(hi[e] / u) if np.isfinite(hi[e]) else math.inf)
                assert scale_lo <= scale_hi * (1 + 1e-12)


def test_thin_box_is_tight_and_a_lowered_bound_is_caught():
    from constructions.tasks import ModPTask

    f = ModPTask(2, 0).limit_transformer()
    prob = Problem(f, f, ("softmax", "softmax"))
    rng = np.random.default_rng(1)
    piece = pieces(prob)[0]
    n = 1001 + (prob.w + piece.k - 1001) % prob.delta
    counts = {0: 1}
    per = positions_per_residue(n - prob.w, prob.delta)
    for r in range(prob.delta):
        counts[1 * prob.delta + r] = per[r] // 3
        counts[2 * prob.delta + r] = per[r] - per[r] // 3
    box = _box(prob, piece, 0, counts, per, n, rng, thin=True)
    _, _, feas, _, H, _ = box_weights(prob, piece, [box])
    lw = _log_weights(prob.heads(piece.window)[0], piece.win, counts, n)
    assert feas[0]
    v = _violation(H[0][0][0], lw)
    assert -1e-6 < v <= 0  # tight
    assert _violation(H[0][0][0] - 1e-6, lw) > 0  # a lowered bound is caught
    box.state[1] = ABSENT if counts.get(int(piece.win.classes[1]), 0) else MAYBE  # a false state: no input
    if box.state[1] == ABSENT:
        assert not box_weights(prob, piece, [box])[2][0]
