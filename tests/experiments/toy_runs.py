"""A toy sweep run function for tests/experiments/test_training_engine.py (importable by pool workers and Ray tasks)."""

import os
import time


def square(x: int, sleep: float = 0.0, gate: str | None = None, ungated: int = 0) -> dict:
    """x squared after ``sleep`` seconds; runs with x >= ``ungated`` first wait (up to 120 s) for file ``gate``."""
    time.sleep(sleep)
    deadline = time.time() + 120
    while gate is not None and x >= ungated and not os.path.exists(gate) and time.time() < deadline:
        time.sleep(0.02)
    return {"y": x * x}
