"""python -m bounds.measure (Izzo et al. sec. 5, App. B): CLI errors, resume, determinism, batch targets, controls.

Training tests need torch (``pip install torch==2.13.0``) and skip without it; the error paths and the
batch-target checks do not.  Every training run here is tiny (a few steps at N <= 4).
"""

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from bounds.measure import main, read_records, summarize
from bounds.training.data import sample_batch
from constructions.tasks import ModPTask, SimpleTask

TINY = ["--train-lengths", "3", "--seeds", "1", "--steps", "15", "--batch", "16", "--test-batch", "16",
        "--test-multiples", "2", "--plateau-from", "1"]


def _err(capsys, *argv):
    assert main(list(argv)) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("bounds.measure: error:") and "Traceback" not in err
    return err


# ----------------------------------------------------------------------------------- usage errors
def test_usage_errors_exit_2_one_line(capsys, tmp_path):
    out = str(tmp_path / "r.jsonl")
    assert "unknown task" in _err(capsys, "--task", "parity", "--train-lengths", "4", "--out", out)
    assert "--eps" in _err(capsys, "--eps", "0", "--train-lengths", "4", "--out", out)
    assert "--eps" in _err(capsys, "--eps", "-1", "--train-lengths", "4", "--out", out)
    assert "empty" in _err(capsys, "--train-lengths", ",", "--out", out)
    assert "period" in _err(capsys, "--period", "0", "--train-lengths", "4", "--out", out)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert "cannot write" in _err(capsys, "--train-lengths", "4", "--out", str(blocker / "r.jsonl"))
    assert "cannot write" in _err(capsys, "--train-lengths", "4", "--out", str(tmp_path))
    assert not (tmp_path / "r.jsonl").exists()  # nothing trained, nothing written


def test_usage_error_as_subprocess_has_no_traceback(tmp_path):
    p = subprocess.run([sys.executable, "-m", "bounds.measure", "--train-lengths", "4", "--eps", "0",
                        "--out", str(tmp_path / "r.jsonl")], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_cuda_without_cuda_exits_2(capsys, tmp_path):
    torch = pytest.importorskip("torch", reason="torch not installed (pip install torch==2.13.0)")
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present; the error path cannot be exercised")
    assert "cuda" in _err(capsys, "--device", "cuda", "--train-lengths", "4", "--out", str(tmp_path / "r.jsonl"))


def test_measure_and_estimate_import_no_torch():
    code = ("import sys, bounds.measure, bounds.estimate, bounds.training.train; "
            "print('torch' in sys.modules)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.stdout.strip() == "False", p.stderr


# ------------------------------------------------------------------------------ batch targets
@pytest.mark.parametrize("task", [ModPTask(3, 1), ModPTask(2, 0), ModPTask(5, 7), SimpleTask(4), SimpleTask(1)])
def test_batch_targets_equal_task_targets(task):
    """The vectorized targets are the tasks' exact prefix targets on the same sampled strings."""
    ids, tg = sample_batch(task, np.random.default_rng(3), 23, 6)
    strings = task.sample(np.random.default_rng(3), 23, 6)
    for i, s in enumerate(strings):
        assert [int(v) - 1 for v in ids[i, 1:]] == [int(c) for c in s] and ids[i, 0] == 0
        assert np.allclose([float(v) for v in task.prefix_targets(s)], tg[i], atol=1e-12)


def test_batch_targets_control_wrong_index_differs():
    ids, tg = sample_batch(ModPTask(3, 1), np.random.default_rng(0), 30, 8)
    _, other = sample_batch(ModPTask(3, 2), np.random.default_rng(0), 30, 8)
    assert not np.allclose(tg, other)


# ------------------------------------------------------------------------------------ summary
def test_summary_threshold_and_none():
    recs = [{"N": n, "seed": s, "plateau": v, "train_loss": 0.0, "test_loss": {"2": v}, "reached_target": True}
            for n, s, v in [(4, 0, 0.2), (4, 1, 0.1), (8, 0, 0.004), (8, 1, 0.02), (16, 0, 0.001), (16, 1, 0.002)]]
    s = summarize(recs, [4, 8, 16], 0.01)
    assert math.isclose(s["rows"][1]["plateau_mean"], 0.012)
    assert s["measured_threshold"] == 16  # the mean at N = 8 is 0.012 >= eps (the best seed alone would say 8)
    assert s["measured_threshold_all_seeds"] == 16 and s["measured_threshold_stable"] == 16
    recs.append({**recs[0], "N": 32, "plateau": 0.5})  # a failed run at a larger N breaks stability
    assert summarize(recs, [4, 8, 16, 32], 0.01)["measured_threshold_stable"] is None
    recs.pop()
    s = summarize(recs, [4, 8, 16], 0.013)
    assert s["measured_threshold"] == 8 and s["measured_threshold_all_seeds"] == 16  # worst seed 0.02 at N = 8
    assert summarize(recs, [4, 8, 16], 1e-4)["measured_threshold"] is None  # nothing below: None, not max N
    recs[3]["reached_target"] = False  # N = 8, seed 1 (plateau 0.02) did not fit: the converged mean is 0.004
    s = summarize(recs, [4, 8, 16], 0.01)
    assert s["measured_threshold"] == 16 and s["measured_threshold_converged"] == 8


# ------------------------------------------------------------------------------ training runs
def test_resume_and_determinism(capsys, tmp_path):
    pytest.importorskip("torch", reason="torch not installed (pip install torch==2.13.0)")
    out = tmp_path / "r.jsonl"
    assert main(["--task", "modp", "--period", "2", *TINY, "--out", str(out), "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["trained"] == 1 and len(read_records(str(out))) == 1
    assert first["prediction"]["proof_count_N"] == 223 and first["prediction"]["hardmax_length"] == 2
    assert first["prediction"]["N"] == 2 + 2 + 2 * (5 + 11 * 40 + 11 * 1600)  # corrected (bounds/corrected.py)
    assert main(["--task", "modp", "--period", "2", *TINY, "--out", str(out), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["trained"] == 0 and len(read_records(str(out))) == 1  # resumed: no new training
    assert again["rows"] == first["rows"]
    # determinism: a fresh file with the same arguments gives the same numbers
    out2 = tmp_path / "r2.jsonl"
    assert main(["--task", "modp", "--period", "2", *TINY, "--out", str(out2), "--json"]) == 0
    fresh = json.loads(capsys.readouterr().out)
    assert fresh["rows"] == first["rows"]
    # a torn last line (interrupt) is ignored and the missing run is redone
    out2.write_text(out2.read_text()[:40])
    assert main(["--task", "modp", "--period", "2", *TINY, "--out", str(out2), "--json"]) == 0
    healed = json.loads(capsys.readouterr().out)
    assert healed["trained"] == 1 and healed["rows"] == first["rows"]


def test_different_seed_changes_numbers(capsys, tmp_path):
    """Control for the determinism test: seeds matter (otherwise equal numbers would prove nothing)."""
    pytest.importorskip("torch", reason="torch not installed (pip install torch==2.13.0)")
    from bounds.training.train import RunConfig, train_run

    cfg = RunConfig(max_steps=10, batch=16, test_batch=16, test_multiples=(2,), plateau_from=1)
    a = train_run(ModPTask(2, 0), "modp(p=2,k=0)", 3, 0, cfg)
    b = train_run(ModPTask(2, 0), "modp(p=2,k=0)", 3, 1, cfg)
    assert a["plateau"] != b["plateau"]


def test_missing_torch_exits_2(monkeypatch, capsys, tmp_path):
    """Without torch the CLI says how to install it (exit 2, one line), instead of a traceback."""
    monkeypatch.setitem(sys.modules, "torch", None)  # makes `import torch` raise ImportError
    assert "torch==2.13.0" in _err(capsys, "--train-lengths", "2", "--steps", "1", "--out", str(tmp_path / "r.jsonl"))
