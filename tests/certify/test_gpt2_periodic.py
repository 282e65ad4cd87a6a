"""One-layer GPT-2 with a periodic position table: import, the (token, residue) class reduction against the torch
forward (float64), the pair certificate with controls, and the one-line refusals that remain."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from bounds.certify import gpt2  # noqa: E402
from bounds.certify.gpt2_enclosure import Enclosure, class_counts, point_box  # noqa: E402
from bounds.certify.gpt2_search import (  # noqa: E402
    _realize,
    certify_pair,
    configuration_count,
    configurations,
    propagate,
    residue_totals,
    string_of,
)
from tests.certify.gpt2_checks import assert_small_ln_f_change_certified  # noqa: E402

VOCAB, BOS, ROWS = 4, 0, 64


def _hf_model(seed: int, period: int | None, d: int = 8, heads: int = 2, scale: float = 0.5):
    """A random one-layer GPT-2 whose ROWS-row table repeats with ``period`` (None: a random, aperiodic table)."""
    torch.manual_seed(seed)
    cfg = transformers.GPT2Config(vocab_size=VOCAB, n_positions=ROWS, n_embd=d, n_layer=1, n_head=heads,
                                  bos_token_id=BOS, eos_token_id=BOS, resid_pdrop=0, embd_pdrop=0, attn_pdrop=0)
    m = transformers.GPT2LMHeadModel(cfg)
    with torch.no_grad():
        for p in m.parameters():
            p.add_(scale * torch.randn_like(p))
        if period is not None:
            rows = m.transformer.wpe.weight
            rows.copy_(rows[:period].repeat(ROWS // period + 1, 1)[:ROWS])
    return m.double().eval()


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    out = {}
    for period in (2, 3):
        path = tmp_path_factory.mktemp("periodic") / f"p{period}"
        _hf_model(period, period).save_pretrained(path)
        out[period] = str(path)
    return out


@pytest.fixture(scope="module")
def forms(saved):
    return {p: gpt2.load(path, alphabet=[1, 2]) for p, path in saved.items()}


def _hf_logits(path, ids):
    m = transformers.GPT2LMHeadModel.from_pretrained(path).double().eval()
    with torch.no_grad():
        return m(torch.tensor([[BOS, *ids]])).logits[0, -1].numpy()


# --------------------------------------------------------------------------------------------- import
def test_periodic_table_is_read_with_its_period(forms, saved):
    for p, f in forms.items():
        assert f.period == p and f.wpe.shape == (p, f.d) and len(f.classes()) == 1 + 2 * p
        # the form's periodic forward is the saved model itself on inputs within its table
        ids = [1, 2, 2, 1, 1, 2, 1]
        assert np.max(np.abs(f.torch_logits(ids) - _hf_logits(saved[p], ids))) < 1e-12


def test_aperiodic_table_is_refused_in_one_line_naming_why(tmp_path):
    _hf_model(7, None).save_pretrained(tmp_path / "ape")
    with pytest.raises(gpt2.FormError) as e:
        gpt2.load(str(tmp_path / "ape"), alphabet=[1, 2])
    msg = str(e.value)
    assert "\n" not in msg and "not periodic" in msg and f"at most {ROWS} positions" in msg
    # control: the same model with its table made periodic is read
    m = _hf_model(7, 4)
    m.save_pretrained(tmp_path / "per")
    assert gpt2.load(str(tmp_path / "per"), alphabet=[1, 2]).period == 4
    # a table periodic only after its first rows (a different row 0) is not periodic: refused
    with torch.no_grad():
        m.transformer.wpe.weight[0] += 1.0
    m.save_pretrained(tmp_path / "pre")
    with pytest.raises(gpt2.FormError, match="not periodic"):
        gpt2.load(str(tmp_path / "pre"), alphabet=[1, 2])


# --------------------------------------------------------------------------------------------- class reduction
_ENCLOSURES = {}


def _enclosure(f):
    return _ENCLOSURES.setdefault(id(f), Enclosure(f))


@settings(max_examples=25, deadline=None)
@given(period=st.sampled_from([2, 3]), ids=st.lists(st.sampled_from([1, 2]), min_size=1, max_size=20))
def test_class_reduction_encloses_the_torch_forward(forms, period, ids):
    f = forms[period]
    enc = _enclosure(f)
    counts, last = class_counts(ids, f.alphabet, period)
    lo, hi = enc.logits(last, *point_box(counts, len(ids)))
    ref = f.torch_logits(ids)
    assert np.all(lo[0] - 1e-12 <= ref) and np.all(ref <= hi[0] + 1e-12)
    assert np.max(hi[0] - lo[0]) < 1e-8
    # the classes are what the forward depends on: moving a letter to another position of the same residue keeps it
    if len(ids) > period + 1:
        swapped = list(ids)
        swapped[0], swapped[period] = swapped[period], swapped[0]
        assert np.max(np.abs(f.torch_logits(swapped) - ref)) < 1e-9


def test_reading_the_residues_wrongly_is_rejected(forms):
    """Negative control: counts by token alone (the NoPE reduction) or a shifted residue do not enclose the forward."""
    f = forms[2]
    enc = _enclosure(f)
    ids = [1, 2, 2, 1, 1]
    ref = f.torch_logits(ids)
    counts, last = class_counts(ids, f.alphabet, 2)
    shifted = [counts[c ^ 1] for c in range(len(counts))]  # every letter at the other residue
    lo, hi = enc.logits(last ^ 1, *point_box(shifted, len(ids)))
    assert not (np.all(lo[0] - 1e-9 <= ref) and np.all(ref <= hi[0] + 1e-9))


def test_configurations_are_the_inputs_of_each_length():
    import itertools

    for P, n in ((2, 5), (3, 7)):
        seen = {}
        for ids in itertools.product([1, 2], repeat=n):
            c, t = class_counts(list(ids), (1, 2), P)
            seen.setdefault(t, set()).add(tuple(c))
        for t in range(2 * P):
            rows = {tuple(r) for r in configurations(n, 2, t, P)}
            assert rows == seen.get(t, set())
            for r in rows:  # each configuration is realized by string_of
                ids = string_of((1, 2), list(r), t, P)
                assert class_counts(ids, (1, 2), P) == (list(r), t)
        assert sum(len(configurations(n, 2, t, P)) for t in range(2 * P)) <= configuration_count(n, 2, P)
        assert sum(residue_totals(n, P)) == n


@settings(max_examples=40, deadline=None)
@given(P=st.sampled_from([2, 3]), ids=st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=60))
def test_every_input_lies_in_the_propagated_root_box(P, ids):
    """propagate keeps every input's shares (soundness of the branch-and-bound's constraints); control: a point off
    the residue constraint is cut."""
    k = 3
    counts, t = class_counts(ids, (1, 2, 3), P)
    L = len(ids) + 1
    pi = np.array(counts, dtype=float) / L
    r = np.array([1 / L])
    out = propagate(t, r, r, pi[None], pi[None], P)
    assert out[4][0]
    box = propagate(t, np.array([0.0]), np.array([1 / L]), np.zeros((1, k * P)), np.ones((1, k * P)), P)
    assert box[4][0] and np.all(box[2][0] <= pi + 1e-12) and np.all(pi <= box[3][0] + 1e-12)
    bad = np.zeros(k * P)
    bad[t] = 1 - 1 / L  # all the mass on one residue
    if P * (1 / L) < 1 - 1 / P - 2 / L:
        assert not propagate(t, r, r, bad[None], bad[None], P)[4][0]


def test_realized_inputs_have_the_last_class_residue():
    for P in (2, 3):
        for t in range(2 * P):
            got = _realize(t, 1 / 50, np.full(2 * P, 1 / (2 * P)), 10, 10**6, P)
            n, c = got
            assert n % P == t % P and c[t] >= 1 and list(c[t % P::P].sum(keepdims=True)) != []
            assert [int(c[r::P].sum()) for r in range(P)] == residue_totals(n, P)


# --------------------------------------------------------------------------------------------- certificate
def test_model_against_itself_is_certified(forms):
    cert = certify_pair(forms[2], forms[2], eps=0.01, budget_s=20)
    assert cert.verdict == "certified" and cert.upper <= 1e-12 and cert.period == 2


def test_changed_position_row_is_refuted_with_a_torch_checked_input(forms):
    f = forms[2]
    g = f.with_params(wpe=f.wpe + 0.5 * np.eye(2, f.d))
    cert = certify_pair(f, g, eps=0.05, budget_s=20)
    assert cert.verdict == "fails" and cert.lower > 0.05
    ids = cert.witness["ids"]
    assert abs(cert.torch_difference - np.max(np.abs(f.torch_logits(ids) - g.torch_logits(ids)))) < 1e-12
    assert cert.torch_difference > 0.05


def test_small_change_is_certified_and_sound_beyond_the_enumerated_lengths(forms):
    assert_small_ln_f_change_certified(forms[3], (7, 40, 301))


def test_pair_of_different_periods_is_reduced_at_their_lcm(forms):
    nope = forms[2].with_params(wpe=None)
    cert = certify_pair(forms[2], nope, eps=1e-6, max_length=6, budget_s=10)
    assert cert.period == 2 and cert.verdict == "fails"  # the table changes the function
    same = certify_pair(forms[2], forms[2].at_period(4), eps=1e-9, max_length=4, budget_s=10)
    assert same.period == 4 and same.verdict == "certified"
    with pytest.raises(ValueError, match="period 6 .*exceed MAX_ALPHABET"):  # 2 tokens x 6 residues
        certify_pair(forms[2], forms[3], eps=0.1, budget_s=5)


def test_command_line_takes_periodic_pairs_and_refuses_tasks_in_one_line(saved, capsys, tmp_path):
    from bounds.certify.cli import main

    capsys.readouterr()
    rc = main(["--model", saved[2], "--against", saved[2], "--alphabet", "1,2", "--time-budget", "120"])
    out = capsys.readouterr().out
    assert rc == 0 and "verdict: certified" in out and "periodic positions (period 2)" in out
    rc = main(["--model", saved[2], "--task", "binary_majority", "--margin", "1/4"])
    err = capsys.readouterr().err
    assert rc == 2 and "periodic positions" in err and len(err.strip().splitlines()) == 1


# --------------------------------------------------------------------------------------------- absolute tables
def _ape(tmp_path, rows: int, seed: int = 11):
    torch.manual_seed(seed)
    cfg = transformers.GPT2Config(vocab_size=VOCAB, n_positions=rows, n_embd=8, n_layer=1, n_head=2,
                                  bos_token_id=BOS, eos_token_id=BOS, resid_pdrop=0, embd_pdrop=0, attn_pdrop=0)
    m = transformers.GPT2LMHeadModel(cfg)
    with torch.no_grad():
        for p in m.parameters():
            p.add_(0.5 * torch.randn_like(p))
    path = tmp_path / f"ape{rows}"
    m.save_pretrained(path)
    return str(path)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), K=st.integers(2, 12), B=st.integers(1, 3))
def test_ratio_mixture_encloses_the_softmax_mixture(seed, K, B):
    from bounds.certify.gpt2_enclosure import mixture

    rng = np.random.default_rng(seed)
    H, dh = 2, 3
    s = rng.normal(size=(H, K)) * 3
    v_lo = rng.normal(size=(H, K, dh))
    v_hi = v_lo + rng.uniform(0, 0.1, size=v_lo.shape)
    m_lo = rng.uniform(0, 1, size=(B, K))
    m_lo[:, 0] = rng.uniform(0.01, 1, size=B)  # BOS's mass > 0
    m_hi = m_lo + rng.uniform(0, 0.2, size=(B, K))
    lo, hi = mixture(s, s, v_lo, v_hi, None, m_lo, m_hi)
    for _ in range(20):
        m = rng.uniform(m_lo, m_hi)
        v = rng.uniform(v_lo, v_hi)
        w = m[:, None, :] * np.exp(s)[None]
        a = np.einsum("bhk,hkj->bhj", w, v) / w.sum(-1)[..., None]
        assert np.all(lo <= a + 1e-12) and np.all(a <= hi + 1e-12)
    # on a point box it is tight (the vertex form agrees where it applies)
    p_lo, p_hi = mixture(s, s, v_lo, v_lo, None, m_lo, m_lo)
    assert np.max(p_hi - p_lo) < 1e-9
    masks = np.array([[(q >> c) & 1 for c in range(K)] for q in range(1, 2**K)], dtype=bool)
    q_lo, q_hi = mixture(s, s, v_lo, v_lo, masks, m_lo, m_lo)
    assert np.max(np.abs(q_lo - p_lo)) < 1e-9 and np.max(np.abs(q_hi - p_hi)) < 1e-9


def test_absolute_table_is_certified_on_the_inputs_it_reads_only(tmp_path):
    path = _ape(tmp_path, 6)
    with pytest.raises(gpt2.FormError, match="not periodic"):  # the default reading still refuses it
        gpt2.load(path, alphabet=[1, 2])
    f = gpt2.load(path, alphabet=[1, 2], absolute=True)
    assert f.defined_up_to == 6 and f.period == 6
    chk = gpt2.import_check(f, samples=12)
    assert chk["max_abs_difference"] < 1e-12 and chk["max_outside_enclosure"] < 1e-12
    cert = certify_pair(f, f, eps=0.01, budget_s=20)
    assert cert.verdict == "certified" and cert.defined_up_to == 6 and cert.N0 == 5
    assert not cert.horizon.every_length and cert.horizon.H == 6
    # negative control: the table's last row changed (read only by inputs of 6 positions) is refuted there, and the
    # torch difference is that of the saved model itself
    wpe = f.wpe.copy()
    wpe[5, 0] += 1.0
    g = f.with_params(wpe=wpe)
    bad = certify_pair(f, g, eps=0.01, budget_s=20)
    assert bad.verdict == "fails" and bad.witness["length"] == 5
    ids = bad.witness["ids"]
    assert abs(np.max(np.abs(_hf_logits(path, ids) - g.torch_logits(ids))) - bad.torch_difference) < 1e-12


def test_long_absolute_table_is_not_certified_beyond_what_was_enumerated(tmp_path, capsys):
    from bounds.certify.cli import main

    path = _ape(tmp_path, 40)
    f = gpt2.load(path, alphabet=[1, 2], absolute=True)
    cert = certify_pair(f, f, eps=0.01, max_length=4, budget_s=20)
    assert cert.verdict == "undetermined" and cert.N0 < 39 and cert.upper == float("inf")
    capsys.readouterr()
    rc = main(["--model", path, "--against", path, "--alphabet", "1,2", "--time-budget", "120", "--max-length", "4"])
    out = capsys.readouterr().out
    assert rc == 0 and "undefined beyond its position table of 40 rows" in out and "at every length" not in out
    assert "verdict: undetermined" in out


def test_a_change_below_the_sums_rounding_is_still_a_difference(forms):
    """Two tables whose sums wte[a] + wpe[r] round to the same doubles still differ: the difference form decides
    equality on the exact parameters (control: the same table gives an exactly zero embedding term)."""
    from bounds.certify.gpt2_difference import PairDifference

    f = forms[2]
    g = f.with_params(wpe=np.nextafter(f.wpe, np.inf))
    mv = PairDifference(f, g).mean_value
    assert mv is not None and not mv.attention_same and all(d is not None for d in mv.d_emb)
    same = PairDifference(f, f.with_params(ln2=(f.ln2[0] * 2, f.ln2[1]))).mean_value
    assert same is not None and same.attention_same and all(d is None for d in same.d_emb)
