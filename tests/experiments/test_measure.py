"""python -m bounds.experiments.measure (Izzo et al. sec. 5, App. B): CLI errors, resume, determinism, batch targets.

The claim-linked negative control is in verify/tests/izzo2025/test_measure_control.py.

Training tests need torch (``pip install torch==2.13.0``) and skip without it; the error paths and the
batch-target checks do not.  Every training run here is tiny (a few steps at N <= 4).
"""

import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from bounds.experiments.measure import main
from bounds.experiments.training.data import sample_batch
from constructions.tasks import ModPTask, SimpleTask

TINY = ["--train-lengths", "3", "--seeds", "2", "--steps", "15", "--batch", "16", "--test-batch", "16",
        "--test-multiples", "2", "--plateau-from", "1"]


def _err(capsys, *argv):
    assert main(list(argv)) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("bounds.experiments.measure: error:") and "Traceback" not in err
    return err


# ----------------------------------------------------------------------------------- usage errors
def test_usage_errors_exit_2_one_line(capsys, tmp_path):
    out = str(tmp_path / "r")
    assert "unknown task" in _err(capsys, "--task", "parity", "--train-lengths", "4", "--out", out)
    assert "--eps" in _err(capsys, "--task", "modp", "--eps", "0", "--train-lengths", "4", "--out", out)
    assert "--eps" in _err(capsys, "--task", "modp", "--eps", "-1", "--train-lengths", "4", "--out", out)
    assert "integers" in _err(capsys, "--task", "modp", "--train-lengths", ",", "--out", out)
    assert "MAX_TRAIN_LENGTH" in _err(capsys, "--task", "modp", "--train-lengths", "4,100000", "--out", out)
    assert "finite" in _err(capsys, "--task", "modp", "--eps", "nan", "--train-lengths", "4", "--out", out)
    assert "period" in _err(capsys, "--task", "modp", "--period", "0", "--train-lengths", "4", "--out", out)
    assert "either --preset" in _err(capsys, "--train-lengths", "4", "--out", out)
    assert "either --preset" in _err(capsys, "--preset", "quick", "--task", "modp", "--out", out)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert "run folder" in _err(capsys, "--task", "modp", "--train-lengths", "4", "--out", str(blocker / "r"))
    assert not (tmp_path / "r").exists()  # nothing trained, nothing written


def test_usage_error_as_subprocess_has_no_traceback(tmp_path):
    p = subprocess.run([sys.executable, "-m", "bounds.experiments.measure", "--task", "modp", "--train-lengths", "4", "--eps",
                        "0", "--out", str(tmp_path / "r")], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_cuda_without_cuda_exits_2(capsys, tmp_path):
    torch = pytest.importorskip("torch", reason="torch not installed (pip install torch==2.13.0)")
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present; the error path cannot be exercised")
    assert "cuda" in _err(capsys, "--task", "modp", "--device", "cuda", "--train-lengths", "4", "--out",
                          str(tmp_path / "r"))


def test_measure_and_estimate_import_no_torch():
    code = ("import sys, bounds.experiments.measure, bounds.estimate, bounds.experiments.training.train, bounds.experiments.training.loop, "
            "lengthgen_cli.sweep, bounds.experiments.training.progress, bounds.experiments.training.report; print('torch' in sys.modules)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.stdout.strip() == "False", p.stderr


def test_progress_is_printed_before_torch_is_imported(tmp_path):
    """The first progress line reaches stderr before torch's import starts (the issue: 15 s of silence)."""
    code = ("import sys, builtins; real = builtins.__import__\n"
            "def imp(name, *a, **k):\n"
            "    if name == 'torch' and 'torch' not in sys.modules:\n"
            "        sys.stderr.write('<<TORCH>>\\n'); sys.stderr.flush()\n"
            "    return real(name, *a, **k)\n"
            "builtins.__import__ = imp\n"
            "from bounds.experiments.measure import main; sys.exit(main(sys.argv[1:]))")
    p = subprocess.run([sys.executable, "-c", code, "--task", "modp", "--period", "2", *TINY, "--out",
                        str(tmp_path / "r")], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    first_torch = lines.index("<<TORCH>>")
    assert any("sweep" in line for line in lines[:first_torch]), lines[:first_torch + 1]


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


# ------------------------------------------------------------------------------ training runs
def _run(capsys, tmp_path, name, *extra):
    assert main(["--task", "modp", "--period", "2", *TINY, "--out", str(tmp_path / name), "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_resume_duplicates_and_determinism(capsys, tmp_path):
    pytest.importorskip("torch", reason="torch not installed (pip install torch==2.13.0)")
    first = _run(capsys, tmp_path, "a")
    t = first["tasks"][0]
    assert first["trained"] == 1 and t["predicted"]["proof_count_N"] == 223 and t["predicted"]["hardmax_length"] == 2
    # the corrected bound (bounds/corrected.py) of the ModP p = 2 construction at eps = 1/10
    assert t["predicted"]["N"] == _modp_corrected(2, Fraction(1, 10))
    assert t["summary"]["rows"][0]["seeds"] == 2 and len(t["summary"]["n_min_per_seed"]) == 2
    assert any("batch = 16" in d for d in t["deviations"])  # deviations from App. B are recorded
    assert main(["--task", "modp", "--period", "2", *TINY, "--out", str(tmp_path / "a")]) == 2
    assert "--resume" in capsys.readouterr().err  # an existing run folder is continued only on request
    again = _run(capsys, tmp_path, "a", "--resume")
    assert again["trained"] == 0 and again["tasks"][0]["summary"] == t["summary"]  # resumed: nothing retrained
    # the bug: --train-lengths 3,3 trained the same run twice and reported 2 seeds per run
    assert main(["--task", "modp", "--period", "2", "--train-lengths", "3,3", *TINY[2:], "--out",
                 str(tmp_path / "d"), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["trained"] == 1 and d["tasks"][0]["summary"]["rows"][0]["seeds"] == 2
    assert d["tasks"][0]["summary"] == t["summary"]  # determinism: a fresh folder gives the same numbers


def test_different_seed_changes_numbers():
    """Control for the determinism test: seeds matter (otherwise equal numbers would prove nothing)."""
    pytest.importorskip("torch", reason="torch not installed (pip install torch==2.13.0)")
    from bounds.experiments.training.train import train_group

    cfg = {"max_steps": 10, "batch": 16, "test_batch": 16, "test_multiples": [2], "plateau_from": 1}
    r = train_group("modp", {"period": 2}, 3, [0, 1], cfg, device="cpu")
    assert r["runs"][0]["plateau"] != r["runs"][1]["plateau"]


def test_missing_torch_exits_2(monkeypatch, capsys, tmp_path):
    """Without torch the CLI says how to install it (exit 2, one line), instead of a traceback."""
    monkeypatch.setitem(sys.modules, "torch", None)  # makes `import torch` raise ImportError
    assert "torch==2.13.0" in _err(capsys, "--task", "modp", "--train-lengths", "2", "--steps", "1", "--out",
                                   str(tmp_path / "r"))


def _modp_corrected(p: int, eps: Fraction) -> int:
    """N_1 of bounds/corrected.py by hand for the class of the App. A.2 ModP construction (its modulus 1/2, so the
    class's K = 1, eta = eps; |Sigma| = 2, Delta = p, tau = 0, k = 2, H = 2 below N_1): the best over the lambda
    menu of 1 + w + Delta (|Sigma| (ceil(lambda theta^-2) + 1) + 2) with theta the largest admissible one."""
    from bounds.corrected import LAMBDAS, ProofConstants, _largest_theta

    best = None
    for lam in LAMBDAS:
        pc = ProofConstants(2, p, 1, 2, Fraction(1), eps, lam)
        th = _largest_theta(pc)
        assert pc.admissible(th) and not pc.admissible(th * (1 + Fraction(1, 2**40)))
        x = lam / th**2
        n1 = 2 + p * (2 * (-(-x.numerator // x.denominator) + 1) + 2)
        best = n1 if best is None else min(best, n1)
    return best
