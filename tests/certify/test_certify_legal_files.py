"""bounds.certify on every legal file: targets read symbols by name at the task's own period, each model under the
precision model its file declares, exact ties and zeros below the double range, numbers beyond it refused in one
line, option combinations checked before any work.  Every check has its negative control."""

import dataclasses
import json
from fractions import Fraction

import pytest

from bounds.certify.cli import main
from bounds.certify.search import CertifyError, Problem, certify, task_target
from bounds.float_enclosures import ball
from bounds.lower import ModelClass, hardmax
from constructions.limit_transformer.model import MLP, Head, Layer
from constructions.limit_transformer.serialize import save_model
from constructions.tasks import ModPTask, SimpleTask

TINY_GAP = Fraction(1, 10**400)  # a logit gap that rounds to 0.0 as a double


def _modp_cert(model, p, eps, budget_s=3, **kw):
    prob = Problem(model, None, ("izzo", "izzo"), task_target("modp", {"period": p, "index": 0}))
    return certify(prob, eps, budget_s=budget_s, first=2, **kw)


def _swapped(model, permute: bool):
    """The binary construction with alphabet ("1", "0"): token ids exchanged (``permute``: the embedding rows
    follow, so the model computes the same function of symbols; otherwise it computes the opposite one)."""
    E = model.embedding.copy()
    if permute:
        E[[1, 2]] = E[[2, 1]]
    return dataclasses.replace(model, alphabet=("1", "0"), embedding=E)


# ------------------------------------------------------------------------------------------------ targets
def test_target_period_is_reconciled_with_the_model():
    """A model averaging every bit (ModP p = 1) and the ModP(3) construction, against ModP p = 2: both fail (the
    target reads positions t = 0 mod 2 at the pair period lcm(Delta, 2)); on '1' the first differs by 1."""
    avg = _modp_cert(ModPTask(1, 0).limit_transformer(), 2, 0.1, max_length=6)
    assert avg.verdict == "fails" and avg.lower > 0.99 and avg.witness == "1"
    three = _modp_cert(ModPTask(3, 0).limit_transformer(), 2, 0.2, max_length=8)
    assert three.verdict == "fails" and three.lower > 0.2


def test_target_period_dividing_the_model_period_certifies():
    """Negative control of the reconciliation: ModP(2) written with period 4 (its table repeated) is the same
    function, exact against p = 2 on every enumerated input (the support is residues 0 and 2 mod 4, not residue 0
    alone, which fails at length 3), and no failure is found beyond."""
    g = ModPTask(2, 0).limit_transformer()
    from constructions.limit_transformer.model import PeriodicPositions

    g4 = dataclasses.replace(g, positions=PeriodicPositions(g.positions.table[[0, 1, 0, 1]]))
    cert = _modp_cert(g4, 2, 0.5, max_length=12)
    assert cert.verdict != "fails" and all(r.upper < 1e-9 for r in cert.rows) and cert.lower < 1e-9


def test_target_reads_symbols_by_name():
    """The ModP(2) construction with its token ids exchanged computes the opposite function and fails; with the
    embedding rows exchanged too (the same function of symbols) it is certified, and exact on every short input."""
    g = ModPTask(2, 0).limit_transformer()
    wrong = _modp_cert(_swapped(g, permute=False), 2, 0.1, max_length=6)
    assert wrong.verdict == "fails" and wrong.lower > 0.99
    right = _modp_cert(_swapped(g, permute=True), 2, 0.5, budget_s=600, max_length=40, max_boxes=5000)
    assert right.verdict == "certified" and all(r.upper < 1e-9 for r in right.rows)


def test_target_refuses_a_foreign_alphabet():
    g = ModPTask(2, 0).limit_transformer()
    other = dataclasses.replace(g, alphabet=("a", "b"))
    with pytest.raises(CertifyError, match="not the task's symbols"):
        Problem(other, None, ("izzo", "izzo"), task_target("modp", {"period": 2}))
    with pytest.raises(CertifyError, match="not the task's symbols"):  # SimpleTask's alphabet is 0, 1, 2
        Problem(g, None, ("izzo", "izzo"), task_target("simple", {"omega": 1}))
    Problem(SimpleTask(1).limit_transformer(), None, ("izzo", "izzo"), task_target("simple", {"omega": 1}))


# ----------------------------------------------------------------------------------------------- semantics
@pytest.fixture(scope="module")
def izzo_pair(tmp_path_factory):
    """The hardmax lower-bound pair of the class |Sigma| = 2, Delta = 1, tau = 0, one head, K = 1, p = 8,
    gamma = 1/2 (files declaring ``"precision": "izzo"``): equal below 2^16, 0.106 apart from 65536 on."""
    lb = hardmax(ModelClass(2, 1, 0, 1, Fraction(1), 8, Fraction(1, 2), Fraction(1, 10)))
    assert lb.agree.exact == 65535
    f, g = lb.pair()
    folder = tmp_path_factory.mktemp("izzo")
    save_model(f, folder / "f.json")
    save_model(g, folder / "g.json")
    return folder


def _cli(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_declared_precision_model_is_the_default(izzo_pair, capsys):
    base = ["--model", str(izzo_pair / "f.json"), "--against", str(izzo_pair / "g.json"), "--max-length", "6",
            "--time-budget", "20"]
    code, out, _ = _cli(base + ["--json"], capsys)
    rec = json.loads(out)
    assert code == 0 and rec["verdict"] == "fails" and rec["semantics"] == ["izzo", "izzo"]
    assert rec["semantics_source"] == ["declared by the file"] * 2
    assert rec["witness"]["length"] >= 65536 and rec["lower"] > 0.1
    code, out, _ = _cli(base, capsys)
    assert "semantics: f izzo (p = 8), declared by the file" in out and "verdict: fails" in out
    # negative control: told otherwise, the same files are evaluated as exact softmax (and say so)
    code, out, _ = _cli(base + ["--semantics", "softmax", "--json"], capsys)
    rec = json.loads(out)
    assert code == 0 and rec["verdict"] == "certified" and rec["semantics_source"] == ["--semantics"] * 2


def test_undeclared_precision_model_is_refused(izzo_pair, tmp_path, capsys):
    f = hardmax(ModelClass(2, 1, 0, 1, Fraction(1), 8, Fraction(1, 2), Fraction(1, 10))).pair()[0]
    save_model(dataclasses.replace(f, precision="huang"), tmp_path / "h.json")
    code, _, err = _cli(["--model", str(tmp_path / "h.json"), "--against", str(izzo_pair / "g.json")], capsys)
    assert code == 2 and "declares the 'huang' precision model" in err and err.count("\n") == 1
    code, out, _ = _cli(["--model", str(tmp_path / "h.json"), "--against", str(izzo_pair / "g.json"),
                         "--semantics", "izzo", "--max-length", "3", "--time-budget", "5"], capsys)
    assert code == 0 and "semantics: f izzo (p = 8), --semantics" in out


# ------------------------------------------------------------------------------------- below double range
def _tilted(gap: Fraction):
    """ModP(1)'s construction (the mean of every bit) with the logit of every '1' key moved by -gap."""
    g = ModPTask(1, 0).limit_transformer()
    layer, h = g.layers[0], g.layers[0].heads[0]
    key = h.key.copy()
    key[0][1] = -gap
    return dataclasses.replace(g, layers=(Layer(heads=(Head(query=h.query, key=key, value=h.value),),
                                                mlp=layer.mlp),))


@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize("sem", ["izzo", "softmax"])
def test_gap_below_double_range_is_not_a_tie(sign, sem):
    """A logit gap of +-1e-400 (0.0 as a double) is no tie: the pair differs by up to 1 at astronomically long
    inputs (a single '0' among n^(1e-400) -> inf '1's), so no certificate below 1/2 may be issued (the gap stays
    open: no realized input reaches it below length 10^300).  Negative control: an exact tie (gap 0) is
    certified with U = 0."""
    g = ModPTask(1, 0).limit_transformer()
    cert = certify(Problem(_tilted(sign * TINY_GAP), g, (sem, sem)), 0.1, budget_s=2, max_length=8)
    assert cert.verdict != "certified" and cert.upper >= 0.5
    tie = certify(Problem(_tilted(Fraction(0)), g, (sem, sem)), 0.1, budget_s=2, max_length=8)
    assert tie.verdict == "certified" and tie.upper == 0.0


def test_enclosure_midpoint_is_zero_only_for_zero():
    import numpy as np

    b = ball(np.array([TINY_GAP, Fraction(0), -TINY_GAP, Fraction(1, 3)], dtype=object))
    assert list(b.mid == 0) == [False, True, False, False]
    assert b.lower[0] <= 0 <= b.upper[0] and b.lower[2] <= 0 <= b.upper[2]  # still enclosures
    assert b.mid[0] > 0 > b.mid[2]


# -------------------------------------------------------------------------------------- beyond double range
def _big(kind: str):
    g = ModPTask(2, 0).limit_transformer()
    layer, h = g.layers[0], g.layers[0].heads[0]
    if kind == "logit":
        key = h.key.copy()
        key[0][1] = Fraction(10**400)
        return dataclasses.replace(g, layers=(Layer(heads=(Head(query=h.query, key=key, value=h.value),),
                                                    mlp=layer.mlp),))
    if kind == "mlp":
        A = layer.mlp.A.copy()
        A[0][3] = Fraction(10**310)
        return dataclasses.replace(g, layers=(Layer(heads=layer.heads, mlp=MLP(A=A, b=layer.mlp.b,
                                                                               B=layer.mlp.B)),))
    return dataclasses.replace(g, precision_bits=10**400)


@pytest.mark.parametrize("kind", ["logit", "mlp"])
def test_quantities_beyond_double_range_are_refused_in_one_line(kind, tmp_path, capsys):
    save_model(_big(kind), tmp_path / "f.json")
    save_model(ModPTask(2, 0).limit_transformer(), tmp_path / "g.json")
    code, _, err = _cli(["--model", str(tmp_path / "f.json"), "--against", str(tmp_path / "g.json")], capsys)
    assert code == 2 and "MAX_MAGNITUDE" in err and err.count("\n") == 1 and "Traceback" not in err


def test_huge_precision_is_evaluated(tmp_path, capsys):
    """p = 10^400 bits: nothing is ever flushed, so the model is its own softmax; against the p = 8 construction
    (exact at every length, and so is the other: the logit margin 8 is kept) they agree; against itself U = 0."""
    save_model(_big("bits"), tmp_path / "f.json")
    code, out, err = _cli(["--model", str(tmp_path / "f.json"), "--against", str(tmp_path / "f.json"),
                           "--max-length", "4", "--time-budget", "5", "--json"], capsys)
    rec = json.loads(out)
    assert code == 0 and rec["verdict"] == "certified" and rec["upper"] == 0.0


@pytest.mark.parametrize("argv, msg", [
    (["--eps", "1e309"], "MAX_EPS"),
    (["--delta", "1e309"], "MAX_EPS"),
    (["--train-length", "40", "--max-length", "10"], "--train-length 40 needs --max-length >= 40"),
    (["--first-length", "50", "--max-length", "10"], "--first-length 50 exceeds --max-length 10"),
    (["--first-length", "9", "--train-length", "5"], "--first-length 9 exceeds --train-length 5"),
    (["--target-fn", "--task", "modp", "--period", "2", "--against-semantics", "izzo"], "--against-semantics is g's"),
])
def test_option_combinations_are_refused_before_any_work(argv, msg, tmp_path, capsys):
    g = tmp_path / "g.json"
    save_model(ModPTask(2, 0).limit_transformer(), g)
    code, out, err = _cli(["--model", str(g), "--against", str(g)] + argv, capsys)
    assert code == 2 and msg in err and err.count("\n") == 1 and not out
    # negative control: the same options, made consistent, run
    if "--max-length" in argv and "--train-length" in argv:
        code, out, _ = _cli(["--model", str(g), "--against", str(g), "--train-length", "10", "--max-length", "10",
                             "--time-budget", "5"], capsys)
        assert code == 0 and "verdict: certified" in out
