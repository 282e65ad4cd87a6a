"""A one-layer GPT-2 with an absolute position table against its task, on the inputs its table defines
(:mod:`bounds.certify.gpt2_task_table`): the verdict and the shortest failing word against a brute-force float64
torch evaluation of every word (the saved Hugging Face model, read independently of the certificate's form), with
controls (a certificate that skips the margin filter, reports a longer failure, or claims beyond the table is
rejected by the same assertions), the time budget counted in evaluations, and the command line."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
from fractions import Fraction

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from bounds.certify import gpt2, search  # noqa: E402
from bounds.certify import gpt2_task_table as tt  # noqa: E402
from bounds.certify.gpt2_targets import TARGETS  # noqa: E402
from bounds.certify.gpt2_task import GapEnclosure  # noqa: E402
from tests.certify.gpt2_checks import work_clock  # noqa: E402

MAJ = TARGETS["binary_majority"]
PAR = TARGETS["parity"]
VOCAB = 7  # the package's token ids (Target.token_ids): majority $ 0, '0' 1, '1' 2, '#' 3; parity '#' 5, e 3, o 4


def _config(rows: int):
    return transformers.GPT2Config(vocab_size=VOCAB, n_positions=rows, n_embd=8, n_layer=1, n_head=2,
                                   bos_token_id=0, eos_token_id=0, resid_pdrop=0, embd_pdrop=0, attn_pdrop=0)


def _random(path, rows: int, seed: int) -> str:
    """A random d = 8, 2-head GPT-2 with an absolute (aperiodic) table of ``rows`` rows."""
    torch.manual_seed(seed)
    m = transformers.GPT2LMHeadModel(_config(rows))
    with torch.no_grad():
        for p in m.parameters():
            p.add_(0.5 * torch.randn_like(p))
    m.save_pretrained(path)
    return str(path)


def _counter(path, rows: int, seed: int = 0) -> str:
    """A GPT-2 built to count (uniform attention, as Huang et al.'s majority program): letters '0', '1' embedded
    along e0, e1, the attention's mean of ln_1 copied into the stream, a small random absolute table; its answer
    logit (readout ``classes``) leads wherever one letter clearly dominates."""
    torch.manual_seed(seed)
    m = transformers.GPT2LMHeadModel(_config(rows))
    d = 8
    with torch.no_grad():
        for p in m.parameters():
            p.zero_()
        t = m.transformer
        t.wte.weight[0, 2] = 1.0
        t.wte.weight[1, 0] = 3.0
        t.wte.weight[2, 1] = 3.0
        t.wte.weight[3, 3] = 1.0
        t.wpe.weight.copy_(0.05 * torch.randn(rows, d))
        for ln in (t.h[0].ln_1, t.h[0].ln_2, t.ln_f):
            ln.weight.fill_(1.0)
        t.h[0].attn.c_attn.weight[:, 2 * d:] = torch.eye(d)
        t.h[0].attn.c_proj.weight.copy_(4.0 * torch.eye(d))
    m.save_pretrained(path)
    return str(path)


def _load(path, tgt=MAJ):
    ids = tgt.token_ids(None)
    return gpt2.load(path, bos=0, alphabet=[ids[c] for c in tgt.letters] + [ids[tgt.sep]], absolute=True)


@functools.cache
def torch_gaps(path, tgt, mu, readout) -> list:
    """Per n = 1..R - 2: the words of the statement (letter indices, lexicographic) and their gaps through the saved
    model (float64 torch, one batch per length)."""
    m = transformers.GPT2LMHeadModel.from_pretrained(path).double().eval()
    ids = tgt.token_ids(None)
    outputs = [ids[c] for c in tgt.classes]
    out = []
    for n in range(1, m.config.n_positions - 1):
        ws = np.array(list(itertools.product(range(len(tgt.letters)), repeat=n)))
        counts = np.stack([(ws == i).sum(axis=1) for i in range(len(tgt.letters))], axis=1)
        labels, ok = tgt.decide(counts, Fraction(mu))
        ws, labels = ws[ok], labels[ok]
        toks = [[0, *(ids[tgt.letters[c]] for c in w), ids[tgt.sep]] for w in ws]
        gaps = []
        if len(toks):
            with torch.no_grad():
                logits = m(torch.tensor(toks)).logits[:, -1].numpy()
            for lab, lg in zip(labels, logits, strict=True):
                o = outputs[lab]
                pool = range(len(lg)) if readout == "argmax" else outputs
                gaps.append(lg[o] - max(lg[j] for j in pool if j != o))
        out.append((ws, np.array(gaps)))
    return out


def brute(path, tgt, mu, delta, readout):
    """The first length with a word of the statement whose torch gap is <= delta, and that length's word of least
    gap (None, None: none fails)."""
    for n, (ws, gaps) in enumerate(torch_gaps(path, tgt, mu, readout), 1):
        if len(gaps) and gaps.min() <= delta:
            i = int(np.argmin(gaps))
            return n, (list(ws[i]), float(gaps[i]))
    return None, None


def _gaps_quantile(path, tgt, mu, readout, q):
    """A logit margin at the q-quantile of the statement's torch gaps (so some words fail, not all)."""
    return float(np.quantile(np.concatenate([g for _, g in torch_gaps(path, tgt, mu, readout)]), q))


def assert_agrees(rec: dict, path, tgt, mu, delta, readout):
    """The certificate's verdict, shortest failing word and horizon are the brute force's, and it claims nothing
    beyond the table."""
    R = rec["defined_up_to"]
    n, worst = brute(path, tgt, mu, delta, readout)
    h = rec["horizon"]
    assert h["H"] is not None and h["H"] <= R and not h["every_length"]
    assert h["X"] is None or h["X"] <= R
    if n is None:
        assert rec["verdict"] == "certified" and h["H"] == R and rec["N0"] == R - 2 and h["X"] is None
        assert rec["gap_lower"] > delta
    else:
        assert rec["verdict"] == "fails"
        w = rec["witness"]
        assert w["length"] == n and h["X"] == n + 2 and h["H"] == n + 1 and h["exact"]
        assert w["symbols"] == "".join(tgt.letters[c] for c in worst[0]) + tgt.sep
        assert abs(w["torch_gap"] - worst[1]) < 1e-12 and w["gap_upper"] < delta
        assert Fraction(w["margin"]) >= Fraction(mu)


def _cert(path, tgt, mu, delta, readout, **kw):
    form = _load(path, tgt)
    return tt.certify_table_task(form, tgt, Fraction(mu), delta, readout, budget_s=600, **kw).record()


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("ape")
    return {"r8": _random(d / "r8", 8, 1), "r9": _random(d / "r9", 9, 4), "r10": _random(d / "r10", 10, 3),
            "count8": _counter(d / "c8", 8), "count10": _counter(d / "c10", 10)}


@pytest.mark.parametrize("name,tgt,mu,readout", [("r8", MAJ, "1/3", "classes"), ("r9", MAJ, "0", "classes"),
                                                 ("r10", PAR, "1", "classes"), ("r10", MAJ, "1/2", "argmax")])
def test_verdict_and_shortest_failure_agree_with_brute_force(models, name, tgt, mu, readout):
    path = models[name]
    for delta in (_gaps_quantile(path, tgt, mu, readout, 0.02) + 1e-9, -50.0):  # some words fail; none does
        assert_agrees(_cert(path, tgt, mu, delta, readout), path, tgt, mu, delta, readout)


def test_a_counting_model_is_certified_on_every_input_its_table_defines(models):
    for mu in ("1/4", "1/2"):
        rec = _cert(models["count10"], MAJ, mu, 0.0, "classes")
        assert rec["verdict"] == "certified" and rec["horizon"]["H"] == 10
        assert_agrees(rec, models["count10"], MAJ, mu, 0.0, "classes")
    # near a tie the counting model is wrong somewhere: refuted by its shortest failing word
    delta = _gaps_quantile(models["count10"], MAJ, "0", "classes", 0.05) + 1e-9
    rec = _cert(models["count10"], MAJ, "0", delta, "classes")
    assert rec["verdict"] == "fails"
    assert_agrees(rec, models["count10"], MAJ, "0", delta, "classes")


def test_controls_are_rejected_by_the_same_assertions(models, monkeypatch):
    path = models["r9"]
    mu, readout = "1/3", "classes"
    delta = _gaps_quantile(path, MAJ, mu, readout, 0.02) + 1e-9
    good = _cert(path, MAJ, mu, delta, readout)
    assert_agrees(good, path, MAJ, mu, delta, readout)
    # a certificate claiming beyond its table
    beyond = json.loads(json.dumps(good))
    beyond["horizon"]["H"] = 12
    with pytest.raises(AssertionError):
        assert_agrees(beyond, path, MAJ, mu, delta, readout)
    # a longer failure than the shortest (as a scan in the wrong order would report)
    n, _ = brute(path, MAJ, mu, delta, readout)
    later = json.loads(json.dumps(good))
    later["witness"]["length"] += 1
    later["horizon"]["X"] += 1
    later["horizon"]["H"] += 1
    with pytest.raises(AssertionError):
        assert_agrees(later, path, MAJ, mu, delta, readout)
    # a certifier that skips the margin filter reports a word outside the statement (or a shorter one)
    orig = type(MAJ).decide

    def no_filter(self, counts, m):
        lab, _ = orig(self, counts, m)
        return lab, np.ones(len(lab), dtype=bool)

    monkeypatch.setattr(type(MAJ), "decide", no_filter)
    skipped = _cert(path, MAJ, mu, delta, readout)
    monkeypatch.undo()
    with pytest.raises(AssertionError):
        assert_agrees(skipped, path, MAJ, mu, delta, readout)


def test_a_word_whose_enclosure_straddles_the_logit_margin_is_not_decided(models):
    """D set to the least torch gap of the statement: that word can be neither certified nor refuted (its enclosure
    holds D), so the verdict is undetermined with H just below its length and the reason named; control: D just
    below it (by far more than the enclosure's width) is certified."""
    path, mu = models["r8"], "1/3"
    per_n = torch_gaps(path, MAJ, mu, "classes")
    gaps = np.sort(np.concatenate([g for _, g in per_n]))
    assert gaps[1] - gaps[0] > 1e-6  # a single least gap, well apart from the next
    n = next(i for i, (_, g) in enumerate(per_n, 1) if len(g) and g.min() == gaps[0])
    rec = _cert(path, MAJ, mu, float(gaps[0]), "classes")
    assert rec["verdict"] == "undetermined" and rec["horizon"]["H"] == n + 1 and rec["horizon"]["X"] is None
    assert f"a word of {n} letters has a gap enclosure around" in rec["reached"]["why_not_further"]
    ok = _cert(path, MAJ, mu, float(gaps[0]) - 1e-6, "classes")
    assert ok["verdict"] == "certified" and ok["horizon"]["H"] == 8


def test_words_are_every_word_in_lexicographic_order():
    w = tt.words(3, 2)
    assert [tuple(r) for r in w] == list(itertools.product(range(2), repeat=3))
    assert len(tt.words(4, 3)) == 81 and tt.word_count(2, 3) == 14
    assert tt.size_limit(2, 100) == 16 and tt.word_count(2, 16) <= tt.MAX_WORDS < tt.word_count(2, 17)


def test_prefix_table_is_the_model_on_its_inputs(models):
    """The enclosure on the table's first n + 2 rows read periodically holds the saved model's forward on every
    word of n letters (control: the rows read shifted by one do not)."""
    path = models["r8"]
    form = _load(path)
    m = transformers.GPT2LMHeadModel.from_pretrained(path).double().eval()
    n = 4
    ge = GapEnclosure(tt.prefix_form(form, n), [1, 2], "classes", centred=False)
    wrong = dataclasses.replace(tt.prefix_form(form, n), wpe=np.roll(form.wpe[:n + 2], 1, axis=0))
    shifted = GapEnclosure(wrong, [1, 2], "classes", centred=False)
    P = n + 2
    ws = tt.words(n, 2)
    mass = tt._masses(ws, 2, P) / P
    r = np.full(len(ws), 1 / P)
    box = (np.nextafter(r, -np.inf), np.nextafter(r, np.inf), np.nextafter(mass, -np.inf), np.nextafter(mass, np.inf))
    lo, hi = ge.gaps(2 * P + n + 1, *box)
    slo, shi = shifted.gaps(2 * P + n + 1, *box)
    with torch.no_grad():
        lg = m(torch.tensor([[0, *(c + 1 for c in w), 3] for w in ws])).logits[:, -1].numpy()
    gap = np.stack([lg[:, 1] - lg[:, 2], lg[:, 2] - lg[:, 1]], axis=1)
    assert np.all(lo <= gap + 1e-12) and np.all(gap <= hi + 1e-12) and np.max(hi - lo) < 1e-7  # exp trusted to 2^-40
    assert not (np.all(slo <= gap + 1e-9) and np.all(gap <= shi + 1e-9))


# --------------------------------------------------------------------------------------------- time budget
@pytest.fixture
def work(monkeypatch):
    """The work clock, advanced by GapEnclosure.gaps (one unit per gap enclosure of a chunk of words)."""
    return work_clock(monkeypatch, GapEnclosure, "gaps")


@pytest.mark.parametrize("budget", [0, 1, 3, 5])
def test_the_budget_is_held_and_what_is_not_reached_is_not_claimed(models, work, monkeypatch, budget):
    monkeypatch.setattr(tt, "CHUNK_ELEMENTS", 8 * 8 * 16)  # small chunks: many evaluations per length
    form = _load(models["count10"])
    cert = tt.certify_table_task(form, MAJ, Fraction(1, 4), 0.0, "classes", budget_s=budget)
    assert work.t <= budget + 1
    assert cert.verdict == "undetermined" and cert.N0 < 8 and "time budget" in cert.why
    assert cert.horizon.H == cert.N0 + 2 and cert.horizon.X is None


def test_a_certifier_that_ignores_the_deadline_is_caught(models, work, monkeypatch):
    monkeypatch.setattr(tt, "CHUNK_ELEMENTS", 8 * 8 * 16)
    monkeypatch.setattr(search.Deadline, "expired", lambda self: False)
    tt.certify_table_task(_load(models["count10"]), MAJ, Fraction(1, 4), 0.0, "classes", budget_s=3)
    assert work.t > 3 + 1


# --------------------------------------------------------------------------------------------- command line
def test_command_line_states_the_table_and_never_every_length(models, capsys):
    from bounds.certify.cli import main

    capsys.readouterr()
    rc = main(["--model", models["count8"], "--task", "binary_majority", "--margin", "1/4", "--readout", "classes"])
    out = capsys.readouterr().out
    assert rc == 0 and "verdict: certified" in out and "on every input of model length <= 8" in out
    assert "every length" not in out and "undefined beyond its position table of 8 rows" in out
    rc = main(["--model", models["count8"], "--task", "binary_majority", "--margin", "1/2,1/4", "--readout",
               "classes"])
    out = capsys.readouterr().out
    assert rc == 0 and out.count("verdict: certified") == 2 and "certified for every margin >= 1/4" in out
    assert "every length" not in out
    rc = main(["--model", models["r10"], "--task", "binary_majority", "--margin", "1/2", "--json"])
    rec = json.loads(capsys.readouterr().out)
    assert rc == 0 and rec["verdict"] == "fails" and rec["defined_up_to"] == 10
    assert {"verdict", "margin", "gap_lower", "witness", "defined_up_to", "horizon"} <= set(rec)
    assert {"H", "X", "exact"} <= set(rec["horizon"]) and rec["horizon"]["X"] == rec["witness"]["length"] + 2
    rc = main(["--model", models["r10"], "--task", "binary_majority", "--margin", "1/2", "--max-length", "3"])
    out = capsys.readouterr().out
    assert rc == 0 and "model length" in out and "every length" not in out


@pytest.mark.parametrize("extra,words", [(["--max-length", "20"], "MAX_WORDS = 200000"),
                                         (["--max-boxes", "10"], "no boxes")])
def test_sizes_and_unused_options_are_refused_in_one_line(tmp_path, capsys, extra, words):
    from bounds.certify.cli import main

    path = _random(tmp_path / "r40", 40, 5)
    capsys.readouterr()
    rc = main(["--model", path, "--task", "binary_majority", "--margin", "1/4", *extra])
    err = capsys.readouterr().err
    assert rc == 2 and words in err and len(err.strip().splitlines()) == 1


def test_a_table_too_short_for_any_input_is_refused(tmp_path, capsys):
    from bounds.certify.cli import main

    path = _random(tmp_path / "r2", 2, 5)
    capsys.readouterr()
    rc = main(["--model", path, "--task", "binary_majority", "--margin", "1/4"])
    err = capsys.readouterr().err
    assert rc == 2 and "at least 3 rows" in err and len(err.strip().splitlines()) == 1
