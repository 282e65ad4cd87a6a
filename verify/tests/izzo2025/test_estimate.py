"""python -m bounds.estimate (Izzo et al. Theorem 4.1) and the tau = 0 counterexample to the printed bound."""

import itertools
import json
import math
import subprocess
import sys
from fractions import Fraction

import pytest

from bounds.estimate import main, printed_sample_term, sample_length
from bounds.margin import INF, ingredients
from constructions.limit_transformer import exact_forward, forward, save_model
from constructions.tasks import ModPTask
from counterexamples.izzo.witnesses import bump_pair, check_bump_pair, strict_precision_violations
from verify.claims import checks

KEYS = {"gamma", "L", "tau", "period", "alphabet_size", "precision_bits", "eps", "hardmax_length", "sample_length", "N"}


def _json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


# ----------------------------------------------------------------------------------------- output
@checks("izzo2025:thm4.1")
def test_modp_json(capsys):
    r = _json(capsys, "--task", "modp")
    assert KEYS <= r.keys() and r["bound"] == "corrected" and r["mode"] == "exact"
    assert (r["gamma"], r["L"], r["tau"], r["period"], r["alphabet_size"], r["precision_bits"]) == ("8", 1.0, 0, 5, 2, 8)
    assert r["hardmax_length"] == 2
    # corrected (class of the model): the model's modulus is 1/2, the class's K = 2 * 1/2 = 1, eta = eps/K = 1/10,
    # |Sigma| = 2, Delta = 5, w = 1, k = 2; N = N_1 = 1 + w + 5 (2 (ceil(lambda theta^-2) + 1) + 2) with the printed
    # lambda and theta (N_H = 2 + 5 (2 + 4) is smaller), and theta meets the budget a theta + rho* <= eta exactly
    c = r["corrected"]
    lam, th = Fraction(c["lambda"]), Fraction(c["theta"])
    assert (c["K"], c["eta"], c["nesting"], c["scope"]) == ("1", "1/10", 2, "class")
    from bounds.corrected import ProofConstants

    pc = ProofConstants(2, 5, 1, 2, Fraction(1), Fraction(1, 10), lam, th)
    assert pc.admissible(th) and not pc.admissible(th * (1 + Fraction(1, 2**40)))
    x = lam / th**2
    n1 = 2 + 5 * (2 * (-(-x.numerator // x.denominator) + 1) + 2)
    assert r["sample_length"] == n1 == r["N"]
    # lower (bump family): q = eps (17/16)/(4 K_model) = 17/320, N_b = floor(303/17) = 17, agree = 18*5 + 1 = 91
    assert r["lower"]["family"] == "bump" and r["lower"]["agree"] == 91 and r["lower"]["N"] == 92
    assert 4 < r["ratio_log10_upper"] < 6 and math.log10(n1 / 92) <= r["ratio_log10_upper"]
    # the earlier proof count: 1 + Delta (tau+1) (1 + L/eps + L^2/eps^2) = 1 + 5 (1 + 10 + 100)
    assert r["proof_count"] == {"hardmax_length": 2, "sample_length": 556, "N": 556} and r["printed_sample_term"] == 0
    assert r["as_published"]["N"] == 1  # printed gamma = +inf, tau = 0: max(1, 0)
    r = _json(capsys, "--task", "modp", "--period", "7", "--index", "3", "--eps", "1/4", "--precision-bits", "2",
              "--proof-count")
    assert r["period"] == 7 and r["gamma"] == "2" and r["sample_length"] == 1 + 7 * (1 + 4 + 16) == r["N"]


@checks("izzo2025:thm4.1")
def test_text_output_names_every_ingredient(capsys):
    assert main(["--task", "simple", "--omega", "3"]) == 0
    out = capsys.readouterr().out
    for word in ["gamma =", "L =", "tau =", "Delta =", "|Sigma| =", "p =", "eps =", "hardmax_length", "sample_length",
                 "N =", "corrected", "as published", "proof count", "exact rational arithmetic", "constant 1",
                 "bracket for the class", "<= N* <=", "lower (certified", "upper (proved"]:
        assert word in out


@checks("izzo2025:thm4.1")
def test_model_files_and_pairs(tmp_path, capsys):
    f = tmp_path / "modp.json"
    save_model(ModPTask(3, 1).limit_transformer(), f)
    r = _json(capsys, "--model", str(f), "--eps", "0.5", "--proof-count")
    assert r["period"] == 3 and r["L"] == 1.0 and r["sample_length"] == 1 + 3 * (1 + 2 + 4)
    g = tmp_path / "bump.json"
    save_model(bump_pair(4)[1], g)
    r2 = _json(capsys, "--model", str(f), "--model", str(g))
    assert r2["gamma"] == "8" and r2["L"] > 100 and r2["period"] == 3 and r2["alphabet_size"] == 2
    r3 = _json(capsys, "--model", str(f), "--against", str(g))
    assert r3["N"] == r2["N"] and r3["corrected"]["nesting"] == 2  # one head each
    r4 = _json(capsys, "--model", str(f), "--as-published")
    assert r4["bound"] == "as-published" and r4["N"] == r4["as_published"]["N"]


def test_sample_length_formula():
    assert sample_length(0, 1, Fraction(0), Fraction(1, 10)) == 2  # L = 0: z is ($, the suffix)
    assert sample_length(0, 1, Fraction(1, 100), Fraction(1)) == 1 + math.ceil(1 + 2 * 0.1)  # small-L branch
    base = sample_length(1, 2, Fraction(9), Fraction(1, 2))
    assert base == 1 + 2 * 2 * (1 + 6 + 36)
    assert sample_length(2, 2, Fraction(9), Fraction(1, 2)) > base < sample_length(1, 3, Fraction(9), Fraction(1, 2))
    assert sample_length(1, 2, Fraction(10), Fraction(1, 2)) > base < sample_length(1, 2, Fraction(9), Fraction(1, 3))
    assert sample_length(1, 2, Fraction(2), Fraction(1)) == 1 + math.ceil(4 * (1 + 2 + 2**0.5))  # irrational L, exact


# ------------------------------------------------------------------------------------------ errors
@pytest.mark.parametrize("argv,needle", [
    (["--task", "nope"], "unknown task"),
    (["--eps", "0"], "--eps: '0' must be positive"),
    (["--eps=-1/2"], "--eps: '-1/2' must be positive"),
    (["--eps", "x"], "not a number"),
    (["--precision-bits", "0"], "--precision-bits: '0' must be >= 1"),
    (["--precision-bits", "1000000000"], "beyond the limit 4096"),  # was a hang
    (["--period", "0"], "--period"),
    (["--period", "1000000000"], "beyond the limit 64"),  # was a hang
    (["--mlp-error", "nan"], "not a finite number"),  # was a traceback
    (["--true-max-length", "0"], "--true-max-length"),
    (["--bogus"], "unrecognized"),
    (["--against", "g.json"], "--against needs --model"),
    (["--as-published", "--proof-count"], "not allowed"),
])
def test_usage_errors_exit_2_one_line(argv, needle, capsys):
    with pytest.raises(SystemExit) as e:
        code = main(argv)
        raise SystemExit(code)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_bad_model_files_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    incons = tmp_path / "incons.json"
    m = ModPTask(3, 1).limit_transformer()
    save_model(m, incons)
    data = json.loads(incons.read_text())
    data["embedding"] = data["embedding"][:2]  # 2 rows for '$' + 2 symbols
    incons.write_text(json.dumps(data))
    deep = tmp_path / "deep.json"
    from constructions.limit_transformer import LimitTransformer
    save_model(LimitTransformer(m.alphabet, m.embedding, m.layers * 2, m.unembedding, m.positions), deep)
    huang = tmp_path / "huang.json"
    save_model(LimitTransformer(m.alphabet, m.embedding, m.layers, m.unembedding, m.positions, precision="huang"),
               huang)
    for path, needle in [(bad, "not valid JSON"), (incons, "row"), (tmp_path / "missing.json", "cannot read"),
                         (deep, "one-layer"), (huang, "izzo")]:
        assert main(["--model", str(path)]) == 2
        err = capsys.readouterr().err
        assert needle in err and err.count("\n") == 1, err


def test_subprocess_one_line_and_no_torch():
    """The estimate never imports torch (the wall-clock target is measured by scripts/bench_foundation.py)."""
    code = ("import sys; from bounds.estimate import main; rc = main(['--task', 'modp']);"
            " assert rc == 0; assert 'torch' not in sys.modules, 'torch'")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    p = subprocess.run([sys.executable, "-m", "bounds.estimate", "--task", "x"], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr


# ------------------------------------------------------------------- Theorem 4.1 with tau = 0 (gap)
@checks("izzo2025:thm4.1")
@pytest.mark.parametrize("N", [1, 2, 3, 5, 20, 50])
def test_bump_pair_refutes_printed_tau0(N):
    f, g = bump_pair(N)
    rep = check_bump_pair(f, g, N)
    assert rep.refutes_printed and rep.agree_up_to == 2 * N and rep.difference >= Fraction(1, 2)
    if N <= 20:  # also valid under the strict reading "every quantity <= 2^-p is rounded to 0"
        assert strict_precision_violations(f, g, N) == []
    ing = ingredients(g)
    assert ing.gamma == INF and ing.tau == 0 and ing.period == 1 and ing.hardmax_length == 1
    # printed N = O(max{2^{p/gamma}, tau Delta L^2 / eps^2}) = O(max{1, 0}) for every eps: no dependence on N
    assert all(printed_sample_term(ing.tau, ing.period, ing.L2, Fraction(1, k)) == 0 for k in (1, 10, 1000))
    # control 1: with tau + 1 the sample term exceeds the witness length, so the corrected bound is not contradicted
    assert sample_length(ing.tau, ing.period, ing.L2, Fraction(1, 2)) > rep.witness_length


@checks("izzo2025:thm4.1")
def test_bump_pair_control_visible_bump_is_rejected():
    """Control 2: a pair whose bump is visible at length <= N does not satisfy the hypothesis; the check says so."""
    f, g = bump_pair(3)  # bump around 1/7: first seen at position 7 (c/i = 1/7)
    rep = check_bump_pair(f, g, 10)
    assert rep.agree_up_to == 6 and not rep.refutes_printed
    # control 3: with too few bits (p = 8 at N = 5) the strict-precision check finds flushed quantities
    assert strict_precision_violations(*bump_pair(5, precision_bits=8), 5) != []


@checks("izzo2025:thm4.1")
def test_bump_pair_through_the_evaluators():
    N = 3
    f, g = bump_pair(N)
    for n in range(N + 1):  # every string with <= N symbols (model length <= N + 1): exact agreement
        for s in map("".join, itertools.product("01", repeat=n)):
            assert (exact_forward(f, s) == exact_forward(g, s)).all()
    w = "1" + "0" * (2 * N - 1)
    diff = exact_forward(g, w, positions="last")[0] - exact_forward(f, w, positions="last")[0]
    assert diff == check_bump_pair(f, g, N).difference >= Fraction(1, 2)
    assert forward(g, [w], positions="last")[0, 0] == pytest.approx(float(diff))
