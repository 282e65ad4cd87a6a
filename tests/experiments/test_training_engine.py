"""The shared training engine (bounds.experiments.training.loop / executor / summary): batched models, stopping, records,
resume after SIGKILL, executors.  Tiny budgets only (seconds)."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from bounds.experiments.training.summary import fit_line, summarize
from lengthgen_cli.output import write_atomic
from lengthgen_cli.sweep import RunSpec, SweepError, load_records, record_path, run_specs

torch = pytest.importorskip("torch", reason="torch not installed (pip install torch==2.13.0)")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


# ------------------------------------------------------------------------------------------- loop
def _linear_problem():
    from bounds.experiments.training.loop import Adam, StopRule

    w_true = torch.tensor([[1.0, -2.0]])

    def factory(i):
        return torch.nn.Linear(2, 1, bias=False)

    gen = torch.Generator().manual_seed(0)

    def sample(step):
        x = torch.randn(3, 32, 2, generator=gen)
        return x, x @ w_true.T

    def loss(out, x, y):
        return ((out - y) ** 2).mean(dim=(1, 2))

    return factory, sample, loss, Adam(lr=0.05), StopRule


def test_batched_models_match_separate_training():
    """Model s of a batched run equals model s trained alone on the same batches (the models do not interact)."""
    from bounds.experiments.training.loop import Adam, StopRule, train_models

    xs = [torch.randn(2, 16, 3, generator=torch.Generator().manual_seed(k)) for k in range(30)]

    def sample_all(step):
        return xs[step], xs[step].sum(-1, keepdim=True)

    def loss(out, x, y):
        return ((out - y) ** 2).mean(dim=(1, 2))

    both = train_models(lambda i: torch.nn.Linear(3, 1), [5, 6], sample_all, loss, Adam(lr=0.02),
                        StopRule(max_steps=30), device="cpu")
    for s, seed in enumerate([5, 6]):
        alone = train_models(lambda i: torch.nn.Linear(3, 1), [seed],
                             lambda step, s=s: (xs[step][s:s + 1], xs[step][s:s + 1].sum(-1, keepdim=True)),
                             loss, Adam(lr=0.02), StopRule(max_steps=30), device="cpu")
        for k in both.params:
            assert torch.allclose(both.params[k][s], alone.params[k][0], atol=1e-6), k
    # control: different seeds give different models
    assert not torch.allclose(both.params["weight"][0], both.params["weight"][1])


def test_stop_rule_freezes_each_model_at_its_own_step():
    from bounds.experiments.training.loop import StopRule, train_models

    factory, sample, loss, adam, _ = _linear_problem()
    res = train_models(factory, [0, 1, 2], sample, loss, adam, StopRule(max_steps=400, loss_target=1e-3),
                       device="cpu")
    assert all(res.reached_target) and all(v < 1e-3 for v in res.final_loss)
    assert max(res.steps) < 400 and len(set(res.steps)) > 1  # stopped separately
    # a stopped model's weights are the ones it had when it stopped: its loss on fresh data is still small
    x = torch.randn(3, 64, 2)
    from bounds.experiments.training.loop import stacked_forward

    out = stacked_forward(res, x)
    y = x @ torch.tensor([[1.0, -2.0]]).T
    assert float(((out - y) ** 2).mean()) < 1e-2
    # control: an unreachable target runs to max_steps and reports not reached
    res2 = train_models(factory, [0, 1, 2], sample, loss, adam, StopRule(max_steps=60, loss_target=1e-30),
                        device="cpu")
    assert res2.steps == [60] * 3 and res2.reached_target == [False] * 3


def test_accuracy_stop_freezes_each_model_when_its_score_reaches_the_target():
    """StopRule.accuracy (Huang et al. App. E.3's stop at 100% in-distribution accuracy): each model stops at the
    first evaluation where its own score reaches the target, keeps those weights, and its scores are recorded."""
    from bounds.experiments.training.loop import StopRule, stacked_forward, train_models

    factory, sample, loss, adam, _ = _linear_problem()
    x = torch.randn(3, 64, 2, generator=torch.Generator().manual_seed(5))
    y = x @ torch.tensor([[1.0, -2.0]]).T

    def score(snapshot):  # 1 - mean squared error, per model
        return (1 - ((stacked_forward(snapshot, x) - y) ** 2).mean(dim=(1, 2))).tolist()

    res = train_models(factory, [0, 1, 2], sample, loss, adam,
                       StopRule(max_steps=400, accuracy=score, accuracy_target=0.999, eval_every=10), device="cpu")
    assert all(res.reached_target) and max(res.steps) < 400 and all(st % 10 == 0 for st in res.steps)
    for s in range(3):  # scored every 10 steps until it stopped; the last score is the one that stopped it
        assert [e[0] for e in res.evaluations[s]] == list(range(10, res.steps[s] + 1, 10))
        assert res.evaluations[s][-1][1] >= 0.999 > max((e[1] for e in res.evaluations[s][:-1]), default=0.0)
    assert min(score(res)) >= 0.999  # the frozen weights are the stopping ones
    # control: an unreachable score runs to max_steps and reports not reached
    res2 = train_models(factory, [0, 1, 2], sample, loss, adam,
                        StopRule(max_steps=40, accuracy=score, accuracy_target=2.0, eval_every=10), device="cpu")
    assert res2.steps == [40] * 3 and res2.reached_target == [False] * 3 and len(res2.evaluations[0]) == 4


def test_unstack_gives_an_ordinary_module():
    from bounds.experiments.training.loop import StopRule, stacked_forward, train_models, unstack

    factory, sample, loss, adam, _ = _linear_problem()
    res = train_models(factory, [0, 1, 2], sample, loss, adam, StopRule(max_steps=20), device="cpu")
    x = torch.randn(3, 5, 2)
    out = stacked_forward(res, x)
    for s in range(3):
        assert torch.allclose(unstack(res, s, factory)(x[s]), out[s], atol=1e-6)


# --------------------------------------------------------------------------------------- executor
def _specs(n=3, fail_key=None):
    return [RunSpec(f"toy/{i}", "tests.experiments.toy_runs:square", {"x": i, "sleep": 0.0}) for i in range(n)]


def test_records_are_written_once_and_resumed(tmp_path):
    out = tmp_path / "runs"
    first = run_specs(_specs(), str(out), workers=1)
    assert first["ran"] == 3 and [r["record"]["y"] for r in first["records"]] == [0, 1, 4]
    again = run_specs(_specs(4), str(out), workers=1)
    assert again["ran"] == 1 and again["skipped"] == 3 and len(load_records(str(out))) == 4
    assert {r["executor"] for r in again["records"]} == {"inline"}


def test_conflicting_duplicate_keys_are_refused(tmp_path):
    a = RunSpec("k", "tests.experiments.toy_runs:square", {"x": 1})
    b = RunSpec("k", "tests.experiments.toy_runs:square", {"x": 2})
    with pytest.raises(SweepError, match="share the key"):
        run_specs([a, b], str(tmp_path))
    assert run_specs([a, a], str(tmp_path), workers=1)["ran"] == 1  # identical duplicates collapse
    with pytest.raises(SweepError, match="unknown executor"):
        run_specs([a], str(tmp_path), executor="slurm")


def test_write_atomic_leaves_no_torn_file(tmp_path, monkeypatch):
    path = tmp_path / "r.json"
    write_atomic(str(path), {"a": 1})

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        write_atomic(str(path), {"a": 2})
    assert json.loads(path.read_text()) == {"a": 1} and os.listdir(tmp_path) == ["r.json"]


def test_local_pool_matches_inline(tmp_path):
    inline = run_specs(_specs(), str(tmp_path / "a"), workers=1)["records"]
    pool = run_specs(_specs(), str(tmp_path / "b"), workers=2)["records"]
    assert [r["record"] for r in inline] == [r["record"] for r in pool]
    assert {r["executor"] for r in pool} == {"local"}


def test_sigkill_loses_nothing_finished_and_duplicates_nothing(tmp_path):
    """Kill a sweep mid-run (SIGKILL), rerun it: every run recorded exactly once, finished ones untouched."""
    out, gate = tmp_path / "runs", str(tmp_path / "gate")
    kwargs = f"{{'x': i, 'gate': {gate!r}, 'ungated': 2}}"  # runs 0 and 1 finish; the rest wait for the gate file
    code = (f"import sys; sys.path.insert(0, {ROOT!r}); from lengthgen_cli.sweep import RunSpec, run_specs; "
            f"run_specs([RunSpec(f'toy/{{i}}', 'tests.experiments.toy_runs:square', {kwargs}) for i in range(8)], "
            f"{str(out)!r}, workers=1)")
    p = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)
    deadline = time.time() + 300  # generous: importing torch under load can take a minute
    while time.time() < deadline and len([f for f in os.listdir(out) if f.endswith(".json") and not f.startswith(".tmp-")]
                                          if out.exists() else []) < 2:  # finished records, not a write in flight
        time.sleep(0.05)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    before = {f: (out / f).read_bytes() for f in os.listdir(out) if not f.startswith(".tmp-")}
    assert len(before) == 2
    open(gate, "w").close()
    specs = [RunSpec(f"toy/{i}", "tests.experiments.toy_runs:square", {"x": i, "gate": gate, "ungated": 2}) for i in range(8)]
    res = run_specs(specs, str(out), workers=1)
    assert res["ran"] == 8 - len(before)
    assert sorted(r["record"]["y"] for r in res["records"]) == [i * i for i in range(8)]
    for f, data in before.items():  # finished records are untouched
        assert (out / f).read_bytes() == data
    assert len([f for f in os.listdir(out) if f.endswith(".json") and not f.startswith(".tmp-")]) == 8
    assert all(os.path.exists(record_path(str(out), s)) for s in specs)


def test_ray_executor_on_a_local_instance(tmp_path):
    pytest.importorskip("ray", reason="ray not installed (pip install '.[ray]')")
    out = str(tmp_path / "runs")
    res = run_specs(_specs(), out, executor="ray")
    assert res["ran"] == 3 and {r["executor"] for r in res["records"]} == {"ray"}
    assert [r["record"]["y"] for r in res["records"]] == [0, 1, 4]
    assert run_specs(_specs(4), out, workers=1)["ran"] == 1  # resumed by another executor, nothing redone


# ---------------------------------------------------------------------------------------- summary
def _rec(n, plateaus, reached=True):
    return {"record": {"N": n, "runs": [{"seed": s, "plateau": v, "train_loss": 0.0, "test_loss": {"2": v},
                                         "reached_target": reached, "steps": 10} for s, v in enumerate(plateaus)]}}


def test_summary_thresholds_spread_and_order_independence():
    recs = [_rec(4, [0.2, 0.1]), _rec(8, [0.004, 0.02]), _rec(16, [0.001, 0.002])]
    s = summarize(recs, 0.01)
    assert s["n_min"] == 16 and s["n_min_all_seeds"] == 16 and s["n_min_stable"] == 16
    assert s["n_min_per_seed"] == {"0": 8, "1": 16}
    assert s["n_min_spread"] == {"min": 8, "median": 12, "max": 16, "seeds_without": 0}
    assert summarize(list(reversed(recs)), 0.01) == s  # the bug: the order of the lengths mattered
    assert summarize(recs + [_rec(8, [0.004, 0.02])], 0.01)["rows"][1]["seeds"] == 2  # a repeat is not a seed
    assert summarize(recs + [_rec(32, [0.5, 0.5])], 0.01)["n_min_stable"] is None
    assert summarize(recs, 1e-4)["n_min"] is None


def test_fit_line_interval_contains_the_true_slope_and_rejects_degenerate_input():
    rng = np.random.default_rng(0)
    xs = [2, 3, 4, 5] * 8
    ys = [3.0 * x + 1 + rng.normal(0, 0.5) for x in xs]
    f = fit_line(xs, ys)
    assert f["slope_ci"][0] < 3.0 < f["slope_ci"][1] and f["slope_ci"][1] - f["slope_ci"][0] < 1
    assert fit_line([1, 1, 1], [1, 2, 3]) is None and fit_line([1, 2], [1, 2]) is None
