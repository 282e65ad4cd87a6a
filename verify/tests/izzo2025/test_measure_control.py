"""izzo2025:fig2 -- the measured plateau can fail: a negative control for python -m bounds.measure (tiny training run).

The CLI's unit tests (errors, resume, determinism, batch targets) are in tests/bounds/test_measure.py.
"""

import numpy as np
import pytest

from constructions.tasks import ModPTask
from verify.claims import checks


@checks("izzo2025:fig2")
def test_negative_control_wrong_index_does_not_reach_plateau():
    """A model trained on ModP(p=2, k=0) fits its task at long lengths far better than ModP(p=2, k=1).

    The measurement is only meaningful if the plateau can fail to drop: evaluated against the wrong index,
    the same trained model's long-length MSE stays near Var(f*) ~ 0.1, above eps = 0.01."""
    pytest.importorskip("torch", reason="torch not installed (pip install torch==2.13.0)")
    from bounds.training.train import RunConfig, evaluate, train_run

    cfg = RunConfig(max_steps=250, batch=32, lr=3e-2, test_batch=128, test_multiples=(2, 4), plateau_from=2)
    rec, model = train_run(ModPTask(2, 0), "modp(p=2,k=0)", 8, 0, cfg, return_model=True)
    wrong = evaluate(model, ModPTask(2, 1), np.random.default_rng(9), 8, cfg, "cpu")
    assert rec["plateau"] < 0.01 <= wrong["plateau"], (rec["plateau"], wrong["plateau"])
