"""``bounds.certify --runs`` on the sweeps' executors (:mod:`lengthgen_cli.sweep`): Ray tasks (a stand-in Ray module
that records what it is asked, and a local Ray instance under ``-m slow``), a missing Ray refused in one line, and
resume with nothing redone."""

from __future__ import annotations

import importlib.machinery
import json
import shutil
import sys
import types

import pytest

from bounds.certify.cli import main


def _run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


class _Ref:
    def __init__(self, fn, args):
        self.fn, self.args = fn, args


def fake_ray(calls: dict, on_init=None):
    """A stand-in for the ``ray`` module with the calls :func:`lengthgen_cli.sweep.execute_specs` makes: tasks run
    when their result is fetched, in this process; ``calls`` records the address, the resources and the task count."""
    ray = types.ModuleType("ray")
    ray.__spec__ = importlib.machinery.ModuleSpec("ray", None)
    state = {"up": False}

    def init(address=None, **kw):
        calls["address"] = address
        state["up"] = True
        if on_init:
            on_init()

    def remote(fn):
        class Task:
            @staticmethod
            def options(num_cpus=1, num_gpus=0):
                calls.setdefault("resources", []).append((num_cpus, num_gpus))
                return Task

            @staticmethod
            def remote(*args):
                calls["tasks"] = calls.get("tasks", 0) + 1
                return _Ref(fn, args)

        return Task

    ray.init, ray.remote = init, remote
    ray.is_initialized = lambda: state["up"]
    ray.shutdown = lambda: state.update(up=False)
    ray.wait = lambda pending, num_returns=1: (pending[:num_returns], pending[num_returns:])
    ray.get = lambda ref: ref.fn(*ref.args)
    return ray


def test_runs_on_ray_tasks_that_need_no_run_folder_and_resume(tiny_run, tmp_path, capsys, monkeypatch):
    """Each seed is a Ray task given its record itself: the run folder is moved away once Ray is up and every seed
    is still certified; the address reaches ray.init; a resumed call submits no task (nothing redone)."""
    folder = tmp_path / "runs"
    shutil.copytree(tiny_run, folder)
    calls: dict = {}
    monkeypatch.setitem(sys.modules, "ray", fake_ray(calls, on_init=lambda: shutil.rmtree(folder)))
    out = tmp_path / "c.jsonl"
    argv = ["--runs", str(folder), "--executor", "ray", "--ray-address", "ray://head:10001", "--time-budget", "1",
            "--seeds", "2", "--out", str(out)]
    code, text, err = _run(argv, capsys)
    assert code == 0, err
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert sorted(r["seed"] for r in recs) == [0, 1] and all(r["construction"]["horizon"] for r in recs)
    assert calls == {"address": "ray://head:10001", "resources": [(1, 0), (1, 0)], "tasks": 2}
    assert "2 trained seeds" in text
    # resumed: the seeds already recorded are not submitted again
    shutil.copytree(tiny_run, folder)
    calls.clear()
    monkeypatch.setitem(sys.modules, "ray", fake_ray(calls))
    code, _, err = _run(argv + ["--resume"], capsys)
    assert code == 0 and calls.get("tasks", 0) == 0, (err, calls)
    assert len(out.read_text().splitlines()) == 2
    # control: without the records, the same command submits both seeds again
    out.unlink()
    code, _, err = _run(argv, capsys)
    assert code == 0 and calls["tasks"] == 2, err


def test_missing_ray_is_one_line_before_any_certificate(tiny_run, tmp_path, capsys, monkeypatch):
    real = importlib.util.find_spec

    def no_ray(name, *a, **k):
        return None if name == "ray" else real(name, *a, **k)

    def refuse(*a, **k):
        raise AssertionError("a certificate was computed")

    monkeypatch.setattr("bounds.certify.runs.certify_seed", refuse)
    monkeypatch.setattr(importlib.util, "find_spec", no_ray)
    argv = ["--runs", str(tiny_run), "--executor", "ray", "--out", str(tmp_path / "c.jsonl")]
    code, out, err = _run(argv, capsys)
    assert code == 2 and err.count("\n") == 1 and "needs Ray" in err and "Traceback" not in err
    assert not (tmp_path / "c.jsonl").exists()
    monkeypatch.setattr(importlib.util, "find_spec", real)  # control: with Ray found, the same line reaches work
    monkeypatch.setitem(sys.modules, "ray", fake_ray({}))
    with pytest.raises(AssertionError, match="a certificate was computed"):
        main(argv)


@pytest.mark.parametrize("argv,says", [(["--ray-address", "auto"], "--ray-address"),
                                       (["--executor", "ray", "--workers", "2"], "--workers")])
def test_executor_options_refused_where_unused(tiny_run, argv, says, capsys, tmp_path):
    code, _, err = _run(["--runs", str(tiny_run), *argv, "--out", str(tmp_path / "c.jsonl")], capsys)
    assert code == 2 and says in err and err.count("\n") == 1
    (tmp_path / "m.json").write_text("{}")  # the path exists: the option is what is refused
    code, _, err = _run(["--model", str(tmp_path / "m.json"), "--target-fn", "--task", "modp", "--period", "2", "--executor",
                         "ray"], capsys)
    assert code == 2 and "--executor" in err  # a --runs option in pair mode


@pytest.mark.slow
def test_runs_on_a_local_ray_instance(tiny_run, tmp_path, capsys):
    """The real Ray executor (a local instance, ~30 s to start on two loaded cores)."""
    pytest.importorskip("ray", reason="ray not installed (pip install '.[ray]')")
    out = tmp_path / "c.jsonl"
    code, text, err = _run(["--runs", str(tiny_run), "--executor", "ray", "--time-budget", "1", "--seeds", "1",
                            "--out", str(out)], capsys)
    assert code == 0, err
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["seed"] for r in recs] == [0] and recs[0]["construction"]["horizon"]["first_length"] == 2


# ------------------------------------------------------------------------------ per-task summary and horizon figure
def _cert(H, X, every=False, string=None):
    hz = {"H": None if every else H, "every_length": every, "X": X, "first_length": 2,
          "witness": {} if X is None else {"length": X, "string": string, "counts": {"1": X - 1}, "window": []}}
    return {"verdict": "certified" if every else "fails", "upper": 0.01, "lower": 0.0, "delta": [0.0, 0.0],
            "witness": {"length": X or 2}, "seconds": 1.0, "horizon": hz}


def _record(N, seed, construction, target=None, horizon=True):
    r = {"run_key": f"k/N={N}", "seed": seed, "task": "modp(p=2,k=0)", "task_kind": "modp",
         "params": {"period": 2, "index": 0}, "N": N, "construction_error": 0.0,
         "measured": {"test_loss": {"2": 1e-6}, "plateau": 1e-6}, "construction": construction}
    if target is not None:
        r["target"] = target
    if not horizon:
        for c in (r["construction"], r.get("target")):
            if c:
                c.pop("horizon")
    return r


def _records():
    return [_record(4, 0, _cert(7, 8, string="0000001"), _cert(5, 6, string="00001")),
            _record(4, 1, _cert(5000, 5001), _cert(None, None, every=True)),
            _record(16, 0, _cert(None, None, every=True), _cert(None, None, every=True)),
            _record(16, 1, _cert(17 * 10**9, None), _cert(40, 41, string="0" * 39))]


def test_summary_per_task_length_and_certificate():
    """Median H / (N + 1), the shortest failure with its string, seeds certified to >= 10^3 (N + 1), >= 10^9 (N + 1)
    and at every length, for both certificates, re-derived by hand from four records; the bracket of the class."""
    from bounds.certify.runs import summarize, summary_text

    s = summarize(_records(), 0.1)
    (t,) = s["tasks"]
    row4, row16 = t["rows"]
    c4, t4 = row4["horizon"]["construction"], row4["horizon"]["target"]
    assert c4["median_H_over_train"] == 5000 / 5 and c4["shortest_X"] == 8 and c4["shortest_witness"] == "0000001"
    assert c4["at_least"] == {"1000": 1, "1000000000": 0} and c4["every_length"] == 0
    assert t4["shortest_X"] == 6 and t4["every_length"] == 1 and t4["at_least"]["1000000000"] == 1
    c16, t16 = row16["horizon"]["construction"], row16["horizon"]["target"]
    assert c16["at_least"] == {"1000": 2, "1000000000": 2} and c16["every_length"] == 1 and c16["shortest_X"] is None
    assert t16["at_least"] == {"1000": 1, "1000000000": 1} and t16["shortest_witness"] == "0" * 39
    assert t["bracket"]["lower"] == 38 and t["bracket"]["upper"] > 10**5  # bounds.estimate --task modp --period 2
    text = summary_text(s)
    assert "'0000001'" in text and "'00001'" in text
    assert "whole below" not in text
    long = "01" * 30  # cut in the table, printed whole below it
    text = summary_text(summarize(_records() + [_record(8, 0, _cert(60, 61, string=long))], 0.1))
    assert "whole below" in text and f"first failure at length 61: {long!r}" in text
    # control: a record that fails at a shorter length moves the shortest failure
    worse = _records() + [_record(4, 2, _cert(2, 3, string="01"))]
    assert summarize(worse, 0.1)["tasks"][0]["rows"][0]["horizon"]["construction"]["shortest_X"] == 3


def test_horizon_figure_marks_seeds_certified_at_every_length():
    from bounds.certify.runs import horizon_figures, summarize

    s = summarize(_records(), 0.1)
    figs = horizon_figures(s)
    assert set(figs) == {"certify-horizon-modp"}
    ax = figs["certify-horizon-modp"].axes[0]
    assert ax.get_yscale() == "log"
    lines = [line for line in ax.get_lines() if len(line.get_xdata())]
    assert any("upper bound N* <=" in t.get_text() for t in ax.get_legend().get_texts())  # off the axis: named
    top = max(max(line.get_ydata()) for line in lines)
    tri = [line for line in lines if line.get_marker() == "^"]
    assert sorted(len(line.get_xdata()) for line in tri) == [1, 2]  # construction 1 seed, target 2 seeds
    assert all(y == top for line in tri for y in line.get_ydata())
    dots = [y for line in lines if line.get_marker() in ("o", "s") for y in line.get_ydata()]
    assert sorted(dots) == sorted([7 / 5, 5000 / 5, 17 * 10**9 / 17, 5 / 5, 40 / 17])
    assert any(list(line.get_xdata()) == [37, 37] for line in lines)  # the lower bound N* >= 38 at N = 37
    # control: records made before the horizon draw no horizon figure
    old = summarize([_record(4, 0, _cert(7, 8), horizon=False)], 0.1)
    assert horizon_figures(old) == {}


# ------------------------------------------------------------------------------------ pair mode against --runs
@pytest.mark.slow
def test_pair_mode_and_runs_agree_on_one_seed(witness_runs, tmp_path, capsys):
    """The same trained seed (the committed witness run, ModP p = 2 at N = 5) certified by --runs and by pair mode
    (--export-model, then --model with --target-fn, and --against the App. A.2 construction under izzo) with each
    mode's defaults (first length 2, eps 1/10) and delta over the training lengths (--train-length N + 1 in pair
    mode): the same delta, H, X and failing string, and both texts print the string.  The work is fixed by
    --max-length and --max-boxes (the budget only stops a runaway search), so the answer does not depend on the
    machine's load; about a minute idle, several on a loaded machine: ``-m slow``)."""
    from constructions.limit_transformer.serialize import save_model
    from constructions.tasks import ModPTask

    out = tmp_path / "c.jsonl"
    work = ["--max-length", "24", "--max-boxes", "64", "--time-budget", "600"]
    code, runs_text, err = _run(["--runs", str(witness_runs), "--target-fn", *work, "--out", str(out)], capsys)
    assert code == 0, err
    (rec,) = [json.loads(x) for x in out.read_text().splitlines()]
    model = tmp_path / "m.json"
    assert _run(["--export-model", str(witness_runs / "r.json"), "--out", str(model)], capsys)[0] == 0
    construction = tmp_path / "g.json"
    save_model(ModPTask(2, 0).limit_transformer(), construction)
    common = ["--model", str(model), "--semantics", "softmax", "--train-length", str(rec["N"] + 1), *work]
    for which, argv in (("target", ["--target-fn", "--task", "modp", "--period", "2"]),
                        ("construction", ["--against", str(construction), "--against-semantics", "izzo"])):
        code, text, err = _run(common + argv + ["--json"], capsys)
        assert code == 0, err
        pair, runs = json.loads(text), rec[which]
        assert pair["eps"] == runs["eps"] == 0.1 and pair["train_length"] == runs["train_length"] == 6
        assert pair["delta"] == pytest.approx(runs["delta"], rel=1e-9, abs=1e-12)
        hp, hr = pair["horizon"], runs["horizon"]
        assert hp["first_length"] == hr["first_length"] == 2 and pair["lengths"][0]["length"] == 2
        assert (hp["H"], hp["X"], hp["witness"]["string"]) == (hr["H"], hr["X"], hr["witness"]["string"])
        assert hp["X"] == hp["H"] + 1 and hp["witness"]["string"] == "0101010101000000000001"
        code, text, _ = _run(common + argv, capsys)
        assert code == 0 and f"first failure at length {hp['X']}: '{hp['witness']['string']}'" in text
        assert f"'{hr['witness']['string']}'" in runs_text
    # control: another eps in pair mode gives another horizon (the comparison sees a default that differs)
    code, text, _ = _run(common + ["--eps", "1/2", "--target-fn", "--task", "modp", "--period", "2", "--json"],
                         capsys)
    other = json.loads(text)["horizon"]
    assert code == 0 and (other["H"], other["X"]) != (rec["target"]["horizon"]["H"], rec["target"]["horizon"]["X"])


def test_runs_max_length_below_a_training_length_is_one_line(witness_runs, tmp_path, capsys, monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("a certificate was computed")

    monkeypatch.setattr("bounds.certify.runs.certify_seed", refuse)
    argv = ["--runs", str(witness_runs), "--out", str(tmp_path / "c.jsonl")]
    code, _, err = _run(argv + ["--max-length", "5"], capsys)  # the witness run is trained at N = 5: length 6
    assert code == 2 and "--max-length 5 is below the longest training length 6" in err and err.count("\n") == 1
    with pytest.raises(AssertionError, match="a certificate was computed"):  # control: 6 reaches the work
        main(argv + ["--max-length", "6", "--resume"])


def test_pair_mode_with_its_budget_spent_before_any_length_reports_it(tmp_path, capsys):
    """A budget spent before the first length is enumerated (a slow start-up counts into it) is a report, not a
    traceback; control: with time, the per-length table is printed."""
    from constructions.limit_transformer.serialize import save_model
    from constructions.tasks import ModPTask

    save_model(ModPTask(2, 0).limit_transformer(), tmp_path / "g.json")
    argv = ["--model", str(tmp_path / "g.json"), "--target-fn", "--task", "modp", "--period", "2", "--semantics",
            "izzo", "--train-length", "3"]
    code, out, err = _run(argv + ["--time-budget", "1e-9"], capsys)
    assert code == 0 and "no length was enumerated within the time budget" in out and "Traceback" not in err
    code, out, _ = _run(argv + ["--time-budget", "600", "--max-length", "4", "--max-boxes", "16"], capsys)
    assert code == 0 and "lengths 2..4 (N0 = 4)" in out and "no length was enumerated" not in out


def test_summary_file_is_standard_json_when_a_bound_is_unbounded(tmp_path, capsys):
    """A record whose certified U and delta are unbounded (the certificate did not reach the training length) gives
    a summary file of standard JSON ("inf"), which the figures and the threshold read back as floats; control: the
    record line itself, written by Python's encoder, holds the non-standard Infinity that a strict reader refuses."""
    import math
    import os

    from bounds.experiments.figures import draw
    from lengthgen_cli import UsageError, read_json

    committed = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "results",
                             "izzo2025-certify-quick.jsonl")
    with open(committed, encoding="utf-8") as fh:
        rec = json.loads(fh.readline())
    rec["construction"]["upper"] = rec["construction"]["delta"][1] = math.inf
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps(rec) + "\n")
    with pytest.raises(UsageError, match="Infinity"):
        read_json(records)
    summary = tmp_path / "izzo2025-certify-t.json"
    assert main(["--out", str(records), "--summarize-only", "--summary", str(summary)]) == 0
    capsys.readouterr()
    stored = read_json(summary)  # strict: raises on Infinity
    assert stored["tasks"][0]["rows"][0]["upper"] == ["inf"]
    figs = draw(str(summary))
    assert figs and all(f.get_axes() for f in figs.values())


def test_a_seed_beyond_the_certifiers_limits_is_refused_and_the_sweep_goes_on(tiny_run, tmp_path, capsys,
                                                                                monkeypatch):
    """A run whose training length needs more input configurations per length than the certifier enumerates is
    recorded as refused with the reason (counted apart in the summary, not retried on resume) instead of ending the
    whole sweep; control: at the usual limit the same seeds are certified records."""
    from bounds.certify import search

    out = tmp_path / "c.jsonl"
    argv = ["--runs", str(tiny_run), "--time-budget", "1", "--out", str(out), "--summary",
            str(tmp_path / "s.json")]
    monkeypatch.setattr(search, "MAX_CONFIGS_PER_LENGTH", 1)
    code, text, err = _run(argv, capsys)
    assert code == 0, err
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(recs) == 2 and all("MAX_CONFIGS_PER_LENGTH" in r["refused"] and "construction" not in r
                                  for r in recs)
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["records"] == 0 and summary["refused"][0]["seeds"] == 2 and "refused:" in text
    code, _, err = _run(argv + ["--resume"], capsys)  # nothing retried
    assert code == 0 and len(out.read_text().splitlines()) == 2, err
    monkeypatch.undo()
    out.unlink()
    code, _, err = _run(argv, capsys)
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert code == 0 and all("refused" not in r and r["construction"]["verdict"] for r in recs), err
