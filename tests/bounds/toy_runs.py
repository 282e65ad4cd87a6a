"""A toy sweep run function for tests/bounds/test_training_engine.py (importable by pool workers and Ray tasks)."""

import time


def square(x: int, sleep: float = 0.0) -> dict:
    time.sleep(sleep)
    return {"y": x * x}
