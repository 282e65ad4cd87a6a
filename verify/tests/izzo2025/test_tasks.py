"""ModPTask / SimpleTask: targets, App. B samplers, and the App. A.2 constructions against their targets."""

from fractions import Fraction

import numpy as np
import pytest

from constructions.limit_transformer import NotExactError, counting_forward, exact_forward, forward
from constructions.limit_transformer.precision import BoundaryWarning
from constructions.tasks import ModPTask, SimpleTask, TaskError
from verify.claims import checks

RNG_SEED = 20250


def _rng(k=0):
    return np.random.default_rng(RNG_SEED + k)


# ------------------------------------------------------------------------------------------ targets
def test_modp_target_by_hand():
    t = ModPTask(3, 1)  # task positions 1, 4, 7, ...
    assert t.prefix_targets("1000") == [0, 1, 1, 1, Fraction(1, 2)]
    assert t.target("") == 0  # empty class: defined 0
    assert ModPTask(3, 0).prefix_targets("11") == [0, 0, 0]  # no position = 0 (mod 3) yet
    assert ModPTask(3, 3).target("001") == 1  # k = 3 is the same class as k = 0
    with pytest.raises(TaskError, match="symbols '0' and '1'"):
        t.target("012")
    with pytest.raises(TaskError, match="period"):
        ModPTask(0, 1)


def test_simple_target_by_hand():
    t = SimpleTask(Fraction(3))
    assert t.prefix_z("0012") == [0, 1, 1, Fraction(1, 3), Fraction(1, 3)]
    assert t.prefix_z("22") == [0, 0, 0]  # c0 + c1 = 0: z := 0
    assert t.target("01") == 0.0
    with pytest.raises(TaskError, match="'0', '1', '2'"):
        t.target("3")


# ----------------------------------------------------------------------------------------- samplers
@checks("izzo2025:app-b.data")
def test_samplers_seeded_and_app_b_variance():
    t = ModPTask(4, 2)
    assert t.sample(_rng(), 50, 3) == t.sample(_rng(), 50, 3)
    assert t.sample(_rng(1), 50, 3) != t.sample(_rng(2), 50, 3)
    ids = t.sample_ids(_rng(), 7, 2)
    assert ids.shape == (2, 8) and (ids[:, 0] == 0).all() and set(np.unique(ids[:, 1:])) <= {1, 2}
    for p in range(2, 8):
        targets = [float(ModPTask(p, 1).target(s)) for s in ModPTask(p, 1).sample(_rng(p), 100, 150)]
        assert np.var(targets) > 0.05  # ~ Var(U[0,1]) = 1/12
    for omega in (2, 4, 10):
        t = SimpleTask(omega)
        assert np.var([t.target(s) for s in t.sample(_rng(omega), 100, 150)]) > 0.05
    # control: Var(f*) = Theta(1) needs omega bounded below; omega = 1/100 gives ~ omega^2
    t = SimpleTask(Fraction(1, 100))
    assert np.var([t.target(s) for s in t.sample(_rng(5), 100, 150)]) < 1e-3


def test_modp_sampler_follows_residue_biases():
    """Bits at residue r are Bernoulli(q_r), with q drawn first from the same generator (App. B)."""
    t = ModPTask(3, 0)
    q = np.random.default_rng(7).random((1, 3))[0]
    s = t.sample(np.random.default_rng(7), 30000, 1)[0]
    bits = np.array([c == "1" for c in s])
    res = np.arange(1, 30001) % 3
    for r in range(3):
        assert abs(bits[res == r].mean() - q[r]) < 0.02
    assert abs(bits[res == 0].mean() - q[1]) > 0.02  # control: the residues are not pooled (q_0 != q_1 here)


# ---------------------------------------------------------------------------------- ModP construction
@checks("izzo2025:app-a2.modp")
@pytest.mark.parametrize("p,k", [(1, 0), (2, 1), (3, 0), (5, 2), (7, 6), (4, 9)])
def test_modp_exact_every_prefix(p, k):
    task, rng = ModPTask(p, k), _rng(p * 10 + k)
    model = task.limit_transformer()
    for n in [0, 1, 2, p, p + 1, 3 * p + 2, 41]:
        for s in task.sample(rng, n, 3):
            assert list(exact_forward(model, s)[:, 0]) == task.prefix_targets(s)


@checks("izzo2025:app-a2.modp")
def test_modp_wrong_index_is_rejected():
    """Control: the same exact comparison rejects the construction for another index (or period)."""
    rng = _rng(4)
    model = ModPTask(5, 2).limit_transformer()
    strings = ModPTask(5, 2).sample(rng, 30, 4)
    assert all(list(exact_forward(model, s)[:, 0]) == ModPTask(5, 2).prefix_targets(s) for s in strings)
    assert not all(list(exact_forward(model, s)[:, 0]) == ModPTask(5, 3).prefix_targets(s) for s in strings)
    assert not all(list(exact_forward(model, s)[:, 0]) == ModPTask(4, 2).prefix_targets(s) for s in strings)


@checks("izzo2025:app-a2.modp")
def test_modp_exact_long_inputs_counting():
    """Lengths up to 10^4 through the linear-time counting evaluator, at offsets = 0 (mod p): exact Fractions at
    random prefix lengths (positions) and the float all-positions path against the exact targets."""
    rng = _rng(3)
    for p, k in [(5, 0), (3, 2), (11, 4)]:
        task = ModPTask(p, k)
        model = task.limit_transformer()
        s = task.sample(rng, 10_000, 1)[0]
        o = int(rng.integers(0, 50)) * p
        targets = task.prefix_targets(s)
        for t in sorted(rng.integers(0, 10_001, size=8)):
            assert counting_forward(model, s[:t], offset=o, positions="last")[0] == targets[t]
        allf = counting_forward(model, s, offset=o, positions="all", exact=False)[:, 0]
        np.testing.assert_allclose(allf, [float(v) for v in targets], rtol=0, atol=1e-12)
    task = ModPTask(7, 3)
    s = task.sample(rng, 300, 1)[0]
    assert list(counting_forward(task.limit_transformer(), s, offset=14, positions="all")[:, 0]) == \
        task.prefix_targets(s)


@checks("izzo2025:app-a2.modp", "izzo2025:sec3.1")
def test_modp_offsets():
    """Offsets = 0 (mod p) keep the target; other offsets give the documented phase-shifted task (control)."""
    task = ModPTask(4, 1)
    model = task.limit_transformer()
    rng = _rng(11)
    differs = False
    for s in task.sample(rng, 19, 4):
        for o in range(8):
            out = list(exact_forward(model, s, offset=o)[:, 0])
            assert out == task.target_at_offset(s, o)
            if o % 4 == 0:
                assert out == task.prefix_targets(s)
            elif out != task.prefix_targets(s):
                differs = True
    assert differs  # the offset condition is needed


@checks("izzo2025:app-a2.modp", "izzo2025:sec3.2-hardmax")
def test_modp_hardmax_threshold_of_small_logit_scale():
    """With lam = 1 and p = 4 bits, gamma = 1/2 and the threshold is 2^8 = 256: exact there, not exact below."""
    from bounds.margin import hardmax_threshold, logit_margin

    task = ModPTask(2, 1)
    model = task.limit_transformer(precision_bits=4, logit_scale=1)
    gamma = logit_margin(model).gamma
    assert gamma == Fraction(1, 2) and hardmax_threshold(gamma, 4) == 256 == task.hardmax_length(4, 1)
    assert ModPTask.hardmax_length(8) == 2 == SimpleTask.hardmax_length(8)
    assert logit_margin(SimpleTask(2).limit_transformer(error=0.1, precision_bits=4, logit_scale=1)).gamma == gamma
    s = "1" + "0" * 254  # model length 256: keys of score 1, 1/2 ($) and 0 all present
    assert list(counting_forward(model, s, positions="all")[:, 0]) == task.prefix_targets(s)
    with pytest.raises(NotExactError):
        exact_forward(model, s[:-1], positions="last")  # length 255 < threshold


@checks("izzo2025:app-a2.modp", "izzo2025:sec3.1")
def test_modp_fast_exact_counting_agree():
    rng = _rng(21)
    with pytest.warns(BoundaryWarning):  # the construction's flush boundary n^gap = 2^p is met at n = 9 and 40
        _modp_paths_agree(rng)


def _modp_paths_agree(rng):
    for p, k in [(5, 3), (2, 0)]:
        task = ModPTask(p, k)
        model = task.limit_transformer()
        for n in [0, 1, 9, 40]:
            strings = task.sample(rng, n, 3)
            fast = forward(model, strings)[:, :, 0]
            for b, s in enumerate(strings):
                ex = exact_forward(model, s)[:, 0]
                cnt = counting_forward(model, s, positions="all")[:, 0]
                cntf = counting_forward(model, s, positions="all", exact=False)[:, 0]
                assert list(ex) == list(cnt)
                np.testing.assert_allclose(fast[b], [float(v) for v in ex], atol=1e-12)
                np.testing.assert_allclose(cntf, fast[b], atol=1e-12)
        last = forward(model, task.sample(rng, 1000, 64), positions="last")
        assert last.shape == (64, 1)


# -------------------------------------------------------------------------------- Simple construction
@checks("izzo2025:app-a2.simple")
@pytest.mark.parametrize("omega", [Fraction(1), Fraction(7, 2), Fraction(8)])
def test_simple_within_certified_bound(omega):
    task = SimpleTask(omega)
    model = task.limit_transformer(error=1e-3)
    bound = float(Fraction(model.metadata["certified_error"]))
    assert bound <= 1e-3
    rng = _rng(int(omega * 2))
    net = task.mlp(1e-3)
    for n in [0, 1, 5, 11]:
        for s in task.sample(rng, n, 2):
            ex = exact_forward(model, s)[:, 0]
            assert list(ex) == [net(z) for z in task.prefix_z(s)]  # attention computes z exactly
            err = np.abs(np.array([float(v) for v in ex]) - task.prefix_targets(s))
            assert err.max() <= bound
    for n in [1000, 10_000]:
        s = task.sample(rng, n, 1)[0]
        zs = task.prefix_z(s)
        for t in rng.integers(0, n + 1, size=3):  # exact at random positions: the network at the exact z
            assert counting_forward(model, s[:t], positions="last")[0] == net(zs[t])
        out = counting_forward(model, s, positions="all", exact=False)[:, 0]
        assert np.abs(out - task.prefix_targets(s)).max() <= bound + 1e-12
        for o in [0, 3, 17]:  # NoPE: every offset gives the same outputs
            np.testing.assert_allclose(counting_forward(model, s, offset=o, positions="last", exact=False), out[-1:])


@checks("izzo2025:app-a2.simple")
def test_simple_fast_exact_counting_agree_and_control():
    task = SimpleTask(Fraction(5))
    model = task.limit_transformer(error=1e-2)
    rng = _rng(8)
    strings = task.sample(rng, 30, 3)
    fast = forward(model, strings)[:, :, 0]
    for b, s in enumerate(strings):
        ex = exact_forward(model, s)[:, 0]
        assert list(ex) == list(counting_forward(model, s, positions="all")[:, 0])
        np.testing.assert_allclose(fast[b], [float(v) for v in ex], atol=1e-9)
    # control: a coarser MLP (bound 0.3) misses the 1e-2 target somewhere on the same inputs
    coarse = task.limit_transformer(error=0.3)
    worst = max(np.abs(forward(coarse, [s])[0, :, 0] - task.prefix_targets(s)).max() for s in strings)
    assert worst > 1e-2
