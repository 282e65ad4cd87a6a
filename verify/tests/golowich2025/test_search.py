"""z3 search for Prop C.3 witnesses and the bounded Theorem 4.3 check (slow variants: -m slow).

Slow tests: ``pytest -m slow verify/tests/golowich2025/test_search.py`` (the full --drop none search at
L = 4 with <= 2 keys x 2 values, minimised searches at L = 8, --drop none at L = 8, the Hypothesis searches).
"""

import copy
import json
import subprocess
import sys
from fractions import Fraction

import pytest

from constructions.golowich.model import ModelError, risk
from counterexamples.golowich.search import (
    Params,
    SearchError,
    format_witness,
    recheck_data,
    search,
    witness_objects,
)
from counterexamples.search import main
from verify.claims import checks

DROPS = ("locality", "relative", "realizability", "coverage")
KEY = {"locality": "golowich2025:prop-c3.locality", "relative": "golowich2025:prop-c3.relative",
       "realizability": "golowich2025:prop-c3.realizability.repair", "coverage": "golowich2025:prop-c3.coverage"}


@pytest.fixture(scope="module")
def found():
    return {d: search(Params(drop=d, L=4, minimize=False, timeout_s=120)) for d in DROPS}


@checks("golowich2025:prop-c3.search", "golowich2025:prop-c3")
@pytest.mark.parametrize("drop", DROPS)
def test_search_finds_verified_witness(found, drop):
    r = found[drop]
    assert r["found"] and r["verified"], r
    chk = recheck_data(r["witness"])  # independent exact re-check, again
    assert chk["verified"] and not chk["verdicts"][drop]
    assert all(v for a, v in chk["verdicts"].items() if a != drop)
    assert chk["planted_local"]  # span(S*) <= L_local: the failure is not the planted-locality gap
    assert "failing minimiser" in format_witness(r["witness"])


@checks("golowich2025:prop-c3.search")
@pytest.mark.parametrize("drop", DROPS)
def test_perturbed_search_witness_fails_recheck(found, drop):
    w = found[drop]["witness"]
    lb = str(w["Lbar"])
    # negative control 1: one probability perturbed -> not a distribution -> the exact model refuses
    w1 = copy.deepcopy(w)
    w1["qpos"][lb][0][1] = str(Fraction(w1["qpos"][lb][0][1]) + Fraction(1, 7))
    with pytest.raises(ModelError):
        recheck_data(w1)
    # negative control 2: blame the hypothesis of least test risk instead (the realizer, or for a dropped
    # realizability the best in class at Lbar) -> the re-check must reject it
    H, ens = witness_objects(w)
    best = min(((a, b) for a in H.keys for b in H.values), key=lambda h: risk(h[0], h[1], ens, w["Lbar"]))
    w2 = {**w, "bad": [best[0].name, best[1].name]}
    assert tuple(w2["bad"]) != tuple(w["bad"]) and not recheck_data(w2)["verified"]



@checks("golowich2025:prop-c3.search")
def test_solver_unknown_is_never_unsat(monkeypatch):
    """A cell whose z3 call answers 'unknown' (a timeout) is reported 'unknown', never 'unsat' ('no witness');
    control: the same cell with the real solver is decided (sat or unsat)."""
    import time

    import z3

    from counterexamples.golowich.search import _solve, build_encoding, planted_choices

    p = Params(drop="none", L=4, keys=1).resolved()
    b, z = planted_choices(p.vocab, p.k)[0]
    assert _solve(build_encoding(p, 1, 2, b, z), time.monotonic() + 600)[0] in ("sat", "unsat")
    enc = build_encoding(p, 1, 2, b, z)
    monkeypatch.setattr(enc.solver, "check", lambda *a, **k: z3.unknown)
    assert _solve(enc, time.monotonic() + 600) == ("unknown", None)


@checks("golowich2025:prop-c3.search", "golowich2025:thm4.3")
def test_search_with_undecided_cells_is_not_complete(monkeypatch):
    """A search in which a cell is undecided ('unknown') is reported incomplete, with no worst test risk claimed
    for drop none (not 'none found'); control: the same search with every cell unsat is complete with worst test
    risk 0."""
    import counterexamples.golowich.search as gs

    monkeypatch.setattr(gs, "_solve", lambda enc, deadline, size_bound=None: ("unsat", None))
    r = search(Params(drop="none", L=4, keys=1, timeout_s=600))
    assert r["complete"] and not r["found"] and r["worst_test_risk"] == "0"
    monkeypatch.setattr(gs, "_solve", lambda enc, deadline, size_bound=None: ("unknown", None))
    r = search(Params(drop="none", L=4, keys=1, timeout_s=600))
    assert not r["complete"] and not r["found"] and r["worst_test_risk"] is None
    assert r["searched"] and all(e["result"] == "unknown" for e in r["searched"])

@checks("golowich2025:prop-c3.search")
@pytest.mark.parametrize("drop", DROPS)
def test_recheck_holds_the_witness_to_its_exact_constant(found, drop):
    """The exact re-check accepts a witness whose failing minimiser's test risk (for a dropped realizability: its
    excess over another hypothesis, eq. (16)) reaches the recorded c exactly (control), and rejects the same witness
    with c raised by a half: a re-check that accepted a fraction of c would pass it."""
    w = found[drop]["witness"]
    H, ens = witness_objects(w)
    bad = tuple(w["bad"])
    test = risk(*next((a, b) for a in H.keys for b in H.values if (a.name, b.name) == bad), ens, w["Lbar"])
    if drop == "realizability":
        reach = max(test - risk(a, b, ens, w["Lbar"]) for a in H.keys for b in H.values if (a.name, b.name) != bad)
    else:
        reach = test
    assert reach > 0
    assert recheck_data({**w, "c": str(reach)})["verified"]
    assert not recheck_data({**w, "c": str(reach * Fraction(3, 2))})["verified"]


@pytest.mark.slow
@checks("golowich2025:prop-c3.search", "golowich2025:thm4.3")
def test_drop_none_finds_nothing_and_reports_bound():
    r = search(Params(drop="none", L=4, timeout_s=120))
    assert not r["found"] and r["complete"] and r["worst_test_risk"] == "0" and r["bound"] == "0"
    assert r["theorem_side_conditions"] == {"L>=4L_local": True, "L_local|Lbar-L": True}
    assert len(r["searched"]) == 9 and all(c["result"] == "unsat" for c in r["searched"])


@checks("golowich2025:asm4.2.planted-locality", "golowich2025:thm4.3")
def test_drop_none_literal_finds_theorem_counterexample():
    r = search(Params(drop="none", L=4, literal=True, minimize=False, timeout_s=120))
    assert r["found"] and r["verified"] and r["bound"] == "0" and Fraction(r["test_risk"]) > 0
    assert r["check"]["planted_local"] is False


@checks("golowich2025:prop-c3.search")
def test_cli_json_and_errors(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["--drop", "coverage", "--L", "4", "--no-minimize", "--json", "--out", str(out)]) == 0
    res = json.loads(capsys.readouterr().out)
    for k in ("found", "verified", "witness", "train_risk", "test_risk", "bound", "seconds"):
        assert k in res
    assert res["found"] and res["verified"]
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert "final" in lines[-1] and "cell" in lines[0]
    for bad in (["--drop", "nope", "--L", "4"], ["--drop", "none", "--L", "2"], ["--drop", "none", "--L", "x"],
                ["--drop", "none", "--L", "4", "--resume"], ["--drop", "none", "--L", "4", "--Lbar", "3"],
                ["--drop", "none", "--L", "4", "--vocab", "1"], ["--drop", "none", "--L", "4", "--c", "2"]):
        assert main(bad) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("counterexamples.search: error:")


@checks("golowich2025:prop-c3.search")
def test_cli_subprocess_exit_code():
    p = subprocess.run([sys.executable, "-m", "counterexamples.search", "--drop", "bogus", "--L", "4"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr


@checks("golowich2025:prop-c3.search", "golowich2025:thm4.3")
def test_resume_skips_unsat_cells(tmp_path, capsys):
    out = tmp_path / "none.jsonl"
    args = ["--drop", "none", "--L", "4", "--keys", "1", "--json", "--out", str(out)]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(args + ["--resume"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert len(first["searched"]) == 3 and second["searched"] == [] and not second["found"]
    # --drop none with one key: complete, no failing minimiser; worst error 0 = Theorem 4.3's bound (delta = 0)
    assert first["complete"] and not first["found"] and first["worst_test_risk"] == "0" and first["bound"] == "0"
    # a different parameter set does not reuse those cells
    assert main(["--drop", "none", "--L", "4", "--keys", "1", "--Lbar", "7", "--json", "--out", str(out), "--resume"]) == 0
    assert len(json.loads(capsys.readouterr().out)["searched"]) == 3


def test_params_validation():
    with pytest.raises(SearchError):
        Params(drop="none", L=4, L_local=0).resolved()
    with pytest.raises(SearchError):
        Params(drop="locality", L=4, keys=0).resolved()


@pytest.mark.slow
@checks("golowich2025:prop-c3.search")
@pytest.mark.parametrize("drop", ["locality", "coverage"])
def test_minimised_search_L8(drop):
    # relative / realizability at L = 8 exceed a few minutes in this revision (docs/counterexamples.md)
    r = search(Params(drop=drop, L=8, timeout_s=300))
    assert r["found"] and r["verified"]


@pytest.mark.slow
@checks("golowich2025:prop-c3.search", "golowich2025:thm4.3")
def test_drop_none_L8_Llocal2():
    r = search(Params(drop="none", L=8, L_local=2, timeout_s=600))
    assert r["complete"] and not r["found"]


@pytest.mark.slow
@checks("golowich2025:prop-c3.search")
@pytest.mark.parametrize("drop", ["locality", "realizability", "coverage"])
def test_hypothesis_random_search_finds_witness(drop):
    from counterexamples.golowich.random_search import random_witness

    w = random_witness(Params(drop=drop, L=4), max_examples=500)
    assert w is not None and recheck_data(w)["verified"]


@pytest.mark.slow
@checks("golowich2025:thm4.3")
def test_hypothesis_theorem43_random_check():
    from counterexamples.golowich.random_search import thm43_random_check

    viol, stats = thm43_random_check(Params(drop="none", L=4), max_examples=200)
    assert viol is None and stats["instances"] > 0
