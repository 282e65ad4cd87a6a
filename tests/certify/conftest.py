"""Fixtures of the certificate's tests."""

import pytest


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """One bounds.experiments.measure record: ModP p = 2, N = 3, two seeds, a few dozen steps (seconds)."""
    pytest.importorskip("torch")
    from bounds.experiments.training.presets import run_key
    from bounds.experiments.training.train import train_group
    from lengthgen_cli.output import write_atomic

    config = {"max_steps": 10, "batch": 16, "lr": 1e-2, "qk_lr_scale": 0.1, "schedule": "cosine",
              "train_loss_target": 1e-4, "positions": "periodic", "pos_period": None, "test_multiples": [2, 4],
              "plateau_from": 2, "test_batch": 16, "attn_length": 8, "d": 4, "width": 8}
    rec = train_group("modp", {"period": 2, "index": 0}, 3, [0, 1], config, device="cpu", threads=1)
    folder = tmp_path_factory.mktemp("runs")
    key = run_key("izzo2025", "modp", {"period": 2, "index": 0}, 3, 2, config)
    write_atomic(str(folder / "r.json"), {"key": key, "fn": "x", "kwargs": {}, "executor": "inline",
                                          "wall_seconds": 0, "record": rec})
    return folder
