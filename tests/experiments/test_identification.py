"""bounds.experiments.identification on planted cases (known linear map, known permutation) with negative controls."""

from __future__ import annotations

import numpy as np
import pytest

from bounds.experiments.identification import (
    IdentificationError,
    linear_fit,
    per_position_r2,
    permutation_from_states,
    recover_permutation,
    weight_distance,
)


def test_planted_linear_map_is_recovered_with_its_condition_number():
    rng = np.random.default_rng(0)
    true = rng.normal(size=(2000, 6))
    M = rng.normal(size=(6, 6))
    learned = true @ M + 0.3  # learned = M^T true + c, so true is an affine image of learned
    fit = linear_fit(learned, true)
    assert fit.r2 > 1 - 1e-10 and fit.relative_residual < 1e-6
    assert fit.condition == pytest.approx(np.linalg.cond(M), rel=1e-6)


def test_negative_controls_independent_and_nonlinear_representations_score_low():
    rng = np.random.default_rng(1)
    true = rng.normal(size=(4000, 5))
    assert linear_fit(rng.normal(size=(4000, 5)), true).r2 < 0.02
    assert linear_fit(true**2, true).r2 < 0.05  # an exact but non-linear (even) function of the truth
    noisy = linear_fit(true + rng.normal(scale=1.0, size=true.shape), true)
    assert 0.4 < noisy.r2 < 0.6  # R^2 = 1/(1 + sigma^2) for unit-variance coordinates


def test_per_position_r2_and_shape_errors():
    rng = np.random.default_rng(2)
    true = rng.normal(size=(300, 4, 3))
    assert per_position_r2(true @ rng.normal(size=(3, 3)), true) > 0.999
    assert per_position_r2(rng.normal(size=(300, 4, 3)), true) < 0.1
    with pytest.raises(IdentificationError):
        linear_fit(np.zeros((3, 4)), np.zeros((3, 2)))  # fewer samples than parameters
    with pytest.raises(IdentificationError):
        per_position_r2(np.zeros((5, 3)), np.zeros((5, 3)))


def _teacher(rng, k=8, n=5, out=4):
    return {"A": rng.normal(size=(out, k)), "B": rng.normal(size=(k, n)), "Lam": rng.normal(size=(k, k))}


def test_planted_permutation_is_recovered_from_weights_and_states():
    rng = np.random.default_rng(3)
    t = _teacher(rng)
    perm = rng.permutation(8)
    learned = {"A": t["A"][:, perm], "B": t["B"][perm], "Lam": t["Lam"][np.ix_(perm, perm)]}
    learned = {k: v + rng.normal(scale=1e-3, size=v.shape) for k, v in learned.items()}
    fit = recover_permutation(learned, t)
    assert fit.perm == tuple(perm) and fit.distance < 1e-2 and fit.distance_identity > 0.5
    h = rng.normal(size=(500, 8))
    assert permutation_from_states(h[:, perm] + 1e-3 * rng.normal(size=h.shape), h) == tuple(perm)


def test_negative_control_unrelated_weights_are_far_from_every_permutation():
    rng = np.random.default_rng(4)
    t, other = _teacher(rng), _teacher(rng)
    fit = recover_permutation(other, t)
    assert fit.distance > 0.8
    # the assignment is optimal: no random permutation brings the weights closer on the matched cost
    assert all(weight_distance(other, t, rng.permutation(8)) > 0.8 for _ in range(20))
    with pytest.raises(IdentificationError):
        recover_permutation({**other, "B": other["B"][:, :3]}, t)


def test_label_weighted_r2_ignores_only_what_the_metric_ignores():
    """A learned representation that recovers coordinates 0-2 of the truth and misses 3-5: plain R^2 is about
    1/2; in a metric that sees only coordinates 0-2 (the readout's Jacobian is zero on 3-5) the fit is perfect;
    in the identity metric it is the variance-weighted R^2; a metric on the missed coordinates gives about 0."""
    from bounds.experiments.identification import readout_metric, weighted_r2

    rng = np.random.default_rng(5)
    true = rng.normal(size=(3000, 6))
    learned = np.hstack([true[:, :3] @ rng.normal(size=(3, 3)), rng.normal(size=(3000, 3))])
    J = np.zeros((50, 2, 6))
    J[:, :, :3] = rng.normal(size=(50, 2, 3))
    M = readout_metric(J)
    assert M.shape == (6, 6) and np.allclose(M[3:], 0) and np.allclose(M[:, 3:], 0)
    assert 0.45 < linear_fit(learned, true).r2 < 0.55
    assert weighted_r2(learned, true, M) > 1 - 1e-10
    assert weighted_r2(learned, true, np.diag([0, 0, 0, 1, 1, 1.0])) < 0.02
    assert 0.45 < weighted_r2(learned, true, np.eye(6)) < 0.55
    with pytest.raises(IdentificationError):
        weighted_r2(learned, true, np.eye(5))
