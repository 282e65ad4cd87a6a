"""``--write-onnx`` for GPT-2 pairs with position tables: a periodic table (``wpe[p mod P]``) and an absolute table
within its R rows (``wpe[p]``), added as a constant after the embedding MatMul (:mod:`bounds.certify.gpt2_onnx`).
The graph is checked against the saved Hugging Face models' own forward (and, beyond a periodic table's rows,
against the model the periodic table defines); controls: the rows left out or shifted by one residue are rejected
by the same checks, and the one-line refusals that remain."""

from __future__ import annotations

import contextlib
import io
import json
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
onnx = pytest.importorskip("onnx")

from bounds.certify import gpt2  # noqa: E402
from bounds.certify.gpt2_onnx import FLOAT32_TOLERANCE, evaluate, graph, onehot  # noqa: E402
from tests.certify.test_gpt2_onnx import holds, input_box, output_asserts, read_vnnlib  # noqa: E402
from tests.certify.test_gpt2_periodic import BOS, ROWS, _ape, _hf_logits, _hf_model  # noqa: E402

FLOAT64_TOLERANCE = 1e-12  # the tanh GELU (gelu_new) of these models: the float64 graph is the torch forward
ALPHABET = [1, 2]
OPS = {"MatMul", "Add", "Sub", "Mul", "Div", "Sqrt", "ReduceMean", "Slice", "Reshape", "Transpose", "Softmax", "Tanh"}


def _rel(a, b):
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b))))


def _ids(n, seed=0):
    return [BOS, *(int(a) for a in np.random.default_rng(seed).choice(ALPHABET, size=n))]


def _main(argv):
    from bounds.certify.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """Saved Hugging Face directories: a model with a 64-row table of period 2 and the same model with its even
    rows' first coordinate + 1/2 (a periodic pair that differs in its positions only); an absolute 6-row table and
    the same with its last row's first coordinate + 1 (read only by inputs of 6 positions)."""
    root = tmp_path_factory.mktemp("onnx-positions")
    m = _hf_model(2, 2)
    m.save_pretrained(root / "per_f")
    with torch.no_grad():
        m.transformer.wpe.weight[0::2, 0] += 0.5
    m.save_pretrained(root / "per_g")
    ape = _ape(root, 6)
    m = transformers.GPT2LMHeadModel.from_pretrained(ape)
    with torch.no_grad():
        m.transformer.wpe.weight[5, 0] += 1.0
    m.save_pretrained(root / "ape_g")
    return {"per_f": str(root / "per_f"), "per_g": str(root / "per_g"), "ape_f": ape, "ape_g": str(root / "ape_g"),
            "root": root}


@pytest.fixture(scope="module")
def forms(saved):
    return {k: gpt2.load(v, alphabet=ALPHABET, absolute=True) for k, v in saved.items() if k != "root"}


# --------------------------------------------------------------------------------------------- the graph
def test_periodic_graph_is_the_saved_model_and_beyond_it_the_periodic_one(forms, saved):
    f = forms["per_f"]
    assert f.period == 2 and f.defined_up_to is None
    for L in (2, 7, ROWS):  # within the saved table: the saved Hugging Face model itself
        ids = _ids(L - 1, L)
        ref = _hf_logits(saved["per_f"], ids[1:])
        assert np.max(np.abs(evaluate(graph(f, L, dtype=np.float64), onehot(f, ids, np.float64)) - ref)) \
            <= FLOAT64_TOLERANCE
        assert _rel(evaluate(graph(f, L), onehot(f, ids)), ref) <= FLOAT32_TOLERANCE
    for L in (ROWS + 1, 101):  # beyond it: the model the periodic table defines (what the certificate states)
        ids = _ids(L - 1, L)
        ref = f.torch_logits(ids[1:])
        assert np.max(np.abs(evaluate(graph(f, L, dtype=np.float64), onehot(f, ids, np.float64)) - ref)) \
            <= FLOAT64_TOLERANCE
    assert {n.op_type for n in graph(f, 5).graph.node} == OPS  # one more Add, no new op


def test_pair_graphs_of_different_periods_are_f_minus_g(forms):
    """Periods 2 and 4 (the certificate's lcm 4), and period 2 against NoPE: the pair graph is the torch f - g."""
    f = forms["per_f"]
    wpe4 = f.at_period(4).wpe.copy()
    wpe4[3, 1] += 0.7
    for g in (f.with_params(wpe=wpe4), f.with_params(wpe=None)):
        for L in (4, 9, 70):
            ids = _ids(L - 1, L)
            diff = f.torch_logits(ids[1:]) - g.torch_logits(ids[1:])
            assert np.max(np.abs(diff)) > 1e-3
            y = evaluate(graph(f, L, g, dtype=np.float64), onehot(f, ids, np.float64))
            assert np.max(np.abs(y - diff)) <= FLOAT64_TOLERANCE


def test_absolute_graph_is_the_saved_model_within_its_table_and_refused_beyond(forms, saved):
    f = forms["ape_f"]
    assert f.defined_up_to == 6
    for L in range(2, 7):
        ids = _ids(L - 1, L)
        ref = _hf_logits(saved["ape_f"], ids[1:])
        assert np.max(np.abs(evaluate(graph(f, L, dtype=np.float64), onehot(f, ids, np.float64)) - ref)) \
            <= FLOAT64_TOLERANCE
        assert _rel(evaluate(graph(f, L), onehot(f, ids)), ref) <= FLOAT32_TOLERANCE
    with pytest.raises(ValueError, match="7 positions is longer than the position table's 6 rows") as e:
        graph(f, 7, forms["ape_g"])
    assert "\n" not in str(e.value)


def _with_rows(model, change):
    """A copy of the graph with each ``*_wpe`` constant replaced by ``change(rows)``."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    found = 0
    for t in model.graph.initializer:
        if t.name.endswith("_wpe"):
            rows = onnx.numpy_helper.to_array(t)
            t.CopyFrom(onnx.numpy_helper.from_array(change(rows).astype(rows.dtype), t.name))
            found += 1
    assert found
    return model


LEFT_OUT = lambda rows: np.zeros_like(rows)  # noqa: E731
SHIFTED = lambda rows: np.roll(rows, 1, axis=1)  # noqa: E731  (position p reads the row of p - 1)


@pytest.mark.parametrize("which", ["per_f", "ape_f"])
def test_position_rows_left_out_or_shifted_are_rejected(forms, saved, which):
    """Negative controls of the checks above: the same graph with its position rows left out, or shifted by one
    residue (a periodic table) / one position (an absolute table), does not give the saved model's logits."""
    f = forms[which]
    L = 6
    ids = _ids(L - 1, 3)
    ref = _hf_logits(saved[which], ids[1:])
    for change in (LEFT_OUT, SHIFTED):
        y64 = evaluate(_with_rows(graph(f, L, dtype=np.float64), change), onehot(f, ids, np.float64))
        assert np.max(np.abs(y64 - ref)) > FLOAT64_TOLERANCE
        assert _rel(evaluate(_with_rows(graph(f, L), change), onehot(f, ids)), ref) > FLOAT32_TOLERANCE
    # control of the control: the unchanged rows, copied the same way, pass
    y = evaluate(_with_rows(graph(f, L, dtype=np.float64), lambda r: r), onehot(f, ids, np.float64))
    assert np.max(np.abs(y - ref)) <= FLOAT64_TOLERANCE


# --------------------------------------------------------------------------------------------- the command
def _certify(saved, f, g, tmp, *extra):
    rc, out, err = _main(["--model", saved[f], "--against", saved[g], "--alphabet", "1,2", "--json",
                          "--time-budget", "60", *extra])
    assert rc == 0, err
    (tmp / "cert.json").write_text(out)
    return json.loads(out)


def _export_and_check(saved, f, g, rec, out):
    """Write the failing input of ``rec``; the graph on the property's input box gives the certificate's value and
    the saved Hugging Face models' f - g, the property holds there, and fails with the position rows left out."""
    rc, text, err = _main(["--model", saved[f], "--against", saved[g], "--alphabet", "1,2",
                           "--write-onnx", str(out.parent / "cert.json"), "--out", str(out)])
    assert rc == 0, err
    assert sorted(os.listdir(out)) == ["instances.csv", "model.onnx", "property.vnnlib", "witness.json"]
    w = rec["witness"]
    meta = json.loads((out / "witness.json").read_text())
    assert meta["model_ids"] == w["model_ids"] and meta["output"] == w["output"]
    assert meta["positions"] == rec["positions"] and meta["period"] == rec["period"]
    model = onnx.load(str(out / "model.onnx"))
    onnx.checker.check_model(model, full_check=True)
    assert {n.op_type for n in model.graph.node} == OPS
    names, asserts = read_vnnlib((out / "property.vnnlib").read_text())
    L, C = len(w["model_ids"]), 1 + len(ALPHABET)
    assert names == [f"X_{i}" for i in range(L * C)] + [f"Y_{j}" for j in range(4)]  # the NoPE property's form
    box = input_box(names, asserts)
    assert all(lo == hi for lo, hi in box.values())
    x = np.array([box[f"X_{i}"][0] for i in range(L * C)], dtype=np.float32).reshape(1, L, C)
    y = evaluate(model, x)
    j = w["output"]
    hf = _hf_logits(saved[f], w["ids"]) - _hf_logits(saved[g], w["ids"])  # the saved models' own forward
    assert abs(hf[j] - w["f_minus_g"]) <= 1e-12
    assert _rel(y, hf) <= FLOAT32_TOLERANCE
    assert abs(abs(y[j]) - rec["lower"]) <= FLOAT32_TOLERANCE * max(1, rec["lower"])  # the certified lower end
    cond = output_asserts(asserts)
    assert len(cond) == 1 and holds(cond[0], {f"Y_{i}": float(v) for i, v in enumerate(y)})
    # control: the pair differs in its positions only, so the graph without its rows gives Y = 0 and the property
    # is false there (the same reader and condition)
    y0 = evaluate(_with_rows(model, LEFT_OUT), x)
    assert np.max(np.abs(y0)) < 1e-6 and not holds(cond[0], {f"Y_{i}": float(v) for i, v in enumerate(y0)})
    return text


def test_periodic_pair_end_to_end(saved, tmp_path):
    from bounds.certify.gpt2_cli import report

    rec = _certify(saved, "per_f", "per_g", tmp_path, "--eps", "1/10", "--max-length", "4")
    assert rec["verdict"] == "fails" and rec["period"] == 2
    text = report(rec)  # the text the command prints without --json offers the export
    assert "verdict: fails" in text and "--write-onnx cert.json" in text
    text = _export_and_check(saved, "per_f", "per_g", rec, tmp_path / "ex")
    assert "wrote" in text
    assert "periodic positions (period 2)" in (tmp_path / "ex" / "property.vnnlib").read_text()
    # the certificate of another pair (g against itself) is not a failing input of it: refused in one line
    rc, _, err = _main(["--model", saved["per_g"], "--against", saved["per_g"], "--alphabet", "1,2",
                        "--write-onnx", str(tmp_path / "cert.json"), "--out", str(tmp_path / "other")])
    assert rc == 2 and "not a failing input of this pair" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "other").exists()


def test_absolute_pair_end_to_end_and_an_input_beyond_the_table_refused(saved, tmp_path):
    rec = _certify(saved, "ape_f", "ape_g", tmp_path, "--eps", "1/100")
    assert rec["verdict"] == "fails" and rec["defined_up_to"] == 6 and len(rec["witness"]["ids"]) == 5
    _export_and_check(saved, "ape_f", "ape_g", rec, tmp_path / "ex")
    # an input longer than the table (the certificate never names one): refused in one line, nothing written
    w = rec["witness"]
    long = {**rec, "witness": {**w, "ids": [*w["ids"], 1], "model_ids": [*w["model_ids"], 1]}}
    (tmp_path / "long.json").write_text(json.dumps(long))
    rc, _, err = _main(["--model", saved["ape_f"], "--against", saved["ape_g"], "--alphabet", "1,2",
                        "--write-onnx", str(tmp_path / "long.json"), "--out", str(tmp_path / "long")])
    assert rc == 2 and "longer than the position table's 6 rows" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "long").exists()


def test_a_task_certificate_with_a_periodic_model_is_refused_in_one_line(saved, tmp_path):
    """--task refuses position tables, so a task certificate is of a NoPE model; --write-onnx of one with a
    periodic --model says so (control: a NoPE --model passes this check and reaches the torch re-check)."""
    cert = {"certificate": "gpt2-task", "verdict": "fails", "bos": BOS, "letters": {"a": 1}, "separator": 2,
            "answers": {"a": 1}, "readout": "argmax", "logit_margin": 0.0, "task": "binary_majority",
            "witness": {"ids": [1, 2], "answer_id": 1, "answer": "a"}}
    (tmp_path / "task.json").write_text(json.dumps(cert))
    rc, _, err = _main(["--model", saved["per_f"], "--write-onnx", str(tmp_path / "task.json"), "--out",
                        str(tmp_path / "t")])
    assert rc == 2 and "periodic positions (period 2)" in err and "NoPE" in err, err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "t").exists()
    nope = tmp_path / "nope"
    m = _hf_model(5, None)
    with torch.no_grad():
        m.transformer.wpe.weight.zero_()
    m.save_pretrained(nope)
    rc, _, err = _main(["--model", str(nope), "--write-onnx", str(tmp_path / "task.json"), "--out",
                        str(tmp_path / "t")])
    assert "periodic" not in err and "NoPE" not in err


def test_absolute_task_certificate_end_to_end(tmp_path):
    """A task certificate of an absolute-table model (:mod:`bounds.certify.gpt2_task_table`) is written the same
    way: the graph's ``logit_j - logit_answer`` on the property's point are the saved model's, the disjunction holds;
    control: the graph without its position rows disagrees with the saved model beyond the float32 tolerance."""
    from tests.certify.test_gpt2_task_table import _random

    path = _random(tmp_path / "r10", 10, 3)
    rc, out, err = _main(["--model", path, "--task", "binary_majority", "--margin", "1/2", "--json"])
    rec = json.loads(out)
    assert rc == 0 and rec["verdict"] == "fails" and rec["defined_up_to"] == 10, err
    (tmp_path / "cert.json").write_text(out)
    rc, _, err = _main(["--model", path, "--write-onnx", str(tmp_path / "cert.json"), "--out", str(tmp_path / "ex")])
    assert rc == 0, err
    w = rec["witness"]
    ids = [rec["bos"], *w["ids"]]
    meta = json.loads((tmp_path / "ex" / "witness.json").read_text())
    assert meta["model_ids"] == ids and meta["positions"] == "absolute positions (a table of 10 rows)"
    names, asserts = read_vnnlib((tmp_path / "ex" / "property.vnnlib").read_text())
    box = input_box(names, asserts)
    C = len(rec["letters"]) + 2
    x = np.array([box[f"X_{i}"][0] for i in range(len(ids) * C)], dtype=np.float32).reshape(1, len(ids), C)
    model = onnx.load(str(tmp_path / "ex" / "model.onnx"))
    m = transformers.GPT2LMHeadModel.from_pretrained(path).double().eval()
    with torch.no_grad():
        logits = m(torch.tensor([ids])).logits[0, -1].numpy()
    gaps = logits - logits[w["answer_id"]]  # the saved model's own forward
    y = evaluate(model, x)
    assert _rel(y, gaps) <= FLOAT32_TOLERANCE
    cond = output_asserts(asserts)
    assert len(cond) == 1 and holds(cond[0], {f"Y_{j}": float(v) for j, v in enumerate(y)})
    assert _rel(evaluate(_with_rows(model, LEFT_OUT), x), gaps) > FLOAT32_TOLERANCE
    assert _rel(evaluate(_with_rows(model, SHIFTED), x), gaps) > FLOAT32_TOLERANCE
