"""bounds.certify on tiny pairs: verdicts, soundness of the branch-and-bound against enumeration, negative controls
and the command line (one-line errors, --json, --runs with --out/--resume)."""

import json
import os
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings

from bounds.certify.cli import main
from bounds.certify.search import (
    CertifyError,
    Problem,
    branch_and_bound,
    certify,
    enumerate_length,
    task_target,
)
from constructions.limit_transformer import exact_forward
from constructions.limit_transformer.serialize import save_model
from constructions.strategies import limit_transformers
from constructions.tasks import ModPTask
from counterexamples.izzo.estimate_breaks import residual_pair
from counterexamples.izzo.witnesses import bump_pair

# Certificates in these tests are fixed by work limits (``max_length`` enumerated, ``max_boxes`` split), never by
# the clock: CAP_S only stops a runaway search and is never reached on a loaded machine (each takes < 2 s idle).
CAP_S = 600.0


def test_model_against_itself_is_certified_with_zero():
    g = ModPTask(2, 1).limit_transformer()
    cert = certify(Problem(g, g, ("izzo", "izzo")), 0.1, budget_s=CAP_S, max_length=8, max_boxes=48)
    assert cert.verdict == "certified" and cert.upper == 0.0 and cert.long.upper == 0.0


def test_bump_pair_fails_with_its_string():
    """f = g exactly up to length 2N = 4, |f - g| >= 1/2 at 5 (counterexamples.izzo.witnesses)."""
    f, g = bump_pair(2)
    cert = certify(Problem(f, g, ("izzo", "izzo")), 0.1, delta=0.0, budget_s=CAP_S, max_length=6, max_boxes=48)
    assert cert.verdict == "fails"
    assert cert.rows[0].length == 2  # the empty input (model length 1) is never trained: left out by default
    assert all(r.upper < 1e-9 for r in cert.rows[:3])  # f = g exactly on lengths 2..4: certified to rounding
    assert (cert.horizon.H, cert.horizon.X, cert.horizon.exact) == (4, 5, True)
    row = cert.rows[3]
    assert row.lower >= 0.5 and sorted(row.witness) == ["0", "0", "0", "1"]
    exact = abs(exact_forward(f, row.witness, positions="last")[0] - exact_forward(g, row.witness, positions="last")[0])
    assert row.lower <= exact <= row.upper  # the realized string, evaluated exactly


def test_residual_pair_fails_and_long_bound_is_sound():
    """The pair agrees up to length 2 and its disagreement approaches 3 (z3: sup = 3): every certified upper bound
    must be >= every realized value."""
    f, g = residual_pair()
    prob = Problem(f, g, ("izzo", "izzo"))
    cert = certify(prob, 0.1, delta=0.0, budget_s=CAP_S, max_length=8, max_boxes=48)
    assert cert.verdict == "fails"
    assert cert.upper >= 3 - 1e-9 and cert.lower < 3  # the sup 3 is approached, never attained
    far = enumerate_length(prob, 40)
    assert far.lower <= cert.long.upper


def test_modp_construction_against_its_target_is_certified():
    """The construction is exact at every length; f and the target are bounded separately on each box, so the
    bound converges like the box width (eps = 1/2 here, to stay within seconds).  The enumerated lengths are
    fixed (``max_length``) rather than fitted to a wall-clock budget and the boxes split are limited, so the verdict
    does not depend on the load (about 0.5 s at low load)."""
    g = ModPTask(2, 0).limit_transformer()
    cert = certify(Problem(g, None, ("izzo", "izzo"), task_target("modp", {"period": 2, "index": 0})), 0.5,
                   budget_s=CAP_S, first=2, max_length=8, max_boxes=96)
    assert cert.verdict == "certified" and cert.upper <= 0.5 and cert.lower < 1e-9
    assert all(r.upper < 1e-9 for r in cert.rows)  # every short length exactly


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(f=limit_transformers(depth=(1, 1), heads=(1, 1), activations=("relu",), precision="izzo", max_tau=0,
                            max_period=2, qk_scale=(1, 1)),
       g=limit_transformers(depth=(1, 1), heads=(1, 1), activations=("relu",), precision="izzo", max_tau=0,
                            max_period=2, qk_scale=(1, 1)))
def test_branch_and_bound_dominates_every_longer_length(f, g):
    """Soundness: U over every length > N0 is >= the certified max at lengths N0 + 1 .. N0 + 3 (enumerated).
    Negative control: U minus the gap to that max (when positive) is rejected by the same comparison."""
    prob = Problem(f, g, ("softmax", "izzo"))
    N0 = 4
    res = branch_and_bound(prob, N0, tol=0.05, budget_s=CAP_S, max_boxes=96)
    seen = max(enumerate_length(prob, n).lower for n in range(N0 + 1, N0 + 4))
    assert seen <= res.upper
    assert res.lower <= res.upper
    if seen > 0:
        assert not seen <= seen - 1e-3  # a bound below a realized value is caught


def test_refusals():
    f = ModPTask(2, 0).limit_transformer()
    with pytest.raises(CertifyError, match="target function"):
        Problem(f, f, ("izzo", "izzo"), task_target("modp", {"period": 2}))


def _run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_pair_and_errors(tmp_path, capsys):
    f, g = bump_pair(1)
    save_model(f, tmp_path / "f.json")
    save_model(g, tmp_path / "g.json")
    code, out, _ = _run(["--model", str(tmp_path / "f.json"), "--against", str(tmp_path / "g.json"), "--semantics",
                         "izzo", "--time-budget", "2", "--max-length", "4", "--json"], capsys)
    rec = json.loads(out)
    assert code == 0 and rec["verdict"] == "fails" and rec["lower"] > 0.1
    row = rec["lengths"][1]  # length 3 = 2N + 1 (rows start at 2): the first break, its string evaluated exactly
    assert rec["lengths"][0]["length"] == 2
    assert (rec["horizon"]["H"], rec["horizon"]["X"], rec["horizon"]["witness"]["string"]) == (2, 3, row["witness"])
    exact = abs(exact_forward(f, row["witness"], positions="last")[0] - exact_forward(g, row["witness"],
                                                                                      positions="last")[0])
    assert row["lower"] - 1e-9 <= exact <= row["upper"] + 1e-9 and exact >= Fraction(1, 2)
    code, out, _ = _run(["--model", str(tmp_path / "f.json"), "--against", str(tmp_path / "f.json"), "--semantics",
                         "izzo", "--time-budget", "2", "--max-length", "4"], capsys)
    assert code == 0 and "verdict: certified" in out and "semantics: f izzo (p = " in out
    empty = tmp_path / "empty"
    empty.mkdir()
    for argv, msg in ([[], "give --model"],
                      [["--model", str(tmp_path / "f.json")], "--against FILE or --target-fn"],
                      [["--model", str(tmp_path / "nope.json"), "--target-fn", "--task", "modp", "--period", "2"],
                       "nope.json"],
                      [["--model", str(tmp_path / "f.json"), "--target-fn"], "--task"],
                      [["--runs", str(tmp_path / "missing")], "not a folder"],
                      [["--runs", str(tmp_path)], "f.json is not a bounds.experiments.measure run record"],
                      [["--runs", str(empty)], "no bounds.experiments.measure run records"]):
        code, _, err = _run(argv, capsys)
        assert code == 2 and msg in err and err.count("\n") == 1 and "Traceback" not in err


def test_cli_unknown_flag_is_one_line():
    r = subprocess.run([sys.executable, "-m", "bounds.certify", "--bogus"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "error" in r.stderr


def test_cli_runs_records_resume_and_soundness(tiny_run, tmp_path, capsys):
    out = tmp_path / "c.jsonl"
    argv = ["--runs", str(tiny_run), "--target-fn", "--time-budget", "1", "--out", str(out), "--seeds", "1"]
    code, text, _ = _run(argv + ["--summary", str(tmp_path / "s.json")], capsys)
    assert code == 0 and "1 trained seeds" in text
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(recs) == 1 and recs[0]["construction"]["verdict"] in ("certified", "fails", "undetermined")
    for which in ("construction", "target"):  # each record carries H and X; lengths from 2 as in pair mode
        h = recs[0][which]["horizon"]
        assert h["first_length"] == 2 and recs[0][which]["lengths"][0][0] == 2
        assert h["every_length"] or (h["H"] >= 1 and (h["X"] is None or h["X"] > h["H"]))
    assert "certified horizon per seed" in text and "shortest X" in text and "RMSE@8N: the trained network" in text
    from bounds.certify.runs import soundness

    assert all(ok for *_, ok in soundness(recs[0]))
    code, _, err = _run(argv, capsys)  # an existing record stream needs --resume
    assert code == 2 and "--resume" in err
    code, text, _ = _run(argv[:-2] + ["--seeds", "2", "--resume"], capsys)  # the first seed is skipped
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert code == 0 and [r["seed"] for r in recs] == [0, 1]
    assert json.loads((tmp_path / "s.json").read_text())["records"] == 1


@pytest.mark.slow
def test_certify_runs_interrupted_then_resumed_records_each_seed_once(tiny_run, tmp_path):
    """bounds.certify --runs writes one JSON line per certified seed: after Ctrl-C the lines written stay byte
    for byte and --resume adds only the missing seeds, each once (torch; ~1 minute)."""
    from tests.test_interrupt_resume import ROOT, _interrupt, _lines

    out = tmp_path / "c.jsonl"
    argv = ["bounds.certify", "--runs", str(tiny_run), "--target-fn", "--time-budget", "3", "--seeds", "2", "--out",
            str(out)]
    code, err = _interrupt(argv, lambda: len(_lines(out)) >= 1)
    assert code == 130 and err.endswith("bounds.certify: interrupted\n") and "Traceback" not in err, err
    before = out.read_bytes()
    assert [json.loads(line)["seed"] for line in _lines(out)] == [0]
    p = subprocess.run([sys.executable, "-m", *argv, "--resume"], cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    assert p.returncode == 0, p.stderr
    assert out.read_bytes().startswith(before)
    assert [json.loads(line)["seed"] for line in _lines(out)] == [0, 1]


def test_soundness_check_rejects_a_lowered_bound():
    """Negative control of the soundness test: a record whose certified sup is pushed below the measured error."""
    from bounds.certify.runs import soundness

    rec = {"construction": {"upper": 0.05}, "construction_error": 0.0, "measured": {"test_loss": {"2": 0.01}}}
    assert not soundness(rec)[0][3]  # RMSE 0.1 > 0.05
    rec["construction"]["upper"] = 0.2
    assert soundness(rec)[0][3]


def test_fraction_eps_text(tmp_path, capsys):
    g = ModPTask(2, 0).limit_transformer()
    save_model(g, tmp_path / "g.json")
    code, out, _ = _run(["--model", str(tmp_path / "g.json"), "--target-fn", "--task", "modp", "--period", "2",
                         "--semantics", "izzo", "--eps", "1/2", "--first-length", "2", "--max-length", "8",
                         "--max-boxes", "48", "--time-budget", str(CAP_S), "--json"], capsys)
    rec = json.loads(out)
    assert code == 0 and rec["eps"] == float(Fraction(1, 2)) and rec["verdict"] == "certified"


ABSOLUTE = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "results", "izzo2025-trained-absolute.json")


def test_trained_model_with_absolute_positions_fails_with_a_realized_string():
    """Negative control (absolute positions are no Limit Transformer encoding): the committed ModP p = 2 run trained
    at N = 4 with an absolute table of 9 rows, read with period 9 (the same outputs on every input it reads), fails
    against the App. A.2 construction on a string within its table, confirmed on the trained torch network; the same
    model against itself is certified with U = 0 (the check can also pass)."""
    from bounds.certify.trained import absolute_as_periodic

    with open(ABSOLUTE, encoding="utf-8") as fh:
        rec = json.load(fh)["record"]
    assert rec["config"]["positions"] == "absolute"
    f, max_len = absolute_as_periodic(rec, 0)
    task = ModPTask(2, 0)
    g = task.limit_transformer()
    cert = certify(Problem(f, g, ("softmax", "izzo")), 0.1, None, rec["N"] + 1, budget_s=CAP_S, first=2,
                   defined_up_to=max_len)
    assert cert.verdict == "fails" and rec["N"] + 1 < cert.witness_length <= max_len
    assert cert.lower > cert.delta[1] + 0.1 and cert.long.boxes_split == 0  # nothing claimed beyond the table
    torch = pytest.importorskip("torch")
    from bounds.experiments.training.train import rebuild

    ids = f.encode(cert.witness)[0]
    assert len(ids) == cert.witness_length
    with torch.no_grad():
        out = rebuild(rec, 0)(torch.tensor(ids[None, :]))[0, -1].item()
    assert abs(abs(out - float(task.target(cert.witness))) - cert.lower) < 1e-4  # the trained network itself
    same = certify(Problem(f, f, ("softmax", "softmax")), 0.1, None, rec["N"] + 1, budget_s=CAP_S, first=2,
                   defined_up_to=max_len)
    assert same.verdict == "certified" and same.upper == 0.0


def test_trained_model_against_itself_is_certified_with_zero():
    """A trained network (the committed witness run: exact softmax, d = 16, width 256) against itself: U = 0 at every
    length, the branch-and-bound included."""
    from bounds.certify.trained import from_record

    path = os.path.join(os.path.dirname(ABSOLUTE), "izzo2025-trained-witness.json")
    with open(path, encoding="utf-8") as fh:
        f = from_record(json.load(fh)["record"], 0)
    cert = certify(Problem(f, f, ("softmax", "softmax")), 0.1, budget_s=CAP_S, first=2, max_length=8, max_boxes=48)
    assert cert.verdict == "certified" and cert.upper == 0.0 and cert.long.upper == 0.0
