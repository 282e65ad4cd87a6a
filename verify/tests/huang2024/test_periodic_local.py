"""Necessity of Periodic and Local (huang2024 FAQ 7) and the converse on a finite family.

Default tests run in a few seconds; the slow ones (``pytest -m slow verify/tests/huang2024/test_periodic_local.py``)
run larger exhaustive sweeps.
"""

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from constructions.limit_transformer import LocalPhi, NotLocalError, NotPeriodicError, PeriodicPositions
from constructions.limit_transformer.evaluate import forward
from constructions.limit_transformer.exact import exact_forward
from counterexamples.periodic_local import (
    FamilyError,
    FamilySpec,
    agreement_length,
    check_pair,
    first_exact_disagreement,
    main,
    nonlocal_mutant,
    nonlocal_pair,
    nonperiodic_mutant,
    nonperiodic_pair,
    periodic_local_family,
    search_family,
    separation_tolerance,
)
from verify.claims import checks

#: the two witness pairs, each case linked to the claim its pair is built for
PAIRS = [pytest.param(nonperiodic_pair, marks=checks("huang2024:faq7.periodic"), id="nonperiodic"),
         pytest.param(nonlocal_pair, marks=checks("huang2024:faq7.local"), id="nonlocal")]

# ------------------------------------------------------------------------------ witness pairs
@checks("huang2024:faq7.periodic", "huang2024:def3")
@pytest.mark.parametrize("N", range(6))
def test_nonperiodic_pair_agrees_up_to_N_exactly_and_differs_beyond(N):
    a, b = nonperiodic_pair(N)
    assert a.is_periodic_and_local and not b.is_periodic_and_local
    r = check_pair(a, b, N)
    assert r.agree_up_to_N and r.first_disagreement_up_to_N is None
    assert r.strings_checked == 2 ** (N + 1) - 1
    assert r.witness_differs and r.witness == "a" * (N + 1)


@checks("huang2024:faq7.local", "huang2024:def3")
@pytest.mark.parametrize("N", range(6))
def test_nonlocal_pair_agrees_up_to_N_exactly_and_differs_beyond(N):
    a, b = nonlocal_pair(N)
    assert a.tau == 0 and b.tau is None
    r = check_pair(a, b, N)
    assert r.agree_up_to_N
    assert r.witness_differs
    # closed form at the last position of a^(N+1): uniform (N+1)/(N+2) vs. '$' weighted by n^1
    n = N + 2
    assert r.witness_outputs[0][0] == Fraction(N + 1, N + 2)
    assert r.witness_outputs[1][0] == Fraction(N + 1, N + 1 + n)


@checks("huang2024:faq7.periodic", "huang2024:def3")
@pytest.mark.parametrize("N", [1, 4, 9])
def test_nonperiodic_encodings_have_no_period_up_to_N(N):
    _, b = nonperiodic_pair(N)
    vecs = b.positions.vectors(np.arange(1, N + 4))
    for delta in range(1, N + 2):
        with pytest.raises(NotPeriodicError):
            PeriodicPositions.from_sequence(vecs, period=delta)


@checks("huang2024:faq7.local", "huang2024:def3")
@pytest.mark.parametrize("N", [1, 4, 9])
def test_nonlocal_phi_is_translation_invariant_but_not_tau_local(N):
    _, b = nonlocal_pair(N)
    fn = b.layers[0].heads[0].phi.fn
    table = LocalPhi.from_function(fn, n=N + 4)  # translation invariant: no error
    assert table.tau == N + 3  # nonzero at every offset >= N+1 seen in the window
    for tau in range(N + 1):
        with pytest.raises(NotLocalError):
            LocalPhi.from_function(fn, n=N + 4, tau=tau)


@pytest.mark.parametrize("pair", PAIRS)
def test_negative_control_pair_built_for_smaller_N_is_caught(pair):
    # the pair for N-1 differs at N symbols: the exhaustive check up to N must find it
    N = 4
    a, b = pair(N - 1)
    assert first_exact_disagreement(a, b, N - 1) is None
    hit = first_exact_disagreement(a, b, N)
    assert hit is not None and len(hit[0]) == N
    assert not check_pair(a, b, N).agree_up_to_N


@checks("huang2024:faq7.periodic", "huang2024:faq7.local")
@settings(max_examples=10)
@given(N=st.integers(0, 40), data=st.data())
def test_pairs_on_random_strings_property(N, data):
    """Random strings of <= N symbols agree exactly; random strings of > N symbols differ (Hypothesis)."""
    for pair in (nonperiodic_pair, nonlocal_pair):
        a, b = pair(N)
        short = data.draw(st.text(alphabet="ab", max_size=N))
        assert np.all(exact_forward(a, short) == exact_forward(b, short))
        long = "a" + data.draw(st.text(alphabet="ab", min_size=N, max_size=N + 5))
        assert np.any(exact_forward(a, long) != exact_forward(b, long))


def test_float_path_agrees_with_exact_on_pairs():
    a, b = nonlocal_pair(3)
    out = forward(b, ["aaaab", "babab"])
    for k, s in enumerate(["aaaab", "babab"]):
        ex = exact_forward(b, s)
        assert np.allclose(out[k], ex.astype(float), atol=1e-12)


def test_pair_arguments_are_validated():
    with pytest.raises(FamilyError):
        nonperiodic_pair(-1)
    with pytest.raises(FamilyError):
        nonlocal_pair(3, weight=0)


# -------------------------------------------------------------------- the Periodic+Local converse
@pytest.mark.parametrize(("spec", "n0", "size"), [
    (FamilySpec(1, 0), 9, 16), (FamilySpec(1, 1), 10, 32), (FamilySpec(2, 0), 16, 64), (FamilySpec(2, 1), 17, 128),
])
def test_agreement_length_values(spec, n0, size):
    info = agreement_length(spec)
    assert info["N0"] == n0 and spec.size == size == len(periodic_local_family(spec))
    assert all(m.is_periodic_and_local for m in periodic_local_family(spec)[:4])


@checks("huang2024:sec3.finite-algorithms", "huang2024:thm7")
def test_converse_exhaustive_on_small_family():
    spec = FamilySpec(delta=1, tau=0)
    res = search_family(spec, agreement_length(spec)["N0"] + 2, random_strings=2, random_max=30)
    assert res.family_size == 16 and res.N0 == 9 and res.tested == 11
    assert res.random_checks == 4 and not res.random_failures  # 2 non-singleton classes x 2 long strings
    assert res.converse_holds and not res.late_splits
    assert res.classes_at_N0 == res.classes_at_tested == 14
    assert res.max_first_disagreement <= res.N0


@checks("huang2024:sec3.finite-algorithms", "huang2024:faq7.periodic", "huang2024:faq7.local")
def test_converse_search_finds_nonperiodic_and_nonlocal_mutants():
    spec = FamilySpec(delta=1, tau=0)
    n_hi = agreement_length(spec)["n_hi"]
    extra = [nonperiodic_mutant(spec, n_hi + 1), nonlocal_mutant(spec, n_hi)]
    assert all(not m.is_periodic_and_local for m in extra)
    res = search_family(spec, agreement_length(spec)["N0"] + 2, extra_members=extra)
    assert not res.converse_holds
    names = {tuple(s["members"]) for s in res.late_splits}
    assert any("non-periodic" in b for _, b in names) and any("non-local" in b for _, b in names)
    assert all(s["exact_recheck"] for s in res.late_splits)
    assert all(s["length"] == res.N0 + 1 for s in res.late_splits)


@checks("huang2024:sec3.finite-algorithms")
def test_negative_control_too_small_n0_reports_late_splits():
    # claiming N0 = 1 is false for this family: members separate at length 2, and the search must say so
    res = search_family(FamilySpec(1, 0), 3, n0=1)
    assert res.late_splits and not res.converse_holds
    assert all(s["exact_recheck"] for s in res.late_splits)


def test_separation_tolerance_refuses_float_when_unsafe():
    assert separation_tolerance(10, 2) > 1e-12
    with pytest.raises(FamilyError):
        separation_tolerance(200, 3)


def test_family_spec_validation():
    for bad in [dict(delta=0), dict(tau=-1), dict(grid=(0, -1)), dict(grid=())]:
        with pytest.raises(FamilyError):
            FamilySpec(**bad)
    with pytest.raises(FamilyError):
        search_family(FamilySpec(1, 0), 3)  # tested < N0


@pytest.mark.parametrize("argv", [["--period", "0"], ["--period", "x"], ["--delta", "1"], ["--period", "9"],
                                  ["--period", "2", "--grid", "0,1,2"], ["--grid", "0,-1"], ["--extra", "nan"],
                                  ["--random", "2", "--random-max", "5"]])
def test_cli_bad_arguments_exit_2(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("counterexamples.periodic_local: error:") and err.count("\n") == 1


def test_cli_json(capsys):
    assert main(["--period", "1", "--tau", "0", "--extra", "0", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"converse_holds": true' in out and '"N0": 9' in out


# --------------------------------------------------------------------------------------- slow
@pytest.mark.slow
@pytest.mark.parametrize("pair", PAIRS)
def test_slow_pairs_exhaustive_N8(pair):
    a, b = pair(8)
    r = check_pair(a, b, 8)
    assert r.agree_up_to_N and r.witness_differs and r.strings_checked == 511


@pytest.mark.slow
@checks("huang2024:sec3.finite-algorithms", "huang2024:thm7")
def test_slow_converse_delta1_tau1_exhaustive_past_N0():
    spec = FamilySpec(1, 1)
    res = search_family(spec, agreement_length(spec)["N0"] + 3, random_strings=3, random_max=30)
    assert res.converse_holds and res.classes_at_tested == 28, res.as_dict()


@pytest.mark.slow
@checks("huang2024:sec3.finite-algorithms")
def test_slow_delta2_family_classes_stable_on_long_random_strings():
    """Delta = 2 (N0 = 16): exhaustive to 12 symbols only (2^16-2^17 strings per member is ~1 CPU-hour here),
    then every class member is compared exactly with its representative on random strings of 13..40 symbols."""
    spec = FamilySpec(2, 0)
    res = search_family(spec, 12, n0=12, random_strings=3, random_max=40)
    assert res.classes_at_tested == 42 and res.max_first_disagreement == 2
    assert not res.random_failures and res.random_checks > 0


def test_family_sweep_resumes_from_its_checkpoint(tmp_path):
    """An interrupted sweep (here: one that stopped at N0) resumes after its last saved length and gives the
    result of an uninterrupted run; a checkpoint of another family is refused."""
    spec = FamilySpec(1, 0)
    n0 = agreement_length(spec)["N0"]
    ck = tmp_path / "sweep.json"
    search_family(spec, n0, checkpoint=str(ck))
    assert json.loads(ck.read_text())["done"] == n0
    resumed = search_family(spec, n0 + 1, checkpoint=str(ck))
    fresh = search_family(spec, n0 + 1)
    assert json.loads(ck.read_text())["done"] == n0 + 1
    for k in ("classes_at_N0", "classes_at_tested", "late_splits", "strings_per_model", "max_first_disagreement"):
        assert resumed.as_dict()[k] == fresh.as_dict()[k], k
    with pytest.raises(FamilyError, match="another family"):
        search_family(FamilySpec(1, 1), agreement_length(FamilySpec(1, 1))["N0"], checkpoint=str(ck))
    assert main(["--period", "1", "--tau", "0", "--extra", "0", "--out", str(tmp_path / "no" / "x.json")]) == 2


def test_cli_out_and_resume(tmp_path, capsys):
    """--out keeps the sweep's state and the result; rerunning needs --resume and gives the same result; a file
    of another format is refused before any work."""
    out = tmp_path / "sweep.json"
    argv = ["--period", "1", "--tau", "0", "--extra", "0", "--json", "--out", str(out)]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert json.loads(out.read_text())["result"] == first
    assert main(argv) == 2 and "--resume" in capsys.readouterr().err
    assert main([*argv, "--resume"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert {k: v for k, v in again.items() if k != "seconds"} == {k: v for k, v in first.items() if k != "seconds"}
    other = tmp_path / "other.json"
    other.write_text('{"format": "lengthgen.limit-transformer"}')
    assert main([*argv[:-1], str(other), "--resume"]) == 2
    assert "not a file this tool writes" in capsys.readouterr().err
