"""izzo2025:fig2 -- the measured plateau can fail: a negative control for python -m bounds.experiments.measure (tiny training run).

The CLI's unit tests (errors, resume, determinism, batch targets) are in tests/experiments/test_measure.py.
"""

import numpy as np
import pytest

from bounds.experiments.training.data import sample_batch
from constructions.tasks import ModPTask
from verify.claims import checks


@checks("izzo2025:fig2")
def test_negative_control_wrong_index_does_not_reach_plateau():
    """A model trained on ModP(p=2, k=0) fits its task at long lengths far better than ModP(p=2, k=1).

    The measurement is only meaningful if the plateau can fail to drop: evaluated against the wrong index,
    the same trained model's long-length MSE stays near Var(f*) ~ 0.1, above eps = 0.01."""
    pytest.importorskip("torch", reason="torch not installed (pip install torch==2.13.0)")
    import torch

    from bounds.experiments.training.train import rebuild, train_group

    cfg = {"max_steps": 300, "batch": 32, "lr": 3e-2, "qk_lr_scale": 1.0, "test_batch": 128,
           "test_multiples": [2, 4], "plateau_from": 2}
    rec = train_group("modp", {"period": 2}, 8, [0], cfg, device="cpu")
    model = rebuild(rec, 0)
    ids, tg = sample_batch(ModPTask(2, 1), np.random.default_rng(9), 32, 128)
    with torch.no_grad():
        wrong = float(((model(torch.from_numpy(ids)).double().numpy() - tg)[:, 16:] ** 2).mean())
    assert rec["runs"][0]["plateau"] < 0.01 <= wrong, (rec["runs"][0]["plateau"], wrong)
