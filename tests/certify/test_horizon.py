"""The certified horizon (bounds.certify.horizon): H and the shortest failure X on pairs built to fail FIRST at a known
length (counterexamples.izzo.threshold_pair), in the enumerated lengths and far beyond them; negative controls (the
same pair within a larger eps: "every length"; the pair built for X + 1 has another horizon); the command line
(--json, the text's leading line, --write-witness) and --export-model."""

import json
from fractions import Fraction

import numpy as np
import pytest

from bounds.certify.cli import main
from bounds.certify.export import witness_chunks
from bounds.certify.horizon import WITNESS_STRING_LIMIT, _probe
from bounds.certify.search import Problem, certify
from bounds.true_threshold import witness_string
from constructions.limit_transformer import exact_forward
from constructions.limit_transformer.serialize import load_model, save_model
from counterexamples.izzo.threshold_pair import threshold_pair

T = Fraction(1, 10)  # the pair's threshold = delta + eps with delta = 0, eps = 1/10


def _horizon(X, eps=T, max_length=10, semantics="softmax"):
    f, g = threshold_pair(X, T)
    # lengths beyond max_length go to the branch-and-bound and the bisection; the budget only caps a runaway
    cert = certify(Problem(f, g, (semantics, semantics)), float(eps), 0.0, budget_s=60, max_length=max_length)
    return cert, f, g


def _exact(f, g, string):
    return abs(exact_forward(f, string, positions="last")[0] - exact_forward(g, string, positions="last")[0])


@pytest.mark.parametrize("X,max_length", [(3, 10), (40, 10), (40, 50), (500, 10), (10**6, 10)])
def test_horizon_of_a_pair_failing_first_at_a_known_length(X, max_length):
    """H = X - 1 and the first failure at X, whether X is among the enumerated lengths (N0 = max_length), among the
    lengths the horizon enumerates beyond them (40 <= EXTEND_MIN), or found by the bisection on ranges of lengths
    (500 and 10^6); the witness is checked exactly where it is short enough to evaluate."""
    cert, f, g = _horizon(X, max_length=max_length)
    h = cert.horizon
    assert (h.H, h.X, h.exact, h.every_length) == (X - 1, X, True, False)
    assert cert.verdict == "fails" and h.x_value > float(T)
    assert h.witness["length"] == X
    assert (h.probes > 0) == (X > 64)  # beyond the extended enumeration: the bisection found it
    if X <= 500:
        s = h.witness["string"]
        assert len(s) == X - 1 and _exact(f, g, s) > T  # the witness fails, exactly
        assert _exact(f, g, "1" * (X - 2)) < T  # and the length before it is within (the only input there)
    else:
        assert h.witness["string"] is None and X - 1 > WITNESS_STRING_LIMIT  # too long to print: class counts
        assert sum(h.witness["counts"].values()) + len(h.witness["window"]) == X


def test_horizon_negative_controls():
    """The same pair within eps = 2.5 t (its sup |f - g| is about 2 t, never attained) is within at every length;
    the pair built to fail first at 41 does not have the horizon of the one built for 40 (the test can fail)."""
    cert, _, _ = _horizon(40, eps=Fraction(5, 2) * T)
    assert cert.verdict == "certified" and cert.horizon.every_length and cert.horizon.X is None
    assert cert.horizon.record()["H"] is None
    other, _, _ = _horizon(41)
    assert (other.horizon.H, other.horizon.X) == (40, 41) != (39, 40)


def test_izzo_semantics_and_first_length():
    """The pair flushes nothing, so the izzo precision model gives the same horizon; --first-length moves the
    start: from 5, a pair failing first at 3 has H = 4 < the first length, X = 5."""
    cert, _, _ = _horizon(40, semantics="izzo")
    assert (cert.horizon.H, cert.horizon.X) == (39, 40)
    f, g = threshold_pair(3, T)
    late = certify(Problem(f, g), float(T), 0.0, budget_s=20, max_length=8, first=5)
    assert (late.horizon.H, late.horizon.X, late.rows[0].length) == (4, 5, 5)


def test_probe_stays_inside_and_bisects():
    for lo, up in [(1, 2), (10, 11), (10, 10**60), (999, 1003), (25, 10**300)]:
        m = _probe(lo, up)
        assert lo < m <= up
    assert _probe(10, 10**60) < 10**40  # geometric while the range spans more than a factor 2


@pytest.mark.parametrize("delta,seed", [(1, 0), (2, 1), (3, 2)])
def test_witness_chunks_equal_the_witness_string(delta, seed):
    """The streamed writer gives the string of bounds.true_threshold.witness_string (same order), in any chunking;
    negative control: swapped counts give another string."""
    rng = np.random.default_rng(seed)
    alphabet = ("a", "b", "c")
    M = 1 + int(rng.integers(6, 30))  # $ plus the positions 2..M
    counts = {0: 1}
    for r in range(delta):
        need = sum(1 for i in range(2, M + 1) if (i - 1) % delta == r)
        cut = sorted(rng.integers(0, need + 1, size=2))
        for t, v in zip((1, 2, 3), (cut[0], cut[1] - cut[0], need - cut[1]), strict=True):
            counts[t * delta + r] = int(v)
    window = (2 * delta + (M % delta),)
    want = witness_string(counts, window, delta, alphabet)
    for chunk in (1, 3, 1 << 20):
        assert "".join(witness_chunks(counts, window, delta, alphabet, chunk)) == want
    c1, c2 = next((a, b) for a in counts for b in counts
                  if a and b and a % delta == b % delta and counts[a] != counts[b])
    other = dict(counts)
    other[c1], other[c2] = counts[c2], counts[c1]
    assert "".join(witness_chunks(other, window, delta, alphabet)) != want


def _run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_horizon_json_text_and_write_witness(tmp_path, capsys):
    f, g = threshold_pair(10**6, T)
    save_model(f, tmp_path / "f.json")
    save_model(g, tmp_path / "g.json")
    base = ["--model", str(tmp_path / "f.json"), "--against", str(tmp_path / "g.json"), "--max-length", "10",
            "--time-budget", "60"]
    code, out, _ = _run(base + ["--json"], capsys)
    rec = json.loads(out)
    h = rec["horizon"]
    assert code == 0 and (h["H"], h["X"], h["X_minus_H"], h["exact"], h["first_length"]) == (10**6 - 1, 10**6, 1,
                                                                                             True, 2)
    assert rec["lengths"][0]["length"] == 2 and h["witness"]["string"] is None
    (tmp_path / "cert.json").write_text(out)
    code, out, _ = _run(["--write-witness", str(tmp_path / "cert.json"), "--out", str(tmp_path / "w.txt")], capsys)
    text = (tmp_path / "w.txt").read_text()
    assert code == 0 and text == "1" * (10**6 - 1) + "\n"
    code, out, _ = _run(base, capsys)
    first = out.splitlines()[0]
    assert first.startswith("horizon: within delta + eps = 0.1 on every input of model length 2..999999")
    assert "first failure at length 1000000" in first and "--write-witness" in first and "X = H + 1" in first
    # one-line refusals: a witness above the write limit, an --out that is another kind of file, no --out
    h["witness"]["length"] = 10**12
    (tmp_path / "big.json").write_text(json.dumps(rec))
    (tmp_path / "other.json").write_text('{"a": 1}')
    for argv, msg in ([["--write-witness", str(tmp_path / "big.json"), "--out", str(tmp_path / "x.txt")],
                       "WITNESS_WRITE_LIMIT"],
                      [["--write-witness", str(tmp_path / "cert.json"), "--out", str(tmp_path / "other.json")],
                       "not a file this tool writes"],
                      [["--write-witness", str(tmp_path / "other.json"), "--out", str(tmp_path / "x.txt")],
                       "not a certificate"],
                      [["--write-witness", str(tmp_path / "cert.json")], "needs --out"]):
        code, _, err = _run(argv, capsys)
        assert code == 2 and msg in err and err.count("\n") == 1 and "Traceback" not in err
    assert (tmp_path / "other.json").read_text() == '{"a": 1}'


def test_cli_text_every_length(tmp_path, capsys):
    f, g = threshold_pair(40, T)
    save_model(f, tmp_path / "f.json")
    save_model(g, tmp_path / "g.json")
    code, out, _ = _run(["--model", str(tmp_path / "f.json"), "--against", str(tmp_path / "g.json"), "--eps", "1/4",
                         "--max-length", "10", "--time-budget", "30"], capsys)
    assert code == 0 and out.splitlines()[0].startswith("horizon: within delta + eps = 0.25 at every length")


WITNESS_RUN = "docs/results/izzo2025-trained-witness.json"


def test_export_model_round_trip_and_refusals(tmp_path, capsys):
    """--export-model writes the exact conversion of a run record's seed (the same model as
    bounds.certify.trained.from_record); a sweep summary, a seed index out of range, a missing file and an --out of
    another kind are one line each, and the file already there is left alone."""
    from bounds.certify.trained import from_record
    from constructions.limit_transformer.serialize import model_to_dict

    out = tmp_path / "m.json"
    code, text, _ = _run(["--export-model", WITNESS_RUN, "--out", str(out)], capsys)
    assert code == 0 and "wrote" in text
    with open(WITNESS_RUN, encoding="utf-8") as fh:
        want = from_record(json.load(fh)["record"], 0)
    assert model_to_dict(load_model(out)) == model_to_dict(want)
    code, _, _ = _run(["--export-model", WITNESS_RUN, "--out", str(tmp_path / "m.npz")], capsys)
    assert code == 0 and model_to_dict(load_model(tmp_path / "m.npz")) == model_to_dict(want)
    bare = tmp_path / "bare.json"  # a record with "runs" (no run-file wrapper) is accepted too
    with open(WITNESS_RUN, encoding="utf-8") as fh:
        bare.write_text(json.dumps(json.load(fh)["record"]))
    code, _, _ = _run(["--export-model", str(bare), "--out", str(tmp_path / "m2.json")], capsys)
    assert code == 0
    (tmp_path / "notes.json").write_text('{"a": 1}')
    for argv, msg in ([["--export-model", "docs/results/izzo2025-modp-quick.json", "--out", str(tmp_path / "x.json")],
                       "sweep summary"],
                      [["--export-model", WITNESS_RUN, "--seed-index", "3", "--out", str(tmp_path / "x.json")],
                       "out of range"],
                      [["--export-model", str(tmp_path / "none.json"), "--out", str(tmp_path / "x.json")],
                       "no such file"],
                      [["--export-model", WITNESS_RUN, "--out", str(tmp_path / "notes.json")],
                       "not a file this tool writes"],
                      [["--export-model", WITNESS_RUN], "needs --out"]):
        code, _, err = _run(argv, capsys)
        assert code == 2 and msg in err and err.count("\n") == 1 and "Traceback" not in err
    assert (tmp_path / "notes.json").read_text() == '{"a": 1}' and not (tmp_path / "x.json").exists()
