"""``python -m bounds.experiments.reproduce ahuja2024`` end to end on tiny budgets (seconds), resume, CLI errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from bounds.experiments.ahuja2024_networks import compositional_tokens

torch = pytest.importorskip("torch")


def _main(argv):
    from bounds.experiments.reproduce import main

    return main(argv)


def test_tiny_table1_end_to_end_then_resume(tmp_path, capsys):
    args = ["ahuja2024", "--table", "1", "--preset", "tiny", "--out", str(tmp_path / "runs"),
            "--results", str(tmp_path / "t1.json"), "--json"]
    assert _main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["records"]) == 9  # 4 architectures x 2 learner classes + the softmax transformer (Fig. 3)
    for r in out["records"]:
        assert len(r["test_loss_by_length"]) == 12 and all(np.isfinite(r["test_loss_by_length"]))
        assert set(r["identification"]) == {"6", "12"}
        assert -1 < r["identification"]["12"]["r2"]["mean"] <= 1
    rnn = [r for r in out["records"] if r["arch"] == "rnn"]
    assert all(len(r["permutation"]["per_seed"]) == 2 for r in rnn)
    for name in ("t1.png", "t1.svg", "t1-fig3.png", "t1-fig3.svg"):
        assert (tmp_path / name).exists()
    soft = [r for r in out["records"] if r["model"] == "transformer-softmax"]
    assert len(soft) == 1 and len(soft[0]["exemplar"]["true"]) == 12
    saved = json.loads((tmp_path / "t1.json").read_text())
    assert saved["records"] == out["records"]
    # resume: every run is recorded, so nothing retrains; a lost record is redone, and only that one
    files = sorted(os.listdir(tmp_path / "runs"))
    mtimes = {f: os.path.getmtime(tmp_path / "runs" / f) for f in files}
    os.unlink(tmp_path / "runs" / files[0])
    assert _main(args) == 2 and "--resume" in capsys.readouterr().err  # a folder with records needs --resume
    assert _main([*args, "--resume"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert sorted(os.listdir(tmp_path / "runs")) == files
    assert all(os.path.getmtime(tmp_path / "runs" / f) == mtimes[f] for f in files[1:])
    assert [r["test_loss_by_length"] for r in again["records"]] == [r["test_loss_by_length"] for r in out["records"]]


def test_tiny_table3_uses_theorem10_threshold(tmp_path, capsys):
    assert _main(["ahuja2024", "--table", "3", "--preset", "tiny", "--out", str(tmp_path / "r"),
                  "--results", str(tmp_path / "t3.json")]) == 0
    text = capsys.readouterr().out
    assert "Table 3" in text and "0.0007" in text  # the paper's numbers are printed beside ours
    rows = json.loads((tmp_path / "t3.json").read_text())["records"]
    by = {(r["arch"], r["regime"]): r for r in rows}
    assert by[("deepset", "short")]["threshold"]["paper_T0"] == 5
    assert by[("transformer", "short")]["threshold"]["paper_T0"] == 10
    assert all(r["threshold"]["theorem_holds"] for r in rows)
    assert by[("deepset", "short")]["train_len"] == 5 and by[("deepset", "long")]["train_len"] == 10


@pytest.mark.parametrize("argv, needle", [
    (["nosuchpaper"], "invalid choice"),
    (["ahuja2024", "--table", "4"], "invalid choice"),
    (["ahuja2024", "--table", "1", "--seeds", "0"], "--seeds"),
    (["ahuja2024", "--table", "1", "--seeds", "1000"], "MAX_SEEDS"),
    (["ahuja2024", "--table", "3", "--archs", "rnn"], "none of the architectures"),
    (["ahuja2024", "--table", "1", "--archs", "lstm"], "--archs"),
    (["ahuja2024", "--table", "1", "--results", "/no/such/dir/x.json"], "does not exist"),
])
def test_cli_errors_are_one_line_exit_2(argv, needle, tmp_path):
    if argv[0] == "ahuja2024" and "--table" in argv:
        argv = [*argv, "--out", str(tmp_path / "fresh")]
    r = subprocess.run([sys.executable, "-m", "bounds.experiments.reproduce", *argv], capture_output=True, text=True)
    assert r.returncode == 2 and needle in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_compositional_supports_are_disjoint_and_exact():
    rng = np.random.default_rng(0)
    inside = compositional_tokens(rng, 400, 10, 5, inside=True)
    corner = compositional_tokens(rng, 400, 10, 5, inside=False)
    s_in, s_out = np.abs((inside - 0.5).sum(axis=1)), np.abs((corner - 0.5).sum(axis=1))
    assert (s_in <= 0.5).all() and (s_out > 0.5).all()
    # every token marginal still covers [0, 1] (the theorems' full-marginal support), negative control: corners
    assert inside.min() < 0.05 and inside.max() > 0.95
    assert 0.2 < s_in.mean() < 0.3 and s_out.mean() > 0.9


@pytest.mark.slow
def test_sigkill_mid_sweep_then_resume_loses_and_duplicates_nothing(tmp_path, capsys):
    """A SIGKILL while the sweep runs leaves whole records only; --resume completes it, each run once (~30 s)."""
    import signal
    import time

    runs = tmp_path / "runs"
    base = ["--table", "1", "--preset", "tiny", "--out", str(runs), "--results", str(tmp_path / "k.json"), "--json"]
    proc = subprocess.Popen([sys.executable, "-m", "bounds.experiments.reproduce", "ahuja2024", *base],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120

    def records():
        return sorted(f for f in os.listdir(runs) if f.endswith(".json") and not f.startswith(".tmp-"))

    while time.time() < deadline and not (runs.is_dir() and records()):
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = records()
    assert done_before  # the kill came after at least one record; a torn temporary file is no record
    for f in done_before:
        assert json.loads((runs / f).read_text())["record"]["test_loss"]
    assert _main(["ahuja2024", *base, "--resume"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["records"]) == 9 and len({r["key"] for r in out["records"]}) == 9
    assert set(done_before) <= set(records()) and len(records()) == 9
