"""The torch twins of the realizing networks compute what the exact classes compute (same parameters)."""

from __future__ import annotations

import random
import subprocess
import sys
from fractions import Fraction

import pytest

torch = pytest.importorskip("torch")

from constructions.realizing import MLP, RNN, AttentionTransformer, DeepSet, LinearSSM  # noqa: E402
from constructions.realizing.attention_heads import AttentionHead, HeadsTransformer  # noqa: E402
from constructions.realizing.errors import RealizingError  # noqa: E402
from constructions.realizing.torch_nets import (  # noqa: E402
    DeepSetNet,
    from_exact,
    paper_network,
    teacher_student,
)


def _rat(rng):
    return Fraction(rng.randint(-8, 8), rng.choice((2, 3, 4, 5)))


def _mat(rng, r, c):
    return [[_rat(rng) for _ in range(c)] for _ in range(r)]


def _mlp(rng, dims, last="linear"):
    return MLP(tuple((_mat(rng, b, a), [_rat(rng) for _ in range(b)], "relu" if k < len(dims) - 2 else last)
                     for k, (a, b) in enumerate(zip(dims[:-1], dims[1:], strict=True))))


def _models(rng, n=3):
    rho = _mlp(rng, [n, 4, 2])
    yield DeepSet(_mlp(rng, [n, 4, n]), rho)
    yield AttentionTransformer(_mlp(rng, [2 * n, 4, n]), rho, "mean")
    yield AttentionTransformer(_mlp(rng, [2 * n + 1, 4, n]), rho, "sum", relative=True)
    for score in ("linear", "relu", "hard_sigmoid"):
        heads = [AttentionHead(_mat(rng, 2, n), _mat(rng, 2, n), _mat(rng, 2, n), [_rat(rng), _rat(rng)])
                 for _ in range(2)]
        yield HeadsTransformer(tuple(heads), _mlp(rng, [4, 3, 2]), score)
    yield LinearSSM(_mat(rng, n, n), _mat(rng, n, 2), rho)
    for act in ("relu", "hard_sigmoid"):
        yield RNN(_mat(rng, n, n), _mat(rng, n, 2), rho, act)


def _inputs(rng, model, T=5):
    dim = len(model.B[0]) if hasattr(model, "B") else (
        model.phi.in_dim if hasattr(model, "phi") else
        (model.psi.in_dim - int(model.relative)) // 2 if hasattr(model, "psi") else len(model.heads[0].Q[0]))
    return [[_rat(rng) for _ in range(dim)] for _ in range(T)]


def _agree(model, xs, twin):
    exact = model.outputs(xs)
    got = twin(torch.tensor([[float(v) for v in x] for x in xs], dtype=torch.float64))
    want = torch.tensor([[float(v) for v in y] for y in exact], dtype=torch.float64)
    return torch.allclose(got, want, rtol=1e-9, atol=1e-9)


def test_every_twin_agrees_with_its_exact_model():
    rng = random.Random(0)
    for _ in range(3):
        for model in _models(rng):
            xs = _inputs(rng, model)
            assert _agree(model, xs, from_exact(model)), type(model).__name__


def test_negative_control_a_perturbed_twin_disagrees():
    rng = random.Random(1)
    for model in _models(rng):
        twin = from_exact(model)
        with torch.no_grad():
            twin.rho.layers[-1].bias[0] += 0.5  # the readout bias moves every output
        xs = _inputs(rng, model)
        assert not _agree(model, xs, twin), type(model).__name__


def test_hidden_states_match_the_exact_pooled_and_recurrent_states():
    rng = random.Random(2)
    heads = (AttentionHead(_mat(rng, 2, 3), _mat(rng, 2, 3), _mat(rng, 2, 3), [1, -1]),)
    m = HeadsTransformer(heads, _mlp(rng, [2, 3, 2]), "relu")
    xs = _inputs(rng, m)
    got = from_exact(m).hidden(torch.tensor([[float(v) for v in x] for x in xs], dtype=torch.float64))
    want = torch.tensor([[float(v) for v in p] for p in m.pooled(xs)], dtype=torch.float64)
    assert torch.allclose(got, want)
    ssm = LinearSSM(_mat(rng, 3, 3), _mat(rng, 3, 2), _mlp(rng, [3, 2]))
    xs = _inputs(rng, ssm)
    state, hs = ssm.initial(), []
    for x in xs:
        state, _ = ssm.advance(state, tuple(Fraction(v) for v in x))
        hs.append(state)
    got = from_exact(ssm).hidden(torch.tensor([[float(v) for v in x] for x in xs], dtype=torch.float64))
    assert torch.allclose(got, torch.tensor([[float(v) for v in h] for h in hs], dtype=torch.float64))


def test_paper_networks_shapes_orthogonality_and_softmax():
    torch.manual_seed(0)
    x = torch.rand(3, 7, 5)
    for arch in ("deepset", "transformer", "ssm", "rnn"):
        net = paper_network(arch, n=5)
        assert net(x).shape == (3, 7, 5) and net.hidden(x).shape[:2] == (3, 7)
    ssm = paper_network("ssm", n=5)
    assert torch.allclose(ssm.Lam @ ssm.Lam.T, torch.eye(5), atol=1e-5)
    soft = paper_network("transformer", n=5, score="softmax", heads=2, max_lag=3)
    assert soft.hidden(x).shape == (3, 7, 10)
    # causality: changing a later token leaves earlier outputs unchanged
    y = x.clone()
    y[:, 4:] = 0
    for net in (soft, paper_network("rnn", n=5), paper_network("deepset", n=5)):
        assert torch.allclose(net(x)[:, :4], net(y)[:, :4]) and not torch.allclose(net(x), net(y))
    t, s = teacher_student("rnn", 1, 2, n=5)
    assert not torch.allclose(t.B, s.B)
    with pytest.raises(RealizingError):
        teacher_student("rnn", 1, 1, n=5)
    with pytest.raises(RealizingError):
        paper_network("lstm")


def test_deepset_weights_use_the_paper_std():
    torch.manual_seed(0)
    net = paper_network("deepset", n=20)
    assert isinstance(net, DeepSetNet)
    w = torch.cat([p.detach().flatten() for p in net.parameters()])
    assert 0.55 < float(w.std()) < 0.65


def test_constructions_import_without_torch():
    code = ("import sys; sys.modules['torch'] = None; import constructions.realizing, "
            "constructions.realizing.attention_heads; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=".")
    assert out.stdout.strip() == "ok", out.stderr
