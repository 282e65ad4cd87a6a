"""A failing input of the GPT-2 certificate as token ids, and as an ONNX graph with a VNN-LIB property: the graph
evaluated by onnx's reference evaluator gives the package's value, the property file is read back by a grammar,
and the command refuses what it must not write."""

from __future__ import annotations

import json
import os
import re
import stat

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
onnx = pytest.importorskip("onnx")

from bounds.certify import gpt2  # noqa: E402
from bounds.certify.gpt2_onnx import FLOAT32_TOLERANCE, evaluate, graph, onehot  # noqa: E402
from tests.certify.test_gpt2 import BOS, _hf_model  # noqa: E402

CFG = {"model_type": "gpt2", "n_layer": 1, "n_embd": 8, "n_head": 2, "bos_token_id": BOS}
#: onnx.reference's Erf evaluates in float32 even on doubles (np.vectorize(math.erf, otypes="f")), so the float64
#: graph of the erf GELU agrees with the torch forward to ~1e-7 only; the tanh forms to ~1e-14
FLOAT64_TOLERANCE = {"gelu": 1e-6, "gelu_new": 1e-12, "gelu_pytorch_tanh": 1e-12}


def _form(seed, activation="gelu_new"):
    sd = _hf_model(seed, activation=activation, scale=1.0).state_dict()
    return gpt2.from_state_dict(sd, {**CFG, "activation_function": activation}, alphabet=[1, 2])


def _rel(a, b):
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b))))


# --------------------------------------------------------------------------------------------- the graph
@pytest.mark.parametrize("activation", gpt2.ACTIVATIONS)
def test_graph_computes_the_torch_forward(activation):
    """float64 graph: the package's float64 function (to FLOAT64_TOLERANCE); float32 graph: within
    FLOAT32_TOLERANCE relative; the pair graph: f - g."""
    rng = np.random.default_rng(1)
    for seed in (0, 1):
        f = _form(seed, activation)
        g = f.with_params(ln2=(f.ln2[0] + 0.3 * np.eye(f.d)[1], f.ln2[1]))
        for n in (1, 6, 33):
            ids = [BOS, *(int(a) for a in rng.choice(f.alphabet, size=n))]
            ref = f.torch_model(ids)
            y64 = evaluate(graph(f, len(ids), dtype=np.float64), onehot(f, ids, np.float64))
            assert np.max(np.abs(y64 - ref)) <= FLOAT64_TOLERANCE[activation]
            assert _rel(evaluate(graph(f, len(ids)), onehot(f, ids)), ref) <= FLOAT32_TOLERANCE
            diff = ref - g.torch_model(ids)
            assert _rel(evaluate(graph(f, len(ids), g), onehot(f, ids)), diff) <= FLOAT32_TOLERANCE


def test_graph_check_rejects_changed_models():
    """Negative controls of the comparison above: a graph with one ln_f weight moved by 1e-3, or built without the
    1/sqrt(d_head) scale or with another LayerNorm eps, is rejected at the same tolerances."""
    f = _form(2)
    ids = [BOS, 1, 2, 2, 1, 1]
    ref = f.torch_model(ids)
    model = graph(f, len(ids), dtype=np.float64)
    init = {t.name: t for t in model.graph.initializer}
    gamma = onnx.numpy_helper.to_array(init["f_lnf_gamma"]).copy()
    gamma[0] += 1e-3
    init["f_lnf_gamma"].CopyFrom(onnx.numpy_helper.from_array(gamma, "f_lnf_gamma"))
    assert np.max(np.abs(evaluate(model, onehot(f, ids, np.float64)) - ref)) > FLOAT64_TOLERANCE["gelu_new"]
    for changed in (f.with_params(scale_attn=False), f.with_params(ln_eps=1e-3)):
        y = evaluate(graph(changed, len(ids), dtype=np.float64), onehot(f, ids, np.float64))
        assert np.max(np.abs(y - ref)) > FLOAT64_TOLERANCE["gelu_new"]
    big = f.with_params(head_b=f.head_b + 10 * FLOAT32_TOLERANCE * np.maximum(1, np.abs(ref)))
    assert _rel(evaluate(graph(big, len(ids)), onehot(f, ids)), ref) > FLOAT32_TOLERANCE


def test_graph_and_encoding_refuse_bad_input():
    f = _form(3)
    with pytest.raises(ValueError, match="MAX_ONNX_LENGTH"):
        graph(f, 1)
    with pytest.raises(ValueError, match="BOS 0 followed"):
        onehot(f, [1, 2])
    with pytest.raises(ValueError, match="BOS 0 followed"):
        onehot(f, [BOS, 3])  # 3 is a vocabulary id outside the alphabet [1, 2]
    x = onehot(f, [BOS, 2, 1])
    assert x.shape == (1, 3, 3) and np.array_equal(x[0], [[1, 0, 0], [0, 0, 1], [0, 1, 0]])


# --------------------------------------------------------------------------------------------- VNN-LIB reader
NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def _sexprs(text: str):
    """The top-level s-expressions of a VNN-LIB text (';' comments dropped), as nested lists of atoms."""
    tokens = re.findall(r"\(|\)|[^\s()]+", re.sub(r";[^\n]*", "", text))
    stack, out = [[]], None
    for t in tokens:
        if t == "(":
            stack.append([])
        elif t == ")":
            assert len(stack) > 1, "unbalanced ')'"
            out = stack.pop()
            stack[-1].append(out)
        else:
            stack[-1].append(t)
    assert len(stack) == 1, "unbalanced '('"
    return stack[0]


def read_vnnlib(text: str):
    """The grammar of the files written: (declare-const X_i|Y_i Real), (assert E), E = (<= a b) | (>= a b) |
    (and E+) | (or E+), a, b a declared name or a decimal.  Returns (names, asserts); anything else fails."""
    names, asserts = [], []
    for e in _sexprs(text):
        assert isinstance(e, list) and e, e
        if e[0] == "declare-const":
            assert len(e) == 3 and re.fullmatch(r"[XY]_[0-9]+", e[1]) and e[2] == "Real", e
            assert e[1] not in names, f"{e[1]} declared twice"
            names.append(e[1])
        else:
            assert e[0] == "assert" and len(e) == 2, e
            _check_expr(e[1], set(names))
            asserts.append(e[1])
    return names, asserts


def _check_expr(e, names):
    assert isinstance(e, list) and e
    if e[0] in ("and", "or"):
        assert len(e) > 1
        for a in e[1:]:
            _check_expr(a, names)
    else:
        assert e[0] in ("<=", ">=") and len(e) == 3, e
        for a in e[1:]:
            assert isinstance(a, str) and (a in names or NUMBER.fullmatch(a)), a


def holds(e, values: dict) -> bool:
    val = lambda a: values[a] if a in values else float(a)  # noqa: E731
    if e[0] == "and":
        return all(holds(a, values) for a in e[1:])
    if e[0] == "or":
        return any(holds(a, values) for a in e[1:])
    return val(e[1]) <= val(e[2]) if e[0] == "<=" else val(e[1]) >= val(e[2])


def input_box(names, asserts):
    """Each X_i's [lower, upper] from the asserts ``(<= X_i c)`` / ``(>= X_i c)``; every X_i must have both."""
    box = {n: [None, None] for n in names if n.startswith("X_")}
    for e in asserts:
        if e[0] in ("<=", ">=") and e[1] in box:
            box[e[1]][0 if e[0] == ">=" else 1] = float(e[2])
    missing = [n for n, (lo, hi) in box.items() if lo is None or hi is None]
    assert not missing, f"unbounded inputs {missing[:3]}"
    return box


def output_asserts(asserts):
    return [e for e in asserts if not (e[0] in ("<=", ">=") and e[1].startswith("X_"))]


# --------------------------------------------------------------------------------------------- the command
def _run(argv, capsys):
    from bounds.certify.cli import main

    capsys.readouterr()
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture(scope="module")
def failing(tmp_path_factory):
    """A pair refuted by the certificate (one ln_f weight + 1) and its --json certificate."""
    root = tmp_path_factory.mktemp("onnx")
    m = _hf_model(3)
    m.save_pretrained(root / "f")
    with torch.no_grad():
        m.transformer.ln_f.weight[2] += 1.0
    m.save_pretrained(root / "g")
    import contextlib
    import io

    from bounds.certify.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["--model", str(root / "f"), "--against", str(root / "g"), "--alphabet", "1,2", "--json",
                     "--time-budget", "10"]) == 0
    (root / "cert.json").write_text(buf.getvalue())
    return root, json.loads(buf.getvalue())


def test_json_witness_carries_the_model_ids_and_the_logit(failing):
    root, rec = failing
    w = rec["witness"]
    assert rec["verdict"] == "fails" and w["model_ids"] == [rec["bos"], *w["ids"]]
    f = gpt2.load(str(root / "f"), alphabet=[1, 2])
    g = gpt2.load(str(root / "g"), alphabet=[1, 2])
    diff = f.torch_logits(w["ids"]) - g.torch_logits(w["ids"])
    assert w["output"] == int(np.argmax(np.abs(diff))) and w["f_minus_g"] == pytest.approx(diff[w["output"]],
                                                                                         abs=1e-12)
    assert abs(w["f_minus_g"]) == rec["torch_difference"] > rec["eps"]


def test_write_witness_writes_the_token_ids(failing, tmp_path, capsys):
    root, rec = failing
    rc, out, _ = _run(["--write-witness", str(root / "cert.json"), "--out", str(tmp_path / "ids.txt")], capsys)
    assert rc == 0 and (tmp_path / "ids.txt").read_text().split() == [str(t) for t in rec["witness"]["model_ids"]]
    # a witness known by its counts only (too long for the torch check) is streamed from them
    long = {**rec, "witness": {**rec["witness"], "ids": None, "model_ids": None, "counts": [5, 3], "last": 1,
                               "length": 8}}
    (tmp_path / "long.json").write_text(json.dumps(long))
    rc, _, _ = _run(["--write-witness", str(tmp_path / "long.json"), "--out", str(tmp_path / "ids.txt")], capsys)
    assert rc == 0 and (tmp_path / "ids.txt").read_text() == "0 1 1 1 1 2 2 2 1\n"
    # negative control: a certificate that does not fail has no failing input to write
    (tmp_path / "ok.json").write_text(json.dumps({**rec, "verdict": "certified"}))
    rc, _, err = _run(["--write-witness", str(tmp_path / "ok.json"), "--out", str(tmp_path / "x.txt")], capsys)
    assert rc == 2 and "not a GPT-2 certificate with a failing input" in err and not (tmp_path / "x.txt").exists()


def _write_onnx(failing, out, capsys, *extra, cert=None, against="g"):
    root, _ = failing
    return _run(["--model", str(root / "f"), "--against", str(root / against), "--alphabet", "1,2",
                 "--write-onnx", str(cert or root / "cert.json"), "--out", str(out), *extra], capsys)


def test_onnx_graph_and_vnnlib_property_confirm_the_failing_input(failing, tmp_path, capsys):
    root, rec = failing
    out = tmp_path / "ex"
    rc, text, err = _write_onnx(failing, out, capsys)
    assert rc == 0, err
    assert sorted(os.listdir(out)) == ["instances.csv", "model.onnx", "property.vnnlib", "witness.json"]
    assert (out / "instances.csv").read_text() == "model.onnx,property.vnnlib,60\n"
    meta = json.loads((out / "witness.json").read_text())
    w = rec["witness"]
    assert meta["model_ids"] == w["model_ids"] and meta["output"] == w["output"] and meta["classes"] == [0, 1, 2]
    model = onnx.load(str(out / "model.onnx"))
    onnx.checker.check_model(model, full_check=True)
    ops = {n.op_type for n in model.graph.node}
    assert ops == {"MatMul", "Add", "Sub", "Mul", "Div", "Sqrt", "ReduceMean", "Slice", "Reshape", "Transpose",
                   "Softmax", "Tanh"}
    # the property file, read by the grammar: every input fixed to the one-hot point of the token ids
    names, asserts = read_vnnlib((out / "property.vnnlib").read_text())
    L, C = len(w["model_ids"]), 3
    assert names == [f"X_{i}" for i in range(L * C)] + [f"Y_{j}" for j in range(4)]
    box = input_box(names, asserts)
    x = np.array([box[f"X_{i}"][0] for i in range(L * C)])
    assert all(lo == hi for lo, hi in box.values())
    assert np.array_equal(x.reshape(1, L, C), onehot(gpt2.load(str(root / "f"), alphabet=[1, 2]), w["model_ids"]))
    # the graph on that point gives the package's value, and the output condition holds there
    y = evaluate(model, x.reshape(1, L, C).astype(np.float32))
    j = w["output"]
    assert abs(y[j] - w["f_minus_g"]) <= FLOAT32_TOLERANCE * max(1, abs(w["f_minus_g"]))
    assert abs(abs(y[j]) - rec["lower"]) <= FLOAT32_TOLERANCE * max(1, rec["lower"])  # the certified lower end
    cond = output_asserts(asserts)
    assert len(cond) == 1 and cond[0][1] == f"Y_{j}"
    values = {f"Y_{i}": float(v) for i, v in enumerate(y)}
    assert all(holds(e, values) for e in cond)
    # negative controls: the property is false on the output of a pair that agrees (f against itself), and on
    # this pair's output with the sign of Y_j flipped
    assert not holds(cond[0], {k: 0.0 for k in values})
    assert not holds(cond[0], {**values, f"Y_{j}": -values[f"Y_{j}"]})
    # a second run into the same folder replaces its own files
    rc, _, err = _write_onnx(failing, out, capsys)
    assert rc == 0, err


def test_vnnlib_reader_rejects_malformed_files(failing, tmp_path, capsys):
    """Negative controls of the reader: a dropped upper bound, an undeclared name, an unknown operator, an
    unbalanced parenthesis."""
    _write_onnx(failing, tmp_path / "ex", capsys)
    text = (tmp_path / "ex" / "property.vnnlib").read_text()
    j = failing[1]["witness"]["output"]
    names, asserts = read_vnnlib(text)
    input_box(names, asserts)
    with pytest.raises(AssertionError, match="unbounded"):
        input_box(*read_vnnlib(text.replace("(assert (<= X_4 ", "(assert (>= X_4 ", 1)))
    for bad in (text.replace(f"(declare-const Y_{j} Real)\n", ""), text.replace("(assert (>= X_0", "(assert (> X_0"),
                text + "(assert (<= X_0 1.0)\n"):
        assert bad != text
        with pytest.raises(AssertionError):
            read_vnnlib(bad)


def test_write_onnx_refuses_an_input_that_does_not_fail_or_sits_on_eps(failing, tmp_path, capsys):
    root, rec = failing
    rc, _, err = _write_onnx(failing, tmp_path / "a", capsys, against="f")
    assert rc == 2 and "not a failing input of this pair" in err and not (tmp_path / "a").exists()
    # an eps within the float32 tolerance of the value: a float32 verifier's answer would be decided by rounding
    near = {**rec, "eps": rec["torch_difference"] - 1e-7}
    (tmp_path / "near.json").write_text(json.dumps(near))
    rc, _, err = _write_onnx(failing, tmp_path / "b", capsys, cert=tmp_path / "near.json")
    assert rc == 2 and "decided by rounding" in err and len(err.strip().splitlines()) == 1
    # control: an eps 0.01 below is written
    (tmp_path / "far.json").write_text(json.dumps({**rec, "eps": rec["torch_difference"] - 1e-2}))
    rc, _, err = _write_onnx(failing, tmp_path / "c", capsys, cert=tmp_path / "far.json")
    assert rc == 0, err


def test_write_onnx_writes_only_its_own_files_inside_the_folder(failing, tmp_path, capsys):
    dev = tmp_path / "dev"
    os.mknod(dev, stat.S_IFCHR | 0o600, os.makedev(1, 3))
    rc, _, err = _write_onnx(failing, dev, capsys)
    assert rc == 2 and "not a folder" in err
    for name in ("model.onnx", "property.vnnlib", "witness.json", "instances.csv"):
        d = tmp_path / f"with-{name}"
        d.mkdir()
        os.mknod(d / name, stat.S_IFCHR | 0o600, os.makedev(1, 3))
        rc, _, err = _write_onnx(failing, d, capsys)
        assert rc == 2 and "device" in err and len(err.strip().splitlines()) == 1, err
        assert stat.S_ISCHR(os.stat(d / name).st_mode)
        os.unlink(d / name)
        (d / name).write_text("a user's file\n")
        rc, _, err = _write_onnx(failing, d, capsys)
        assert rc == 2 and "not a file this tool writes" in err, err
        assert (d / name).read_text() == "a user's file\n" and len(os.listdir(d)) == 1
    outside = tmp_path / "outside.onnx"
    link = tmp_path / "link"
    link.mkdir()
    os.symlink(outside, link / "model.onnx")
    rc, _, err = _write_onnx(failing, link, capsys)
    assert rc == 2 and "outside the folder" in err and not outside.exists()
    for argv, words in [(["--eps", "0.5"], "drop --eps"), (["--json"], "drop --json")]:
        rc, _, err = _write_onnx(failing, tmp_path / "z", capsys, *argv)
        assert rc == 2 and words in err
    rc, _, err = _run(["--write-onnx", str(failing[0] / "cert.json"), "--out", str(tmp_path / "z")], capsys)
    assert rc == 2 and "drop --write-onnx" in err


# --------------------------------------------------------------------------------------------- against its task
@pytest.fixture(scope="module")
def task_failing(tmp_path_factory):
    """Binary Majority models (tests/certify/test_gpt2_task.py): the flipped head refuted at margin 1/10, its
    --json certificate, and the correct model."""
    import contextlib
    import io

    from bounds.certify.cli import main
    from tests.certify.test_gpt2_task import majority_model

    root = tmp_path_factory.mktemp("onnx-task")
    majority_model(flip=True).save_pretrained(root / "flip")
    majority_model().save_pretrained(root / "maj")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["--model", str(root / "flip"), "--task", "binary_majority", "--margin", "1/10", "--json",
                     "--time-budget", "10"]) == 0
    (root / "cert.json").write_text(buf.getvalue())
    return root, json.loads(buf.getvalue())


def test_task_failing_input_as_onnx_and_vnnlib(task_failing, tmp_path, capsys):
    """The margin violation: the graph outputs logit_j - logit_answer, the property is the disjunction over the
    competitors of ``Y_j >= -delta``; it holds on the refuted model's graph and fails on the correct model's."""
    root, rec = task_failing
    w = rec["witness"]
    assert rec["verdict"] == "fails" and rec["certificate"] == "gpt2-task" and w["torch_gap"] < 0
    out = tmp_path / "ex"
    rc, _, err = _run(["--model", str(root / "flip"), "--write-onnx", str(root / "cert.json"), "--out", str(out)],
                      capsys)
    assert rc == 0, err
    meta = json.loads((out / "witness.json").read_text())
    ids = [rec["bos"], *w["ids"]]
    assert meta["model_ids"] == ids and meta["answer_id"] == w["answer_id"]
    names, asserts = read_vnnlib((out / "property.vnnlib").read_text())
    box = input_box(names, asserts)
    C = 1 + len(rec["letters"]) + 1
    x = np.array([box[f"X_{i}"][0] for i in range(len(ids) * C)]).reshape(1, len(ids), C).astype(np.float32)
    f = gpt2.load(str(root / "flip"), bos=rec["bos"], alphabet=[*rec["letters"].values(), rec["separator"]])
    assert np.array_equal(x, onehot(f, ids))
    cond = output_asserts(asserts)
    assert len(cond) == 1 and cond[0][0] == "or" and len(cond[0]) - 1 == f.head_w.shape[0] - 1  # argmax readout
    y = evaluate(onnx.load(str(out / "model.onnx")), x)
    assert y[w["answer_id"]] == 0.0
    gap = -max(v for j, v in enumerate(y) if j != w["answer_id"])
    assert abs(gap - w["torch_gap"]) <= FLOAT32_TOLERANCE * max(1, abs(w["torch_gap"]))
    assert holds(cond[0], {f"Y_{j}": float(v) for j, v in enumerate(y)})
    # negative control: the correct model's graph at the same input does not satisfy the property
    good = gpt2.load(str(root / "maj"), bos=rec["bos"], alphabet=[*rec["letters"].values(), rec["separator"]])
    y_good = evaluate(graph(good, len(ids), answer=w["answer_id"]), x)
    assert not holds(cond[0], {f"Y_{j}": float(v) for j, v in enumerate(y_good)})
    # ... and the command refuses to write it for the correct model, and refuses --against / --alphabet
    rc, _, err = _run(["--model", str(root / "maj"), "--write-onnx", str(root / "cert.json"), "--out",
                       str(tmp_path / "good")], capsys)
    assert rc == 2 and "not a failing input" in err and not (tmp_path / "good").exists()
    rc, _, err = _run(["--model", str(root / "flip"), "--against", str(root / "maj"), "--write-onnx",
                       str(root / "cert.json"), "--out", str(tmp_path / "z")], capsys)
    assert rc == 2 and "drop --against" in err


def test_write_witness_writes_a_task_input_as_token_ids(task_failing, tmp_path, capsys):
    root, rec = task_failing
    rc, _, err = _run(["--write-witness", str(root / "cert.json"), "--out", str(tmp_path / "ids.txt")], capsys)
    assert rc == 0, err
    assert (tmp_path / "ids.txt").read_text().split() == [str(t) for t in [rec["bos"], *rec["witness"]["ids"]]]
    # known by its counts only: the letters in order, then the separator
    long = {**rec, "witness": {**rec["witness"], "ids": None, "counts": {"0": 2, "1": 1}, "length": 3}}
    (tmp_path / "long.json").write_text(json.dumps(long))
    rc, _, err = _run(["--write-witness", str(tmp_path / "long.json"), "--out", str(tmp_path / "ids.txt")], capsys)
    assert rc == 0 and (tmp_path / "ids.txt").read_text() == "0 1 1 2 3\n", err


def test_a_margin_scan_is_written_from_its_largest_refuted_margin(task_failing, tmp_path, capsys):
    root, rec = task_failing
    rc, out, err = _run(["--model", str(root / "flip"), "--task", "binary_majority", "--margin", "1/2,1/10",
                         "--json", "--time-budget", "10"], capsys)
    scan = json.loads(out)
    assert rc == 0 and len(scan["records"]) == 2 and scan["records"][0]["verdict"] == "fails", err
    (tmp_path / "scan.json").write_text(out)
    rc, _, err = _run(["--model", str(root / "flip"), "--write-onnx", str(tmp_path / "scan.json"), "--out",
                       str(tmp_path / "ex")], capsys)
    assert rc == 0, err
    meta = json.loads((tmp_path / "ex" / "witness.json").read_text())
    assert meta["model_ids"] == [rec["bos"], *scan["records"][0]["witness"]["ids"]]
    # control: a scan with no refuted margin has no failing input
    for r in scan["records"]:
        r["verdict"] = "certified"
    (tmp_path / "none.json").write_text(json.dumps(scan))
    rc, _, err = _run(["--model", str(root / "flip"), "--write-onnx", str(tmp_path / "none.json"), "--out",
                       str(tmp_path / "ex2")], capsys)
    assert rc == 2 and "no failing input" in err
