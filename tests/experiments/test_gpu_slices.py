"""scripts/gpu_slices.py: the throughput it reads from run records, and the merged record of one machine."""

import importlib.util
import json
import os

import pytest

_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "gpu_slices.py")
_spec = importlib.util.spec_from_file_location("gpu_slices", _PATH)
gpu_slices = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gpu_slices)

ENV = {"torch": "2.11.0+cu130", "cuda_available": True, "gpu": "NVIDIA H200"}


def _record(folder, name, record):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "w") as fh:
        json.dump({"key": name, "kwargs": {"device": "cuda"}, "wall_seconds": 1.0, "record": record}, fh)


def test_records_read_each_papers_step_count(tmp_path):
    _record(tmp_path, "huang.json", {"steps": [80, 100], "train_seconds": 4.0, "device": "cuda", "seeds": [0, 1]})
    _record(tmp_path, "izzo.json", {"runs": [{"steps": 50}, {"steps": 60}], "train_seconds": 2.0, "seeds": [0]})
    _record(tmp_path, "ahuja.json", {"config": {"steps": 30}, "train_seconds": 3.0, "seeds": [0]})
    _record(tmp_path, "untrained.json", {"steps": [5]})  # no train_seconds: not a throughput record
    rows = {r["key"]: r for r in gpu_slices.records(str(tmp_path))}
    assert set(rows) == {"huang.json", "izzo.json", "ahuja.json"}
    assert rows["huang.json"]["steps_per_second"] == 25.0  # the slowest seed's steps: the batched run's steps
    assert rows["izzo.json"]["steps_per_second"] == 30.0
    assert rows["ahuja.json"]["steps_per_second"] == 10.0
    assert rows["ahuja.json"]["device"] == "cuda"  # from the run's kwargs when the record has none


def _slices(path, slices):
    path.write_text(json.dumps({"environment": ENV, "steps": 100, "slices": slices}))
    return str(path)


def test_merge_keeps_runs_and_lists_what_never_ran(tmp_path):
    first = _slices(tmp_path / "a.json", [{"name": "huang2024-fig1-paper", "returncode": 0, "wall_seconds": 9.0,
                                          "records": []},
                                         {"name": "ahuja2024-table1-paper", "skipped": "budget spent"}])
    second = _slices(tmp_path / "b.json", [{"name": "ahuja2024-table1-paper", "returncode": 1, "wall_seconds": 2.0,
                                           "records": []}])
    to = tmp_path / "merged.json"
    gpu_slices.merge([first, second], None, str(to))
    merged = {s["name"]: s for s in json.loads(to.read_text())["slices"]}
    assert merged["ahuja2024-table1-paper"]["returncode"] == 1  # a later run replaces an earlier skip
    assert merged["izzo2025-modp-paper-config"]["skipped"] == "not reached within the device time"
    assert "| ahuja2024-table1-paper | 1 |" in (tmp_path / "merged.md").read_text()


def test_merge_refuses_two_machines(tmp_path):
    a = _slices(tmp_path / "a.json", [])
    b = tmp_path / "b.json"
    b.write_text(json.dumps({"environment": {**ENV, "gpu": "NVIDIA H100"}, "steps": 100, "slices": []}))
    with pytest.raises(SystemExit, match="different environments"):
        gpu_slices.merge([a, str(b)], None, str(tmp_path / "m.json"))
