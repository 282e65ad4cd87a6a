"""Huang et al. Figure 1's one-layer APE cells certified (:mod:`bounds.experiments.huang2024_certify` on a seed with
an absolute position table): the exported seed's verdict and shortest failing word agree with a brute-force torch
evaluation of every word its table defines, and its row says what was certified within the table, never "every
length" (control: a NoPE row keeps its every-length wording)."""

from __future__ import annotations

import json
import types

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from bounds.certify.gpt2_targets import TARGETS  # noqa: E402
from bounds.experiments import huang2024, huang2024_certify  # noqa: E402
from bounds.experiments.training.decoders import ModelSpec, build_model  # noqa: E402
from bounds.experiments.training.train import weights_of  # noqa: E402
from tests.certify.test_gpt2_task_table import assert_agrees  # noqa: E402

ROWS = 8
SPEC = ModelSpec("ape", 1, 2, 8, 5, ROWS, "gelu_pytorch_tanh")  # binary_majority: $ 0 1 # EOS


def ape_record(seeds: list) -> dict:
    """A training record of the onelayer preset's shape for freshly initialised APE binary_majority models whose
    position table is scaled up (so it matters)."""
    weights = []
    for s in seeds:
        torch.manual_seed(s)
        m = build_model(SPEC)
        params = {k: v.detach()[None] for k, v in m.named_parameters()}
        params["body.wpe.weight"] = torch.randn_like(params["body.wpe.weight"])
        weights.append(weights_of(types.SimpleNamespace(params=params), 0))
    return {"task": "binary_majority", "positions": "ape", "arch": {"n_layer": 1, "n_head": 2, "d_model": 8,
                                                                    "lr": 1e-3},
            "seeds": list(seeds), "bins": [[1, 50], [51, 100], [101, 150]],
            "accuracy": [[0.5, 0.5, 0.5] for _ in seeds], "steps": [0] * len(seeds),
            "final_loss": [1.0] * len(seeds), "parameters": SPEC.to_json(), "weights": weights}


def test_an_ape_seed_is_certified_within_its_table_as_brute_force_says(tmp_path):
    rec = ape_record([0, 1])
    dirs = huang2024.export_models(rec, str(tmp_path))
    certs = {}
    for seed, d in zip(rec["seeds"], dirs, strict=True):
        for mu in ("1/2", "1/4"):
            c = huang2024_certify.certify_seed(d, "binary_majority", mu, 3, 60.0, 16)
            assert c["defined_up_to"] == ROWS
            # certify_seed writes the witness as symbols; the brute force reads the same exported directory
            assert_agrees(json.loads(json.dumps(c)), d, TARGETS["binary_majority"], mu, 0.0, "argmax")
            certs[("binary_majority", "ape", seed, mu)] = c
    preset = huang2024.PRESETS["onelayer"]
    summary = huang2024_certify.summarize([rec], certs, preset, ["1/2", "1/4"], 3, 60.0)
    text = huang2024_certify.table(summary)
    assert "every length" not in text.split("\n\n")[0] and "(01, APE)" in text
    for r in summary["rows"]:
        for v in r["verdicts"]:
            cell = huang2024_certify._verdict_text(v)
            assert cell in text
            if v["verdict"] == "certified":
                assert cell == f"certified on model length <= {ROWS}"
            elif v["verdict"] == "fails":
                assert cell.startswith("fails: `") and "#`" in cell and "shortest" not in cell  # it is the shortest


def test_row_wording_within_the_table_and_at_every_length():
    ape = {"verdict": "undetermined", "defined_up_to": 154, "horizon": {"H": 12, "X": None, "every_length": False}}
    assert huang2024_certify._verdict_text(ape) == "H = 12 of 154"
    assert huang2024_certify._verdict_text({**ape, "verdict": "certified"}) == "certified on model length <= 154"
    # control: a NoPE verdict (no table) keeps its plain wording
    assert huang2024_certify._verdict_text({"verdict": "certified", "defined_up_to": None}) == "certified"
