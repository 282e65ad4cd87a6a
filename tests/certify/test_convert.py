"""bounds.certify.trained: a trained model and its Limit Transformer give the same outputs (tiny training run),
and ``bounds.estimate --model`` / ``--measured`` read trained models and sweep summaries."""

import json

import numpy as np
import pytest

from bounds.estimate import main as estimate_main
from bounds.experiments.training.data import sample_batch
from constructions.tasks import ModPTask, SimpleTask

torch = pytest.importorskip("torch", reason="torch not installed (pip install torch==2.13.0)")

CFG = {"max_steps": 30, "batch": 16, "test_batch": 16, "test_multiples": [2], "plateau_from": 1, "attn_length": 12}


@pytest.fixture(scope="module")
def records():
    from bounds.experiments.training.train import train_group

    return {"modp": train_group("modp", {"period": 3, "index": 1}, 5, [0, 1], CFG, device="cpu"),
            "simple": train_group("simple", {"omega": "2"}, 4, [0], CFG, device="cpu")}


@pytest.mark.parametrize("kind", ["modp", "simple"])
def test_conversion_computes_the_trained_model(records, kind):
    from bounds.certify.trained import from_record, prefix_outputs
    from bounds.experiments.training.train import rebuild

    rec = records[kind]
    task = ModPTask(3, 1) if kind == "modp" else SimpleTask(2)
    ids, _ = sample_batch(task, np.random.default_rng(1), 17, 6)
    for i in range(len(rec["runs"])):
        with torch.no_grad():
            trained = rebuild(rec, i)(torch.from_numpy(ids)).double().numpy()
        lt = prefix_outputs(from_record(rec, i), ids)
        scale = max(1.0, np.abs(trained).max())
        assert np.abs(trained - lt).max() < 1e-5 * scale  # float32 torch against float64 Limit Transformer
    # negative control: another seed's model is a different function
    if len(rec["runs"]) > 1:
        other = prefix_outputs(from_record(rec, 1), ids)
        assert np.abs(prefix_outputs(from_record(rec, 0), ids) - other).max() > 1e-3


def test_conversion_refuses_what_has_no_limit_transformer_form(records):
    from bounds.certify.trained import ConversionError, to_limit_transformer, weights_from

    w = weights_from(records["modp"]["runs"][0]["weights"])
    with pytest.raises(ConversionError, match="not periodic"):
        to_limit_transformer(w, ("0", "1"), positions="absolute")
    with pytest.raises(ConversionError, match="biases"):
        to_limit_transformer({**w, "U.bias": np.zeros(1)}, ("0", "1"))


def test_estimate_reads_a_trained_model(records, tmp_path, capsys):
    """bounds.estimate --model on a converted trained model: its own Delta, tau, gamma and a finite bound (a
    barely trained model, 30 steps, has a tiny margin: its hardmax term is astronomically large, printed in the
    log domain)."""
    from bounds.certify.trained import save_trained

    path = tmp_path / "m.json"
    save_trained(records["modp"], 0, path, precision_bits=8)
    assert estimate_main(["--model", str(path), "--eps", "1/10", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["period"] == 3 and r["tau"] == 0 and r["gamma_float"] > 0
    n = r["N"]
    assert (isinstance(n, int) and n > 1) or n["pow2_exponent"] and float(n["pow2_exponent"].split("/")[0]) > 0


def test_estimate_measured_prints_prediction_beside_measurement(records, tmp_path, capsys):
    from bounds.experiments.measure import write_results
    from bounds.experiments.training.presets import Preset
    from bounds.experiments.training.report import summaries

    wrapped = [{"key": "k", "wall_seconds": 1.0, "record": records["modp"]}]
    summ = summaries(wrapped, 0.01, Preset("t", "test", "", {}, 2, ()))
    summ.update(preset="t", eps=0.01)
    path = write_results(summ, str(tmp_path), "t")[0]
    assert estimate_main(["--task", "modp", "--measured", path, "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    row = r["rows"][0]
    from bounds.estimate import construction_prediction

    n = construction_prediction("modp", {"period": 3, "index": 1}, 0.01)["N"]
    assert row["predicted_N"] == n and row["trained_model"]["period"] == 3  # hand value: tests/experiments/test_measure.py
    assert row["predicted"]["proof_count_N"] == 334
    assert row["ratio_predicted_over_measured"] == (None if row["measured_n_min"] is None
                                                    else n / row["measured_n_min"])
    assert estimate_main(["--task", "modp", "--measured", path]) == 0
    assert "upper (proved)" in capsys.readouterr().out
    assert estimate_main(["--task", "simple", "--measured", path]) == 2  # no simple task in the file
    assert "no simple task" in capsys.readouterr().err
    assert estimate_main(["--task", "modp", "--measured", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
