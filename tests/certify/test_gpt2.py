"""One-layer NoPE GPT-2: import, refusals, enclosures against a 40-digit forward, and the every-length certificate."""

from __future__ import annotations

import json
import os
import stat

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from bounds.certify import gpt2  # noqa: E402
from bounds.certify.gpt2_enclosure import Enclosure, gelu, gelu_minimum, gelu_values, point_box  # noqa: E402
from bounds.certify.gpt2_search import certify_pair  # noqa: E402
from tests.certify.gpt2_checks import assert_small_ln_f_change_certified  # noqa: E402

VOCAB, BOS = 4, 0


def _hf_model(seed: int, d: int = 8, heads: int = 2, layers: int = 1, activation: str = "gelu_new",
              scale: float = 0.5):
    torch.manual_seed(seed)
    cfg = transformers.GPT2Config(vocab_size=VOCAB, n_positions=64, n_embd=d, n_layer=layers, n_head=heads,
                                  bos_token_id=BOS, eos_token_id=BOS, resid_pdrop=0, embd_pdrop=0, attn_pdrop=0,
                                  activation_function=activation)
    m = transformers.GPT2LMHeadModel(cfg)
    with torch.no_grad():
        for p in m.parameters():
            p.add_(scale * torch.randn_like(p))
        m.transformer.wpe.weight.zero_()
    return m


def _saved(tmp_path, seed=0, **kw):
    path = tmp_path / f"m{seed}"
    _hf_model(seed, **kw).save_pretrained(path)
    return str(path)


@pytest.fixture(scope="module")
def form(tmp_path_factory):
    return gpt2.load(_saved(tmp_path_factory.mktemp("gpt2")), alphabet=[1, 2])


# --------------------------------------------------------------------------------------------- import
def test_import_agrees_with_torch(form):
    chk = gpt2.import_check(form, samples=12)
    assert chk["max_abs_difference"] < 1e-12 and chk["max_outside_enclosure"] < 1e-12
    # negative control: a form read with a transposed attention projection disagrees
    bad = form.with_params(proj_w=form.proj_w.T.copy())
    bad.torch_model = form.torch_model
    assert gpt2.import_check(bad, samples=12)["max_abs_difference"] > 1e-3


def test_state_dict_with_config_reads_the_same_form(tmp_path, form):
    path = _saved(tmp_path, 0)
    model = transformers.GPT2LMHeadModel.from_pretrained(path)
    torch.save(model.state_dict(), tmp_path / "sd.pt")
    g = gpt2.load(str(tmp_path / "sd.pt"), config=str(tmp_path / "m0" / "config.json"), alphabet=[1, 2])
    assert np.array_equal(g.attn_w, form.attn_w) and np.array_equal(g.head_w, form.head_w)
    assert g.bos == BOS and g.alphabet == (1, 2)


@pytest.mark.parametrize("kw,words", [({"layers": 2}, "2 layers"), ({"activation": "relu"}, "activation 'relu'")])
def test_refuses_outside_the_form(tmp_path, kw, words):
    with pytest.raises(gpt2.FormError, match=words):
        gpt2.load(_saved(tmp_path, **kw))


def test_refuses_absolute_positions_and_bad_options(tmp_path):
    path = tmp_path / "ape"
    m = _hf_model(1)
    with torch.no_grad():
        m.transformer.wpe.weight.normal_()
    m.save_pretrained(path)
    with pytest.raises(gpt2.FormError, match="absolute positions are used.*define the model on inputs of at most "
                                             f"{m.config.n_positions} positions.*every length"):
        gpt2.load(str(path))
    # a table repeating with period 3 is read periodically (tests/certify/test_gpt2_periodic.py), up to the class
    # limit: 3 tokens x 3 residues = 9 classes are refused, naming the period
    with torch.no_grad():
        rows = m.transformer.wpe.weight
        rows.copy_(rows[:3].repeat(rows.shape[0] // 3 + 1, 1)[:rows.shape[0]])
    m.save_pretrained(tmp_path / "periodic")
    with pytest.raises(gpt2.FormError, match="repeats with period 3: 3 tokens x 3 residues = 9 classes exceed"):
        gpt2.load(str(tmp_path / "periodic"))
    assert gpt2.load(str(tmp_path / "periodic"), alphabet=[1, 2]).period == 3
    assert gpt2.table_period(np.arange(12.0).reshape(6, 2)) is None  # control: an aperiodic table has no period
    assert gpt2.table_period(np.tile(np.arange(4.0).reshape(2, 2), (3, 1))) == 2
    ok = _saved(tmp_path, 2)
    with pytest.raises(gpt2.FormError, match="BOS token id 9"):
        gpt2.load(ok, bos=9)
    with pytest.raises(gpt2.FormError, match="alphabet"):
        gpt2.load(ok, alphabet=[0, 1])
    with pytest.raises(gpt2.FormError, match="--config"):
        gpt2.load(str(tmp_path / "x.pt"))
    (tmp_path / "cfg.json").write_text(json.dumps({"model_type": "llama", "n_layer": 1}))
    with pytest.raises(gpt2.FormError, match="not gpt2"):
        gpt2.load(str(tmp_path / "x.pt"), config=str(tmp_path / "cfg.json"))
    assert gpt2.load(ok).alphabet == (1, 2, 3)  # config's BOS, every other id


def test_bos_and_alphabet_from_the_tokenizer_saved_beside(tmp_path):
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel

    tk = Tokenizer(WordLevel({"<s>": 0, "a": 1, "b": 2, "<pad>": 3}, unk_token="<pad>"))
    tok = transformers.PreTrainedTokenizerFast(tokenizer_object=tk, bos_token="<s>", pad_token="<pad>")
    path = _saved(tmp_path, 6)
    assert gpt2.load(path).alphabet == (1, 2, 3)  # control: no tokenizer, every id but the config's BOS
    tok.save_pretrained(path)
    f = gpt2.load(path)
    assert f.bos == 0 and f.alphabet == (1, 2)  # the special <pad> is not a letter


# --------------------------------------------------------------------------------------------- enclosures
def _mp_forward(f, ids):
    """40-digit forward of the whole sequence BOS ids (an implementation independent of the class reduction)."""
    mpmath.mp.dps = 40
    M = lambda a: mpmath.matrix(np.asarray(a).tolist())  # noqa: E731

    def ln(x, p):
        d = x.cols
        mu = sum(x) / d
        var = sum((v - mu) ** 2 for v in x) / d
        s = mpmath.sqrt(var + mpmath.mpf(f.ln_eps))
        return mpmath.matrix([[(x[j] - mu) / s * mpmath.mpf(p[0][j]) + mpmath.mpf(p[1][j]) for j in range(d)]])

    def act(x):
        if f.activation == "gelu":
            return x * (1 + mpmath.erf(x / mpmath.sqrt(2))) / 2
        c = mpmath.sqrt(2 / mpmath.pi)
        return x * (1 + mpmath.tanh(c * (x + mpmath.mpf(0.044715) * x**3))) / 2

    seq = [f.bos, *ids]
    d, H = f.d, f.n_head
    dh = d // H
    W, bW = M(f.attn_w), M(f.attn_b[None])
    qkv = [ln(M(f.wte[i][None]), f.ln1) * W + bW for i in seq]
    out = []
    for h in range(H):
        q = [qkv[-1][h * dh + j] for j in range(dh)]
        s = [sum(q[j] * r[d + h * dh + j] for j in range(dh)) / mpmath.sqrt(dh) for r in qkv]
        m = max(s)
        w = [mpmath.exp(x - m) for x in s]
        z = sum(w)
        out += [sum(w[i] * qkv[i][2 * d + h * dh + j] for i in range(len(seq))) / z for j in range(dh)]
    x1 = M(f.wte[seq[-1]][None]) + mpmath.matrix([out]) * M(f.proj_w) + M(f.proj_b[None])
    pre = ln(x1, f.ln2) * M(f.fc_w) + M(f.fc_b[None])
    x2 = x1 + mpmath.matrix([[act(v) for v in pre]]) * M(f.mproj_w) + M(f.mproj_b[None])
    y = ln(x2, f.lnf) * M(f.head_w.T) + M(f.head_b[None])
    return [y[j] for j in range(y.cols)]


def _inside(lo, hi, ref) -> bool:
    return all(mpmath.mpf(a) <= r <= mpmath.mpf(b) for a, b, r in zip(lo, hi, ref, strict=True))


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10**6), ids=st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=7),
       activation=st.sampled_from(gpt2.ACTIVATIONS), widen=st.floats(0, 0.05))
def test_enclosure_holds_the_40_digit_forward(seed, ids, activation, widen):
    sd = _hf_model(seed, activation=activation, scale=1.0).state_dict()
    cfg = {"model_type": "gpt2", "n_layer": 1, "n_embd": 8, "n_head": 2, "activation_function": activation,
           "bos_token_id": BOS}
    f = gpt2.from_state_dict(sd, cfg)
    enc = Enclosure(f)
    ref = _mp_forward(f, ids)
    counts = [ids.count(a) for a in f.alphabet]
    t = f.alphabet.index(ids[-1])
    r_lo, r_hi, p_lo, p_hi = point_box(counts, len(ids))
    lo, hi = enc.logits(t, r_lo, r_hi, p_lo, p_hi)
    assert _inside(lo[0], hi[0], ref)
    assert np.max(hi - lo) < 1e-7  # a point box encloses tightly (exp, tanh, erf trusted to 2^-40) ...
    # ... so the same check rejects a model whose final bias moved by 1e-5 (negative control)
    moved = Enclosure(f.with_params(head_b=f.head_b + 1e-5)).logits(t, r_lo, r_hi, p_lo, p_hi)
    assert not _inside(moved[0][0], moved[1][0], ref)
    # and dropping the BOS term (rho = 0) is rejected too, wherever the BOS term moves the output by more than the
    # enclosures' width (a draw whose BOS and token rows give the same output leaves nothing to detect: the
    # deterministic control is test_dropping_the_bos_term_is_rejected)
    drop = enc.logits(t, np.zeros(1), np.zeros(1), p_lo, p_hi)
    if np.max(np.abs((drop[0][0] + drop[1][0]) - (lo[0] + hi[0])) / 2) > 1e-6:
        assert not _inside(drop[0][0], drop[1][0], ref)
    # a wider box holding the input encloses it as well
    wlo, whi = enc.logits(t, np.maximum(r_lo - widen, 0), r_hi + widen / 2, np.maximum(p_lo - widen, 0),
                          p_hi + widen)
    assert _inside(wlo[0], whi[0], ref)


def test_dropping_the_bos_term_is_rejected():
    """Negative control of the enclosure check on fixed draws: the enclosure without the BOS term (rho = 0) misses
    the 40-digit forward, which the enclosure with it holds."""
    for seed, ids in ((0, [1]), (1, [1, 2]), (2, [2, 2, 1])):
        sd = _hf_model(seed, activation="gelu_new", scale=1.0).state_dict()
        cfg = {"model_type": "gpt2", "n_layer": 1, "n_embd": 8, "n_head": 2, "activation_function": "gelu_new",
               "bos_token_id": BOS}
        f = gpt2.from_state_dict(sd, cfg)
        enc = Enclosure(f)
        ref = _mp_forward(f, ids)
        t = f.alphabet.index(ids[-1])
        r_lo, r_hi, p_lo, p_hi = point_box([ids.count(a) for a in f.alphabet], len(ids))
        lo, hi = enc.logits(t, r_lo, r_hi, p_lo, p_hi)
        drop = enc.logits(t, np.zeros(1), np.zeros(1), p_lo, p_hi)
        assert _inside(lo[0], hi[0], ref) and not _inside(drop[0][0], drop[1][0], ref)


@settings(max_examples=40, deadline=None)
@given(a=st.floats(-6, 6), w=st.floats(0, 3), kind=st.sampled_from(["gelu", "gelu_new"]))
def test_gelu_enclosure(a, w, kind):
    lo, hi = np.array([a]), np.array([a + w])
    glo, ghi = gelu(lo, hi, kind)
    xs = np.linspace(a, a + w, 401)
    g = gelu_values(xs, kind)[0]
    assert glo[0] <= g.min() and g.max() <= ghi[0]


def test_gelu_endpoints_alone_are_not_an_enclosure():
    """Negative control: across the minimum the endpoints' range misses min GELU, which the enclosure keeps."""
    x0_lo, x0_hi, gmin = gelu_minimum("gelu_new")
    assert -0.76 < x0_lo < x0_hi < -0.74 and -0.171 < gmin < -0.169
    lo, hi = np.array([-1.5]), np.array([0.0])
    ends = gelu_values(np.array([-1.5, 0.0]), "gelu_new")[0]
    inside = gelu_values(np.array([(x0_lo + x0_hi) / 2]), "gelu_new")[0][0]
    assert inside < ends.min()
    assert gelu(lo, hi, "gelu_new")[0][0] <= inside


# --------------------------------------------------------------------------------------------- certificate
def test_model_against_itself_is_certified(form):
    cert = certify_pair(form, form, eps=0.01, budget_s=20)
    assert cert.verdict == "certified" and cert.upper <= 1e-12


def test_changed_final_layer_norm_is_refuted_with_a_torch_checked_string(form):
    g = form.with_params(lnf=(form.lnf[0] + np.eye(form.d)[3], form.lnf[1]))
    cert = certify_pair(form, g, eps=0.1, budget_s=20)
    assert cert.verdict == "fails" and cert.lower > 0.1
    ids = cert.witness["ids"]
    assert len(ids) == cert.witness["length"] and ids[-1] == cert.witness["last"]
    assert cert.torch_difference > 0.1 and abs(cert.torch_difference - cert.lower) < 1e-9


def test_changed_first_layer_norm_is_refuted(form):
    g = form.with_params(ln1=(form.ln1[0] + np.eye(form.d)[2], form.ln1[1]))
    cert = certify_pair(form, g, eps=0.05, budget_s=20)
    assert cert.verdict == "fails" and cert.torch_difference > 0.05


def test_small_change_is_certified_and_sound_beyond_the_enumerated_lengths(form):
    assert_small_ln_f_change_certified(form, (7, 40, 300))


# --------------------------------------------------------------------------------------------- command line
def _run(argv, capsys):
    from bounds.certify.cli import main

    capsys.readouterr()
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_command_line_certifies_and_refutes_hugging_face_directories(tmp_path, capsys):
    path = _saved(tmp_path, 3)
    m = transformers.GPT2LMHeadModel.from_pretrained(path)
    with torch.no_grad():
        m.transformer.ln_f.weight[2] += 1.0
    m.save_pretrained(tmp_path / "changed")
    rc, out, _ = _run(["--model", path, "--against", path, "--alphabet", "1,2", "--time-budget", "120"], capsys)
    assert rc == 0 and "verdict: certified" in out
    rc, out, _ = _run(["--model", path, "--against", str(tmp_path / "changed"), "--alphabet", "1,2", "--json"],
                      capsys)
    rec = json.loads(out)
    assert rc == 0 and rec["verdict"] == "fails" and rec["torch_difference"] > rec["eps"]
    assert rec["witness"]["ids"][-1] == rec["witness"]["last"]


def test_command_line_refuses_in_one_line(tmp_path, capsys):
    two = _saved(tmp_path, 4, layers=2)
    one = _saved(tmp_path, 5)
    pair = str(tmp_path / "f.json")
    open(pair, "w").write("{}")
    device = str(tmp_path / "null")
    os.mknod(device, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    for argv, words in [(["--model", two, "--against", one], "2 layers"),
                        (["--model", one], "needs --against"),
                        (["--model", one, "--against", one, "--delta", "0.1"], "drop --delta"),
                        (["--model", pair, "--against", pair, "--alphabet", "1"], "drop --alphabet"),
                        (["--model", "f.json", "--against", one], "--model f.json: no such file"),
                        (["--model", one, "--against", device], "not a regular file or a directory"),
                        (["--model", str(tmp_path / "none.pt"), "--against", one, "--config", "c.json"],
                         "no such file")]:
        rc, out, err = _run(argv, capsys)
        assert rc == 2 and words in err and len(err.strip().splitlines()) == 1, (argv, err)
