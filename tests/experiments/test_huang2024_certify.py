"""Huang et al. Figure 1's one-layer cells certified: the onelayer preset, the export of a trained seed to a Hugging
Face directory (the trained forward, checked against the exported one, with a changed weight as control), the
certificate of one seed (a constructed majority model certified, its flipped twin refuted with a string the torch
forward confirms), and the command line end to end on recorded seeds."""

from __future__ import annotations

import json
import types

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from bounds.experiments import huang2024, huang2024_certify  # noqa: E402
from bounds.experiments.training.decoders import ModelSpec, build_model, pack  # noqa: E402
from bounds.experiments.training.train import weights_of  # noqa: E402
from lengthgen_cli.sweep import RunSpec, run_specs  # noqa: E402
from tests.certify.test_gpt2_task import majority_model  # noqa: E402

SPEC = ModelSpec("nope", 1, 1, 16, 5, 160, "gelu_pytorch_tanh")  # binary_majority: vocabulary $ 0 1 # EOS


def fake_record(seeds: list, perturb: float = 0.0) -> dict:
    """A training record of the onelayer preset's shape for freshly initialised binary_majority models (sweep run
    function of the end-to-end test); ``perturb`` is added to ln_f's weight of every seed (negative control)."""
    weights = []
    for s in seeds:
        torch.manual_seed(s)
        m = build_model(SPEC)
        params = {k: v.detach()[None] for k, v in m.named_parameters()}
        params["body.ln_f.weight"] = params["body.ln_f.weight"] + perturb
        weights.append(weights_of(types.SimpleNamespace(params=params), 0))
    return {"task": "binary_majority", "positions": "nope", "arch": {"n_layer": 1, "n_head": 1, "d_model": 16,
                                                                     "lr": 1e-3},
            "seeds": list(seeds), "bins": [[1, 50], [51, 100], [101, 150]],
            "accuracy": [[0.5, 0.5, 0.5] for _ in seeds], "steps": [0] * len(seeds),
            "final_loss": [1.0] * len(seeds), "parameters": SPEC.to_json(), "weights": weights}


def test_onelayer_preset_is_the_papers_one_layer_cells_and_keeps_weights():
    p = huang2024.ONELAYER
    assert p.save_weights and p.seeds >= 4
    cells = [(task, pe, a) for task, by_pe in p.tasks.items() for pe, a in by_pe.items()]
    assert {(t, pe) for t, pe, _ in cells} >= {("binary_majority", "nope"), ("majority_letters", "nope"),
                                                ("majority_letters", "ape")}
    config = {"max_steps": p.max_steps, "loss_target": p.loss_target, "weight_decay": p.weight_decay,
              "batch": p.batch, "test_samples": p.test_samples}
    for task, pe, a in cells:
        paper = huang2024.PAPER.tasks[task][pe]
        assert a.n_layer == paper.n_layer == 1
        # every architecture field that differs from App. E.3 is named in the run's deviations (control below)
        named = huang2024.deviations(task, pe, a.__dict__, config, p.seeds)
        for field in ("n_head", "d_model", "lr"):
            assert (getattr(a, field) != getattr(paper, field)) == any(d.startswith(f"{field} = ") for d in named)
    # control: a width that differs is named
    wide = {**huang2024.PAPER.tasks["majority_letters"]["nope"].__dict__, "d_model": 128}
    assert any(d.startswith("d_model = 128") for d in huang2024.deviations("majority_letters", "nope", wide, config, 4))
    specs = huang2024.specs(p, list(p.tasks), p.seeds, "cpu", 1)
    assert len(specs) == len(cells) and all(s.kwargs["config"]["save_weights"] for s in specs)
    # a preset without the flag records no weights (control: the cpu preset)
    assert not any("save_weights" in s.kwargs["config"] for s in huang2024.specs(huang2024.CPU, ["d2"], 1, "cpu", 1))


def _logits_trained(rec, i, ids):
    m = build_model(SPEC)
    from bounds.certify.trained import weights_from

    m.load_state_dict({k: torch.from_numpy(v) for k, v in weights_from(rec["weights"][i]).items()})
    x = pack(torch.tensor([ids]), torch.tensor([list(range(len(ids)))]))
    with torch.no_grad():
        return m(x)[0, -1].double().numpy()


def _logits_exported(path, ids):
    m = transformers.GPT2LMHeadModel.from_pretrained(path).eval()
    with torch.no_grad():
        return m(torch.tensor([ids])).logits[0, -1].double().numpy()


def test_export_reproduces_the_trained_forward(tmp_path):
    rec = fake_record([0, 1])
    dirs = huang2024.export_models(rec, str(tmp_path))
    assert [d.rsplit("-", 1)[1] for d in dirs] == ["seed0", "seed1"]
    rng = np.random.default_rng(0)
    for i, d in enumerate(dirs):
        for n in (1, 7, 60):
            ids = [0, *rng.integers(1, 3, size=n).tolist(), 3]
            assert np.max(np.abs(_logits_trained(rec, i, ids) - _logits_exported(d, ids))) < 1e-5
    # control: a model whose ln_f weight moved is told apart by the same comparison
    moved = huang2024.export_models(fake_record([0], perturb=0.5), str(tmp_path / "moved"))[0]
    ids = [0, 1, 2, 2, 3]
    assert np.max(np.abs(_logits_trained(rec, 0, ids) - _logits_exported(moved, ids))) > 1e-3


def test_certify_seed_certifies_a_majority_model_and_refutes_its_flipped_twin(tmp_path):
    majority_model().save_pretrained(tmp_path / "maj")
    majority_model(flip=True).save_pretrained(tmp_path / "flip")
    ok = huang2024_certify.certify_seed(str(tmp_path / "maj"), "binary_majority", "1/10", 3, 20.0, 16)
    assert ok["verdict"] == "certified" and ok["gap_lower"] > 0 and ok["margin"] == "1/10"
    assert ok["horizon"]["every_length"] and ok["horizon"]["X"] is None
    assert ok["import_check"]["max_abs_difference"] < 1e-9
    bad = huang2024_certify.certify_seed(str(tmp_path / "flip"), "binary_majority", "1/10", 3, 20.0, 16)
    w = bad["witness"]
    assert bad["verdict"] == "fails" and w["torch_gap"] < 0 and w["symbols"].endswith("#")
    zeros, ones = w["symbols"].count("0"), w["symbols"].count("1")
    assert [zeros, ones] == [w["counts"]["0"], w["counts"]["1"]] and abs(zeros - ones) * 10 >= zeros + ones
    right = "0" if zeros > ones else "1"
    ids = [0, *(1 if c == "0" else 2 for c in w["symbols"][:-1]), 3]
    logits = _logits_exported(str(tmp_path / "flip"), ids)
    assert int(np.argmax(logits)) != {"0": 1, "1": 2}[right]  # the exported model misreads the written input
    # its horizon: every answer is misread, so the shortest failure is one letter (model length 3), H = 2
    h = bad["horizon"]
    assert (h["H"], h["X"], h["exact"]) == (2, 3, True) and h["witness"]["letters"] == 1
    assert h["witness"]["torch_gap"] < 0


def _summary(verdicts):
    return {"margins": [v["margin"] for v in verdicts], "statement": "s", "time_budget_s": 1.0,
            "rows": [{"task": "majority_letters", "positions": "nope", "letters": list("abc"), "seed": 0, "steps": 1,
                      "accuracy": [0.5, 0.5, 0.5], "bins": [[1, 50]], "verdicts": verdicts,
                      "smallest_certified_margin": None}]}


def test_table_shows_the_horizon_and_names_certificates_recorded_without_it():
    w = {"symbols": "aabbccc#", "counts": {"a": 2, "b": 2, "c": 3}, "length": 7}
    short = {"symbols": "abcc#", "letters": 4, "counts": {"a": 1, "b": 1, "c": 2}}
    hz = {"H": 5, "X": 6, "exact": True, "every_length": False, "X_minus_H": 1, "witness": short}
    text = huang2024_certify.table(_summary([
        {"margin": "1/4", "verdict": "undetermined", "horizon": {**hz, "H": 18, "X": None, "witness": None}},
        {"margin": "1/8", "verdict": "fails", "witness": w, "horizon": hz}]))
    assert "| undetermined, H = 18 | fails: `aabbccc#` (H = 5, X = 6; shortest: `abcc#`) |" in text
    assert "recorded before the horizon" not in text
    # control: a record of before the horizon renders its verdict and the table says what is missing
    text = huang2024_certify.table(_summary([{"margin": "1/8", "verdict": "fails", "witness": w}]))
    assert "| fails: `aabbccc#` |" in text and "1 of 1 certificates were recorded before the horizon" in text


def test_command_line_end_to_end(tmp_path, capsys):
    runs, res = tmp_path / "runs", tmp_path / "res"
    key = "huang2024-fig1/onelayer/binary_majority/nope/test"
    run_specs([RunSpec(key, "tests.experiments.test_huang2024_certify:fake_record", {"seeds": [0, 1]})], str(runs))
    argv = ["--runs", str(runs), "--results-dir", str(res), "--margins", "1/2,1/4", "--time-budget", "2"]
    assert huang2024_certify.main(argv) == 0
    summary = json.loads((res / "huang2024-certify-onelayer.json").read_text())
    assert [(r["task"], r["seed"]) for r in summary["rows"]] == [("binary_majority", 0), ("binary_majority", 1)]
    for r in summary["rows"]:
        assert [v["margin"] for v in r["verdicts"]] == ["1/2", "1/4"]
        assert all(v["verdict"] in ("certified", "fails", "undetermined") for v in r["verdicts"])
        for v in r["verdicts"]:  # the horizon: every length when certified, else H (and X when a failure is known)
            h = v["horizon"]
            assert (v["verdict"] != "certified" or h["every_length"]) and (v["verdict"] != "fails" or h["X"])
    assert (runs / "models" / "binary_majority-nope-seed1" / "config.json").is_file()
    assert (res / "huang2024-certify-onelayer.png").is_file() and "| binary_majority (01) | 0 |" in \
        (res / "huang2024-certify-onelayer.md").read_text()
    # the figure is redrawn from the JSON alone (the figures' rule) and agrees with the one written
    from bounds.experiments import figures

    assert figures.check(str(res)) == []
    # resumable: a rerun certifies nothing new
    capsys.readouterr()
    assert huang2024_certify.main(argv) == 0
    assert "4 of 4 already done" in capsys.readouterr().err


def test_command_line_refuses_in_one_line(tmp_path, capsys):
    for argv, words in [(["--runs", str(tmp_path / "none")], "no trained seeds"),
                        (["--margins", "0"], "--margins"), (["--margins", "1/2,1/2"], "repeats"),
                        (["--margins", "3/2"], "--margins"), (["--letters", "9"], "MAX_LETTERS"),
                        (["--preset", "cpu"], "--preset")]:
        capsys.readouterr()
        rc = huang2024_certify.main([*argv, "--results-dir", str(tmp_path / "res")])
        err = capsys.readouterr().err.strip()
        assert rc == 2 and len(err.splitlines()) == 1 and words in err, (argv, err)


def test_rows_carry_the_accuracy_figure_1_reports_for_their_cell():
    """Each row shows the accuracy Huang et al. report for its (task, positions) cell beside the run's; control: a
    row of a cell without a reported value shows '-'."""
    rec = {"task": "majority_letters", "positions": "ape", "seeds": [0], "accuracy": [[1.0, 0.99, 0.92]],
           "arch": {}, "steps": [10], "final_loss": [0.001], "bins": [[1, 50], [51, 100], [101, 150]]}
    summary = huang2024_certify.summarize([rec], {}, huang2024.ONELAYER, ["1/2"], 3, 1.0)
    assert summary["rows"][0]["reported_accuracy"] == huang2024.REPORTED_ACCURACY[("majority_letters", "ape")]
    assert "| 100.0 / 99.0 / 92.0 | 100 / 99.6 / 97.8 | missing |" in huang2024_certify.table(summary)
    summary["rows"][0]["reported_accuracy"] = None
    assert "| 100.0 / 99.0 / 92.0 | - | missing |" in huang2024_certify.table(summary)
